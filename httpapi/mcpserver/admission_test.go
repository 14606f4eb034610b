package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
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

// crawlerReport is a stored report of about n bytes made of the pages of
// a real crawl (the crawler's golden report of its calendar site, each
// page repeated under new URLs), so that the bytes its decode allocates
// are a real report's.
func crawlerReport(t *testing.T, n int) []byte {
	t.Helper()
	b, err := os.ReadFile("../../crawler/testdata/golden/calendar.json")
	if err != nil {
		t.Fatal(err)
	}
	// The golden file names the figures that vary between crawls.
	b = regexp.MustCompile(`"<(responseMs|durationNs|pagesPerSecond)>"`).ReplaceAll(b, []byte("12"))
	b = regexp.MustCompile(`"<(startedAt|finishedAt)>"`).ReplaceAll(b, []byte(`"2026-12-07T13:00:00Z"`))
	var rep crawler.SiteReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	pages := rep.Pages
	one, _ := json.Marshal(pages)
	for i := 0; len(one)*(i+1) < n; i++ {
		for _, pg := range pages {
			pg.URL = fmt.Sprintf("%s?copy=%d", pg.URL, i)
			rep.Pages = append(rep.Pages, pg)
		}
	}
	out, err := json.Marshal(&rep)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// pagesReq is the site_pages call of analysis id.
func pagesReq(id string) string {
	return `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"site_pages","arguments":{"id":"` + id + `"}}}`
}

// pagesAnswer decodes the answer of a site_pages call: its refusal, or
// nil when it answered pages.
func pagesAnswer(t *testing.T, body string) *toolErr {
	t.Helper()
	var a struct {
		Result struct {
			IsError           bool `json:"isError"`
			StructuredContent struct {
				Error *toolErr        `json:"error"`
				Pages json.RawMessage `json:"pages"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(body), &a); err != nil {
		t.Fatalf("site_pages: %v in %.300s", err, body)
	}
	if sc := a.Result.StructuredContent; a.Result.IsError && sc.Error != nil {
		return sc.Error
	} else if len(sc.Pages) < 3 {
		t.Fatalf("site_pages answered neither pages nor a refusal: %.300s", body)
	}
	return nil
}

// TestReportDecodeAdmission: the tools that decode a whole report
// (site_pages here) pass the API's admission control when the report is
// not cached, as a report read: while an account's report read is held
// (a resource read whose answer is not taken), its decode of another
// report is refused at once with /v1's 429, and a decode it would start
// is never run; a report it has in the cache is still served; another
// account's decode goes through meanwhile, allocating within what it
// reserves (mcpserver.ReportDecodeFactor per stored byte).
func TestReportDecodeAdmission(t *testing.T) {
	e := newEnv(t, &httpapi.Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Free: 1000}})
	rep := crawlerReport(t, mcpserver.MaxResourceBytes-1<<20)
	bAcct, err := e.srv.Store().AccountByEmail(context.Background(), "b@example.com")
	if err != nil {
		t.Fatal(err)
	}
	held, cached, other := storeReport(t, e, e.acct, rep), storeReport(t, e, e.acct, rep), storeReport(t, e, e.acct, rep)
	theirs := storeReport(t, e, bAcct.ID, rep)
	sidA, sidB := session(t, e, e.key), session(t, e, e.other)
	if _, body := rawMCP(t, e, e.key, "POST", sidA, pagesReq(cached)); pagesAnswer(t, body) != nil {
		t.Fatalf("A's first decode: %.300s", body)
	}

	// A reads a report without taking its answer: the read stays admitted.
	req, _ := http.NewRequest("POST", e.ts.URL+"/mcp", strings.NewReader(readReq(held)))
	for k, v := range map[string]string{"X-API-Key": e.key, "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Mcp-Session-Id": sidA, "MCP-Protocol-Version": "2025-06-18"} {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()

	_, body := rawMCP(t, e, e.key, "POST", sidA, pagesReq(other))
	if te := pagesAnswer(t, body); te == nil || te.Code != "rate_limited" || te.Status != 429 || te.RetryAfter < 1 || !strings.Contains(te.Message, "report reads") {
		t.Fatalf("A's decode while its read is held: %.300s", body)
	}
	if _, body := rawMCP(t, e, e.key, "POST", sidA, pagesReq(cached)); pagesAnswer(t, body) != nil {
		t.Fatalf("A's cached report while its read is held: %.300s", body)
	}

	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	_, body = rawMCP(t, e, e.other, "POST", sidB, pagesReq(theirs))
	runtime.ReadMemStats(&ms)
	perByte := float64(ms.TotalAlloc-before) / float64(len(rep))
	if pagesAnswer(t, body) != nil {
		t.Fatalf("another account's decode while A's read is held: %.300s", body)
	}
	t.Logf("one site_pages call decoding a %d-byte report allocated %.2f bytes per report byte; it reserves %d", len(rep), perByte, mcpserver.ReportDecodeFactor)
	if perByte > mcpserver.ReportDecodeFactor && !raceEnabled {
		t.Errorf("a decode allocated %.2f bytes per report byte, more than the %d it reserves", perByte, mcpserver.ReportDecodeFactor)
	}

	// The read held was admitted, A's first decode having released its
	// admission when its call returned; once A takes the read's answer,
	// its decode refused above is admitted.
	if b, err := io.ReadAll(resp.Body); err != nil || !bytes.Contains(b, []byte(`"contents"`)) {
		t.Fatalf("the held read: %v %.300s", err, b)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, body = rawMCP(t, e, e.key, "POST", sidA, pagesReq(other))
		if pagesAnswer(t, body) == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("A's decode after its read's answer: %.300s", body)
		}
		time.Sleep(10 * time.Millisecond) // the answer's end releases just after the client has it
	}
}
