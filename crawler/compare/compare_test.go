package compare_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/compare"
	"github.com/seokit/seokit/seo"
)

// changingSite serves version 1 or 2 of a small site. Version 2 adds
// /new, drops /gone (no longer linked, 404), changes the title of /a,
// turns /b noindex and links /c to a missing page.
func changingSite(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var version atomic.Int32
	version.Store(1)
	page := func(w http.ResponseWriter, title, head, body string) {
		name := strings.Replace(title, ", renamed,", "", 1) // the description and H1 keep the old name
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>%s</title>`+
			`<meta name="description" content="A page about %s, long enough to be a fine description of what it holds for readers.">`+
			`<meta name="viewport" content="width=device-width, initial-scale=1">%s</head>`+
			`<body><h1>%s</h1><p>%s</p>%s</body></html>`, title, name, head, name,
			strings.Repeat("Plain words about the subject of this page. ", 40), body)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v2 := version.Load() == 2
		switch r.URL.Path {
		case "/robots.txt", "/sitemap.xml", "/favicon.ico":
			http.NotFound(w, r)
		case "/":
			links := `<a href="/a">A</a> <a href="/b">B</a> <a href="/c">C</a>`
			if v2 {
				links += ` <a href="/new">New</a>`
			}
			page(w, "Home of the changing site", "", links)
		case "/a":
			title := "Page A of the changing site"
			if v2 {
				title = "Page A, renamed, of the changing site"
			}
			page(w, title, "", `<a href="/">Home</a>`)
		case "/b":
			head := ""
			if v2 {
				head = `<meta name="robots" content="noindex">`
			}
			page(w, "Page B of the changing site", head, `<a href="/">Home</a>`)
		case "/c":
			link := `<a href="/gone">Gone</a>`
			if v2 {
				link = `<a href="/missing">Missing</a>`
			}
			page(w, "Page C of the changing site", "", `<a href="/">Home</a> `+link)
		case "/gone":
			if v2 {
				http.NotFound(w, r)
				return
			}
			page(w, "Page Gone of the changing site", "", `<a href="/">Home</a>`)
		case "/new":
			if !v2 {
				http.NotFound(w, r)
				return
			}
			page(w, "Page New of the changing site", "", `<a href="/">Home</a>`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &version
}

func crawlOnce(t *testing.T, base string) *crawler.SiteReport {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rep, err := crawler.New(&crawler.Options{AllowPrivate: true, PerHostRate: -1, SkipExternalLinks: true, Concurrency: 2}).Run(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestCompareChangedSite(t *testing.T) {
	srv, version := changingSite(t)
	old := crawlOnce(t, srv.URL)
	version.Store(2)
	cur := crawlOnce(t, srv.URL)
	d := compare.Reports(old, cur, nil)
	u := func(p string) string { return srv.URL + p }

	if d.Added.Count != 2 || !reflect.DeepEqual(d.Added.URLs, []string{u("/missing"), u("/new")}) {
		t.Errorf("added = %+v, want /missing and /new", d.Added)
	}
	if d.Removed.Count != 1 || !reflect.DeepEqual(d.Removed.URLs, []string{u("/gone")}) {
		t.Errorf("removed = %+v, want /gone", d.Removed)
	}
	changes := map[string][]compare.FieldChange{}
	for _, p := range d.Changed {
		changes[strings.TrimPrefix(p.URL, srv.URL)] = p.Changes
	}
	has := func(path, field, oldV, newV string) {
		t.Helper()
		for _, c := range changes[path] {
			if c.Field == field {
				if c.Old != oldV || c.New != newV {
					t.Errorf("%s %s: %q → %q, want %q → %q", path, field, c.Old, c.New, oldV, newV)
				}
				return
			}
		}
		t.Errorf("%s: no %s change in %+v", path, field, changes[path])
	}
	has("/a", compare.FieldTitle, "Page A of the changing site", "Page A, renamed, of the changing site")
	has("/b", compare.FieldIndexable, "true", "false")
	has("/b", compare.FieldNoindex, "false", "true")
	for _, path := range []string{"/", "/a", "/b", "/c"} {
		for _, c := range changes[path] {
			if c.Field == compare.FieldResponseTime || c.Field == compare.FieldInlinks || c.Field == compare.FieldLinkScore {
				continue // these follow timing and the changed link graph
			}
			ok := (path == "/a" && c.Field == compare.FieldTitle) || (path == "/b" && (c.Field == compare.FieldIndexable || c.Field == compare.FieldNoindex || c.Field == compare.FieldScore)) ||
				(path == "/c" && c.Field == compare.FieldScore) || (path == "/a" && c.Field == compare.FieldScore)
			if !ok {
				t.Errorf("unexpected change %s %+v", path, c)
			}
		}
	}
	if d.ChangedFields[compare.FieldTitle] != 1 {
		t.Errorf("changedFields[title] = %d, want 1", d.ChangedFields[compare.FieldTitle])
	}
	byID := map[string]compare.FindingChange{}
	for _, f := range d.Findings {
		byID[f.ID] = f
	}
	broken := byID["links.broken_internal"]
	if broken.Status != compare.FindingNew || broken.NewOn.Count != 1 || broken.NewOn.URLs[0] != u("/c") || broken.Severity != seo.Error {
		t.Errorf("links.broken_internal = %+v, want new on /c, error", broken)
	}
	if d.NewFindings(seo.Error) < 1 {
		t.Errorf("NewFindings(error) = %d, want at least 1", d.NewFindings(seo.Error))
	}
	for _, tot := range d.Totals {
		want := map[string][2]int{"pages": {5, 6}, "status4xx": {0, 1}, "noindex": {0, 1}}[tot.Name]
		if want != [2]int{} && (tot.Old != want[0] || tot.New != want[1]) {
			t.Errorf("total %s = %d → %d, want %d → %d", tot.Name, tot.Old, tot.New, want[0], want[1])
		}
	}

	// The same diff from the two reports streamed from JSON files.
	dir := t.TempDir()
	write := func(name string, r *crawler.SiteReport) string {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fd, err := compare.Sites(context.Background(), compare.File(write("old.json", old)), compare.File(write("new.json", cur)), nil)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(d)
	b, _ := json.Marshal(fd)
	if !bytes.Equal(a, b) {
		t.Errorf("diff of the files differs from the diff in memory:\n%s\n%s", a, b)
	}

	// Every output names every change.
	var text, md, html bytes.Buffer
	if err := d.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": text.String(), "markdown": md.String(), "html": html.String(), "json": string(a)} {
		for _, want := range []string{"links.broken_internal", "Page A, renamed, of the changing site", "/new", "noindex"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s output lacks %q", name, want)
			}
		}
	}
	if !strings.Contains(text.String(), "/gone") || !strings.Contains(string(a), "/gone") || !strings.Contains(html.String(), "/gone") {
		t.Error("the removed URL /gone is missing from an output")
	}
	if !strings.Contains(md.String(), "1 removed") {
		t.Errorf("markdown lacks the removed count:\n%s", md.String())
	}
}

func TestCompareCapsAndBadFile(t *testing.T) {
	old := &crawler.SiteReport{Domain: "example.com"}
	cur := &crawler.SiteReport{Domain: "example.com"}
	for i := range 300 {
		old.Pages = append(old.Pages, crawler.PageSummary{URL: fmt.Sprintf("https://example.com/old/%03d", i), Status: 200, Title: "t"})
		cur.Pages = append(cur.Pages, crawler.PageSummary{URL: fmt.Sprintf("https://example.com/new/%03d", i), Status: 200, Title: "t"})
	}
	for i := range 50 {
		u := fmt.Sprintf("https://example.com/both/%03d", i)
		old.Pages = append(old.Pages, crawler.PageSummary{URL: u, Status: 200, Title: "before"})
		cur.Pages = append(cur.Pages, crawler.PageSummary{URL: u, Status: 200, Title: "after"})
	}
	d := compare.Reports(old, cur, &compare.Options{MaxExamples: 5, MaxChangedPages: 10})
	if d.Added.Count != 300 || len(d.Added.URLs) != 5 || d.Added.Omitted != 295 {
		t.Errorf("added = %d, %d kept, %d omitted; want 300, 5, 295", d.Added.Count, len(d.Added.URLs), d.Added.Omitted)
	}
	if d.ChangedPages != 50 || len(d.Changed) != 10 || d.Changed[0].URL != "https://example.com/both/000" {
		t.Errorf("changed = %d, %d kept (first %q); want 50, 10, /both/000", d.ChangedPages, len(d.Changed), d.Changed[0].URL)
	}
	if d.Truncated["changed"].Total != 50 || d.Truncated["added"].Total != 300 {
		t.Errorf("truncated = %+v", d.Truncated)
	}

	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"domain":"x","pages":[{"url":1}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := compare.Sites(context.Background(), compare.File(bad), compare.Report(cur), nil)
	if err == nil || !strings.Contains(err.Error(), "bad.json") {
		t.Errorf("bad file: err = %v, want one naming the file", err)
	}
	_, err = compare.Sites(context.Background(), compare.File(filepath.Join(dir, "none.json")), compare.Report(cur), nil)
	if err == nil {
		t.Error("missing file: no error")
	}
}

func TestCompareRobotsAndSitemaps(t *testing.T) {
	old := &crawler.SiteReport{Domain: "example.com",
		Robots:   crawler.RobotsSummary{URL: "https://example.com/robots.txt", Status: 200, Bytes: 40, SHA256: "aa"},
		Sitemaps: []crawler.SitemapSummary{{URL: "https://example.com/a.xml", Status: 200, URLs: 10}, {URL: "https://example.com/b.xml", Status: 200, URLs: 3}}}
	same := *old
	if d := compare.Reports(old, &same, nil); d.Robots != nil || d.Sitemaps != nil {
		t.Errorf("unchanged: robots %+v, sitemaps %+v; want nil", d.Robots, d.Sitemaps)
	}
	cur := &crawler.SiteReport{Domain: "example.com",
		Robots:   crawler.RobotsSummary{URL: "https://example.com/robots.txt", Status: 200, Bytes: 40, SHA256: "bb"},
		Sitemaps: []crawler.SitemapSummary{{URL: "https://example.com/a.xml", Status: 404}, {URL: "https://example.com/c.xml", Status: 200, URLs: 1}}}
	d := compare.Reports(old, cur, nil)
	if d.Robots == nil || !reflect.DeepEqual(d.Robots.Fields, []string{"content"}) {
		t.Errorf("robots = %+v, want a content change (same size, other bytes)", d.Robots)
	}
	want := &compare.SitemapsChange{Added: []string{"https://example.com/c.xml"}, Removed: []string{"https://example.com/b.xml"},
		Changed: []compare.SitemapChange{{URL: "https://example.com/a.xml", OldStatus: 200, NewStatus: 404, OldURLs: 10}}}
	if !reflect.DeepEqual(d.Sitemaps, want) {
		t.Errorf("sitemaps = %+v, want %+v", d.Sitemaps, want)
	}
}

// TestCompareOrderIndependent checks that the diff does not depend on the
// order in which either side lists its pages (the sides are read
// concurrently), with every list at its cap.
func TestCompareOrderIndependent(t *testing.T) {
	mk := func(shift int, changed bool) *crawler.SiteReport {
		r := &crawler.SiteReport{Domain: "example.com", StartURL: "https://example.com/"}
		for i := range 400 {
			k := i + shift
			p := crawler.PageSummary{URL: fmt.Sprintf("https://example.com/p/%04d", k), Status: 200, Title: "t",
				Findings: []string{"title.too_long"}}
			if changed && k%3 == 0 {
				p.Title, p.Findings = "changed", []string{"description.missing"}
			}
			r.Pages = append(r.Pages, p)
		}
		return r
	}
	reversed := func(r *crawler.SiteReport) *crawler.SiteReport {
		c := *r
		c.Pages = append([]crawler.PageSummary(nil), r.Pages...)
		slices.Reverse(c.Pages)
		return &c
	}
	old, cur := mk(0, false), mk(100, true)
	opts := &compare.Options{MaxExamples: 7, MaxChangedPages: 9}
	want, _ := json.Marshal(compare.Reports(old, cur, opts))
	for name, pair := range map[string][2]*crawler.SiteReport{
		"old reversed":  {reversed(old), cur},
		"new reversed":  {old, reversed(cur)},
		"both reversed": {reversed(old), reversed(cur)},
	} {
		for range 3 {
			got, _ := json.Marshal(compare.Reports(pair[0], pair[1], opts))
			if !bytes.Equal(got, want) {
				t.Fatalf("%s: diff differs:\n got %s\nwant %s", name, got, want)
			}
		}
	}
	d := compare.Reports(old, cur, opts)
	if d.Added.Count != 100 || d.Added.URLs[0] != "https://example.com/p/0400" || len(d.Added.URLs) != 7 || d.Added.Omitted != 93 {
		t.Errorf("added = %+v; want 100, the first 7 by URL from /p/0400", d.Added)
	}
	if d.Removed.Count != 100 || d.Removed.URLs[0] != "https://example.com/p/0000" || len(d.Removed.URLs) != 7 {
		t.Errorf("removed = %+v; want 100, the first 7 by URL from /p/0000", d.Removed)
	}
}

// TestReportJSONDecoding checks the streaming decoder of report JSON
// against encoding/json on the fields Sites reads: escapes, nulls,
// unknown and duplicate keys, and errors that name the field.
func TestReportJSONDecoding(t *testing.T) {
	ctx := context.Background()
	const page = `{"url":"https://example.com/\u00e9t\u00e9","status":200,"depth":null,"score":71,"title":"A \"quoted\" title","extra":{"nested":[1,{"x":null}]},` +
		`"wordCount":120,"indexable":true,"noindex":false,"findings":["title.too_long","links.broken_internal"],"linkScore":12.5,"responseMs":340,` +
		`"h1":null,"\u0063anonical":"https://example.com/c","inlinks":4,"inlinks":5}`
	rep := `{"domain":"example.com","pages":[` + page + `,` + page + `],"score":{"value":80}}`
	var want crawler.SiteReport
	if err := json.Unmarshal([]byte(rep), &want); err != nil {
		t.Fatal(err)
	}
	src := compare.JSON([]byte(rep))
	n := 0
	for p, err := range src.Pages(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		w := want.Pages[n]
		got := crawler.PageSummary{URL: p.URL, Status: p.Status, Depth: p.Depth, Score: p.Score, Title: p.Title, WordCount: p.WordCount,
			Indexable: p.Indexable, Noindex: p.Noindex, Findings: slices.Clone(p.Findings), LinkScore: p.LinkScore, ResponseMs: p.ResponseMs,
			H1: p.H1, Canonical: p.Canonical, Inlinks: p.Inlinks}
		if !reflect.DeepEqual(got, crawler.PageSummary{URL: w.URL, Status: w.Status, Depth: w.Depth, Score: w.Score, Title: w.Title, WordCount: w.WordCount,
			Indexable: w.Indexable, Noindex: w.Noindex, Findings: w.Findings, LinkScore: w.LinkScore, ResponseMs: w.ResponseMs,
			H1: w.H1, Canonical: w.Canonical, Inlinks: w.Inlinks}) {
			t.Errorf("page %d = %+v\nwant %+v", n, got, w)
		}
		n++
	}
	if n != 2 {
		t.Fatalf("%d pages, want 2", n)
	}
	if r, err := src.Report(ctx); err != nil || r.Domain != "example.com" || r.Score.Value != 80 {
		t.Fatalf("Report = %+v, %v", r, err)
	}

	for _, tt := range []struct{ name, json, want string }{
		{"string for a number", `{"pages":[{"status":"200"}]}`, "status"},
		{"number for a string", `{"pages":[{"url":1}]}`, "url"},
		{"page not an object", `{"pages":[1]}`, "not an object"},
		{"pages not an array", `{"pages":{}}`, "not an array"},
		{"truncated", `{"pages":[{"url":"x"`, "pages"},
		{"not an object", `[]`, "not a site report"},
		{"fraction for an integer", `{"pages":[{"wordCount":1.5}]}`, "wordCount"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			for _, e := range compare.JSON([]byte(tt.json)).Pages(ctx) {
				if e != nil {
					err = e
				}
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
	// A null pages list is empty.
	for _, err := range compare.JSON([]byte(`{"pages":null}`)).Pages(ctx) {
		t.Fatalf("null pages: %v", err)
	}
}

// TestCompareStops checks that Sites returns, its readers done, when
// one side fails midway or the context ends.
func TestCompareStops(t *testing.T) {
	big := &crawler.SiteReport{Domain: "example.com"}
	for i := range 5000 {
		big.Pages = append(big.Pages, crawler.PageSummary{URL: fmt.Sprintf("https://example.com/%d", i)})
	}
	bad := compare.JSON([]byte(`{"pages":[{"url":"a"},{"url":"b"},{"status":"x"}]}`))
	if _, err := compare.Sites(context.Background(), compare.Report(big), bad, nil); err == nil || !strings.Contains(err.Error(), "new pages") {
		t.Errorf("bad new side: err = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := compare.Sites(ctx, compare.Report(big), compare.Report(big), nil); err == nil {
		t.Error("canceled context: no error")
	}
}
