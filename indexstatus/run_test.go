package indexstatus_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/indexstatus"
	"github.com/seokit/seokit/indexstatus/indexstatustest"
	"github.com/seokit/seokit/indexstatus/searchconsole"
	"github.com/seokit/seokit/internal/googlefake"
	"github.com/seokit/seokit/seo"
)

// virtualClock is a clock whose Sleep moves time on at once: quotas are
// checked against time as the ledger and the fake both read it, with no
// wall-clock waiting.
type virtualClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *virtualClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *virtualClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
	return nil
}

func newFake(t *testing.T, fake *googlefake.SearchConsole) indexstatus.Inspector {
	t.Helper()
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	ins, err := searchconsole.New(&searchconsole.Options{BaseURL: srv.URL, TokenSource: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "t"})})
	if err != nil {
		t.Fatal(err)
	}
	return ins
}

// maxInWindow returns the most times within any span d.
func maxInWindow(ts []time.Time, d time.Duration) int {
	ts = slices.Clone(ts)
	slices.SortFunc(ts, time.Time.Compare)
	best, j := 0, 0
	for i := range ts {
		for ts[i].Sub(ts[j]) >= d {
			j++
		}
		best = max(best, i-j+1)
	}
	return best
}

// TestQuotaOver10000Pages inspects a 10,000-page crawl against a fake
// Search Console that enforces the documented quotas (600 a minute, 2,000
// a day per property) by the same clock: the run must never be refused,
// take exactly the day's 2,000, spread them over minutes within 600, and a
// second run the same day must inspect nothing and say why.
func TestQuotaOver10000Pages(t *testing.T) {
	clock := &virtualClock{now: time.Date(2026, 12, 1, 17, 0, 0, 0, time.UTC)}
	fake := &googlefake.SearchConsole{Now: clock.Now, PerMinute: indexstatus.DefaultPerMinute, PerDay: indexstatus.DefaultPerDay, Status: indexstatustest.Status}
	ins := newFake(t, fake)
	site := indexstatustest.Site(10000)
	ledger := indexstatus.NewLedger(indexstatus.Quota{}, clock)
	var events, lastDone int
	charged := 0
	rep, err := indexstatus.Run(t.Context(), site, ins, "sc-domain:example.com", &indexstatus.Options{
		Ledger: ledger, Concurrency: 8,
		Charge:   func(context.Context) error { charged++; return nil },
		Progress: func(p indexstatus.Progress) { events++; lastDone = p.Done },
	})
	if err != nil {
		t.Fatal(err)
	}
	reqs, answered, refused := fake.Stats()
	times := fake.Times()
	perMinute := map[string]int{}
	for _, ts := range times {
		perMinute[ts.UTC().Format("15:04")]++
	}
	minutes := make([]string, 0, len(perMinute))
	for m := range perMinute {
		minutes = append(minutes, m)
	}
	sort.Strings(minutes)
	var line []string
	for _, m := range minutes {
		line = append(line, fmt.Sprintf("%s=%d", m, perMinute[m]))
	}
	t.Logf("crawl: %d pages, %d eligible; sample %d (limit %s)", len(site.Pages), rep.Sample.Eligible, len(rep.Pages), rep.SampleLimit)
	t.Logf("fake Search Console: %d requests, %d answered, %d refused for quota; most in any 60 s: %d; per clock minute: %s",
		reqs, answered, refused, maxInWindow(times, time.Minute), strings.Join(line, " "))
	t.Logf("per day: %+v; run took %s of clock time; charged %d; progress events %d", rep.Quota.Made, rep.FinishedAt.Sub(rep.StartedAt), charged, events)
	for _, s := range rep.Sample.Strata {
		t.Logf("stratum template=%-8s segment=%-4s pages=%5d sampled=%4d top linkScore=%.2f", s.Template, s.Segment, s.Pages, s.Sampled, s.TopLinkScore)
	}
	t.Logf("counts: %+v", rep.Counts)
	for _, f := range rep.Findings {
		t.Logf("finding %s %s ×%d", f.Severity, f.ID, f.Occurrences())
	}

	if refused != 0 {
		t.Errorf("the fake refused %d inspections for quota: the ledger let the run exceed it", refused)
	}
	if answered != indexstatus.DefaultPerDay || rep.Counts.Inspected != indexstatus.DefaultPerDay {
		t.Errorf("answered %d, inspected %d; want the day's %d", answered, rep.Counts.Inspected, indexstatus.DefaultPerDay)
	}
	if m := maxInWindow(times, time.Minute); m > indexstatus.DefaultPerMinute {
		t.Errorf("%d inspections within 60 s, quota %d", m, indexstatus.DefaultPerMinute)
	}
	if len(minutes) < indexstatus.DefaultPerDay/indexstatus.DefaultPerMinute {
		t.Errorf("inspections spread over %d minutes; 2,000 at 600 a minute need at least 4", len(minutes))
	}
	if charged != reqs || events != len(rep.Pages) || lastDone != len(rep.Pages) {
		t.Errorf("charged %d for %d requests; %d progress events (last done %d) for %d pages", charged, reqs, events, lastDone, len(rep.Pages))
	}
	if rep.SampleLimit != indexstatus.LimitDailyQuota {
		t.Errorf("SampleLimit = %q, want %q", rep.SampleLimit, indexstatus.LimitDailyQuota)
	}
	// Every stratum is represented, in proportion to its size.
	sampled := 0
	for _, s := range rep.Sample.Strata {
		sampled += s.Sampled
		share := float64(s.Sampled) / float64(len(rep.Pages))
		want := float64(s.Pages) / float64(rep.Sample.Eligible)
		if s.Sampled == 0 || share < want-0.01 || share > want+0.01 {
			t.Errorf("stratum %s/%s: %d of %d sampled (%.3f), want about %.3f", s.Template, s.Segment, s.Sampled, s.Pages, share, want)
		}
	}
	if sampled != len(rep.Pages) {
		t.Errorf("strata sum to %d, sample has %d", sampled, len(rep.Pages))
	}
	// Within a stratum, the best-linked pages are taken.
	taken := map[string]bool{}
	for _, p := range rep.Pages {
		taken[p.URL] = true
	}
	lowest := map[string]float64{}
	for _, p := range rep.Pages {
		if v, ok := lowest[p.Template]; !ok || p.LinkScore < v {
			lowest[p.Template] = p.LinkScore
		}
	}
	for _, p := range site.Pages {
		if p.Status == 200 && !taken[p.URL] && p.LinkScore > lowest[p.Template] {
			t.Fatalf("%s (linkScore %.3f) left out while its template's sample goes down to %.3f", p.URL, p.LinkScore, lowest[p.Template])
		}
	}

	// The same day again: nothing left.
	again, err := indexstatus.Run(t.Context(), site, ins, "sc-domain:example.com", &indexstatus.Options{Ledger: ledger})
	if err != nil {
		t.Fatal(err)
	}
	if r2, _, _ := fake.Stats(); r2 != reqs || len(again.Pages) != 0 || again.SampleLimit != indexstatus.LimitDailyQuota {
		t.Errorf("second run the same day: %d new requests, %d pages, limit %q; want none and daily_quota", r2-reqs, len(again.Pages), again.SampleLimit)
	}
	// The next Pacific day, the quota is back.
	clock.Sleep(t.Context(), 24*time.Hour)
	next, err := indexstatus.Run(t.Context(), site, ins, "sc-domain:example.com", &indexstatus.Options{Ledger: ledger, SampleSize: 50})
	if err != nil {
		t.Fatal(err)
	}
	if next.Counts.Inspected != 50 || next.SampleLimit != indexstatus.LimitSampleSize {
		t.Errorf("next day: inspected %d, limit %q; want 50, sample_size", next.Counts.Inspected, next.SampleLimit)
	}
}

