package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/store"
)

// cpuTime is the process's user+system CPU time so far.
func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func totalAlloc() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc
}

// pathCost is what the calls of one path cost: each call's wall time,
// and the process's CPU time and allocation over all of them.
type pathCost struct {
	wall  []time.Duration
	cpu   time.Duration
	alloc uint64
	bytes int // the last answer's size on the wire (the HTTP body)
}

func (c *pathCost) median() time.Duration {
	s := slices.Clone(c.wall)
	slices.Sort(s)
	return s[len(s)/2]
}

// countingTransport records the size of the last response body.
type countingTransport struct {
	base http.RoundTripper
	last *int
}

func (c countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.base.RoundTrip(r)
	if err != nil || r.Method != http.MethodPost {
		return resp, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	*c.last = len(b)
	resp.Body = io.NopCloser(strings.NewReader(string(b)))
	return resp, err
}

// TestOverheadAnalyzePage compares analyze_page over /mcp with the same
// POST /v1/analyze/page on the same loopback page, like with like: each
// path has its own keep-alive HTTP client (the MCP session's POSTs reuse
// its connection as the /v1 calls reuse theirs), both clients decode the
// answer's JSON, and the calls alternate (MCP first on even rounds, /v1
// first on odd ones), 200 of each after 20 warming rounds. It prints the
// median wall time of each and their ratio, and the process's CPU time
// and allocation per call of each path, which depend less on the
// machine's load than wall time. SEOKIT_MCP_OVERHEAD_CALLS sets the number
// of calls.
//
// A third path sends the same tools/call over the same session from a
// plain HTTP client that decodes the answer as the /v1 client does: the
// server's own share of the overhead, without the Go SDK client's.
//
// The assertions hold on a busy machine as on an idle one, so they are
// not on wall time: the server's share of an MCP call may allocate at most
// 3.1 times what the /v1 call does (3.3 with a JSON text copy of the
// result), and cost at most twice its CPU, 2.5 times with the SDK client.
func TestOverheadAnalyzePage(t *testing.T) {
	if testing.Short() {
		t.Skip("measures 400 calls")
	}
	calls := 200
	if v := os.Getenv("SEOKIT_MCP_OVERHEAD_CALLS"); v != "" {
		calls, _ = strconv.Atoi(v)
	}
	const warm = 20
	e := newEnv(t, &httpapi.Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Free: 10 * (calls + warm)}, BurstRate: 1e6, Burst: 1e6})
	site := newGatedSite(t)
	site.open()
	pageURL := site.URL + "/a"

	var mcpCost, v1Cost pathCost
	mcpTr := &http.Transport{MaxIdleConnsPerHost: 4}
	v1Tr := &http.Transport{MaxIdleConnsPerHost: 4}
	t.Cleanup(mcpTr.CloseIdleConnections)
	t.Cleanup(v1Tr.CloseIdleConnections)
	cs := e.connectLong(e.key, countingTransport{mcpTr, &mcpCost.bytes})
	v1Client := &http.Client{Transport: v1Tr}
	body := fmt.Sprintf(`{"url":%q}`, pageURL)

	callMCP := func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "analyze_page", Arguments: map[string]any{"url": pageURL}})
		if err != nil || res.IsError {
			t.Fatalf("analyze_page: %v %+v", err, res)
		}
		if m, _ := res.StructuredContent.(map[string]any); m["url"] != pageURL {
			t.Fatalf("analyze_page answered %v", res.StructuredContent)
		}
	}
	callV1 := func() {
		req, _ := http.NewRequest("POST", e.ts.URL+"/v1/analyze/page", strings.NewReader(body))
		req.Header.Set("X-API-Key", e.key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := v1Client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		var m map[string]any
		if err != nil || resp.StatusCode != 200 || json.Unmarshal(b, &m) != nil || m["url"] != pageURL {
			t.Fatalf("/v1/analyze/page: %d %.300s", resp.StatusCode, b)
		}
		v1Cost.bytes = len(b)
	}
	// callRaw is the same tools/call over the session, from a plain HTTP
	// client that decodes the answer as callV1 does: the server's share
	// of the MCP overhead, without the SDK client's.
	rawTr := &http.Transport{MaxIdleConnsPerHost: 4}
	t.Cleanup(rawTr.CloseIdleConnections)
	rawClient := &http.Client{Transport: rawTr}
	rawBody := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"analyze_page","arguments":{"url":%q}}}`, pageURL)
	callRaw := func() {
		req, _ := http.NewRequest("POST", e.ts.URL+"/mcp", strings.NewReader(rawBody))
		req.Header.Set("X-API-Key", e.key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", cs.ID())
		req.Header.Set("Mcp-Protocol-Version", cs.InitializeResult().ProtocolVersion)
		resp, err := rawClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			// One event: "event: message\ndata: {...}\n\n".
			if i := bytes.Index(b, []byte("data: ")); i >= 0 {
				b = b[i+len("data: "):]
				if j := bytes.IndexByte(b, '\n'); j >= 0 {
					b = b[:j]
				}
			}
		}
		var m struct {
			Result struct {
				StructuredContent map[string]any   `json:"structuredContent"`
				Content           []map[string]any `json:"content"`
			} `json:"result"`
		}
		if err != nil || resp.StatusCode != 200 || json.Unmarshal(b, &m) != nil || m.Result.StructuredContent["url"] != pageURL {
			t.Fatalf("/mcp tools/call: %d %.300s", resp.StatusCode, b)
		}
	}
	var rawCost pathCost
	measure := func(c *pathCost, f func(), keep bool) {
		a0, c0, t0 := totalAlloc(), cpuTime(t), time.Now()
		f()
		d, dc, da := time.Since(t0), cpuTime(t)-c0, totalAlloc()-a0
		if keep {
			c.wall = append(c.wall, d)
			c.cpu += dc
			c.alloc += da
		}
	}
	for i := range calls + warm {
		keep := i >= warm
		if i%2 == 0 {
			measure(&rawCost, callRaw, keep)
			measure(&mcpCost, callMCP, keep)
			measure(&v1Cost, callV1, keep)
		} else {
			measure(&v1Cost, callV1, keep)
			measure(&mcpCost, callMCP, keep)
			measure(&rawCost, callRaw, keep)
		}
	}
	m, v := mcpCost.median(), v1Cost.median()
	n := time.Duration(calls)
	cpuRatio := float64(mcpCost.cpu) / float64(v1Cost.cpu)
	t.Logf("analyze_page median over %d calls each: MCP %v, /v1 %v, ratio %.3f", calls, m.Round(time.Microsecond), v.Round(time.Microsecond), float64(m)/float64(v))
	t.Logf("CPU per call (process user+sys): MCP %v, /v1 %v, ratio %.3f; allocated per call: MCP %d KB, /v1 %d KB; answer on the wire: MCP %d bytes, /v1 %d bytes",
		(mcpCost.cpu / n).Round(time.Microsecond), (v1Cost.cpu / n).Round(time.Microsecond), cpuRatio,
		mcpCost.alloc/uint64(calls)>>10, v1Cost.alloc/uint64(calls)>>10, mcpCost.bytes, v1Cost.bytes)
	r := rawCost.median()
	t.Logf("server side, same plain HTTP client: MCP %v, /v1 %v, ratio %.3f; CPU per call MCP %v, ratio %.3f; allocated per call %d KB",
		r.Round(time.Microsecond), v.Round(time.Microsecond), float64(r)/float64(v), (rawCost.cpu / n).Round(time.Microsecond), float64(rawCost.cpu)/float64(v1Cost.cpu), rawCost.alloc/uint64(calls)>>10)
	if a := float64(rawCost.alloc) / float64(v1Cost.alloc); a > 3.1 {
		t.Errorf("the server's share of an MCP call allocates %.2f times what the /v1 call does (limit 3.1)", a)
	}
	if rawRatio := float64(rawCost.cpu) / float64(v1Cost.cpu); rawRatio > 2 {
		t.Errorf("the server's share of an MCP call costs %.2f times the CPU of the /v1 call (limit 2)", rawRatio)
	}
	if cpuRatio > 2.5 {
		t.Errorf("an MCP call with the SDK client costs %.2f times the CPU of the /v1 call (limit 2.5)", cpuRatio)
	}
}
