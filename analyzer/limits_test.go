package analyzer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/seokit/seokit/seo"
)

// bodyFetcher answers every fetch with 200 and the same HTML body.
type bodyFetcher struct{ body []byte }

func (f bodyFetcher) Fetch(_ context.Context, req *seo.Request) (*seo.Response, error) {
	return &seo.Response{RequestedURL: req.URL, URL: req.URL, Status: http.StatusOK,
		Header: http.Header{"Content-Type": {"text/html"}}, ContentType: "text/html",
		Body: f.body, BodyBytes: int64(len(f.body))}, nil
}

// TestListCaps checks every capped list of the report on a page holding
// five of each item, with every cap at 3: the list keeps 3, Truncated has
// the total and the omitted count, and the counts stay exact.
func TestListCaps(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="en"><head><title>Five of everything on one test page</title>`)
	b.WriteString(`<meta name="viewport" content="width=device-width, initial-scale=1, a=1, b=2, c=3">`)
	b.WriteString(`<meta name="robots" content="max-snippet:10, max-image-preview:large, max-video-preview:5, noarchive, nosnippet">`)
	b.WriteString(`<script type="application/ld+json">{"@context":"https://schema.org","@type":["A","B","C","D","E"]}</script>`)
	for i, code := range []string{"en", "de", "fr", "es", "it"} {
		fmt.Fprintf(&b, `<link rel="canonical" href="/c%d">`, i)
		fmt.Fprintf(&b, `<link rel="alternate" hreflang="%s" href="/%s">`, code, code)
		fmt.Fprintf(&b, `<meta property="og:t%d" content="x"><meta name="twitter:t%d" content="x">`, i, i)
		fmt.Fprintf(&b, `<script type="application/ld+json">{"@context":"https://schema.org","@type":"Thing%d"}</script>`, i)
	}
	b.WriteString(`</head><body>`)
	for i := range 5 {
		fmt.Fprintf(&b, `<h2>Section %d</h2><a href="/p/%d">page %d</a><a href="https://other.example/%d">other %d</a><img src="/i/%d.png">`, i, i, i, i, i, i)
	}
	b.WriteString(`</body></html>`)
	body := []byte(b.String())
	opts := &Options{Depth: Complete, MaxListItems: 3, MaxExamples: 2, MaxEvidenceURLs: 3,
		AnalyzeMobile: true, Fetcher: bodyFetcher{body}}
	rep, err := AnalyzeHTML(context.Background(), "https://example.com/", http.Header{"Content-Type": {"text/html"}}, body, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Mobile == nil {
		t.Fatal("no mobile summary")
	}
	ev := 0
	for _, f := range rep.Findings {
		ev = max(ev, len(f.Evidence.URLs))
	}
	perID := map[string]int{}
	maxPerID, occurrences, kept := 0, 0, 0
	for _, f := range rep.Findings {
		perID[f.ID]++
		if perID[f.ID] > 1 {
			t.Errorf("%s reported in %d findings, want one", f.ID, perID[f.ID])
		}
		maxPerID = max(maxPerID, 1+len(f.Examples)) // occurrences whose evidence is kept
		occurrences += f.Count
		kept += 1 + len(f.Examples)
	}
	types := 0
	for _, it := range rep.StructuredData {
		types = max(types, len(it.Types))
	}
	tests := []struct {
		name      string
		kept      int
		wantTotal int
	}{
		{"links", len(rep.Links.List), 10},
		{"images", len(rep.Images.List), 5},
		{"headings", len(rep.Headings), 5},
		{"canonical", len(rep.Canonical), 5},
		{"robots.directives", len(rep.Robots.Directives), 5},
		{"hreflang", len(rep.Hreflang), 5},
		{"structuredData", len(rep.StructuredData), 6},
		{"structuredData.types", types, 5 + 1 + 1}, // the kept items: the 5-type one, then two of one type
		{"openGraph", len(rep.OpenGraph), 5},
		{"twitter", len(rep.Twitter), 5},
		{"viewport.fields", len(rep.Viewport.Fields), 5},
		{"mobile.hreflang", len(rep.Mobile.Hreflang), 5},
		{"mobile.structuredDataTypes", len(rep.Mobile.Structured), 10},
		{"findings", maxPerID, -1},         // total checked below
		{"findings.evidence.urls", ev, -1}, // canonical.conflicting lists 5
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, ok := rep.Truncated[tt.name]
			if !ok {
				t.Fatalf("Truncated has no %q: %v", tt.name, rep.Truncated)
			}
			if tt.kept != 3 {
				t.Errorf("%s keeps %d, want the cap 3", tt.name, tt.kept)
			}
			if tt.wantTotal >= 0 && tr.Total != tt.wantTotal {
				t.Errorf("%s total = %d, want %d", tt.name, tr.Total, tt.wantTotal)
			}
			if tr.Omitted <= 0 || tr.Omitted >= tr.Total {
				t.Errorf("%s omitted = %d of %d", tt.name, tr.Omitted, tr.Total)
			}
		})
	}
	if tr := rep.Truncated["links"]; tr.Omitted != 7 {
		t.Errorf("links omitted = %d, want 7", tr.Omitted)
	}
	if rep.Links.Internal != 5 || rep.Links.External != 5 || rep.Images.Total != 5 || rep.Images.WithoutAlt != 5 {
		t.Errorf("counts %+v / images %d, %d without alt: want exact counts 5/5 and 5, 5", rep.Links, rep.Images.Total, rep.Images.WithoutAlt)
	}
	if tr := rep.Truncated["findings"]; tr.Total != occurrences || tr.Total != kept+tr.Omitted {
		t.Errorf("findings total %d: want %d occurrences = %d kept + %d omitted", tr.Total, occurrences, kept, tr.Omitted)
	}
}

// TestFindingCapKeepsScore checks that capping repeated findings does not
// change the score, which counts distinct IDs.
func TestFindingCapKeepsScore(t *testing.T) {
	t.Parallel()
	doc := `<!DOCTYPE html><html lang="en"><head><title>A gallery of forty images without alt text</title></head><body>` +
		strings.Repeat(`<img src="/g.jpg"><a href="/x"></a>`, 40) + `</body></html>`
	all := analyzeString(t, doc, "", nil, &Options{MaxExamples: 1000})
	capped := analyzeString(t, doc, "", nil, &Options{MaxExamples: 1})
	if all.Score == nil || capped.Score == nil || *all.Score != *capped.Score {
		t.Errorf("score %+v with every finding, %+v capped", all.Score, capped.Score)
	}
	if len(all.Truncated) != 0 {
		t.Errorf("uncapped report has Truncated %v", all.Truncated)
	}
	occurrences, kept := 0, 0
	for k, f := range all.Findings {
		c := capped.Findings[k]
		if c.ID != f.ID || c.Count != f.Count || c.Count != 1+len(f.Examples) || len(c.Examples) > 1 {
			t.Errorf("finding %d: uncapped %s ×%d with %d examples, capped %s ×%d with %d", k, f.ID, f.Count, len(f.Examples), c.ID, c.Count, len(c.Examples))
		}
		occurrences += f.Count
		kept += 1 + len(c.Examples)
	}
	if tr := capped.Truncated["findings"]; tr.Total != occurrences || tr.Omitted != occurrences-kept {
		t.Errorf("Truncated[findings] = %+v; %d occurrences, %d kept", tr, occurrences, kept)
	}
}

// budgetFunc is a seo.MemoryBudget from a function.
type budgetFunc func(ctx context.Context, bytes int64) (func(), error)

func (f budgetFunc) Reserve(ctx context.Context, bytes int64) (func(), error) { return f(ctx, bytes) }

// TestMemoryBudget checks that the analysis reserves EstimateMemory of the
// body before parsing, releases it, and returns a refusal wrapped.
func TestMemoryBudget(t *testing.T) {
	t.Parallel()
	body := []byte(`<title>Budget</title><p>Hello</p>`)
	var asked []int64
	released := 0
	ok := budgetFunc(func(_ context.Context, n int64) (func(), error) {
		asked = append(asked, n)
		return func() { released++ }, nil
	})
	if _, err := AnalyzeHTML(context.Background(), "https://example.com/", nil, body, &Options{Memory: ok}); err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || asked[0] != EstimateMemory(len(body)) || released != 1 {
		t.Errorf("reserved %v, released %d times; want [%d] once", asked, released, EstimateMemory(len(body)))
	}

	// The smartphone fetch reserves for its own body.
	asked, released = nil, 0
	mobile := []byte(`<title>Budget</title><p>Hello from a phone</p>`)
	if _, err := AnalyzeHTML(context.Background(), "https://example.com/", nil, body,
		&Options{Memory: ok, AnalyzeMobile: true, Fetcher: bodyFetcher{mobile}}); err != nil {
		t.Fatal(err)
	}
	if len(asked) != 2 || asked[1] != EstimateMemory(len(mobile)) || released != 2 {
		t.Errorf("with mobile: reserved %v, released %d times; want [%d %d] twice", asked, released, EstimateMemory(len(body)), EstimateMemory(len(mobile)))
	}

	full := budgetFunc(func(context.Context, int64) (func(), error) {
		return nil, fmt.Errorf("budget: saturated: %w", seo.ErrUnavailable)
	})
	rep, err := AnalyzeHTML(context.Background(), "https://example.com/", nil, body, &Options{Memory: full})
	if rep != nil || !errors.Is(err, seo.ErrUnavailable) {
		t.Errorf("refused budget: report %v, error %v; want nil and ErrUnavailable", rep, err)
	}

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write(body)
	}))
	defer srv.Close()
	if _, err := Analyze(context.Background(), srv.URL, &Options{Memory: full, AllowPrivate: true, Depth: Basic}); !errors.Is(err, seo.ErrUnavailable) {
		t.Errorf("Analyze with a refused budget: %v, want ErrUnavailable", err)
	}
}

// TestMillionLinkPage analyses a page of 1,000,000 links served on
// loopback: the fetch keeps what fits under the body cap, the report
// counts every link kept and lists 1000, and its JSON stays small.
func TestMillionLinkPage(t *testing.T) {
	t.Parallel()
	if testing.Short() || raceEnabled {
		t.Skip("analyses a 15 MiB page: not in -short or -race runs (the race detector multiplies its memory)")
	}
	const link = `<a href="/p/%06d">x</a>`
	var b strings.Builder
	b.WriteString("<!DOCTYPE html><html><head><title>A million links</title></head><body>")
	head := b.Len()
	for i := range 1_000_000 {
		fmt.Fprintf(&b, link, i)
	}
	b.WriteString("</body></html>")
	page := b.String()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(page))
	}))
	defer srv.Close()

	rep, err := Analyze(context.Background(), srv.URL+"/", &Options{AllowPrivate: true, Depth: Basic})
	if err != nil {
		t.Fatal(err)
	}
	// Links that fit whole under the cap: the parser still sees a partial
	// last one, which has an href when its opening tag is complete.
	fit := (seo.DefaultMaxBodyBytes - head) / len(fmt.Sprintf(link, 0))
	js, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	tr := rep.Truncated["links"]
	t.Logf("body %d bytes (truncated %v), %d links counted, %d listed, JSON %d bytes", rep.Sizes.HTML, rep.Sizes.Truncated, tr.Total, len(rep.Links.List), len(js))
	if !rep.Sizes.Truncated {
		t.Error("the body was not cut at the cap")
	}
	if tr.Total < fit || tr.Total > fit+1 || rep.Links.Internal != tr.Total {
		t.Errorf("truncated.links = %+v, internal %d; want the %d links that fit under the cap", tr, rep.Links.Internal, fit)
	}
	if len(rep.Links.List) != DefaultMaxListItems || tr.Omitted != tr.Total-DefaultMaxListItems {
		t.Errorf("listed %d links, omitted %d; want %d listed", len(rep.Links.List), tr.Omitted, DefaultMaxListItems)
	}
	if len(js) >= 5<<20 {
		t.Errorf("report JSON is %d bytes, want under 5 MB", len(js))
	}
}

// TestFindingsGroupedAndPrioritised checks that a report holds one finding
// per ID with its count, sorted by priority, and that the low-value
// notices (security headers, social tags) rank below every other finding.
func TestFindingsGroupedAndPrioritised(t *testing.T) {
	t.Parallel()
	doc := `<!DOCTYPE html><html lang="en"><head><title>A gallery of seven images without any sizes</title></head><body><h1>Gallery</h1>` +
		strings.Repeat(`<img src="/g.jpg" alt="a harbour view">`, 7) + `</body></html>`
	rep := analyzeString(t, doc, "", nil, &Options{Depth: Complete})
	seen := map[string]bool{}
	lastMinor := -1
	firstMinor := len(rep.Findings)
	for k, f := range rep.Findings {
		if seen[f.ID] {
			t.Errorf("%s reported twice", f.ID)
		}
		seen[f.ID] = true
		if f.Count < 1 || f.Count < 1+len(f.Examples) {
			t.Errorf("%s: count %d with %d examples", f.ID, f.Count, len(f.Examples))
		}
		if k > 0 && rep.Findings[k-1].Priority < f.Priority {
			t.Errorf("%s (priority %d) after %s (%d)", f.ID, f.Priority, rep.Findings[k-1].ID, rep.Findings[k-1].Priority)
		}
		if catalog[f.ID].Minor {
			firstMinor = min(firstMinor, k)
			lastMinor = k
		} else if lastMinor >= 0 {
			t.Errorf("%s ranks below the minor notice %s", f.ID, rep.Findings[lastMinor].ID)
		}
	}
	if f := finding(rep, "images.size_attrs_missing"); f == nil || f.Count != 7 || len(f.Examples) != 5 || f.Priority != seo.Priority(seo.Notice, seo.PageReach(7), false) {
		t.Errorf("size_attrs_missing = %+v, want ×7 with 5 examples", f)
	}
	if firstMinor == len(rep.Findings) || !seen["security.csp_missing"] || !seen["social.og_title_missing"] {
		t.Errorf("want minor notices in %v", findingIDs(rep))
	}
}
