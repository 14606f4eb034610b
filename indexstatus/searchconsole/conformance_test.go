package searchconsole

import (
	"net/http/httptest"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/seokit/seokit/indexstatus"
	"github.com/seokit/seokit/indexstatus/indexstatustest"
	"github.com/seokit/seokit/internal/googlefake"
)

const token = "ya29.test-token"

// indexed is the fake's answer for an indexed page whose canonical Google
// moved to another URL.
func indexed(u string) *googlefake.IndexStatus {
	return &googlefake.IndexStatus{
		Verdict: "PASS", CoverageState: "Submitted and indexed", RobotsTxtState: "ALLOWED",
		IndexingState: "INDEXING_ALLOWED", LastCrawlTime: "2026-11-30T08:15:02Z", PageFetchState: "SUCCESSFUL",
		GoogleCanonical: "https://example.com/a", UserCanonical: u, CrawledAs: "MOBILE",
		Sitemap: []string{"https://example.com/sitemap.xml"}, ReferringUrls: []string{"https://example.com/"},
	}
}

// newInspector serves fake behind a real httptest server and returns an
// inspector using it.
func newInspector(t *testing.T, fake *googlefake.SearchConsole) *Inspector {
	t.Helper()
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	ins, err := New(&Options{BaseURL: srv.URL, TokenSource: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: token}), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return ins
}

func TestConformance(t *testing.T) {
	fake := &googlefake.SearchConsole{Token: token, Status: indexed}
	ins := newInspector(t, fake)
	crawled := time.Date(2026, 11, 30, 8, 15, 2, 0, time.UTC)
	fails := map[indexstatustest.Answer]string{
		indexstatustest.NoResult: "partial", indexstatustest.ServerError: "server",
		indexstatustest.RateLimited: "rate", indexstatustest.Unauthorized: "denied",
		indexstatustest.Garbage: "garbage", indexstatustest.Truncated: "truncated", indexstatustest.Slow: "slow",
	}
	indexstatustest.RunInspector(t, ins, indexstatustest.Case{
		Property: "sc-domain:example.com", URL: "https://example.com/a?b=1", Outside: "https://example.org/",
		Want: &indexstatus.Inspection{
			URL: "https://example.com/a?b=1", Verdict: "PASS", Coverage: "Submitted and indexed",
			IndexingState: "INDEXING_ALLOWED", RobotsTxtState: "ALLOWED", PageFetchState: "SUCCESSFUL",
			GoogleCanonical: "https://example.com/a", UserCanonical: "https://example.com/a?b=1",
			LastCrawl: &crawled, CrawledAs: "MOBILE", Sitemaps: []string{"https://example.com/sitemap.xml"},
			ReferringURLs: []string{"https://example.com/"},
			Link:          "https://search.google.com/search-console/inspect?resource_id=sc-domain%3Aexample.com&id=fake",
		},
		With: func(t *testing.T, a indexstatustest.Answer) indexstatus.Inspector {
			if a == indexstatustest.Partial {
				return newInspector(t, &googlefake.SearchConsole{Status: func(string) *googlefake.IndexStatus {
					return &googlefake.IndexStatus{Verdict: "NEUTRAL", CoverageState: "Discovered - currently not indexed"}
				}})
			}
			mode, ok := fails[a]
			if !ok {
				return nil
			}
			return newInspector(t, &googlefake.SearchConsole{Fail: func(string) string { return mode }})
		},
		Requests: func() int { n, _, _ := fake.Stats(); return n },
		Secrets:  []string{token},
	})
}

func TestQuotaRefusalIsRateLimit(t *testing.T) {
	// The fake enforces 2 inspections a minute: the third is refused with
	// RESOURCE_EXHAUSTED, which must read as a rate limit.
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	fake := &googlefake.SearchConsole{PerMinute: 2, Now: func() time.Time { return now }}
	ins := newInspector(t, fake)
	for i := range 3 {
		_, err := ins.Inspect(t.Context(), "https://example.com/", "https://example.com/p")
		if (err != nil) != (i == 2) {
			t.Fatalf("inspection %d: err = %v", i+1, err)
		}
		if i == 2 {
			indexstatustest.CheckRateLimited(t, err)
		}
	}
}
