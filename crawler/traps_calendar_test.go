package crawler_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
)

// bothWays serves /cal?<param>=N pages linking to N-1 and N+1, without end
// unless lo <= hi bounds them, and a home page linking to start.
func bothWays(param string, start, lo, hi int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Path == "/" {
			fmt.Fprintf(w, `<html lang="en"><head><title>Home</title></head><body><h1>Home</h1><a href="/cal?%s=%d">Calendar</a></body></html>`, param, start)
			return
		}
		if r.URL.Path != "/cal" {
			http.NotFound(w, r)
			return
		}
		n, err := strconv.Atoi(r.URL.Query().Get(param))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		var links strings.Builder
		if lo > hi || n > lo {
			fmt.Fprintf(&links, `<a href="/cal?%s=%d">Previous</a> `, param, n-1)
		}
		if lo > hi || n < hi {
			fmt.Fprintf(&links, `<a href="/cal?%s=%d">Next</a>`, param, n+1)
		}
		fmt.Fprintf(w, `<html lang="en"><head><title>Calendar %d</title></head><body><h1>Calendar %d</h1><p>Events of %s %d.</p>%s</body></html>`, n, n, param, n, links.String())
	})
}

// TestCalendarTraps crawls endless calendars that link both ways: a
// date-named parameter leaving its range, or a number going below zero,
// makes a calendar trap. The finding is reported and the crawl stops
// following the pattern within a few clicks, where it used to follow it as
// deep as MaxDepth (month -98 to 100 at the default 100). A bounded
// calendar (months 1 to 12, linking both ways) is no trap.
func TestCalendarTraps(t *testing.T) {
	tests := []struct {
		name          string
		param         string
		start, lo, hi int
		trap          bool
		// crawled values must lie within [min, max].
		min, max int
	}{
		{name: "month beyond 1-12", param: "month", start: 6, lo: 1, hi: 0, trap: true, min: 1, max: 12},
		{name: "camelCase calendar month", param: "calMonth", start: 6, lo: 1, hi: 0, trap: true, min: 1, max: 12},
		{name: "day beyond 1-31", param: "day", start: 28, lo: 1, hi: 0, trap: true, min: 1, max: 31},
		{name: "year far ahead", param: "year", start: 2030, lo: 1, hi: 0, trap: true, min: 2030 - 12, max: 2036},
		{name: "number going negative", param: "offset", start: 3, lo: 1, hi: 0, trap: true, min: 0, max: 6},
		{name: "bounded months are no trap", param: "month", start: 6, lo: 1, hi: 12, trap: false, min: 1, max: 12},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(bothWays(tc.param, tc.start, tc.lo, tc.hi))
			defer srv.Close()
			// One page at a time: which pages are admitted before the trap fires
			// then depends on the order of the links alone, not on timing.
			opts := crawler.Options{MaxPages: 400, MaxDepth: 150, Concurrency: 1, SkipExternalLinks: true,
				Now: func() time.Time { return time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC) }}
			rep, err := crawler.New(testOptions(opts)).Run(context.Background(), srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			values := 0
			maxDepth := 0
			for _, p := range rep.Pages {
				u, err := url.Parse(p.URL)
				if err != nil || u.Path != "/cal" {
					continue
				}
				values++
				n, _ := strconv.Atoi(u.Query().Get(tc.param))
				if n < tc.min || n > tc.max {
					t.Errorf("crawled %s=%d, outside %d..%d", tc.param, n, tc.min, tc.max)
				}
				if p.Depth != nil && *p.Depth > maxDepth {
					maxDepth = *p.Depth
				}
			}
			var calendar *crawler.Trap
			for i, tr := range rep.Crawl.Traps {
				if tr.Reason == crawler.TrapCalendar {
					calendar = &rep.Crawl.Traps[i]
				}
			}
			t.Logf("%s: %d calendar pages crawled, deepest at click depth %d, traps %+v", tc.name, values, maxDepth, rep.Crawl.Traps)
			if !tc.trap {
				if len(rep.Crawl.Traps) > 0 || hasFinding(rep, "site.crawl_trap") {
					t.Errorf("traps %+v on a bounded calendar", rep.Crawl.Traps)
				}
				if values != tc.hi-tc.lo+1 {
					t.Errorf("crawled %d months, want all %d", values, tc.hi-tc.lo+1)
				}
				return
			}
			if calendar == nil || !strings.Contains(calendar.Pattern, tc.param+"={n}") || calendar.Dropped == 0 {
				t.Fatalf("no calendar trap on %s={n}: traps %+v", tc.param, rep.Crawl.Traps)
			}
			if !hasFinding(rep, "site.crawl_trap") {
				t.Error("site.crawl_trap not reported")
			}
			if values == 0 {
				t.Error("no calendar page crawled")
			}
		})
	}
}
