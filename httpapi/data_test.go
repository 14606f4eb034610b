package httpapi

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/keywords"
	"github.com/seokit/seokit/keywords/local"
	"github.com/seokit/seokit/rankings"
	rsql "github.com/seokit/seokit/rankings/sqlstore"
	"github.com/seokit/seokit/reports"
	"github.com/seokit/seokit/seo"
)

var enUS = seo.Locale{Language: "en", Region: "US"}

// dataOptions wires a keyword table imported from testdata and a rankings
// store filled from testdata/rankings.csv.
func dataOptions(t *testing.T) *Options {
	t.Helper()
	ctx := context.Background()
	ks, err := local.Open(ctx, ":memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ks.Close() })
	f, err := os.Open("testdata/keywords-semrush.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := ks.Import(ctx, f, local.Semrush, enUS); err != nil {
		t.Fatal(err)
	}
	rs, err := rsql.Open(ctx, ":memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rs.Close() })
	rf, err := os.Open("testdata/rankings.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer rf.Close()
	rows, err := csv.NewReader(rf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var obs []rankings.Observation
	for _, r := range rows[1:] {
		day, err := time.Parse(time.DateOnly, r[0])
		if err != nil {
			t.Fatal(err)
		}
		o := rankings.Observation{Domain: "example.com", Keyword: r[1], Locale: enUS, Device: rankings.Desktop,
			Date: day, URL: r[3], Depth: 100, Source: "fixture", CheckedAt: day.Add(12 * time.Hour)}
		if r[2] != "" {
			p, _ := strconv.ParseFloat(r[2], 64)
			o.Position = &p
		}
		obs = append(obs, o)
	}
	var tracked []rankings.Tracked
	for _, kw := range []string{"oak tables", "oak chairs"} {
		tracked = append(tracked, rankings.Tracked{Domain: "example.com", Keyword: kw, Locale: enUS, Device: rankings.Desktop})
	}
	if err := rs.Track(ctx, tracked); err != nil {
		t.Fatal(err)
	}
	if err := rs.Record(ctx, obs); err != nil {
		t.Fatal(err)
	}
	return &Options{
		Suggester: keywords.NewSuggester([]keywords.Source{ks}, nil),
		Tracker:   rankings.NewTracker(nil, rs, nil),
		Reports:   reports.New(rs, ks, nil),
	}
}

func TestKeywordsSuggest(t *testing.T) {
	a := newTestAPI(t, dataOptions(t))
	t.Run("success", func(t *testing.T) {
		resp := a.call("GET", "/v1/keywords/suggest?query=oak+tables&locale=en-US&limit=10", a.key, "")
		wantStatus(t, resp, 200)
		var res struct {
			Suggestions []struct {
				Keyword    string `json:"keyword"`
				Volume     *int   `json:"volume"`
				Difficulty *int   `json:"difficulty"`
				Source     string `json:"source"`
			} `json:"suggestions"`
		}
		readJSON(t, resp, &res)
		found := false
		for _, s := range res.Suggestions {
			if s.Keyword == "oak tables" {
				found = true
				if s.Volume == nil || *s.Volume != 1900 || s.Difficulty == nil || *s.Difficulty != 41 {
					t.Errorf("oak tables: %+v (fixture has volume 1900, difficulty 41)", s)
				}
			}
		}
		if !found {
			t.Errorf("oak tables not suggested: %+v", res.Suggestions)
		}
	})
	for _, tc := range []struct{ name, query, field string }{
		{"missing query", "locale=en-US", "query"},
		{"blank query", "query=+++", "query"},
		{"bad locale", "query=oak&locale=english", "locale"},
		{"unknown region", "query=oak&locale=en-XX", "locale"},
		{"bad limit", "query=oak&limit=0", "limit"},
		{"limit not a number", "query=oak&limit=ten", "limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := apiErr(t, a.call("GET", "/v1/keywords/suggest?"+tc.query, a.key, ""), 400, CodeInvalidRequest)
			if e.Field != tc.field {
				t.Errorf("field %q, want %q", e.Field, tc.field)
			}
		})
	}
	t.Run("not configured", func(t *testing.T) {
		b := newTestAPI(t, nil)
		resp := b.call("GET", "/v1/keywords/suggest?query=oak", b.key, "")
		apiErr(t, resp, 503, CodeUnavailable)
		if resp.Header.Get("Retry-After") == "" {
			t.Error("503 without Retry-After")
		}
	})
}

func TestRankings(t *testing.T) {
	a := newTestAPI(t, dataOptions(t))
	t.Run("success", func(t *testing.T) {
		resp := a.call("GET", "/v1/rankings?domain=example.com&keywords[]=oak+tables&keywords[]=oak+chairs", a.key, "")
		wantStatus(t, resp, 200)
		var res RankingsResponse
		readJSON(t, resp, &res)
		got := map[string]rankings.Ranking{}
		for _, r := range res.Rankings {
			got[r.Keyword] = r
		}
		if r := got["oak tables"]; r.Position == nil || *r.Position != 3 || r.URL != "https://example.com/tables" {
			t.Errorf("oak tables: %+v (latest fixture row: position 3)", r)
		}
		if r, ok := got["oak chairs"]; !ok || r.Position != nil || r.Status != rankings.StatusNotRanked || r.Depth != 100 {
			t.Errorf("oak chairs: %+v, want not_ranked within 100", r)
		}
		if r := got["oak tables"]; r.Status != rankings.StatusRanked {
			t.Errorf("oak tables: status %q, want ranked", r.Status)
		}
	})
	// Without a SERP source the answer says so, and a keyword never
	// imported is unchecked, not a null position that reads as not ranked.
	t.Run("no source", func(t *testing.T) {
		resp := a.call("GET", "/v1/rankings?domain=example.com&keywords[]=oak+tables&keywords[]=never+seen", a.key, "")
		wantStatus(t, resp, 200)
		var res RankingsResponse
		readJSON(t, resp, &res)
		if res.Source != nil || res.SourceStatus != SourceNone || !strings.Contains(res.Message, "No SERP source") {
			t.Errorf("source %v, sourceStatus %q, message %q; want null, none and a message", res.Source, res.SourceStatus, res.Message)
		}
		if r := res.Rankings[1]; r.Status != rankings.StatusUnchecked || r.Position != nil || !strings.Contains(r.Reason, "no SERP source") {
			t.Errorf("never seen: %+v, want unchecked with a reason", r)
		}
	})
	// With a source, a provider failure is an entry with status failed and
	// the provider's error, keeping the last position; not a 503 and not
	// a null position.
	t.Run("failed check", func(t *testing.T) {
		opts := dataOptions(t)
		opts.Tracker = rankings.NewTracker(failingSource{}, opts.Tracker.Store(), nil)
		b := newTestAPI(t, opts)
		resp := b.call("GET", "/v1/rankings?domain=example.com&keywords[]=oak+tables", b.key, "")
		wantStatus(t, resp, 200)
		var res RankingsResponse
		readJSON(t, resp, &res)
		if res.Source == nil || *res.Source != "failing" || res.SourceStatus != SourceConfigured || res.Message != "" {
			t.Errorf("source %v, sourceStatus %q, message %q; want failing, configured", res.Source, res.SourceStatus, res.Message)
		}
		r := res.Rankings[0]
		if r.Status != rankings.StatusFailed || !strings.Contains(r.Error, "quota exhausted") || r.Position == nil || *r.Position != 3 || r.FailedAt.IsZero() {
			t.Errorf("oak tables: %+v, want failed with the error and the last position 3", r)
		}
	})
	many := make([]string, MaxRankingKeywords+1)
	for i := range many {
		many[i] = "keywords[]=k" + strconv.Itoa(i)
	}
	for _, tc := range []struct{ name, query, field string }{
		{"missing domain", "keywords[]=oak", "domain"},
		{"bad domain", "domain=exa%20mple&keywords[]=oak", "domain"},
		{"domain with scheme", "domain=" + url.QueryEscape("https://example.com") + "&keywords[]=oak", "domain"},
		{"no keywords", "domain=example.com", "keywords[]"},
		{"empty keyword", "domain=example.com&keywords[]=oak&keywords[]=", "keywords[1]"},
		{"too many keywords", "domain=example.com&" + strings.Join(many, "&"), "keywords[]"},
		{"bad locale", "domain=example.com&keywords[]=oak&locale=en", "locale"},
		{"bad device", "domain=example.com&keywords[]=oak&device=tablet", "device"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := apiErr(t, a.call("GET", "/v1/rankings?"+tc.query, a.key, ""), 400, CodeInvalidRequest)
			if e.Field != tc.field {
				t.Errorf("field %q, want %q (%s)", e.Field, tc.field, e.Message)
			}
		})
	}
}

func TestReports(t *testing.T) {
	a := newTestAPI(t, dataOptions(t))
	t.Run("success", func(t *testing.T) {
		resp := a.call("GET", "/v1/reports?domain=example.com&start=2026-11-01&end=2026-11-02", a.key, "")
		wantStatus(t, resp, 200)
		var rep struct {
			Domain  string         `json:"domain"`
			Start   string         `json:"start"`
			End     string         `json:"end"`
			Metrics map[string]any `json:"metrics"`
		}
		readJSON(t, resp, &rep)
		if rep.Domain != "example.com" || rep.Start != "2026-11-01" || rep.End != "2026-11-02" {
			t.Errorf("report %+v", rep)
		}
		for _, k := range []string{"visibility", "rankings", "traffic"} {
			if _, ok := rep.Metrics[k]; !ok {
				t.Errorf("metrics.%s missing: %v", k, rep.Metrics)
			}
		}
	})
	t.Run("nothing checked", func(t *testing.T) {
		resp := a.call("GET", "/v1/reports?domain=nothing-checked.example&start=2026-11-01&end=2026-11-02", a.key, "")
		wantStatus(t, resp, 200)
		var rep struct {
			Metrics map[string]any `json:"metrics"`
		}
		readJSON(t, resp, &rep)
		if v, ok := rep.Metrics["visibility"]; !ok || v != nil || rep.Metrics["visibilityReason"] == nil {
			t.Errorf("visibility %v reason %v, want null with a reason", v, rep.Metrics["visibilityReason"])
		}
	})
	for _, tc := range []struct{ name, query, field, says string }{
		// time.Time's zero was read as a date not given: "start is required".
		{"zero start", "domain=example.com&start=0001-01-01&end=2026-11-02", "start", "after 0001-01-01"},
		{"bad start", "domain=example.com&start=2026-13-01&end=2026-11-02", "start", ""},
		{"start not a date", "domain=example.com&start=yesterday&end=2026-11-02", "start", ""},
		{"missing end", "domain=example.com&start=2026-11-01", "end", ""},
		{"start after end", "domain=example.com&start=2026-11-05&end=2026-11-02", "start", ""},
		{"bad domain", "domain=not_a_domain&start=2026-11-01&end=2026-11-02", "domain", ""},
		{"bad device", "domain=example.com&start=2026-11-01&end=2026-11-02&device=watch", "device", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := apiErr(t, a.call("GET", "/v1/reports?"+tc.query, a.key, ""), 400, CodeInvalidRequest)
			if e.Field != tc.field || !strings.Contains(e.Message, tc.says) {
				t.Errorf("field %q, message %q; want %q saying %q", e.Field, e.Message, tc.field, tc.says)
			}
		})
	}
}

// failingSource is a SERP provider whose every search fails.
type failingSource struct{}

func (failingSource) Name() string { return "failing" }

func (failingSource) Search(context.Context, rankings.Query) (*rankings.SERP, error) {
	return nil, fmt.Errorf("failing: %w: quota exhausted", seo.ErrRateLimited)
}

// TestKeywordsSuggestSite: with site=, the ideas add the noun phrases of
// the pages of the account's newest succeeded analysis of that domain
// that contain the query, with source "site" and why; the imported ones
// stay with their volumes; no template phrase; the report is read as a
// report read of the admission control (it was read outside it, any
// number at once); a domain without an analysis is 400 naming site.
func TestKeywordsSuggestSite(t *testing.T) {
	a := newTestAPI(t, dataOptions(t))
	rep := &crawler.SiteReport{Domain: "oak.example", Pages: []crawler.PageSummary{
		{URL: "https://oak.example/", Status: 200, Title: "Solid oak tables made to order", H1: "Oak tables and chairs"},
		{URL: "https://oak.example/round", Status: 200, Title: "Round oak tables", Description: "Our round oak tables seat six."},
	}}
	a.storeSiteJob(a.acct.ID, "oak.example", store.JobSucceeded, rep, time.Now())
	resp := a.call("GET", "/v1/keywords/suggest?query=oak+tables&locale=en-US&limit=20&site=oak.example", a.key, "")
	wantStatus(t, resp, 200)
	var res keywords.Suggestions
	readJSON(t, resp, &res)
	got := map[string]keywords.Keyword{}
	for _, k := range res.Suggestions {
		t.Logf("%-28q %-16s %s", k.Keyword, k.Source, k.Why)
		got[k.Keyword] = k
		if k.Why == "" || k.Expansion {
			t.Errorf("%q: no reason, or generated", k.Keyword)
		}
	}
	for _, p := range []string{"solid oak tables", "round oak tables"} {
		if k := got[p]; k.Source != keywords.SiteSourceName || !strings.Contains(k.Why, "crawled pages") {
			t.Errorf("%q = %+v, want a site idea", p, k)
		}
	}
	if k := got["oak tables"]; k.Volume == nil {
		t.Errorf("imported %q lost its volume: %+v", "oak tables", k)
	}
	if !slices.Contains(res.Sources, keywords.SiteSourceName) {
		t.Errorf("sources %v", res.Sources)
	}
	// The report is read as a report read: not while the account's other
	// one is (429 at once), and its admission ends with the answer.
	hold, err := a.srv.adm.acquireSlot(context.Background(), KindReport, a.acct.ID, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	if e := apiErr(t, a.call("GET", "/v1/keywords/suggest?query=oak+tables&site=oak.example", a.key, ""), 429, CodeRateLimited); !strings.Contains(e.Message, "report reads") {
		t.Errorf("site ideas while the account's report read is held: %q, want the report reads' limit", e.Message)
	}
	hold()
	wantStatus(t, a.call("GET", "/v1/keywords/suggest?query=oak+tables&site=oak.example", a.key, ""), 200)
	if n := a.srv.adm.kinds[KindReport].inFlight.Load(); n != 0 {
		t.Errorf("%d report reads in flight after the answer, want 0", n)
	}
	resp = a.call("GET", "/v1/keywords/suggest?query=oak+tables&site=never-analysed.example", a.key, "")
	wantStatus(t, resp, 400)
	var e struct {
		Error struct{ Code, Message string }
	}
	readJSON(t, resp, &e)
	if e.Error.Code != "invalid_request" || !strings.Contains(e.Error.Message, "site") {
		t.Errorf("unknown site: %+v", e)
	}
}

// countingSource is a SERP source that counts its searches.
type countingSource struct{ n atomic.Int64 }

func (*countingSource) Name() string { return "counting" }

func (c *countingSource) Search(_ context.Context, q rankings.Query) (*rankings.SERP, error) {
	c.n.Add(1)
	return &rankings.SERP{Query: q, Depth: 100, Source: "counting", CheckedAt: time.Now(), Results: []rankings.Result{{Position: 1, URL: "https://example.org/", Title: "x"}}}, nil
}

// TestRankingsChargeSearches: a keyword searched live costs one unit of
// the daily quota, over GET /v1/rankings, POST /v1/rankings/track and the
// MCP tool alike (one service); a keyword checked within the tracker's
// MaxAge answers from the store for free; a request whose searches the
// quota cannot pay is 429 with nothing searched. One request searched up
// to 1,000 keywords at the server's SERP provider (paid per search) for one
// unit: a Free account's 100 requests a day bought 100,000 searches.
// TestRankingsChargeBeyondBurst: a call whose searches cost more units
// than the burst limit holds waits for the tokens instead of failing with
// the units taken (a Pro account's 300 new keywords failed at the 200th).
func TestRankingsChargeBeyondBurst(t *testing.T) {
	opts := dataOptions(t)
	opts.Burst, opts.BurstRate = 20, 400
	opts.Limits = map[store.Plan]int{store.Free: 1000}
	src := &countingSource{}
	opts.Tracker = rankings.NewTracker(src, opts.Tracker.Store(), nil)
	a := newTestAPI(t, opts)
	q := []string{"domain=example.org"}
	for i := range 60 {
		q = append(q, "keywords[]=k"+strconv.Itoa(i))
	}
	resp := a.call("GET", "/v1/rankings?"+strings.Join(q, "&"), a.key, "")
	wantStatus(t, resp, 200)
	resp.Body.Close()
	if src.n.Load() != 60 {
		t.Errorf("%d keywords searched, want 60", src.n.Load())
	}
}

func TestRankingsChargeSearches(t *testing.T) {
	opts := dataOptions(t)
	src := &countingSource{}
	opts.Tracker = rankings.NewTracker(src, opts.Tracker.Store(), nil)
	a := newTestAPI(t, opts)
	remaining := func() int {
		t.Helper()
		resp := a.call("GET", "/v1/projects", a.key, "")
		wantStatus(t, resp, 200)
		resp.Body.Close()
		n, err := strconv.Atoi(resp.Header.Get("X-RateLimit-Remaining"))
		if err != nil {
			t.Fatalf("X-RateLimit-Remaining %q", resp.Header.Get("X-RateLimit-Remaining"))
		}
		return n
	}
	query := func(from, n int) string {
		q := []string{"domain=example.org"}
		for i := from; i < from+n; i++ {
			q = append(q, "keywords[]=k"+strconv.Itoa(i))
		}
		return strings.Join(q, "&")
	}
	before := remaining()
	resp := a.call("GET", "/v1/rankings?"+query(0, 40), a.key, "")
	wantStatus(t, resp, 200)
	resp.Body.Close()
	// remaining() itself costs one request.
	if used := before - remaining() - 1; used != 40 || src.n.Load() != 40 {
		t.Errorf("40 keywords searched live: %d searches, %d units charged; want 40 and 40", src.n.Load(), used)
	}
	before = remaining()
	resp = a.call("GET", "/v1/rankings?"+query(0, 40), a.key, "")
	wantStatus(t, resp, 200)
	resp.Body.Close()
	if used := before - remaining() - 1; used != 1 || src.n.Load() != 40 {
		t.Errorf("40 keywords checked an instant ago: %d searches in all, %d units charged; want 40 and 1 (the request)", src.n.Load(), used)
	}
	left := remaining()
	e := apiErr(t, a.call("GET", "/v1/rankings?"+query(100, left+5), a.key, ""), 429, CodeRateLimited)
	if src.n.Load() != 40 {
		t.Errorf("%d keywords searched for a request the quota could not pay (%s); want none", src.n.Load()-40, e.Message)
	}
	// The searches the day cannot pay are refused before any unit is
	// taken: the request's own unit only.
	if used := left - remaining() - 1; used != 1 {
		t.Errorf("a refused call used %d units; want 1 (the request)", used)
	}
	if !strings.Contains(e.Message, "search") {
		t.Errorf("429 %q does not say the searches cost units", e.Message)
	}
}
