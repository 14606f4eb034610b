package crawler_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
)

// heapAfterGC returns the live heap after a collection.
func heapAfterGC() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// hostile runs a crawl of site that must end within limit, with the live
// heap afterwards not more than 100 MB above where it started.
func hostile(t *testing.T, site *crawlertest.Site, opts crawler.Options, limit time.Duration) *crawler.SiteReport {
	t.Helper()
	before := heapAfterGC()
	ctx, cancel := context.WithTimeout(context.Background(), limit+10*time.Second)
	defer cancel()
	start := time.Now()
	rep, err := crawler.New(testOptions(opts)).Run(ctx, site.URL)
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > limit {
		t.Errorf("crawl took %v, limit %v", el, limit)
	}
	if after := heapAfterGC(); after > before+100<<20 {
		t.Errorf("live heap grew from %d MB to %d MB", before>>20, after>>20)
	}
	return rep
}

func trapReasons(rep *crawler.SiteReport) string {
	var rs []string
	for _, tr := range rep.Crawl.Traps {
		rs = append(rs, tr.Reason)
	}
	return strings.Join(rs, ",")
}

func TestHostileCalendar(t *testing.T) {
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 5, Categories: 1, Calendar: true})
	defer site.Close()
	rep := hostile(t, site, crawler.Options{MaxPages: 2000}, 60*time.Second)
	reasons := trapReasons(rep)
	if rep.Crawl.StopReason != crawler.StopDone || !(strings.Contains(reasons, crawler.TrapParameterValues) || strings.Contains(reasons, crawler.TrapCalendar)) || !hasFinding(rep, "site.crawl_trap") {
		t.Errorf("stop %q traps %q", rep.Crawl.StopReason, trapReasons(rep))
	}
	if rep.Crawl.Fetched > 300 {
		t.Errorf("fetched %d calendar pages; the trap guard should stop near 200", rep.Crawl.Fetched)
	}
}

func TestHostileMillionLinks(t *testing.T) {
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 2, Categories: 1, NoSitemap: true,
		ExtraLinks: []string{"/flood"},
		Extra: map[string]http.HandlerFunc{"/flood": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			bw := bufio.NewWriterSize(w, 64<<10)
			bw.WriteString("<html><head><title>flood</title></head><body>")
			for i := range 1_000_000 {
				fmt.Fprintf(bw, `<a href="/gen/%d">%d</a>`, i, i)
			}
			bw.WriteString("</body></html>")
			bw.Flush()
		}},
	})
	defer site.Close()
	rep := hostile(t, site, crawler.Options{MaxPages: 50}, 90*time.Second)
	if !strings.Contains(trapReasons(rep), crawler.TrapLinkFlood) || rep.Crawl.Fetched != 50 || !rep.Crawl.LimitReached {
		t.Errorf("traps %q fetched %d limit %v", trapReasons(rep), rep.Crawl.Fetched, rep.Crawl.LimitReached)
	}
}

func TestHostileRedirectLoop(t *testing.T) {
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 2, Categories: 1, RedirectLoop: true, NoSitemap: true})
	defer site.Close()
	rep := hostile(t, site, crawler.Options{}, 20*time.Second)
	if site.Hits("/loop/a") != 1 || site.Hits("/loop/b") != 1 {
		t.Errorf("loop pages fetched %d and %d times, want once each", site.Hits("/loop/a"), site.Hits("/loop/b"))
	}
	if rep.Crawl.StopReason != crawler.StopDone {
		t.Errorf("stop %q", rep.Crawl.StopReason)
	}
}

func TestHostileTrickle(t *testing.T) {
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 2, Categories: 1, NoSitemap: true,
		ExtraLinks: []string{"/trickle"},
		Extra: map[string]http.HandlerFunc{"/trickle": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			for range 60 {
				if _, err := w.Write([]byte("<")); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				select {
				case <-time.After(time.Second):
				case <-r.Context().Done():
					return
				}
			}
		}},
	})
	defer site.Close()
	rep := hostile(t, site, crawler.Options{RequestTimeout: 1500 * time.Millisecond}, 10*time.Second)
	p := pagesByPath(t, site.URL, rep)["/trickle"]
	if p.Error == "" || rep.Crawl.Errors == 0 {
		t.Errorf("trickle page: %+v, errors %d", p, rep.Crawl.Errors)
	}
}

