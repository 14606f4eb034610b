package analyzer

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seokit/seokit/internal/proctest"
	"github.com/seokit/seokit/seo"
)

// TestLinkCheckBudget: when Options.LinkCheckBudget runs out, the targets
// whose checks hang (in flight, or queued behind the per-host limit) are
// not checked (time_budget), counted in Links.Unchecked and
// Images.Unchecked and Report.Truncated["linkChecks"], with no broken
// finding, while the findings of the targets that answered in time stand;
// the analysis ends soon after the budget, not after the hanging fetches,
// and leaves none of them running. Not parallel, so that the goroutines
// left can be told from other tests'.
func TestLinkCheckBudget(t *testing.T) {
	before := proctest.Goroutines()
	var hanging atomic.Int32
	// A host whose every target hangs until its request is abandoned.
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hanging.Add(1)
		defer hanging.Add(-1)
		<-r.Context().Done()
	}))
	defer slow.Close()
	// The page's host answers at once: 404 for /missing*, 200 otherwise.
	quick := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/missing") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "image/png")
	}))
	defer quick.Close()

	// Six links and an image on the slow host: more than its 4 checks at
	// once, so that some are cut while queued and some in flight.
	var b strings.Builder
	b.WriteString(`<!doctype html><html lang=en><head><title>Links of a test page</title></head><body><h1>Links</h1>`)
	var slowLinks []string
	for i := range 6 {
		u := fmt.Sprintf("%s/hang/%d", slow.URL, i)
		slowLinks = append(slowLinks, u)
		fmt.Fprintf(&b, `<a href=%q>slow %d</a>`, u, i)
	}
	slowImage := slow.URL + "/hang.png"
	missingLink, missingImage, okLink := quick.URL+"/missing", quick.URL+"/missing.png", quick.URL+"/fine"
	fmt.Fprintf(&b, `<a href=%q>missing</a><a href=%q>fine</a><img src=%q alt=slow><img src=%q alt=missing></body></html>`,
		missingLink, okLink, slowImage, missingImage)

	const budget = 200 * time.Millisecond
	f := seo.NewFetcher(&seo.FetcherOptions{AllowPrivate: true})
	start := time.Now()
	rep, err := AnalyzeHTML(context.Background(), quick.URL+"/", http.Header{"Content-Type": {"text/html"}}, []byte(b.String()),
		&Options{Depth: Standard, CheckLinks: true, Fetcher: f, LinkCheckBudget: budget})
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if elapsed < budget || elapsed > budget+5*time.Second {
		t.Errorf("analysis took %v with a %v link check budget", elapsed, budget)
	}

	links := map[string]LinkInfo{}
	for _, l := range rep.Links.List {
		links[l.URL] = l
	}
	for _, u := range slowLinks {
		if l := links[u]; l.NotChecked != NotCheckedTimeBudget || l.Status != 0 || l.Error != "" {
			t.Errorf("hanging link %s: %+v, want not checked (%s)", u, l, NotCheckedTimeBudget)
		}
	}
	if l := links[missingLink]; l.NotChecked != "" || l.Status != http.StatusNotFound {
		t.Errorf("missing link: %+v, want status 404", l)
	}
	if l := links[okLink]; l.NotChecked != "" || l.Status != http.StatusOK {
		t.Errorf("fine link: %+v, want status 200", l)
	}
	if rep.Links.Unchecked != len(slowLinks) {
		t.Errorf("links unchecked %d, want %d", rep.Links.Unchecked, len(slowLinks))
	}
	images := map[string]ImageInfo{}
	for _, im := range rep.Images.List {
		images[im.Src] = im
	}
	if im := images[slowImage]; im.NotChecked != NotCheckedTimeBudget || im.Status != 0 {
		t.Errorf("hanging image: %+v, want not checked (%s)", im, NotCheckedTimeBudget)
	}
	if im := images[missingImage]; im.NotChecked != "" || im.Status != http.StatusNotFound {
		t.Errorf("missing image: %+v, want status 404", im)
	}
	if rep.Images.Unchecked != 1 {
		t.Errorf("images unchecked %d, want 1", rep.Images.Unchecked)
	}
	// Every target is checked once: 6+1 on the slow host, 3 on the page's.
	if got, want := rep.Truncated["linkChecks"], (seo.Truncation{Total: 10, Omitted: 7}); got != want {
		t.Errorf(`Truncated["linkChecks"] = %+v, want %+v`, got, want)
	}

	flagged := map[string][]string{}
	for _, fd := range rep.Findings {
		flagged[fd.ID] = append(flagged[fd.ID], fd.Evidence.Value)
		for _, ex := range fd.Examples {
			flagged[fd.ID] = append(flagged[fd.ID], ex.Value)
		}
	}
	if got := flagged["links.broken_internal"]; !slices.Equal(got, []string{missingLink}) {
		t.Errorf("links.broken_internal on %v, want only %s", got, missingLink)
	}
	if got := flagged["images.broken"]; !slices.Equal(got, []string{missingImage}) {
		t.Errorf("images.broken on %v, want only %s", got, missingImage)
	}
	if got := flagged["links.broken_external"]; len(got) > 0 {
		t.Errorf("links.broken_external on %v, targets the budget left unchecked", got)
	}

	// The cut fetches were abandoned, not left to their 10 s LinkTimeout:
	// the slow host sees its requests go, and no goroutine of the
	// analysis or of the servers' handlers is left.
	for deadline := time.Now().Add(5 * time.Second); hanging.Load() > 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if n := hanging.Load(); n > 0 {
		t.Errorf("%d requests to the slow host still open after the analysis", n)
	}
	f.Client().CloseIdleConnections()
	if left := leftGoroutines(before); len(left) > 0 {
		t.Errorf("%d goroutines of the analysis left running, the first:\n%s", len(left), left[0])
	}
}

// leftGoroutines returns the stacks of seokit code running now that were
// not in before, once those on their way out have had a bounded time to
// end.
func leftGoroutines(before map[string]string) []string {
	var left []string
	for deadline := time.Now().Add(5 * time.Second); ; {
		left = left[:0]
		for head, s := range proctest.Goroutines() {
			if _, ok := before[head]; !ok && strings.Contains(s, "seokit/seokit/") {
				left = append(left, s)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestLinkChecksCutByContext: an analysis whose context ends while its
// link checks run (no budget of their own) is an error, not a report
// whose targets read as neither broken nor checked.
func TestLinkChecksCutByContext(t *testing.T) {
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	defer slow.Close()
	body := `<!doctype html><html lang=en><head><title>A page of slow links</title></head><body><h1>Links</h1>` +
		`<a href="` + slow.URL + `/a">a</a><a href="` + slow.URL + `/b">b</a></body></html>`
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	f := seo.NewFetcher(&seo.FetcherOptions{AllowPrivate: true})
	rep, err := AnalyzeHTML(ctx, "https://example.com/", http.Header{"Content-Type": {"text/html"}}, []byte(body),
		&Options{Depth: Standard, CheckLinks: true, Fetcher: f, LinkCheckBudget: -1})
	if !errors.Is(err, context.DeadlineExceeded) || rep != nil {
		t.Fatalf("analysis cut during its link checks: report %v, error %v; want no report and the context's error", rep != nil, err)
	}
	// Without link checks nothing waits for a fetch: the report stands.
	ctx2, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if rep, err := AnalyzeHTML(ctx2, "https://example.com/", http.Header{"Content-Type": {"text/html"}}, []byte(body), &Options{Depth: Standard}); err != nil || rep == nil {
		t.Fatalf("analysis without fetches under an ended context: %v", err)
	}
}
