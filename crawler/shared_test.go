package crawler_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
	"github.com/seokit/seokit/seo"
)

// memShared is a crawler.SharedFrontier in memory for tests of the
// crawler's shared mode without a Redis server: one MemoryFrontier, the
// URLs in flight, the pages counted and the summaries, behind handles that
// share them.
type memShared struct {
	mu       sync.Mutex
	front    *crawler.MemoryFrontier
	inflight map[string]int // URL -> handle holding it
	pages    int            // counted by PopPages
	sums     []crawler.PageSummary
	edges    [][]crawler.Edge
}

type memHandle struct {
	s  *memShared
	id int
}

var _ crawler.SharedFrontier = (*memHandle)(nil)

func (h *memHandle) Push(ctx context.Context, items []crawler.Item) (int, error) {
	return h.s.front.Push(ctx, items)
}

func (h *memHandle) Pop(ctx context.Context, n int) ([]crawler.Item, error) {
	h.s.mu.Lock()
	defer h.s.mu.Unlock()
	got, err := h.s.front.Pop(ctx, n)
	for _, it := range got {
		h.s.inflight[it.URL] = h.id
	}
	return got, err
}

func (h *memHandle) PopPages(ctx context.Context, n, limit int) ([]crawler.Item, error) {
	h.s.mu.Lock()
	defer h.s.mu.Unlock()
	got, err := h.s.front.Pop(ctx, max(0, min(n, limit-h.s.pages)))
	for _, it := range got {
		h.s.inflight[it.URL] = h.id
	}
	h.s.pages += len(got)
	return got, err
}

func (h *memHandle) ReturnPages(ctx context.Context, n int) error {
	h.s.mu.Lock()
	defer h.s.mu.Unlock()
	h.s.pages = max(0, h.s.pages-n)
	return ctx.Err()
}

func (h *memHandle) PagesCounted(ctx context.Context) (int, int, error) {
	h.s.mu.Lock()
	defer h.s.mu.Unlock()
	return h.s.pages, len(h.s.inflight), ctx.Err()
}

func (h *memHandle) Done(ctx context.Context, url string) error {
	h.s.mu.Lock()
	defer h.s.mu.Unlock()
	if h.s.inflight[url] == h.id {
		delete(h.s.inflight, url)
	}
	return ctx.Err()
}

func (h *memHandle) Len(ctx context.Context) (int, error) { return h.s.front.Len(ctx) }
func (h *memHandle) Close() error                         { return nil }

func (h *memHandle) Pending(ctx context.Context) (int, int, error) {
	h.s.mu.Lock()
	defer h.s.mu.Unlock()
	q, err := h.s.front.Len(ctx)
	return q, len(h.s.inflight), err
}

func (h *memHandle) PutSummary(ctx context.Context, sum crawler.PageSummary, edges []crawler.Edge) error {
	h.s.mu.Lock()
	defer h.s.mu.Unlock()
	h.s.sums = append(h.s.sums, sum)
	h.s.edges = append(h.s.edges, edges)
	return ctx.Err()
}

func (h *memHandle) Summaries(ctx context.Context, fn func(crawler.PageSummary, []crawler.Edge) error) error {
	h.s.mu.Lock()
	sums, edges := h.s.sums, h.s.edges
	h.s.mu.Unlock()
	for i := range sums {
		if err := fn(sums[i], edges[i]); err != nil {
			return err
		}
	}
	return nil
}

// runShared runs n crawls of start sharing one memory frontier, the first
// the coordinator and the others workers, each with the options opts
// returns for its Frontier and Worker fields; it fails the test on any
// error and returns their reports, the coordinator's first.
func runShared(t *testing.T, ctx context.Context, n int, start string, opts func(crawler.Options) *crawler.Options) []*crawler.SiteReport {
	t.Helper()
	s := &memShared{front: crawler.NewMemoryFrontier(), inflight: map[string]int{}}
	reps := make([]*crawler.SiteReport, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range reps {
		wg.Go(func() {
			reps[i], errs[i] = crawler.New(opts(crawler.Options{Frontier: &memHandle{s: s, id: i + 1}, Worker: i > 0})).Run(ctx, start)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("shared run %d: %v", i, err)
		}
	}
	return reps
}

func TestMemSharedConformance(t *testing.T) {
	crawls := map[string]*memShared{}
	var mu sync.Mutex
	n := 0
	crawlertest.RunSharedFrontier(t, func(t *testing.T, id string) crawler.SharedFrontier {
		mu.Lock()
		defer mu.Unlock()
		s := crawls[id]
		if s == nil {
			s = &memShared{front: crawler.NewMemoryFrontier(), inflight: map[string]int{}}
			crawls[id] = s
		}
		n++
		return &memHandle{s: s, id: n}
	})
}

// Three Runs share one crawl: each page is fetched once, by some worker;
// only the coordinator reads the sitemap and probes; its report has every
// page, as a crawl by one Run has.
func TestSharedRuns(t *testing.T) {
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 300, Categories: 6, PerPage: 20, Orphans: 3})
	defer site.Close()
	ctx := context.Background()
	s := &memShared{front: crawler.NewMemoryFrontier(), inflight: map[string]int{}}
	reps := make([]*crawler.SiteReport, 3)
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rep, err := crawler.New(testOptions(crawler.Options{Frontier: &memHandle{s: s, id: i + 1}, Worker: i > 0, Concurrency: 3})).Run(ctx, site.URL)
			if err != nil {
				t.Error(err)
				return
			}
			reps[i] = rep
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	want := site.Pages() + 3 // the orphans, from the sitemap
	if reps[0].Crawl.Fetched != want || len(reps[0].Pages) != want {
		t.Errorf("coordinator: fetched %d, %d pages; want %d", reps[0].Crawl.Fetched, len(reps[0].Pages), want)
	}
	sum := 0
	for i, r := range reps[1:] {
		if len(r.Pages) != 0 {
			t.Errorf("worker %d reported %d pages, want none", i+1, len(r.Pages))
		}
		sum += r.Crawl.Fetched
	}
	if sum >= want {
		t.Errorf("workers fetched %d of %d pages: the coordinator did none", sum, want)
	}
	for i := range 303 {
		if h := site.Hits(fmt.Sprintf("/a/%d", i)); h != 1 {
			t.Errorf("/a/%d fetched %d times", i, h)
		}
	}
	if h := site.Hits("/sitemap.xml"); h != 1 {
		t.Errorf("sitemap read %d times, want once (by the coordinator)", h)
	}
	if h := site.Hits("/"); h != 2 {
		t.Errorf("home page requested %d times, want 2 (crawl and the coordinator's probe)", h)
	}
	// Sitemap URLs are queued only once the shared crawl ran out of links:
	// only the 3 orphans are sitemap-only (no depth).
	sitemapOnly := 0
	for _, p := range reps[0].Pages {
		if p.Depth == nil {
			sitemapOnly++
		}
		if strings.HasSuffix(p.URL, "/a/301") && !p.InSitemap {
			t.Errorf("orphan %s not marked in sitemap", p.URL)
		}
	}
	if sitemapOnly != 3 {
		t.Errorf("%d pages at depth -1, want the 3 orphans", sitemapOnly)
	}
}

