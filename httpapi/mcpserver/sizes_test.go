package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/mcpserver"
	"github.com/seokit/seokit/httpapi/store"
)

// TestAnswerSizes measures the largest answer of each tool with default
// paging on real crawls stored through the API: crawlertest's generated
// site of 100 articles by default, SEOKIT_MCP_PAGES=10000 for the
// benchmark crawl (10,000 pages, the Pro plan's cap; a few minutes). The
// site is crawled twice, the first time to half the page cap, so that
// diff_site_analyses compares two stored analyses that differ by
// thousands of added URLs. Every answer is printed in bytes of its
// structured content and of the whole result on the wire, with the tool
// list; every answer stays under 16 KB on the wire and validates against
// its tool's output schema, the list stays under 60 KB.
func TestAnswerSizes(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls a generated site twice")
	}
	articles := 100
	if v := os.Getenv("SEOKIT_MCP_PAGES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 10 {
			t.Fatalf("SEOKIT_MCP_PAGES=%q is not a number of pages ≥ 10", v)
		}
		articles = n
	}
	// Loopback crawls run without the politeness rate (20 requests a
	// second to one host by default).
	e := newEnv(t, &httpapi.Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Pro: 1_000_000}, BurstRate: 1e6, Burst: 1e6,
		CrawlerOptions: &crawler.Options{PerHostRate: -1}})
	ctx := context.Background()
	acct, err := e.srv.Auth().CreateAccount(ctx, "pro@example.com", "Pro", "", store.Pro)
	if err != nil {
		t.Fatal(err)
	}
	cs := e.connectLong(e.newKey(acct.ID, auth.ScopeRead, auth.ScopeWrite), http.DefaultTransport)
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: articles, Categories: 20, NoRequestLog: true})
	t.Cleanup(site.Close)

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	tb, _ := json.Marshal(tools)
	t.Logf("tool list: %d tools, %d bytes", len(tools.Tools), len(tb))
	if len(tb) > 60<<10 {
		t.Errorf("the tool list is %d bytes, over 60 KB (its schemas are written compactly: schema.go)", len(tb))
	}

	// Every answer is checked against its tool's compact output schema
	// as a client that validates would check it.
	schemas := map[string]*jsonschema.Resolved{}
	for _, tl := range tools.Tools {
		b, _ := json.Marshal(tl.OutputSchema)
		var sc jsonschema.Schema
		if err := json.Unmarshal(b, &sc); err != nil {
			t.Fatalf("%s: output schema: %v", tl.Name, err)
		}
		rs, err := sc.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: output schema does not resolve: %v", tl.Name, err)
		}
		schemas[tl.Name] = rs
	}
	type size struct{ structured, wire int }
	largest := map[string]size{}
	calls := 0
	measure := func(name string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		calls++
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		sb, _ := json.Marshal(res.StructuredContent)
		if res.IsError {
			t.Fatalf("%s %v: %s", name, args, sb)
		}
		var v any
		if err := json.Unmarshal(sb, &v); err != nil {
			t.Fatal(err)
		}
		if err := schemas[name].Validate(v); err != nil {
			t.Errorf("%s answered what its output schema refuses: %v", name, err)
		}
		wb, _ := json.Marshal(res)
		if s := largest[name]; len(wb) > s.wire {
			largest[name] = size{len(sb), len(wb)}
		}
		return res
	}
	decode := func(res *mcp.CallToolResult, v any) {
		t.Helper()
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatal(err)
		}
	}
	maxPages := min(articles+articles/10+50, httpapi.DefaultMaxSitePages)
	crawl := func(pages int) mcpserver.AnalysisState {
		t.Helper()
		var job mcpserver.Analysis
		decode(measure("start_site_analysis", map[string]any{"url": site.URL + "/",
			"options": map[string]any{"maxPages": pages, "aiCrawlers": true, "skipExternalLinks": true}}), &job)
		t0 := time.Now()
		for {
			var st mcpserver.AnalysisState
			decode(measure("wait_site_analysis", map[string]any{"id": job.ID, "timeoutSeconds": 60}), &st)
			switch st.Analysis.Status {
			case "queued", "running":
				continue
			case "succeeded":
				t.Logf("crawled %d pages in %v", st.Summary.Pages, time.Since(t0).Round(time.Second))
				return st
			}
			t.Fatalf("analysis %s ended %+v", job.ID, st.Analysis)
		}
	}
	crawl(maxPages / 2)
	st := crawl(maxPages)
	id := st.Analysis.ID

	// Every page of findings and of pages, following the cursors, with
	// and without filters (at most 50 pages of each). Most of these calls
	// read the same stored report, which the server decodes once.
	t0, calls0 := time.Now(), calls
	follow := func(name string, args map[string]any) {
		t.Helper()
		for range 50 {
			var pi struct {
				Page mcpserver.PageInfo `json:"page"`
			}
			decode(measure(name, args), &pi)
			if pi.Page.NextCursor == "" {
				return
			}
			args["cursor"] = pi.Page.NextCursor
		}
	}
	follow("site_findings", map[string]any{"id": id})
	follow("site_findings", map[string]any{"id": id, "severity": "warning"})
	follow("site_findings", map[string]any{"id": id, "url": "*/a/*"})
	follow("site_pages", map[string]any{"id": id})
	follow("site_pages", map[string]any{"id": id, "severity": "notice", "fields": []string{"url", "title", "findings", "inlinks", "score"}})
	follow("list_site_analyses", map[string]any{})
	measure("get_site_analysis", map[string]any{"id": id})
	measure("fix_first", map[string]any{"id": id})
	measure("fix_first", map[string]any{"id": id, "top": 50})
	measure("diff_site_analyses", map[string]any{"id": id})
	measure("ai_crawlers", map[string]any{"id": id})
	measure("analyze_page", map[string]any{"url": site.URL + "/"})
	measure("analyze_page", map[string]any{"url": site.URL + "/a/1"})
	for _, c := range mcpserver.Catalog() {
		measure("explain_check", map[string]any{"id": c.ID})
	}
	t.Logf("read the %d-page analysis in %d calls in %v", st.Summary.Pages, calls-calls0, time.Since(t0).Round(time.Millisecond))
	names := make([]string, 0, len(largest))
	for k := range largest {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		s := largest[k]
		t.Logf("largest answer of %-20s %6d bytes structured, %6d bytes on the wire (%d-page crawl)", k, s.structured, s.wire, st.Summary.Pages)
		if s.wire >= 16<<10 {
			t.Errorf("%s answered %d bytes, over the 16 KB target", k, s.wire)
		}
	}
}