// TestAccountQuotaStopsTheRun charges each inspection to an account that
// allows 7: seven are inspected, the rest are not, with the reason, and no
// request is made past the refusal.
func TestAccountQuotaStopsTheRun(t *testing.T) {
	fake := &googlefake.SearchConsole{Status: indexstatustest.Status}
	ins := newFake(t, fake)
	n := 0
	errQuota := errors.New("daily quota reached")
	rep, err := indexstatus.Run(t.Context(), indexstatustest.Site(100), ins, "sc-domain:example.com", &indexstatus.Options{
		SampleSize: 20, Concurrency: 2,
		Charge: func(context.Context) error {
			if n == 7 {
				return errQuota
			}
			n++
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	reqs, _, _ := fake.Stats()
	if reqs != 7 || rep.Counts.Inspected != 7 || rep.Counts.NotInspectedReasons[indexstatus.ReasonAccountQuota] != 13 {
		t.Errorf("requests %d, counts %+v; want 7 inspected and 13 not (account_quota)", reqs, rep.Counts)
	}
	for _, p := range rep.Pages[7:] {
		if p.Indexed != nil || p.Inspection != nil {
			t.Errorf("%s not inspected but has indexed=%v", p.URL, *p.Indexed)
		}
	}
}

// TestProviderRefusalStopsTheRun: Search Console's own 429 (another tool
// spent the quota) stops the run; the pages left say rate_limited.
func TestProviderRefusalStopsTheRun(t *testing.T) {
	var mu sync.Mutex
	count := 0
	fake := &googlefake.SearchConsole{Status: indexstatustest.Status, Fail: func(string) string {
		mu.Lock()
		defer mu.Unlock()
		count++
		if count > 5 {
			return "rate"
		}
		return ""
	}}
	ins := newFake(t, fake)
	rep, err := indexstatus.Run(t.Context(), indexstatustest.Site(200), ins, "sc-domain:example.com", &indexstatus.Options{SampleSize: 100, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	reqs, _, _ := fake.Stats()
	if rep.Counts.Inspected != 5 || rep.Counts.NotInspectedReasons[indexstatus.ReasonRateLimited] != 95 || reqs != 6 {
		t.Errorf("counts %+v after %d requests; want 5 inspected, 95 rate_limited, 6 requests", rep.Counts, reqs)
	}
}

// TestSlowProviderEndsWithContext: a provider that never answers holds the
// run only until its context ends; every page then says canceled.
func TestSlowProviderEndsWithContext(t *testing.T) {
	started := make(chan struct{}, 100)
	fake := &googlefake.SearchConsole{Fail: func(string) string { started <- struct{}{}; return "slow" }}
	ins := newFake(t, fake)
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-started; cancel() }()
	rep, err := indexstatus.Run(ctx, indexstatustest.Site(50), ins, "sc-domain:example.com", &indexstatus.Options{SampleSize: 10, Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Counts.Inspected != 0 || rep.Counts.NotInspectedReasons[indexstatus.ReasonCanceled] != 10 {
		t.Errorf("counts %+v; want 10 canceled", rep.Counts)
	}
}

// TestJoin checks each index.* verdict on a page built for it, and that a
// clean page reports none.
func TestJoin(t *testing.T) {
	crawled := indexstatustest.Crawled.Format(time.RFC3339)
	ok := func(u string) *googlefake.IndexStatus {
		return &googlefake.IndexStatus{Verdict: "PASS", CoverageState: "Submitted and indexed", RobotsTxtState: "ALLOWED",
			PageFetchState: "SUCCESSFUL", LastCrawlTime: crawled, GoogleCanonical: u}
	}
	tests := []struct {
		name   string
		page   crawler.PageSummary
		status func(u string) *googlefake.IndexStatus
		want   []string
	}{
		{"clean", crawler.PageSummary{Indexable: true, InSitemap: true}, ok, nil},
		{"canonical mismatch", crawler.PageSummary{Indexable: true}, func(u string) *googlefake.IndexStatus {
			s := ok(u)
			s.GoogleCanonical = "https://example.com/other"
			return s
		}, []string{"index.canonical_mismatch"}},
		{"declared canonical followed", crawler.PageSummary{Indexable: true, Canonical: "https://example.com/other"}, func(u string) *googlefake.IndexStatus {
			s := ok(u)
			s.GoogleCanonical = "https://example.com/other"
			return s
		}, nil},
		{"indexed but noindex", crawler.PageSummary{Noindex: true}, ok, []string{"index.indexed_noindex"}},
		{"crawled not indexed, in sitemap", crawler.PageSummary{Indexable: true, InSitemap: true}, func(u string) *googlefake.IndexStatus {
			return &googlefake.IndexStatus{Verdict: "NEUTRAL", CoverageState: "Crawled - currently not indexed", LastCrawlTime: crawled}
		}, []string{"index.crawled_not_indexed", "index.submitted_not_indexed"}},
		{"discovered", crawler.PageSummary{Indexable: true}, func(string) *googlefake.IndexStatus {
			return &googlefake.IndexStatus{Verdict: "NEUTRAL", CoverageState: "Discovered - currently not indexed"}
		}, []string{"index.discovered_not_indexed"}},
		{"google's sitemap", crawler.PageSummary{Indexable: true}, func(string) *googlefake.IndexStatus {
			return &googlefake.IndexStatus{Verdict: "NEUTRAL", CoverageState: "Excluded by 'noindex' tag", Sitemap: []string{"https://example.com/s.xml"}}
		}, []string{"index.submitted_not_indexed"}},
		{"unknown", crawler.PageSummary{Indexable: true}, nil, []string{"index.unknown_to_google"}},
		{"robots", crawler.PageSummary{Indexable: true}, func(u string) *googlefake.IndexStatus {
			s := ok(u)
			s.RobotsTxtState = "DISALLOWED"
			return s
		}, []string{"index.robots_blocked"}},
		{"soft 404", crawler.PageSummary{Indexable: true}, func(u string) *googlefake.IndexStatus {
			return &googlefake.IndexStatus{Verdict: "FAIL", CoverageState: "Soft 404", PageFetchState: "SOFT_404", LastCrawlTime: crawled}
		}, []string{"index.fetch_failed"}},
		{"stale", crawler.PageSummary{Indexable: true}, func(u string) *googlefake.IndexStatus {
			s := ok(u)
			s.LastCrawlTime = indexstatustest.Crawled.AddDate(0, 0, -120).Format(time.RFC3339)
			return s
		}, []string{"index.stale_crawl"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.page
			p.URL, p.Status, p.IsHTML = "https://example.com/p", 200, true
			ins := newFake(t, &googlefake.SearchConsole{Status: tc.status})
			clock := &virtualClock{now: indexstatustest.Crawled.Add(time.Hour)}
			rep, err := indexstatus.Run(t.Context(), &crawler.SiteReport{Domain: "example.com", Pages: []crawler.PageSummary{p}}, ins,
				"sc-domain:example.com", &indexstatus.Options{Ledger: indexstatus.NewLedger(indexstatus.Quota{}, clock)})
			if err != nil {
				t.Fatal(err)
			}
			got := rep.Pages[0].Findings
			if !slices.Equal(got, tc.want) {
				t.Errorf("findings %v, want %v", got, tc.want)
			}
			if len(rep.Findings) != len(tc.want) {
				t.Errorf("report findings %d, want %d", len(rep.Findings), len(tc.want))
			}
		})
	}
}

func TestCatalogSources(t *testing.T) {
	for _, c := range indexstatus.Catalog() {
		if !strings.HasPrefix(c.ID, "index.") || c.Source == "" || c.Summary == "" || c.Scope != seo.ScopeSite {
			t.Errorf("%+v: want an index.* ID with a summary, a source and site scope", c)
		}
	}
}