func TestHostileServerErrors(t *testing.T) {
	storm := func(status int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "0")
			http.Error(w, "down", status)
		}
	}
	for _, status := range []int{500, 503} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			links := make([]string, 300)
			extra := map[string]http.HandlerFunc{}
			for i := range links {
				links[i] = fmt.Sprintf("/storm/%d", i)
				extra[links[i]] = storm(status)
			}
			site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 1, Categories: 1, NoSitemap: true, ExtraLinks: links, Extra: extra})
			defer site.Close()
			rep := hostile(t, site, crawler.Options{}, 30*time.Second)
			if rep.Crawl.Errors < 250 || rep.Crawl.StopReason != crawler.StopDone {
				t.Errorf("errors %d stop %q", rep.Crawl.Errors, rep.Crawl.StopReason)
			}
			if rep.StatusCodes[status] == 0 {
				t.Errorf("status codes %v", rep.StatusCodes)
			}
		})
	}
}

// TestHostileAbandonKeepsAnswer: pages answered 503 before their host is
// abandoned are reported with that 503, pages never requested as not
// fetched because of the abandonment. One worker makes the order fixed:
// each page takes three answers, so the fourth is abandoned after its first.
func TestHostileAbandonKeepsAnswer(t *testing.T) {
	links := make([]string, 20)
	extra := map[string]http.HandlerFunc{}
	for i := range links {
		links[i] = fmt.Sprintf("/down/%d", i)
		extra[links[i]] = func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "0")
			http.Error(w, "down", http.StatusServiceUnavailable)
		}
	}
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 1, Categories: 1, NoSitemap: true, ExtraLinks: links, Extra: extra})
	defer site.Close()
	rep := hostile(t, site, crawler.Options{Concurrency: 1}, 30*time.Second)
	pages := pagesByPath(t, site.URL, rep)
	notFetched := map[string]string{}
	for _, nf := range rep.NotFetched {
		notFetched[strings.TrimPrefix(nf.URL, site.URL)] = nf.Reason
	}
	answered, abandoned := 0, 0
	for _, l := range links {
		p := pages[l]
		switch hits := site.Hits(l); {
		case hits > 0:
			answered++
			if p.Status != http.StatusServiceUnavailable {
				t.Errorf("%s requested %d times: status %d error %q, want 503", l, hits, p.Status, p.Error)
			}
		default:
			abandoned++
			if p.Status != 0 || notFetched[l] != crawler.NotFetchedAbandoned {
				t.Errorf("%s never requested: status %d, not fetched %q, want 0 and %q", l, p.Status, notFetched[l], crawler.NotFetchedAbandoned)
			}
		}
	}
	if answered == 0 || abandoned == 0 || rep.StatusCodes[http.StatusServiceUnavailable] != answered {
		t.Errorf("%d pages answered, %d abandoned, status codes %v", answered, abandoned, rep.StatusCodes)
	}
}

func TestHostileGzipBomb(t *testing.T) {
	var bomb bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&bomb, gzip.BestCompression)
	chunk := make([]byte, 1<<20)
	for range 200 { // 200 MB of zeros in about 200 KB
		zw.Write(chunk)
	}
	zw.Close()
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 2, Categories: 1, NoSitemap: true,
		ExtraLinks: []string{"/bomb"},
		Extra: map[string]http.HandlerFunc{"/bomb": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(bomb.Bytes())
		}},
	})
	defer site.Close()
	rep := hostile(t, site, crawler.Options{}, 30*time.Second)
	p := pagesByPath(t, site.URL, rep)["/bomb"]
	if p.Bytes > 16<<20 || p.Status != 200 {
		t.Errorf("bomb page: status %d, %d bytes kept", p.Status, p.Bytes)
	}
}

func TestHostileHugeRobots(t *testing.T) {
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 3, Categories: 1, NoSitemap: true,
		Extra: map[string]http.HandlerFunc{"/robots.txt": func(w http.ResponseWriter, r *http.Request) {
			bw := bufio.NewWriter(w)
			bw.WriteString("User-agent: *\n")
			for i := 0; i < 10<<20/20; i++ {
				fmt.Fprintf(bw, "Disallow: /p%08d\n", i)
			}
			bw.Flush()
		}},
	})
	defer site.Close()
	rep := hostile(t, site, crawler.Options{}, 30*time.Second)
	if !rep.Robots.Truncated || !hasFinding(rep, "site.robots_txt_too_large") {
		t.Errorf("robots summary %+v", rep.Robots)
	}
	if rep.Crawl.Fetched < 5 {
		t.Errorf("fetched %d pages", rep.Crawl.Fetched)
	}
}
