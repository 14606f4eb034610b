package mcpserver_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/mcpserver"
	"github.com/seokit/seokit/httpapi/store"
)

// TestHTTPSession drives the server as an agent would, over Streamable
// HTTP on loopback with the Go SDK's client: list the tools, analyse a
// loopback page, start a site analysis, follow its progress (a
// notification arrives while the crawl is held on a page), page through
// its findings with the cursor until none is left, and read its report
// resource.
func TestHTTPSession(t *testing.T) {
	e := newEnv(t, &httpapi.Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Free: 10_000}})
	site := newGatedSite(t)
	progress := make(chan *mcp.ProgressNotificationParams, 16)
	cs := e.connect(e.key, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		select {
		case progress <- r.Params:
		default:
		}
	}})
	ctx := context.Background()

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if tl.OutputSchema == nil {
			t.Errorf("tool %s has no output schema", tl.Name)
		}
	}
	want := e.srv.MCP().Tools()
	if len(names) != len(want) {
		t.Fatalf("listed %d tools, the server has %d", len(names), len(want))
	}
	b, _ := json.Marshal(tools)
	t.Logf("tool list: %d tools, %d bytes", len(names), len(b))

	var page mcpserver.PageAnalysis
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "analyze_page", Arguments: map[string]any{"url": site.URL + "/a", "sections": []string{"headings"}}})
	if err != nil {
		t.Fatal(err)
	}
	if te := decodeResult(t, "analyze_page", res, &page); te != nil {
		t.Fatalf("analyze_page: %+v", te)
	}
	wire, _ := json.Marshal(res)
	t.Logf("analyze_page answer: %d bytes on the wire, %d findings, %d left out", len(wire), len(page.Findings), page.FindingsOmitted)
	if page.Status != 200 || page.Title != "Page /a" || page.Score == nil || page.Sections["headings"] == nil || !slices.Contains(page.Omitted, "links") {
		t.Fatalf("analyze_page answered %+v", page)
	}

	var job mcpserver.Analysis
	if te := call(t, cs, "start_site_analysis", map[string]any{"url": site.URL + "/", "options": map[string]any{"maxPages": 10, "skipExternalLinks": true}}, &job); te != nil {
		t.Fatalf("start_site_analysis: %+v", te)
	}
	if job.ID == "" || job.Status != "queued" && job.Status != "running" {
		t.Fatalf("start answered %+v", job)
	}
	// The crawl is held on /slow: wait's first look finds it unfinished
	// and reports progress; the page is released when that arrives.
	var (
		st   mcpserver.AnalysisState
		werr error
		wg   sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		p := &mcp.CallToolParams{Name: "wait_site_analysis", Arguments: map[string]any{"id": job.ID, "timeoutSeconds": 120}}
		p.SetProgressToken("wait-1")
		res, err := cs.CallTool(ctx, p)
		if err != nil {
			werr = err
			return
		}
		b, _ := json.Marshal(res.StructuredContent)
		if res.IsError {
			werr = fmt.Errorf("wait refused: %s", b)
			return
		}
		werr = json.Unmarshal(b, &st)
	}()
	select {
	case p := <-progress:
		if p.ProgressToken != "wait-1" || p.Message == "" {
			t.Errorf("progress %+v", p)
		}
	case <-time.After(60 * time.Second):
		t.Error("no progress notification while the crawl was held")
	}
	site.open()
	wg.Wait()
	if werr != nil {
		t.Fatal(werr)
	}
	if st.Analysis.Status != "succeeded" || st.Summary == nil || st.Summary.Pages < 3 || st.TimedOut {
		t.Fatalf("wait answered %+v", st)
	}

	// Page the findings one at a time: every group exactly once.
	var seen []string
	cursor := ""
	total := -1
	for range 100 {
		var fl mcpserver.FindingList
		args := map[string]any{"id": job.ID, "limit": 1}
		if cursor != "" {
			args["cursor"] = cursor
		}
		if te := call(t, cs, "site_findings", args, &fl); te != nil {
			t.Fatalf("site_findings: %+v", te)
		}
		total = fl.Page.Total
		for _, f := range fl.Findings {
			seen = append(seen, f.ID)
		}
		if fl.Page.Returned != len(fl.Findings) || fl.Page.Omitted != total-len(fl.Findings) {
			t.Fatalf("page info %+v with %d findings", fl.Page, len(fl.Findings))
		}
		if cursor = fl.Page.NextCursor; cursor == "" {
			break
		}
	}
	if total != st.Summary.Checks || len(seen) != total || total == 0 {
		t.Fatalf("paged %d findings %v, total %d, report has %d", len(seen), seen, total, st.Summary.Checks)
	}
	var ff mcpserver.FixFirst
	if te := call(t, cs, "fix_first", map[string]any{"id": job.ID, "top": 2}, &ff); te != nil {
		t.Fatal(te)
	}
	if len(ff.Findings) != min(2, total) || ff.Omitted != total-len(ff.Findings) || len(ff.Findings[0].Examples) > 3 {
		t.Fatalf("fix_first %+v", ff)
	}
	var pl mcpserver.PageList
	if te := call(t, cs, "site_pages", map[string]any{"id": job.ID, "url": "*/slow", "fields": []string{"url", "status"}}, &pl); te != nil {
		t.Fatal(te)
	}
	if pl.Page.Total != 1 || len(pl.Pages) != 1 || string(pl.Pages[0]["status"]) != "200" || len(pl.Pages[0]) != 2 {
		t.Fatalf("site_pages %+v", pl)
	}

	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "seokit://analyses/" + job.ID + "/report"})
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Pages []struct {
			URL string `json:"url"`
		} `json:"pages"`
	}
	if len(rr.Contents) != 1 || json.Unmarshal([]byte(rr.Contents[0].Text), &rep) != nil || len(rep.Pages) != st.Summary.Pages {
		t.Fatalf("report resource: %d contents", len(rr.Contents))
	}

	var ci struct {
		ID      string `json:"id"`
		Summary string `json:"summary"`
	}
	if te := call(t, cs, "explain_check", map[string]any{"id": seen[0]}, &ci); te != nil || ci.ID != seen[0] || ci.Summary == "" {
		t.Fatalf("explain_check %s: %+v %+v", seen[0], ci, te)
	}
}

