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
	"sync/atomic"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
	"github.com/seokit/seokit/seo"
)

// countingResolver resolves every name to 127.0.0.1 and counts the lookups
// per name: the fetcher resolves once per connection attempt.
type countingResolver struct {
	mu sync.Mutex
	n  map[string]int
}

func (r *countingResolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	r.mu.Lock()
	r.n[host]++
	r.mu.Unlock()
	return []net.IPAddr{{IP: net.IPv4(127, 0, 0, 1)}}, nil
}

func (r *countingResolver) count(host string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n[host]
}

// hangListener accepts connections and never answers; it counts them.
type hangListener struct {
	ln       net.Listener
	accepted atomic.Int64
	mu       sync.Mutex
	conns    []net.Conn
	done     chan struct{}
}

func newHangListener(t *testing.T) *hangListener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := &hangListener{ln: ln, done: make(chan struct{})}
	go func() {
		defer close(h.done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			h.accepted.Add(1)
			h.mu.Lock()
			h.conns = append(h.conns, c)
			h.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-h.done
		h.mu.Lock()
		for _, c := range h.conns {
			c.Close()
		}
		h.mu.Unlock()
	})
	return h
}

func (h *hangListener) port() int { return h.ln.Addr().(*net.TCPAddr).Port }

// refusedPort returns a loopback port nothing listens on.
func refusedPort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return p
}

