package mcpserver_test

import (
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

	"github.com/seokit/seokit/crawler/crawlertest"
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

// memStats returns the bytes allocated so far and the number of
// completed GC cycles.
func memStats() (uint64, uint32) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc, ms.NumGC
}

// pathCost is what the calls of one path cost: each call's wall time,
// and the process's CPU time and allocation over all of them.
type pathCost struct {
	wall  []time.Duration
	cpu   time.Duration
	alloc uint64
	gcs   uint32 // GC cycles completed during the calls
	bytes int    // the last answer's size on the wire (the HTTP body)
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
// POST /v1/analyze/page, like with like: the same page, one keep-alive
// HTTP client sending both (the MCP call as a plain tools/call on an
// initialized session, its answer decoded as the /v1 one is), the calls
// alternated (MCP first on even rounds, /v1 first on odd ones), 200 of
// each after 20 warming rounds, in one run. It does so on two pages: a
// tiny one (a few hundred bytes of HTML, where the analysis is cheapest
// and the fixed cost of a call weighs most) and a page of typical size
// (an article of crawlertest's generated site, about 60 KB). For each it
// prints the median wall time of both paths, the absolute overhead and
// the ratio, and the process's CPU time and allocation per call, which
// depend less on the machine's load than wall time. On the tiny page a
// third path sends the call through the Go SDK's client: what an agent
// built on it pays, the client's own decoding included.
// SEOKIT_MCP_OVERHEAD_CALLS sets the number of calls.
//
// The assertions hold on a busy machine as on an idle one, so they are
// not on wall time: on either page an MCP call may allocate at most
// 256 KB more than the /v1 call (the SDK's fixed cost per message,
// docs/mcp.md); on the tiny page at most 3.1 times what the /v1 call
// allocates and twice its CPU (2.5 times with the SDK client); on the
// typical page at most 1.5 times its CPU.
func TestOverheadAnalyzePage(t *testing.T) {
	if testing.Short() {
		t.Skip("measures 1,400 calls")
	}
	if raceEnabled {
		t.Skip("measures CPU and allocation, which the race detector changes")
	}
	calls := 200
	if v := os.Getenv("SEOKIT_MCP_OVERHEAD_CALLS"); v != "" {
		calls, _ = strconv.Atoi(v)
	}
	const warm = 20
	e := newEnv(t, &httpapi.Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Free: 10 * (calls + warm)}, BurstRate: 1e6, Burst: 1e6})
	tiny := newGatedSite(t)
	tiny.open()
	typical := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 10, PageBytes: 60_000, NoRequestLog: true})
	t.Cleanup(typical.Close)

	tr := &http.Transport{MaxIdleConnsPerHost: 4}
	t.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr}
	sdkTr := &http.Transport{MaxIdleConnsPerHost: 4}
	t.Cleanup(sdkTr.CloseIdleConnections)
	var sdkBytes int
	cs := e.connectLong(e.key, countingTransport{sdkTr, &sdkBytes})

	post := func(path, body string, hdr ...string) []byte { return e.post(t, client, path, body, hdr...) }
	pageSize := func(u string) int {
		resp, err := client.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return len(b)
	}
	type paths struct {
		mcp, v1, sdk pathCost
	}
	run := func(pageURL string, withSDK bool) *paths {
		var c paths
		v1Body := fmt.Sprintf(`{"url":%q}`, pageURL)
		mcpBody := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"analyze_page","arguments":{"url":%q}}}`, pageURL)
		callV1 := func() {
			b := post("/v1/analyze/page", v1Body)
			var m map[string]any
			if json.Unmarshal(b, &m) != nil || m["url"] != pageURL {
				t.Fatalf("/v1/analyze/page: %.300s", b)
			}
			c.v1.bytes = len(b)
		}
		callMCP := func() {
			b := post("/mcp", mcpBody, "Accept", "application/json, text/event-stream", "Mcp-Session-Id", cs.ID(),
				"Mcp-Protocol-Version", cs.InitializeResult().ProtocolVersion)
			var m struct {
				Result struct {
					StructuredContent map[string]any   `json:"structuredContent"`
					Content           []map[string]any `json:"content"`
				} `json:"result"`
			}
			if json.Unmarshal(b, &m) != nil || m.Result.StructuredContent["url"] != pageURL {
				t.Fatalf("/mcp tools/call: %.300s", b)
			}
			c.mcp.bytes = len(b)
		}
		callSDK := func() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "analyze_page", Arguments: map[string]any{"url": pageURL}})
			if err != nil || res.IsError {
				t.Fatalf("analyze_page: %v %+v", err, res)
			}
			if m, _ := res.StructuredContent.(map[string]any); m["url"] != pageURL {
				t.Fatalf("analyze_page answered %v", res.StructuredContent)
			}
			c.sdk.bytes = sdkBytes
		}
		measure := func(p *pathCost, f func(), keep bool) {
			a0, g0 := memStats()
			c0, t0 := cpuTime(t), time.Now()
			f()
			d, dc := time.Since(t0), cpuTime(t)-c0
			a1, g1 := memStats()
			if keep {
				p.wall = append(p.wall, d)
				p.cpu += dc
				p.alloc += a1 - a0
				p.gcs += g1 - g0
			}
		}
		order := []func(bool){
			func(keep bool) { measure(&c.mcp, callMCP, keep) },
			func(keep bool) { measure(&c.v1, callV1, keep) },
		}
		if withSDK {
			order = append(order, func(keep bool) { measure(&c.sdk, callSDK, keep) })
		}
		for i := range calls + warm {
			for k := range order {
				if i%2 == 1 {
					k = len(order) - 1 - k
				}
				order[k](i >= warm)
			}
		}
		return &c
	}
	n := time.Duration(calls)
	report := func(label string, c *paths) (cpuRatio, allocRatio float64) {
		m, v := c.mcp.median(), c.v1.median()
		cpuRatio = float64(c.mcp.cpu) / float64(c.v1.cpu)
		allocRatio = float64(c.mcp.alloc) / float64(c.v1.alloc)
		if extra := (int64(c.mcp.alloc) - int64(c.v1.alloc)) / int64(calls); extra > 256<<10 {
			t.Errorf("%s: an MCP call allocates %d KB more than the /v1 call (limit 256 KB)", label, extra>>10)
		}
		t.Logf("%s: analyze_page median over %d calls each, one keep-alive HTTP client: MCP %v, /v1 %v, overhead %.3fms, ratio %.3f",
			label, calls, m.Round(time.Microsecond), v.Round(time.Microsecond), float64(m-v)/1e6, float64(m)/float64(v))
		t.Logf("%s: CPU per call (process user+sys): MCP %v, /v1 %v, ratio %.3f; allocated per call: MCP %d KB, /v1 %d KB; GC cycles: MCP %d, /v1 %d; answer: MCP %d bytes, /v1 %d bytes",
			label, (c.mcp.cpu / n).Round(time.Microsecond), (c.v1.cpu / n).Round(time.Microsecond), cpuRatio,
			c.mcp.alloc/uint64(calls)>>10, c.v1.alloc/uint64(calls)>>10, c.mcp.gcs, c.v1.gcs, c.mcp.bytes, c.v1.bytes)
		return cpuRatio, allocRatio
	}

	tinyURL, typicalURL := tiny.URL+"/a", typical.ArticleURL(3)
	small := run(tinyURL, true)
	large := run(typicalURL, false)
	cpuTiny, allocTiny := report(fmt.Sprintf("tiny page (%d bytes)", pageSize(tinyURL)), small)
	s, v := small.sdk.median(), small.v1.median()
	sdkCPU := float64(small.sdk.cpu) / float64(small.v1.cpu)
	t.Logf("tiny page, MCP call through the Go SDK client: median %v, ratio to /v1 %.3f; CPU per call %v, ratio %.3f; allocated per call %d KB; answer %d bytes",
		s.Round(time.Microsecond), float64(s)/float64(v), (small.sdk.cpu / n).Round(time.Microsecond), sdkCPU, small.sdk.alloc/uint64(calls)>>10, small.sdk.bytes)
	cpuTypical, _ := report(fmt.Sprintf("typical page (%d bytes, a crawlertest article)", pageSize(typicalURL)), large)

	if allocTiny > 3.1 {
		t.Errorf("on the tiny page an MCP call allocates %.2f times what the /v1 call does (limit 3.1)", allocTiny)
	}
	if cpuTiny > 2 {
		t.Errorf("on the tiny page an MCP call costs %.2f times the CPU of the /v1 call (limit 2)", cpuTiny)
	}
	if sdkCPU > 2.5 {
		t.Errorf("on the tiny page an MCP call with the SDK client costs %.2f times the CPU of the /v1 call (limit 2.5)", sdkCPU)
	}
	if cpuTypical > 1.5 {
		t.Errorf("on the typical page an MCP call costs %.2f times the CPU of the /v1 call (limit 1.5)", cpuTypical)
	}
}