// Three workers over the in-memory shared frontier fetch exactly MaxPages
// pages in total.
func TestSharedCrawlCap(t *testing.T) {
	s := &memShared{front: crawler.NewMemoryFrontier(), inflight: map[string]int{}}
	n := 0
	crawlertest.RunSharedCrawlCap(t, func(t *testing.T, id string) crawler.SharedFrontier {
		n++
		return &memHandle{s: s, id: n}
	})
}

// The coordinator of a shared crawl checks the external links of every
// worker's pages, as a crawl by one Run does.
func TestSharedExternalLinks(t *testing.T) {
	ext := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/gone" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte("ok"))
	}))
	defer ext.Close()
	port := ext.Listener.Addr().(*net.TCPAddr).Port
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 60, Categories: 3,
		ExtraLinks: []string{fmt.Sprintf("http://ext.test:%d/ok", port), fmt.Sprintf("http://ext.test:%d/gone", port)}})
	defer site.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	opts := func(o crawler.Options) *crawler.Options {
		o.Fetcher = seo.NewFetcher(&seo.FetcherOptions{AllowPrivate: true, Resolver: &countingResolver{n: map[string]int{}}})
		o.Concurrency = 3
		return testOptions(o)
	}
	single, err := crawler.New(opts(crawler.Options{})).Run(ctx, site.URL)
	if err != nil {
		t.Fatal(err)
	}
	reps := runShared(t, ctx, 3, site.URL, opts)
	shared := reps[0]
	if single.ExternalChecked != 2 || shared.ExternalChecked != single.ExternalChecked || shared.ExternalUnchecked != single.ExternalUnchecked {
		t.Errorf("external checked %d, unchecked %d; one Run: %d, %d (want 2 checked)",
			shared.ExternalChecked, shared.ExternalUnchecked, single.ExternalChecked, single.ExternalUnchecked)
	}
	ids := func(r *crawler.SiteReport) []string {
		var out []string
		for _, f := range r.LinkFindings {
			out = append(out, f.ID+" "+f.URL)
		}
		slices.Sort(out)
		return out
	}
	if got, want := ids(shared), ids(single); !slices.Equal(got, want) || len(want) == 0 {
		t.Errorf("link findings of the shared crawl:\n%v\nof one Run:\n%v", got, want)
	}
	for _, r := range reps[1:] {
		if r.ExternalChecked != 0 {
			t.Errorf("a worker checked %d external links, want none (the coordinator does)", r.ExternalChecked)
		}
	}
}

// Worker is ignored without a SharedFrontier: the crawl reports as usual.
func TestWorkerIgnoredWithoutSharedFrontier(t *testing.T) {
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 20, Categories: 2})
	defer site.Close()
	rep, err := crawler.New(testOptions(crawler.Options{Worker: true})).Run(context.Background(), site.URL)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Crawl.Fetched != site.Pages() || len(rep.Pages) != site.Pages() {
		t.Fatalf("fetched %d, %d pages; want %d", rep.Crawl.Fetched, len(rep.Pages), site.Pages())
	}
}

// Three Runs share a frontier without SharedTargets (memShared): the
// coordinator checks every worker's canonical, hreflang, image, script
// and stylesheet targets itself, each once, and reports every planted
// defect as a crawl by one Run does.
func TestSharedTargetsByCoordinator(t *testing.T) {
	site := crawlertest.NewDefectSite()
	defer site.Close()
	site.SetPageDelay(10 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s := &memShared{front: crawler.NewMemoryFrontier(), inflight: map[string]int{}}
	reps := make([]*crawler.SiteReport, 3)
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rep, err := crawler.New(testOptions(crawler.Options{Frontier: &memHandle{s: s, id: i + 1}, Worker: i > 0, Concurrency: 2,
				ExternalTimeout: 2 * time.Second})).Run(ctx, site.URL)
			if err != nil {
				t.Error(err)
				return
			}
			reps[i] = rep
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	site.CheckReport(t, reps[0])
	t.Logf("pages fetched by the workers: %d and %d of %d", reps[1].Crawl.Fetched, reps[2].Crawl.Fetched, reps[0].Crawl.Fetched)
}
