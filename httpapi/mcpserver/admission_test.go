package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/mcpserver"
	"github.com/seokit/seokit/httpapi/store"
)

// bigReport is a stored report of about n bytes shaped as the crawler's
// (URLs, titles, quoted and HTML evidence, which JSON escapes), so that
// the bytes its read allocates are a real report's.
func bigReport(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"domain":"example.com","pages":[`)
	for i := 0; b.Len() < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"url":"https://example.com/shop/product-%d?ref=nav","status":200,"title":"Product %d \"special\" & more","findings":[{"id":"links.broken","evidence":{"element":"<a href=\"/p/%d\">","value":"https://example.com/p/%d"}}]}`, i, i, i, i)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// storeReport stores a succeeded site analysis of account with report
// as its stored JSON and returns its id.
func storeReport(t *testing.T, e *env, account string, report []byte) string {
	t.Helper()
	ctx := context.Background()
	req, _ := json.Marshal(httpapi.SiteRequest{Domain: "example.com"})
	j := &store.Job{AccountID: account, Kind: "site", Status: store.JobQueued, Request: req, CreatedAt: time.Now()}
	if err := e.srv.Store().CreateJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	j.Status, j.FinishedAt, j.Result = store.JobSucceeded, time.Now(), report
	if err := e.srv.Store().UpdateJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	return j.ID
}

// session opens an MCP session over raw HTTP with key and returns its id.
func session(t *testing.T, e *env, key string) string {
	t.Helper()
	resp, body := rawMCP(t, e, key, "POST", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || sid == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	rawMCP(t, e, key, "POST", sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return sid
}

// readReq is the resources/read of analysis id's report.
func readReq(id string) string {
	return `{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"seokit://analyses/` + id + `/report"}}`
}

// TestReportResourceAdmission: reading a report whole as a resource
// passes the API's admission control, holding its reservation until the
// answer is written: one account reads one report at a time (a second
// read is refused at once with /v1's 429, before anything is read), so
// one tenant's reads cannot take the memory budget from another's, whose
// read goes through meanwhile; the bytes one read allocates stay within
// what it reserves (mcpserver.ReportReadFactor per stored byte).
func TestReportResourceAdmission(t *testing.T) {
	e := newEnv(t, &httpapi.Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Free: 1000}})
	// Near MaxResourceBytes, past what loopback sockets buffer: the
	// held answer's write blocks.
	rep := bigReport(mcpserver.MaxResourceBytes - 1<<20)
	mine := storeReport(t, e, e.acct, rep)
	bAcct, err := e.srv.Store().AccountByEmail(context.Background(), "b@example.com")
	if err != nil {
		t.Fatal(err)
	}
	theirs := storeReport(t, e, bAcct.ID, rep)
	sidA, sidB := session(t, e, e.key), session(t, e, e.other)

	// A reads without taking its answer: the read stays admitted.
	req, _ := http.NewRequest("POST", e.ts.URL+"/mcp", strings.NewReader(readReq(mine)))
	for k, v := range map[string]string{"X-API-Key": e.key, "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Mcp-Session-Id": sidA, "MCP-Protocol-Version": "2025-06-18"} {
		req.Header.Set(k, v)
	}
	held, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Body.Close()

	// A second read of A is refused as /v1 refuses an account over its
	// concurrency; B's read goes through.
	_, body := rawMCP(t, e, e.key, "POST", sidA, readReq(mine))
	var refusal struct {
		Error struct {
			Data struct{ Error toolErr }
		}
	}
	json.Unmarshal([]byte(body), &refusal)
	if te := refusal.Error.Data.Error; te.Code != "rate_limited" || te.Status != 429 || te.RetryAfter < 1 || !strings.Contains(te.Message, "report reads") {
		t.Fatalf("a second read of one account: %.300s", body)
	}
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	// The answer is counted, not kept: what is allocated is the server's.
	req, _ = http.NewRequest("POST", e.ts.URL+"/mcp", strings.NewReader(readReq(theirs)))
	for k, v := range map[string]string{"X-API-Key": e.other, "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Mcp-Session-Id": sidB, "MCP-Protocol-Version": "2025-06-18"} {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	runtime.ReadMemStats(&ms)
	perByte := float64(ms.TotalAlloc-before) / float64(len(rep))
	if resp.StatusCode != 200 || err != nil || n < int64(len(rep)) {
		t.Fatalf("another account's read while A's is held: %d, %d bytes, %v", resp.StatusCode, n, err)
	}
	t.Logf("one read of a %d-byte report (a %d-byte answer) allocated %.2f bytes per report byte; it reserves %d", len(rep), n, perByte, mcpserver.ReportReadFactor)
	if perByte > mcpserver.ReportReadFactor && !raceEnabled { // the race detector allocates more (16.1)
		t.Errorf("a read allocated %.2f bytes per report byte, more than the %d it reserves", perByte, mcpserver.ReportReadFactor)
	}

	// A report past MaxResourceBytes is refused before it is read, naming
	// the tools that page it.
	huge := storeReport(t, e, bAcct.ID, bigReport(mcpserver.MaxResourceBytes+1))
	_, body = rawMCP(t, e, e.other, "POST", sidB, readReq(huge))
	json.Unmarshal([]byte(body), &refusal)
	if te := refusal.Error.Data.Error; te.Code != "conflict" || !strings.Contains(te.Message, "site_findings and site_pages") {
		t.Errorf("a report past MaxResourceBytes: %.300s", body)
	}

	// Once A takes its answer, its next read is admitted.
	b, err := io.ReadAll(held.Body)
	if err != nil || !bytes.Contains(b, []byte(`"contents"`)) {
		t.Fatalf("the held read: %v %.300s", err, b)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, body = rawMCP(t, e, e.key, "POST", sidA, readReq(mine))
		if strings.Contains(body, `"contents"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("A's read after its first answer: %.300s", body)
		}
		time.Sleep(10 * time.Millisecond) // the answer's end releases just after the client has it
	}
}