// TestPermissionsAndAccounts: a read-only key reads and is refused every
// write tool with the /v1 refusal; another account neither sees the
// analysis through a tool nor reads its report resource.
func TestPermissionsAndAccounts(t *testing.T) {
	e := newEnv(t, &httpapi.Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Free: 10_000}})
	owner := e.connect(e.key, nil)
	var job mcpserver.Analysis
	if te := call(t, owner, "start_site_analysis", map[string]any{"domain": "example.invalid", "options": map[string]any{"maxPages": 1}}, &job); te != nil {
		t.Fatalf("start: %+v", te)
	}

	ro := e.connect(e.ro, nil)
	if te := call(t, ro, "get_site_analysis", map[string]any{"id": job.ID}, nil); te != nil {
		t.Fatalf("read-only get: %+v", te)
	}
	_, body := e.v1("POST", "/v1/analyze/site", e.ro, `{"domain":"example.com"}`)
	var v1 struct{ Error toolErr }
	json.Unmarshal(body, &v1)
	for _, tl := range e.srv.MCP().Tools() {
		if !tl.Write {
			continue
		}
		te := call(t, ro, tl.Name, map[string]any{}, nil)
		if te == nil || te.Code != "forbidden" || te.Status != 403 {
			t.Errorf("read-only key called %s: %+v", tl.Name, te)
		}
	}
	if te := call(t, ro, "start_site_analysis", map[string]any{"domain": "example.com"}, nil); te == nil || te.Message != v1.Error.Message {
		t.Errorf("refusal %+v, /v1's %+v", te, v1.Error)
	}

	other := e.connect(e.other, nil)
	te := call(t, other, "get_site_analysis", map[string]any{"id": job.ID}, nil)
	if te == nil || te.Code != "not_found" {
		t.Fatalf("another account read the analysis: %+v", te)
	}
	if te := call(t, other, "cancel_site_analysis", map[string]any{"id": job.ID}, nil); te == nil || te.Code != "not_found" {
		t.Fatalf("another account canceled the analysis: %+v", te)
	}
	var list mcpserver.AnalysisList
	if te := call(t, other, "list_site_analyses", map[string]any{}, &list); te != nil || list.Page.Total != 0 {
		t.Fatalf("another account lists %+v %+v", list, te)
	}
	if _, err := other.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "seokit://analyses/" + job.ID + "/report"}); err == nil {
		t.Fatal("another account read the report resource")
	}
}