// linkSite serves a site whose pages /e/0 ... /e/{pages-1} share the
// targets out among them.
func linkSite(pages int, targets []string) *crawlertest.Site {
	extra := map[string]http.HandlerFunc{}
	var links []string
	for i := range pages {
		var b strings.Builder
		for k := i; k < len(targets); k += pages {
			fmt.Fprintf(&b, `<p><a href="%s">reference %d</a></p>`, targets[k], k)
		}
		body := b.String()
		path := fmt.Sprintf("/e/%d", i)
		links = append(links, path)
		extra[path] = func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<html><head><title>References %s</title></head><body><h1>References</h1>%s</body></html>`, path, body)
		}
	}
	return crawlertest.NewSite(crawlertest.SiteOptions{Articles: 3, Categories: 1, NoSitemap: true, Extra: extra, ExtraLinks: links})
}

// progressLog keeps every progress snapshot.
type progressLog struct {
	mu   sync.Mutex
	snap []crawler.Progress
}

func (l *progressLog) add(p crawler.Progress) {
	l.mu.Lock()
	l.snap = append(l.snap, p)
	l.mu.Unlock()
}

func (l *progressLog) all() []crawler.Progress {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.snap)
}

// checkExternalProgress checks that the external counts never go down and
// that the last snapshot is final, in PhaseFinishing, with every target
// settled.
func checkExternalProgress(t *testing.T, snaps []crawler.Progress, total int) {
	t.Helper()
	if len(snaps) == 0 {
		t.Fatal("no progress reported")
	}
	last := snaps[len(snaps)-1]
	if !last.Final || last.Phase != crawler.PhaseFinishing {
		t.Errorf("last progress final %v phase %q, want final in %q", last.Final, last.Phase, crawler.PhaseFinishing)
	}
	if e := last.External; e == nil || e.Done != total || e.Total != total {
		t.Errorf("last external progress %+v, want done = total = %d", e, total)
	}
	prev := 0
	for _, p := range snaps {
		if p.External == nil {
			t.Fatalf("progress %+v without external counts", p)
		}
		if p.External.Done < prev || p.External.Done > p.External.Total {
			t.Errorf("external done %d after %d, total %d", p.External.Done, prev, p.External.Total)
		}
		prev = p.External.Done
	}
}

// TestExternalFailingHosts crawls 30 pages linking to 800 external targets
// on two hosts that do not answer: one accepts connections and never
// answers, the other refuses them. Each host is tried HostFailLimit times,
// its other targets are reported as unchecked, not broken, and the crawl
// does not wait for 800 timeouts.
func TestExternalFailingHosts(t *testing.T) {
	hang := newHangListener(t)
	hangHost := fmt.Sprintf("hang.test:%d", hang.port())
	refuseHost := fmt.Sprintf("refuse.test:%d", refusedPort(t))
	var targets []string
	for i := range 400 {
		targets = append(targets, fmt.Sprintf("http://%s/t/%d", hangHost, i), fmt.Sprintf("http://%s/t/%d", refuseHost, i))
	}
	site := linkSite(30, targets)
	defer site.Close()
	res := &countingResolver{n: map[string]int{}}
	var log progressLog
	const budget = 20 * time.Second
	opts := testOptions(crawler.Options{
		Fetcher:          seo.NewFetcher(&seo.FetcherOptions{AllowPrivate: true, Resolver: res}),
		ExternalTimeout:  300 * time.Millisecond,
		ExternalBudget:   budget,
		Progress:         log.add,
		ProgressInterval: 20 * time.Millisecond,
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	rep, err := crawler.New(opts).Run(ctx, site.URL)
	if err != nil {
		t.Fatal(err)
	}
	el := time.Since(start)
	t.Logf("crawl of %d pages with %d external targets: %v; %d connections to the silent host, %d attempts on the refusing host",
		rep.Crawl.Fetched, len(targets), el.Round(time.Millisecond), hang.accepted.Load(), res.count("refuse.test"))
	// Without the short-circuit the silent host alone costs 400 timeouts
	// of 300 ms, one at a time: 120 s. The budget is not what stops it.
	if el > budget {
		t.Errorf("crawl took %v, more than the external budget of %v", el, budget)
	}
	if n := hang.accepted.Load(); n < 1 || n > crawler.HostFailLimit {
		t.Errorf("silent host got %d connections, want 1..%d", n, crawler.HostFailLimit)
	}
	if n := res.count("refuse.test"); n < 1 || n > crawler.HostFailLimit {
		t.Errorf("refusing host got %d connection attempts, want 1..%d", n, crawler.HostFailLimit)
	}
	broken := 0
	for _, f := range rep.LinkFindings {
		if f.ID == "links.broken_external" {
			broken++
		}
	}
	if rep.ExternalChecked+rep.ExternalUnchecked != len(targets) {
		t.Errorf("checked %d + unchecked %d, want %d targets", rep.ExternalChecked, rep.ExternalUnchecked, len(targets))
	}
	if rep.ExternalChecked > 2*crawler.HostFailLimit {
		t.Errorf("%d targets checked, want at most %d", rep.ExternalChecked, 2*crawler.HostFailLimit)
	}
	if got := rep.ExternalUncheckedReasons[crawler.UncheckedHostFailing]; got != rep.ExternalUnchecked || got == 0 {
		t.Errorf("unchecked reasons %v, want all %d host_failing", rep.ExternalUncheckedReasons, rep.ExternalUnchecked)
	}
	if broken != rep.ExternalChecked {
		t.Errorf("%d links.broken_external findings, want one per target checked (%d)", broken, rep.ExternalChecked)
	}
	slices.Sort(rep.ExternalFailingHosts)
	if want := []string{hangHost, refuseHost}; !slices.Equal(rep.ExternalFailingHosts, want) {
		t.Errorf("failing hosts %v, want %v", rep.ExternalFailingHosts, want)
	}
	snaps := log.all()
	checkExternalProgress(t, snaps, len(targets))
	// Phases only move forward. Whether a sample falls in the crawling
	// phase at all depends on the machine's speed (the 30 pages may be
	// crawled before the first sample), so the order is what is checked.
	order := map[string]int{crawler.PhaseCrawling: 0, crawler.PhaseCheckingExternal: 1, crawler.PhaseFinishing: 2}
	for i := range snaps {
		o, ok := order[snaps[i].Phase]
		if !ok {
			t.Fatalf("progress phase %q unknown", snaps[i].Phase)
		}
		if i > 0 && o < order[snaps[i-1].Phase] {
			t.Errorf("progress phase %q after %q", snaps[i].Phase, snaps[i-1].Phase)
		}
	}
	if u := snaps[len(snaps)-1].External.Unchecked; u != rep.ExternalUnchecked {
		t.Errorf("progress counts %d unchecked, report %d", u, rep.ExternalUnchecked)
	}
}

// TestExternalBudget checks that the wait for external checks after the
// pages is bounded by ExternalBudget, the rest reported as unchecked
// ("time_budget"), with the phase and counts in the progress meanwhile.
func TestExternalBudget(t *testing.T) {
	stop := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(200 * time.Millisecond):
		case <-stop:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(stop)
	host := "slow.test:" + slow.URL[strings.LastIndex(slow.URL, ":")+1:]
	var targets []string
	for i := range 400 {
		targets = append(targets, fmt.Sprintf("http://%s/t/%d", host, i))
	}
	site := linkSite(30, targets)
	defer site.Close()
	var log progressLog
	const budget = time.Second
	opts := testOptions(crawler.Options{
		Fetcher:            seo.NewFetcher(&seo.FetcherOptions{AllowPrivate: true, Resolver: &countingResolver{n: map[string]int{}}}),
		PerHostConcurrency: 2,
		ExternalBudget:     budget,
		Progress:           log.add,
		ProgressInterval:   20 * time.Millisecond,
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	rep, err := crawler.New(opts).Run(ctx, site.URL)
	if err != nil {
		t.Fatal(err)
	}
	el := time.Since(start)
	t.Logf("crawl with a %v external budget: %v, %d checked, unchecked %v", budget, el.Round(time.Millisecond), rep.ExternalChecked, rep.ExternalUncheckedReasons)
	// 400 checks of 200 ms, two at a time, take 40 s.
	if el > 30*time.Second {
		t.Errorf("crawl took %v; the external budget did not bound the wait", el)
	}
	if rep.ExternalChecked+rep.ExternalUnchecked != len(targets) || rep.ExternalUncheckedReasons[crawler.UncheckedTimeBudget] != rep.ExternalUnchecked || rep.ExternalUnchecked == 0 {
		t.Errorf("checked %d, unchecked %d %v; want %d in all, the unchecked ones time_budget",
			rep.ExternalChecked, rep.ExternalUnchecked, rep.ExternalUncheckedReasons, len(targets))
	}
	for _, f := range rep.LinkFindings {
		if strings.HasSuffix(f.ID, "_external") {
			t.Errorf("finding for a target that answers 200 or was not checked: %+v", f)
		}
	}
	snaps := log.all()
	checkExternalProgress(t, snaps, len(targets))
	var checking *crawler.Progress
	for i := range snaps {
		if snaps[i].Phase == crawler.PhaseCheckingExternal {
			checking = &snaps[i]
			break
		}
	}
	if checking == nil {
		t.Fatalf("no progress in phase %q", crawler.PhaseCheckingExternal)
	}
	if e := checking.External; e.Total != len(targets) || e.Done >= e.Total {
		t.Errorf("external progress while checking %+v, want total %d and some left", e, len(targets))
	}
}

// TestSkipExternalLinks checks that the switch fetches nothing external
// and reports no external progress.
func TestSkipExternalLinks(t *testing.T) {
	hang := newHangListener(t)
	targets := []string{fmt.Sprintf("http://hang.test:%d/t/1", hang.port()), fmt.Sprintf("http://refuse.test:%d/t/1", refusedPort(t))}
	site := linkSite(3, targets)
	defer site.Close()
	res := &countingResolver{n: map[string]int{}}
	var log progressLog
	opts := testOptions(crawler.Options{
		Fetcher:           seo.NewFetcher(&seo.FetcherOptions{AllowPrivate: true, Resolver: res}),
		SkipExternalLinks: true,
		Progress:          log.add,
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := crawler.New(opts).Run(ctx, site.URL)
	if err != nil {
		t.Fatal(err)
	}
	if n, m := hang.accepted.Load(), res.count("refuse.test")+res.count("hang.test"); n != 0 || m != 0 {
		t.Errorf("with SkipExternalLinks: %d connections, %d lookups of external hosts; want none", n, m)
	}
	if rep.ExternalChecked != 0 || rep.ExternalUnchecked != 0 {
		t.Errorf("checked %d, unchecked %d; want 0, 0", rep.ExternalChecked, rep.ExternalUnchecked)
	}
	for _, p := range log.all() {
		if p.External != nil {
			t.Errorf("progress %+v has external counts with the checks off", p)
		}
	}
}
