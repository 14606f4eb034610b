package crawler_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
	"github.com/seokit/seokit/seo"
)

func TestHostLimitValidate(t *testing.T) {
	cases := []struct {
		name  string
		limit crawler.HostLimit
		field string // "" when valid
	}{
		{"valid", crawler.HostLimit{Interval: time.Second, Burst: 1}, ""},
		{"zero_interval", crawler.HostLimit{Burst: 1}, "limit.interval"},
		{"negative_interval", crawler.HostLimit{Interval: -1, Burst: 3}, "limit.interval"},
		{"zero_burst", crawler.HostLimit{Interval: time.Millisecond}, "limit.burst"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.limit.Validate()
			if tc.field == "" {
				if err != nil {
					t.Fatalf("Validate = %v, want nil", err)
				}
				return
			}
			var ie *seo.InputError
			if !errors.As(err, &ie) || ie.Field != tc.field || !errors.Is(err, seo.ErrInvalidInput) {
				t.Fatalf("Validate = %v, want InputError on %s", err, tc.field)
			}
		})
	}
}

// LocalHostGate passes the HostGate conformance suite.
func TestLocalHostGateConformance(t *testing.T) {
	crawlertest.RunHostGate(t, func(*testing.T) crawler.HostGate { return crawler.NewLocalHostGate() })
}

// countingGate records the limits the crawler asks for and can fail.
type countingGate struct {
	mu     sync.Mutex
	waits  int
	limits map[crawler.HostLimit]int
	fail   error
	inner  crawler.HostGate
}

func (g *countingGate) Wait(ctx context.Context, host string, l crawler.HostLimit) error {
	g.mu.Lock()
	g.waits++
	if g.limits == nil {
		g.limits = map[crawler.HostLimit]int{}
	}
	g.limits[l]++
	fail := g.fail
	g.mu.Unlock()
	if fail != nil {
		return fail
	}
	return g.inner.Wait(ctx, host, l)
}

func (g *countingGate) Pause(ctx context.Context, host string, until time.Time) error {
	return g.inner.Pause(ctx, host, until)
}

// The crawl asks Options.HostGate once per request to the site (pages, resources, probes,
// sitemaps) with PerHostRate and
// PerHostBurst; an unlimited rate never asks; a gate that fails stops the
// crawl with an error instead of crawling unlimited.
func TestCrawlUsesHostGate(t *testing.T) {
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 40, Categories: 4, PerPage: 10})
	defer site.Close()
	ctx := context.Background()

	g := &countingGate{inner: crawler.NewLocalHostGate()}
	rep, err := crawler.New(testOptions(crawler.Options{PerHostRate: 1000, PerHostBurst: 4, HostGate: g, SkipExternalLinks: true})).Run(ctx, site.URL)
	if err != nil {
		t.Fatal(err)
	}
	want := crawler.HostLimit{Interval: time.Millisecond, Burst: 4}
	// The site's one image and one stylesheet answer HEAD, so each check
	// is one request.
	if rep.ResourceChecked != 2 {
		t.Errorf("%d resources checked, want the image and the stylesheet", rep.ResourceChecked)
	}
	// Every request the site answered but robots.txt (fetched before any
	// slot is taken) went through the gate: pages, resources, the site
	// probes and the sitemap.
	requests := site.Requests() - site.Hits("/robots.txt")
	if g.waits != requests || g.limits[want] != g.waits || g.waits < rep.Crawl.Fetched+rep.ResourceChecked {
		t.Errorf("gate asked %d times with %v for %d requests (%d pages, %d resources); want once per request with %+v", g.waits, g.limits, requests, rep.Crawl.Fetched, rep.ResourceChecked, want)
	}

	un := &countingGate{inner: crawler.NewLocalHostGate()}
	if _, err := crawler.New(testOptions(crawler.Options{PerHostRate: -1, HostGate: un, SkipExternalLinks: true})).Run(ctx, site.URL); err != nil {
		t.Fatal(err)
	}
	if un.waits != 0 {
		t.Errorf("unlimited rate asked the gate %d times", un.waits)
	}

	down := errors.New("gate store unreachable")
	bad := &countingGate{inner: crawler.NewLocalHostGate(), fail: down}
	rep, err = crawler.New(testOptions(crawler.Options{PerHostRate: 1000, HostGate: bad, SkipExternalLinks: true})).Run(ctx, site.URL)
	if !errors.Is(err, down) {
		t.Fatalf("crawl with a failing gate = %v, want it to wrap the gate's error", err)
	}
	if rep != nil && rep.Crawl.Fetched != 0 {
		t.Errorf("crawl with a failing gate fetched %d pages", rep.Crawl.Fetched)
	}
}