// TestQuotaRefusal: opening a session and each tool call count one
// request; a tool call over the plan's daily limit is refused with /v1's
// code, message and Retry-After, and so is a new session (the server
// holds each session: uncharged, one account could open them without
// bound).
func TestQuotaRefusal(t *testing.T) {
	e := newEnv(t, &httpapi.Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Free: 5}})
	// The SDK's client opens a session with server/discover and
	// initialize, two requests, then the session's GET stream, charged
	// too but opened concurrently with the calls: this client opens none,
	// so the count is known.
	c := mcp.NewClient(&mcp.Implementation{Name: "seokit-test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: e.ts.URL + "/mcp", MaxRetries: -1,
		HTTPClient: &http.Client{Transport: noStream{headerTransport{"X-API-Key", e.key, http.DefaultTransport}}, Timeout: 60 * time.Second}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for i := range 3 {
		if te := call(t, cs, "list_site_analyses", map[string]any{}, nil); te != nil {
			t.Fatalf("call %d refused: %+v", i, te)
		}
	}
	te := call(t, cs, "list_site_analyses", map[string]any{}, nil)
	code, body := e.v1("GET", "/v1/analyze/site", e.key, "")
	var v1 struct{ Error toolErr }
	json.Unmarshal(body, &v1)
	if te == nil || code != 429 || te.Code != "rate_limited" || te.Code != v1.Error.Code || te.Message != v1.Error.Message || te.RetryAfter < 1 {
		t.Fatalf("over the limit: tool %+v, /v1 %d %s", te, code, body)
	}
	req, _ := http.NewRequest("POST", e.ts.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	req.Header.Set("X-API-Key", e.key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var init struct{ Error toolErr }
	json.NewDecoder(resp.Body).Decode(&init)
	if resp.StatusCode != 429 || init.Error.Code != "rate_limited" || resp.Header.Get("Retry-After") == "" || resp.Header.Get("Mcp-Session-Id") != "" {
		t.Fatalf("a new session over the limit: %d %+v, Retry-After %q, session %q", resp.StatusCode, init.Error, resp.Header.Get("Retry-After"), resp.Header.Get("Mcp-Session-Id"))
	}
}

// noStream answers the GET of a session's stream with 405, as a server
// without one does, without sending it.
type noStream struct{ base http.RoundTripper }

func (n noStream) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodGet {
		return &http.Response{StatusCode: http.StatusMethodNotAllowed, Header: http.Header{}, Body: http.NoBody, Request: r}, nil
	}
	return n.base.RoundTrip(r)
}

// rawMCP sends one MCP request over HTTP with key, in session sid when
// not empty, and returns the answer with its body read.
func rawMCP(t *testing.T, e *env, key, method, sid, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(method, e.ts.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("X-API-Key", key)
	req.Header.Set("Accept", "application/json, text/event-stream")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if method == http.MethodGet && resp.StatusCode == http.StatusOK {
		return resp, "" // the session's stream: open until the session ends
	}
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestCheapRequestsCharged: every MCP request the server answers counts
// one request of the account's daily limit and burst, as every /v1
// request (GETs included) does: tools/list, ping, resources/list and
// the session's GET stream as initialize does; a tools/call once;
// the client's notifications nothing. Past the burst they are refused
// with /v1's 429 and Retry-After.
func TestCheapRequestsCharged(t *testing.T) {
	e := newEnv(t, &httpapi.Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Free: 1000}})
	remaining := func() int {
		t.Helper()
		req, _ := http.NewRequest("GET", e.ts.URL+"/v1/analyze/site", nil)
		req.Header.Set("X-API-Key", e.key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		n, err := strconv.Atoi(resp.Header.Get("X-RateLimit-Remaining"))
		if err != nil {
			t.Fatalf("X-RateLimit-Remaining %q", resp.Header.Get("X-RateLimit-Remaining"))
		}
		return n
	}
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	before := remaining()
	resp, body := rawMCP(t, e, e.key, "POST", "", initialize)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || sid == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	charged := func(what string, want int, send func()) {
		t.Helper()
		at := remaining()
		send()
		if got := at - 1 - remaining(); got != want {
			t.Errorf("%s charged %d requests, want %d", what, got, want)
		}
	}
	charged("notifications/initialized", 0, func() {
		if resp, body := rawMCP(t, e, e.key, "POST", sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode/100 != 2 {
			t.Fatalf("notifications/initialized: %d %s", resp.StatusCode, body)
		}
	})
	for i, m := range []string{"tools/list", "ping", "resources/list", "resources/templates/list"} {
		charged(m, 1, func() {
			if resp, body := rawMCP(t, e, e.key, "POST", sid, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q}`, i+2, m)); resp.StatusCode != 200 || !strings.Contains(body, `"result"`) {
				t.Fatalf("%s: %d %.300s", m, resp.StatusCode, body)
			}
		})
	}
	charged("the session's GET stream", 1, func() {
		if resp, _ := rawMCP(t, e, e.key, "GET", sid, ""); resp.StatusCode != 200 {
			t.Fatalf("GET stream: %d", resp.StatusCode)
		}
	})
	charged("tools/call", 1, func() {
		if resp, body := rawMCP(t, e, e.key, "POST", sid, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"list_site_analyses","arguments":{}}}`); resp.StatusCode != 200 || strings.Contains(body, `"isError":true`) {
			t.Fatalf("tools/call: %d %s", resp.StatusCode, body)
		}
	})
	// initialize, then each step's cost and its two /v1 reads, then the
	// last read.
	if after := remaining(); before-after != 1+(0+2)+4*(1+2)+(1+2)+(1+2)+1 {
		t.Errorf("the session charged %d requests in all, /v1 reads included", before-after)
	}

	// Past the account's burst (3), a cheap request is refused as /v1
	// refuses one.
	b := newEnv(t, &httpapi.Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Free: 1000}, BurstRate: 0.001, Burst: 3})
	resp, body = rawMCP(t, b, b.key, "POST", "", initialize)
	sid = resp.Header.Get("Mcp-Session-Id")
	for i, m := range []string{"tools/list", "ping", "tools/list"} {
		resp, body = rawMCP(t, b, b.key, "POST", sid, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q}`, i+2, m))
	}
	var refusal struct{ Error toolErr }
	json.Unmarshal([]byte(body), &refusal)
	if resp.StatusCode != 429 || refusal.Error.Code != "rate_limited" || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("tools/list past the burst: %d %.300s", resp.StatusCode, body)
	}
	if resp, _ := rawMCP(t, b, b.key, "GET", sid, ""); resp.StatusCode != 429 {
		t.Fatalf("GET stream past the burst: %d", resp.StatusCode)
	}
}

// TestHostileInputs sends the hostile suite's bad addresses and bodies to
// a server with the default address policy, through /v1 and through the
// matching tool: both refuse with invalid_request naming the same field,
// in the same words.
func TestHostileInputs(t *testing.T) {
	e := newEnv(t, &httpapi.Options{Limits: map[store.Plan]int{store.Free: 10_000}})
	cs := e.connect(e.key, nil)
	cases := []struct {
		name, path, tool, body, field string
	}{
		{"site: metadata address", "/v1/analyze/site", "start_site_analysis", `{"domain":"169.254.169.254","options":{"maxPages":5}}`, "domain"},
		{"site: localhost", "/v1/analyze/site", "start_site_analysis", `{"domain":"localhost","options":{"maxPages":5}}`, "domain"},
		{"site: loopback", "/v1/analyze/site", "start_site_analysis", `{"domain":"127.0.0.1","options":{"maxPages":5}}`, "domain"},
		{"site: port 22", "/v1/analyze/site", "start_site_analysis", `{"domain":"example.com:22","options":{"maxPages":5}}`, "domain"},
		{"site: 300-char label", "/v1/analyze/site", "start_site_analysis", `{"domain":"` + strings.Repeat("a", 300) + `.com"}`, "domain"},
		{"site: maxPages 10,000,000", "/v1/analyze/site", "start_site_analysis", `{"domain":"example.com","options":{"maxPages":10000000}}`, "options.maxPages"},
		{"site: unknown field", "/v1/analyze/site", "start_site_analysis", `{"domain":"example.com","options":{"maxPages":5,"depht":3}}`, "options.depht"},
		{"page: unknown field", "/v1/analyze/page", "analyze_page", `{"url":"https://example.com/","render":true}`, "render"},
		{"page: file URL", "/v1/analyze/page", "analyze_page", `{"url":"file:///etc/passwd"}`, "url"},
		{"page: metadata URL", "/v1/analyze/page", "analyze_page", `{"url":"http://169.254.169.254/latest/meta-data/"}`, "url"},
		{"page: loopback URL", "/v1/analyze/page", "analyze_page", `{"url":"http://127.0.0.1:22/"}`, "url"},
		{"page: bad depth", "/v1/analyze/page", "analyze_page", `{"url":"https://example.com/","options":{"depth":"deepest"}}`, "options.depth"},
		{"page: url a number", "/v1/analyze/page", "analyze_page", `{"url":42}`, "url"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, body := e.v1("POST", c.path, e.key, c.body)
			var v1 struct{ Error toolErr }
			if err := json.Unmarshal(body, &v1); err != nil || code != 400 {
				t.Fatalf("/v1 answered %d %s", code, body)
			}
			te := call(t, cs, c.tool, json.RawMessage(c.body), nil)
			if te == nil {
				t.Fatal("the tool accepted it")
			}
			if te.Code != "invalid_request" || te.Field != c.field || te.Field != v1.Error.Field || te.Message != v1.Error.Message {
				t.Fatalf("tool %+v, /v1 %+v", te, v1.Error)
			}
		})
	}
	// Arguments that are not an object name "arguments" (the body's
	// decoder called them "body"); a timeoutSeconds that overflows a
	// duration is refused as out of range (it waited not at all).
	if te := call(t, cs, "analyze_page", json.RawMessage(`["https://example.com/"]`), nil); te == nil || te.Field != "arguments" ||
		!strings.Contains(te.Message, "the arguments must be a JSON object") {
		t.Errorf("arguments an array: %+v", te)
	}
	if te := call(t, cs, "wait_site_analysis", map[string]any{"id": "x", "timeoutSeconds": int64(1e10)}, nil); te == nil || te.Field != "timeoutSeconds" {
		t.Errorf("timeoutSeconds 1e10: %+v", te)
	}
	// A cursor that is not the server's, and one replayed with other
	// filters, name the cursor.
	for _, cur := range []string{"not-a-cursor", strings.Repeat("A", 500)} {
		te := call(t, cs, "site_findings", map[string]any{"id": "x", "cursor": cur}, nil)
		if te == nil || te.Field != "cursor" {
			t.Errorf("cursor %.20q: %+v", cur, te)
		}
	}
	// A cursor past the end of the list (the list shrank since, or the
	// cursor was made up: its format is no secret) is an empty page, not
	// a panic that takes the server down.
	var al struct {
		Page     struct{ Total, Returned int }
		Analyses []json.RawMessage
	}
	if te := call(t, cs, "list_site_analyses", map[string]any{"cursor": forgeCursor(5, "list_site_analyses")}, &al); te != nil {
		t.Fatalf("list_site_analyses with a cursor past the end: %+v", te)
	}
	if al.Page.Total != 0 || al.Page.Returned != 0 || len(al.Analyses) != 0 {
		t.Errorf("list_site_analyses with a cursor past the end: %+v", al)
	}
}

// forgeCursor makes a cursor as a client could: the base64 of the
// offset and the FNV-64a hash of the query's parts (see answer.go).
func forgeCursor(off int, parts ...string) string {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	b, _ := json.Marshal(map[string]any{"o": off, "q": h.Sum64()})
	return base64.RawURLEncoding.EncodeToString(b)
}

// TestPanicRecovered: a panic in a tool call (here in the decoding of its
// arguments) answers that call with an internal error and leaves the
// server serving, rather than ending the process from the SDK's
// goroutine.
func TestPanicRecovered(t *testing.T) {
	var logs strings.Builder
	srv := mcpserver.New(mcpserver.Services{}, &mcpserver.Options{
		Local:  &auth.Principal{AccountID: "acct_local", Permissions: []string{auth.ScopeRead, auth.ScopeWrite}},
		Logger: slog.New(slog.NewTextHandler(&syncWriter{w: &logs}, nil)),
		Decode: func(args []byte, v any) error {
			if strings.Contains(string(args), "boom") {
				panic("boom")
			}
			return json.Unmarshal(args, v)
		},
	})
	cs := connectLocal(t, srv)
	te := call(t, cs, "explain_check", map[string]any{"id": "boom"}, nil)
	if te == nil || te.Code != "internal" || te.Status != 500 || strings.Contains(te.Message, "boom") {
		t.Fatalf("panicking call: %+v", te)
	}
	if !strings.Contains(logs.String(), "panic=boom") {
		t.Errorf("the panic is not logged: %s", logs.String())
	}
	if te := call(t, cs, "explain_check", map[string]any{"id": "title.missing"}, nil); te != nil {
		t.Fatalf("the next call: %+v", te)
	}
}

// syncWriter serialises writes to w.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// TestInMemoryLocal runs the server over the SDK's in-memory transports
// with a local principal, as `cli mcp` does over stdio: no HTTP, the same
// services.
func TestInMemoryLocal(t *testing.T) {
	e := newEnv(t, &httpapi.Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Free: 10_000}})
	site := newGatedSite(t)
	site.open()
	p := &authPrincipal{e.acct}
	srv := mcpserver.New(e.srv.MCPServices(), &mcpserver.Options{Local: p.principal(), Errors: e.srv.ToolError, Decode: httpapi.DecodeArguments})
	cs := connectLocal(t, srv)
	var page mcpserver.PageAnalysis
	if te := call(t, cs, "analyze_page", map[string]any{"url": site.URL + "/"}, &page); te != nil || page.Status != 200 {
		t.Fatalf("analyze_page %+v %+v", page, te)
	}
	if te := call(t, cs, "explain_check", map[string]any{"id": "no.such.check"}, nil); te == nil || te.Code != "not_found" {
		t.Fatalf("explain_check of an unknown ID: %+v", te)
	}
}

// TestCancelSiteAnalysis starts a crawl held on a page, cancels it with
// cancel_site_analysis, and wait_site_analysis then answers the canceled
// analysis with the partial report's summary or, without one, saying why;
// a second cancel is a conflict.
func TestCancelSiteAnalysis(t *testing.T) {
	e := newEnv(t, &httpapi.Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Free: 10_000}})
	site := newGatedSite(t)
	cs := e.connect(e.key, nil)
	var job mcpserver.Analysis
	if te := call(t, cs, "start_site_analysis", map[string]any{"url": site.URL + "/", "options": map[string]any{"maxPages": 10}}, &job); te != nil {
		t.Fatal(te)
	}
	var canceled mcpserver.Analysis
	if te := call(t, cs, "cancel_site_analysis", map[string]any{"id": job.ID}, &canceled); te != nil {
		t.Fatalf("cancel: %+v", te)
	}
	var st mcpserver.AnalysisState
	if te := call(t, cs, "wait_site_analysis", map[string]any{"id": job.ID, "timeoutSeconds": 60}, &st); te != nil {
		t.Fatalf("wait: %+v", te)
	}
	// A canceled analysis keeps the partial report of what it crawled, if
	// it stored one: then its summary and findings are served; without
	// one, the answer says why.
	if st.Analysis.Status != "canceled" || st.TimedOut || (st.Summary == nil) != (st.SummaryReason == "canceled") {
		t.Fatalf("after cancel: %+v", st)
	}
	if te := call(t, cs, "cancel_site_analysis", map[string]any{"id": job.ID}, nil); te == nil || te.Code != "conflict" {
		t.Fatalf("second cancel: %+v", te)
	}
	// The worker stores the partial report after the cancellation, so
	// fix_first answers from it once it is there, and until then says why.
	if te := call(t, cs, "fix_first", map[string]any{"id": job.ID}, nil); te != nil {
		if te.Code != "conflict" || !strings.Contains(te.Message, "canceled") {
			t.Fatalf("fix_first of a canceled analysis without a report: %+v", te)
		}
	} else if te := call(t, cs, "get_site_analysis", map[string]any{"id": job.ID}, &st); te != nil || st.Summary == nil {
		t.Fatalf("fix_first answered, but the analysis has no summary: %+v %+v", st, te)
	}
}

// TestSDKRefusalsInEnvelope: the SDK's own refusals at /mcp (a session of
// another account, an unknown session, a method the endpoint does not
// take, an Accept header without JSON: 400) answer in the API's error envelope
// with the SDK's status and words, as every /v1 error does; the SDK wrote
// them as plain text.
func TestSDKRefusalsInEnvelope(t *testing.T) {
	e := newEnv(t, &httpapi.Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Free: 1000}})
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	resp, body := rawMCP(t, e, e.key, "POST", "", initialize)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || sid == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	send := func(method, key, sid, accept, body string) (*http.Response, string) {
		req, _ := http.NewRequest(method, e.ts.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("X-API-Key", key)
		req.Header.Set("Accept", accept)
		req.Header.Set("Content-Type", "application/json")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	const both = "application/json, text/event-stream"
	for _, c := range []struct {
		name              string
		method, key, sid  string
		accept            string
		status            int
		code, wantInWords string
	}{
		{"another account's session", "POST", e.other, sid, both, 403, "forbidden", "session user mismatch"},
		{"an unknown session", "POST", e.key, "no-such-session", both, 404, "not_found", "session not found"},
		{"PUT", "PUT", e.key, sid, both, 405, "method_not_allowed", ""},
		{"Accept without JSON", "POST", e.key, sid, "text/html", 400, "invalid_request", "Accept must contain"},
	} {
		resp, body := send(c.method, c.key, c.sid, c.accept, ping)
		var env struct {
			Error struct {
				Code, Message, RequestID string
				Status                   int
			}
		}
		err := json.Unmarshal([]byte(body), &env)
		if err != nil || resp.StatusCode != c.status || env.Error.Status != c.status || env.Error.Code != c.code ||
			env.Error.Message == "" || !strings.Contains(env.Error.Message, c.wantInWords) ||
			!strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			t.Errorf("%s: %d %s %q; want %d and an envelope with code %s", c.name, resp.StatusCode, resp.Header.Get("Content-Type"), body, c.status, c.code)
		}
	}
	// The session is intact for its own account.
	if resp, body := rawMCP(t, e, e.key, "POST", sid, ping); resp.StatusCode != 200 || !strings.Contains(body, `"result"`) {
		t.Fatalf("ping on the session after the refusals: %d %s", resp.StatusCode, body)
	}
}
