package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/compare"
	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/mcpserver"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/seo"
)

// storedReport is a service.Result over JSON in memory.
type storedReport []byte

func (r storedReport) Size() int                    { return len(r) }
func (r storedReport) Open() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(r)), nil }

// fakeAnalyses serves two stored reports of one account, as the API's
// store would: "new" and "old".
type fakeAnalyses struct {
	service.Analyses
	account  string
	old, new *crawler.SiteReport
	json     map[string]storedReport
}

func (f *fakeAnalyses) Get(_ context.Context, accountID, id string) (*service.Job, service.Result, error) {
	b, ok := f.json[id]
	if !ok || accountID != f.account {
		return nil, nil, &service.NotFoundError{Message: "no such analysis"}
	}
	return &service.Job{ID: id, Status: "succeeded", Domain: "big.example", Options: service.SiteOptions{Config: crawler.Config{MaxPages: 10_000}}}, b, nil
}

func (f *fakeAnalyses) List(_ context.Context, accountID string, limit int) ([]service.Job, error) {
	var out []service.Job
	for i := range limit {
		out = append(out, service.Job{ID: "job" + strconv.Itoa(i), Status: "succeeded", Domain: "big.example", CreatedAt: time.Unix(int64(i), 0).UTC()})
	}
	return out, nil
}

func (f *fakeAnalyses) Diff(_ context.Context, accountID, id, against string) (*service.SiteDiff, error) {
	return &service.SiteDiff{Old: "old", New: id, Diff: compare.Reports(f.old, f.new, nil)}, nil
}

// bigReport builds a stored report of n pages: 60 check IDs spread over
// the pages, 4 segments, 6 templates, long titles and many links, the
// shape of a large real crawl's report.
func bigReport(n int, seed int) *crawler.SiteReport {
	rep := &crawler.SiteReport{Domain: "big.example", StartURL: "https://big.example/", StatusCodes: map[int]int{200: n}}
	ids := make([]string, 60)
	for i := range ids {
		ids[i] = fmt.Sprintf("area%d.check_%d_with_a_long_name", i%12, i)
	}
	segs := []string{"blog", "products", "docs", "other"}
	tmpls := []string{"t1a2b3c4", "t5d6e7f8", "t9a0b1c2", "td3e4f5a", "tb6c7d8e", "tf9a0b1c"}
	pagesOf := make([][]string, len(ids))
	for i := range n {
		u := fmt.Sprintf("https://big.example/%s/section-%d/a-rather-long-page-slug-for-page-%d", segs[i%4], i%37, i+seed)
		score := 100 - i%40
		depth := i % 7
		pg := crawler.PageSummary{URL: u, Status: 200, IsHTML: true, Indexable: true, Depth: &depth,
			Title:       fmt.Sprintf("Page %d of the big example site, about a topic with a long descriptive title", i),
			Description: "A meta description of fair length that says what this page is about, for the result snippet.",
			H1:          fmt.Sprintf("Heading of page %d", i), WordCount: 300 + i%900, Template: tmpls[i%6], Segment: segs[i%4],
			Score: &score, Inlinks: i % 50, LinkScore: float64(i%100) / 10}
		for j, id := range ids {
			if (i+j+seed)%(j%9+2) == 0 {
				pg.Findings = append(pg.Findings, id)
				if len(pagesOf[j]) < n {
					pagesOf[j] = append(pagesOf[j], u)
				}
			}
		}
		pg.Errors, pg.Warnings, pg.Notices = len(pg.Findings)/3, len(pg.Findings)/3, len(pg.Findings)-2*(len(pg.Findings)/3)
		rep.Pages = append(rep.Pages, pg)
	}
	for j, id := range ids {
		sev := []seo.Severity{seo.Error, seo.Warning, seo.Notice}[j%3]
		g := crawler.FindingGroup{ID: id, Severity: sev, Scope: seo.ScopePage, Count: len(pagesOf[j]), Pages: len(pagesOf[j]), URLs: len(pagesOf[j]),
			Message:  "The check found what it looks for on this page; here is a sentence of typical length explaining it.",
			Priority: 100 - j, Examples: pagesOf[j][:min(5, len(pagesOf[j]))]}
		if j%10 == 0 {
			for k := 0; k < 5 && (k+1)*20 <= len(pagesOf[j]); k++ {
				g.Members = append(g.Members, pagesOf[j][k*20:(k+1)*20])
			}
			g.Groups = len(g.Members)
		}
		rep.Findings = append(rep.Findings, g)
	}
	for _, s := range segs {
		rep.Segments = append(rep.Segments, crawler.SegmentSummary{Name: s, Pages: n / 4})
	}
	for _, t := range tmpls {
		rep.Templates = append(rep.Templates, crawler.TemplateSummary{Template: t, Pages: n / 6, ExampleURL: "https://big.example/"})
	}
	sc := seo.Score{Value: 71}
	rep.Score = &sc
	rep.Crawl.Fetched = n
	rep.Crawl.DepthHistogram = []int{1, 50, 500, 2000, 3000, 3000, 1449}
	return rep
}

