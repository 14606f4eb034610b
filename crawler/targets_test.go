package crawler_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
	"github.com/seokit/seokit/seo"
)

// TestPlantedDefects crawls a shop with planted defects, each reachable
// only through what a crawl must follow or check (a canonical target, an
// hreflang alternate, an image, a script, a stylesheet, a redirect chain,
// robots.txt's sitemap, an external host), and asserts each is reported
// by ID on its URL, naming its target, and that each image, script and
// stylesheet, used by up to 33 pages, was requested once.
func TestPlantedDefects(t *testing.T) {
	site := crawlertest.NewDefectSite()
	defer site.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := crawler.New(testOptions(crawler.Options{ExternalTimeout: 2 * time.Second})).Run(ctx, site.URL)
	if err != nil {
		t.Fatal(err)
	}
	site.CheckReport(t, rep)
	t.Logf("%d pages, %d requests on the site; %d link findings, %d site findings; resources checked %d, external targets checked %d",
		len(rep.Pages), site.Requests(), len(rep.LinkFindings), len(rep.SiteFindings), rep.ResourceChecked, rep.ExternalChecked)
}

// TestTargetSwitches: NoCrawlHreflang and NoCrawlCanonicals (set through
// Config) keep the hreflang-only and canonical-only URLs out of the
// crawl, SkipResourceChecks and SkipExternalLinks cost no request for
// images, scripts, stylesheets and external targets, and
// MaxResourceChecks caps the checks, the rest counted as unchecked.
func TestTargetSwitches(t *testing.T) {
	site := crawlertest.NewDefectSite()
	defer site.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run := func(o crawler.Options) *crawler.SiteReport {
		t.Helper()
		o.ExternalTimeout = 2 * time.Second
		rep, err := crawler.New(testOptions(o)).Run(ctx, site.URL)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	resourceHits := func() int {
		n := 0
		for _, p := range site.Resources() {
			n += site.Hits(p)
		}
		return n
	}
	// The switches as a saved configuration sets them.
	var off crawler.Options
	cfg := crawler.Config{NoCrawlCanonicals: true, NoCrawlHreflang: true, SkipResourceChecks: true, SkipExternalLinks: true}
	if err := cfg.Apply(&off); err != nil {
		t.Fatal(err)
	}
	rep := run(off)
	pages := pagesByPath(t, site.URL, rep)
	for _, p := range []string{"/de/missing", "/fr/p", "/old-canon"} {
		if _, ok := pages[p]; ok {
			t.Errorf("%s crawled with NoCrawlCanonicals and NoCrawlHreflang", p)
		}
	}
	for _, p := range append(site.Resources(), "partner:/widget.js", "partner:/gone.css") {
		if n := site.Hits(p); n != 0 {
			t.Errorf("%s requested %d times with SkipResourceChecks and SkipExternalLinks", p, n)
		}
	}
	for _, f := range rep.LinkFindings {
		switch f.ID {
		case "images.broken", "links.broken_external", "resources.broken_script", "resources.broken_stylesheet":
			t.Errorf("%s reported with the checks off: %s", f.ID, f.Message)
		}
	}
	if rep.ResourceChecked != 0 || rep.ResourceUncheckedReasons != nil {
		t.Errorf("resources checked %d, unchecked %v with SkipResourceChecks", rep.ResourceChecked, rep.ResourceUncheckedReasons)
	}

	rep = run(crawler.Options{MaxResourceChecks: 1, SkipExternalLinks: true})
	over := len(site.Resources()) - 1
	if rep.ResourceChecked != 1 || rep.ResourceUncheckedReasons[crawler.UncheckedMaxChecks] != over {
		t.Errorf("resources checked %d, unchecked %v; want 1 checked and %d over max_checks", rep.ResourceChecked, rep.ResourceUncheckedReasons, over)
	}
	if n := resourceHits(); n != 1 {
		t.Errorf("%d resource requests with MaxResourceChecks 1, want 1", n)
	}

	// Disabling an ID costs its requests: without the script and
	// stylesheet findings only the images are checked.
	before := resourceHits()
	rep = run(crawler.Options{SkipExternalLinks: true, Analyzer: &analyzer.Options{Disable: []string{"resources"}}})
	if rep.ResourceChecked != 2 {
		t.Errorf("resources checked %d with the resources area disabled, want the 2 images", rep.ResourceChecked)
	}
	if n := resourceHits() - before; n != 2 {
		t.Errorf("%d resource requests with the resources area disabled, want 2", n)
	}
}

// unresolvable resolves names ending in .invalid to a DNS "no such host"
// error and every other name to loopback.
type unresolvable struct{}

func (unresolvable) LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error) {
	if strings.HasSuffix(host, ".invalid") {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return []net.IPAddr{{IP: net.IPv4(127, 0, 0, 1)}}, nil
}

// TestUnresolvableExternalHost: a crawl's external links, images and
// scripts on a host whose name does not resolve are not checked
// ("host_unresolvable", the host given up at its first target), not
// broken; a target on a resolving host that answers 404 is broken.
func TestUnresolvableExternalHost(t *testing.T) {
	var dead, port string
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.Host != "site.test" && !strings.HasPrefix(r.Host, "site.test:") {
			http.NotFound(w, r)
			return
		}
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, `<!doctype html><html lang=en><head><title>Links to gone hosts</title>`+
				`<script src="http://cdn.gone.invalid%[1]s/app.js"></script></head><body><h1>Links</h1>`+
				`<a href="http://shop.gone.invalid%[1]s/a">a</a> <a href="http://shop.gone.invalid%[1]s/b">b</a>`+
				`<a href="http://shop.gone.invalid%[1]s/c">c</a> <a href="http://shop.gone.invalid%[1]s/d">d</a>`+
				`<img src="http://cdn.gone.invalid%[1]s/logo.png" alt="logo"> <a href="%[2]s/missing">missing</a></body></html>`, ":"+port, dead)
		default:
			http.NotFound(w, r)
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	_, port, _ = net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	dead = "http://other.test:" + port // resolves, answers 404
	start := "http://site.test:" + port + "/"

	f := seo.NewFetcher(&seo.FetcherOptions{AllowPrivate: true, Resolver: unresolvable{}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := crawler.New(testOptions(crawler.Options{Fetcher: f, ExternalTimeout: 2 * time.Second})).Run(ctx, start)
	if err != nil {
		t.Fatal(err)
	}
	var broken []string
	for _, fd := range rep.LinkFindings {
		switch fd.ID {
		case "links.broken_external", "images.broken", "resources.broken_script":
			broken = append(broken, fd.ID+" "+fd.Evidence.URLs[0])
		}
	}
	want := []string{"links.broken_external " + dead + "/missing"}
	if strings.Join(broken, "|") != strings.Join(want, "|") {
		t.Errorf("broken %v, want %v", broken, want)
	}
	// 4 links on one host and a script and an image on another: each
	// host given up at its first target, all 6 counted as not checked.
	if n := rep.ExternalUncheckedReasons[crawler.UncheckedHostUnresolvable]; n != 6 {
		t.Errorf("unchecked %v, want 6 host_unresolvable", rep.ExternalUncheckedReasons)
	}
	if rep.ExternalChecked != 1 {
		t.Errorf("external checked %d, want 1", rep.ExternalChecked)
	}
	t.Logf("external checked %d, unchecked %v, hosts given up %v", rep.ExternalChecked, rep.ExternalUncheckedReasons, rep.ExternalFailingHosts)
}