// TestAnswerSizes measures the largest answer of each tool with default
// paging on a stored report of 2,000 pages (SEOKIT_MCP_PAGES=10000 sets
// the benchmark crawl's size, about 30 s), and the tool list: each answer is printed in bytes of
// its structured content and of the whole result on the wire (structured
// content plus its JSON text copy). Every answer stays under 16 KB on the
// wire.
func TestAnswerSizes(t *testing.T) {
	n := 2_000
	if v := os.Getenv("SEOKIT_MCP_PAGES"); v != "" {
		n, _ = strconv.Atoi(v)
	}
	newRep, oldRep := bigReport(n, 0), bigReport(n, 3)
	nb, _ := json.Marshal(newRep)
	ob, _ := json.Marshal(oldRep)
	fa := &fakeAnalyses{account: "acct", old: oldRep, new: newRep, json: map[string]storedReport{"new": nb, "old": ob}}
	p := &auth.Principal{AccountID: "acct", Permissions: []string{auth.ScopeRead, auth.ScopeWrite}}
	srv := mcpserver.New(mcpserver.Services{Analyses: fa}, &mcpserver.Options{Local: p})
	cs := connectLocal(t, srv)
	ctx := context.Background()

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	tb, _ := json.Marshal(tools)
	t.Logf("tool list: %d tools, %d bytes", len(tools.Tools), len(tb))

	type size struct{ structured, wire int }
	largest := map[string]size{}
	measure := func(name string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		sb, _ := json.Marshal(res.StructuredContent)
		if res.IsError {
			t.Fatalf("%s %v: %s", name, args, sb)
		}
		wb, _ := json.Marshal(res)
		if s := largest[name]; len(wb) > s.wire {
			largest[name] = size{len(sb), len(wb)}
		}
		return res
	}
	// Every page of findings and of pages, following the cursors, with
	// and without filters.
	follow := func(name string, args map[string]any) int {
		pages := 0
		for {
			res := measure(name, args)
			pages++
			var pi struct {
				Page mcpserver.PageInfo `json:"page"`
			}
			b, _ := json.Marshal(res.StructuredContent)
			json.Unmarshal(b, &pi)
			if pi.Page.NextCursor == "" || pages >= 6 {
				return pages
			}
			args["cursor"] = pi.Page.NextCursor
		}
	}
	follow("site_findings", map[string]any{"id": "new"})
	follow("site_findings", map[string]any{"id": "new", "segment": "blog"})
	follow("site_findings", map[string]any{"id": "new", "severity": "error", "url": "*/products/*"})
	follow("site_pages", map[string]any{"id": "new"})
	follow("site_pages", map[string]any{"id": "new", "check": "area3.", "fields": []string{"url", "title", "findings"}})
	follow("list_site_analyses", map[string]any{})
	measure("get_site_analysis", map[string]any{"id": "new"})
	measure("fix_first", map[string]any{"id": "new"})
	measure("fix_first", map[string]any{"id": "new", "top": 50})
	measure("diff_site_analyses", map[string]any{"id": "new"})
	measure("ai_crawlers", map[string]any{"id": "new"})
	for _, c := range mcpserver.Catalog() {
		measure("explain_check", map[string]any{"id": c.ID})
	}
	names := make([]string, 0, len(largest))
	for k := range largest {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		s := largest[k]
		t.Logf("largest answer of %-20s %6d bytes structured, %6d bytes on the wire (%d pages)", k, s.structured, s.wire, n)
		if s.wire >= 16<<10 {
			t.Errorf("%s answered %d bytes, over the 16 KB target", k, s.wire)
		}
	}
}
