//go:build linux

package main

// Hostile matchers: CSS selectors whose backtracking in cascadia took
// minutes (or forever), a selector and a regex over their budgets, on
// pages built to trigger them, through page analyses, site analyses,
// several tenants at once and a SIGTERM in the middle of a site analysis.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
)

// selectorCase is one hostile matcher and the page that triggers it.
type selectorCase struct {
	name, path string
	extractor  string // the options.extract item, JSON
	// overBudget says the matcher must end with its budget's error
	// instead of values.
	overBudget bool
}

var selectorCases = []selectorCase{
	{"descendants ×21, 500 nested divs", "/nested", `{"name":"x","type":"css","expr":"p` + strings.Repeat(" div", 20) + ` span.x"}`, false},
	{"siblings ×4, 1,000 sibling divs", "/siblings", `{"name":"x","type":"css","expr":"p ~ div ~ div ~ div ~ div"}`, false},
	{"not(descendants ×9), depth 40", "/deep40", `{"name":"x","type":"css","expr":"*:not(p div div div div div div div div div)"}`, false},
	{"nth-child, 20,000 siblings", "/wide", `{"name":"x","type":"css","expr":"div:nth-child(2n)"}`, true},
	{"regex of 200 instructions, 400 KB", "/wide", `{"name":"x","type":"regex","expr":"(?:\\w?){100}z"}`, true},
}

// selectorSite serves the pages of the cases, plain pages, and a chain of
// n pages each holding the nested-divs bomb and linking onwards; it
// counts the pages it serves.
func selectorSite(n int, served *atomic.Int64) http.Handler {
	nested := "<!doctype html><html><head><title>Nested</title></head><body><p>intro</p>" + strings.Repeat("<div>", 500) +
		`<span class="x">deep</span>` + strings.Repeat("</div>", 500) + "</body></html>"
	deep40 := "<!doctype html><html><head><title>Deep</title></head><body><p>intro</p>" + strings.Repeat("<div>", 40) +
		`<span class="x">deep</span>` + strings.Repeat("</div>", 40) + "</body></html>"
	siblings := func(k int) string {
		var sb strings.Builder
		sb.WriteString("<!doctype html><html><head><title>Siblings</title></head><body><p>intro</p>")
		for i := range k {
			fmt.Fprintf(&sb, "<div>%d word</div>", i)
		}
		sb.WriteString("</body></html>")
		return sb.String()
	}
	pages := map[string]string{
		"/nested":   nested,
		"/deep40":   deep40,
		"/siblings": siblings(1000),
		"/wide":     siblings(20_000),
		"/plain":    "<!doctype html><html><head><title>Plain page</title></head><body><h1>Plain</h1><p>Some text.</p></body></html>",
		"/": `<!doctype html><html><head><title>Home</title></head><body><a href="/nested">n</a> <a href="/deep40">d</a>
<a href="/siblings">s</a> <a href="/wide">w</a> <a href="/p/0">chain</a></body></html>`,
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := pages[r.URL.Path]
		if rest, chain := strings.CutPrefix(r.URL.Path, "/p/"); chain {
			i, err := strconv.Atoi(rest)
			if ok = err == nil && i >= 0 && i < n; ok {
				body = strings.Replace(nested, "<p>intro</p>",
					fmt.Sprintf(`<p>intro <a href="/p/%d">next</a> <a href="/p/%d">after</a></p>`, i+1, i+2), 1)
			}
		}
		if !ok {
			http.NotFound(w, r)
			return
		}
		served.Add(1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, body)
	})
}

// extraction is the part of a page report's "extracted" item the suite
// reads.
type extraction struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
	Error string `json:"error"`
}

// bombKey creates a Free account with a daily limit that does not refuse
// the suite, and returns an API key of it.
func bombKey(t *testing.T, db []string, email string) string {
	return accountKey(t, db, email, "free", "-daily-limit", "100000")
}

// pageWithExtractor analyses url with one extractor under a deadline.
func pageWithExtractor(ctx context.Context, c *http.Client, base, key, url, extractor string) answer {
	body := `{"url":"` + url + `","options":{"depth":"basic","extract":[` + extractor + `]}}`
	return call(ctx, c, "POST", base+"/v1/analyze/page", withKey(key, "application/json"), strings.NewReader(body))
}

// TestHostileSelectors runs each hostile matcher through a page analysis
// and all of them through one site analysis, then four selector bombs
// from two Free accounts at once while a third tenant's page analyses
// are answered, then cancels a bomb site analysis holding the server's
// only site slot and measures how soon a waiting one starts.
func TestHostileSelectors(t *testing.T) {
	skipHostile(t)
	var served atomic.Int64
	site := serve(t, selectorSite(200, &served))
	_, db := dbArgs(t)
	srv := startWatched(t, append(db, "-allow-private", "-max-site-jobs", "1")...)
	c := hostileClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 80*time.Second)
	defer cancel()
	key := tenantKey(t, db[:2], "selectors@example.com")

	// Each case: a page analysis under a 15 s deadline, answered within
	// it plus a second, with values or its budget's error.
	const pageDeadline = 15 * time.Second
	for _, sc := range selectorCases {
		cctx, cancel := context.WithTimeout(ctx, pageDeadline)
		a := pageWithExtractor(cctx, c, srv.base, key, site.URL+sc.path, sc.extractor)
		cancel()
		var rep struct {
			Extracted []extraction `json:"extracted"`
		}
		json.Unmarshal(a.head, &rep)
		var x extraction
		if len(rep.Extracted) == 1 {
			x = rep.Extracted[0]
		}
		t.Logf("page %-36s %s: %d in %v, count %d, error %q", sc.name, sc.path, a.status, a.took.Round(time.Millisecond), x.Count, x.Error)
		switch {
		case a.err != nil || a.status != http.StatusOK:
			t.Errorf("%s: %d %v %.300s", sc.name, a.status, a.err, a.head)
		case a.took > pageDeadline+time.Second:
			t.Errorf("%s: answered in %v, over its %v deadline plus 1 s", sc.name, a.took, pageDeadline)
		case len(rep.Extracted) != 1:
			t.Errorf("%s: extracted %.300s", sc.name, a.head)
		case sc.overBudget && !strings.Contains(x.Error, "budget") && !strings.Contains(x.Error, "node visits"):
			t.Errorf("%s: error %q, want its budget's", sc.name, x.Error)
		case !sc.overBudget && (x.Error != "" || x.Count == 0 && sc.path != "/nested"):
			t.Errorf("%s: count %d, error %q", sc.name, x.Count, x.Error)
		}
	}

	// A site analysis with every case's extractor on every page.
	var list []string
	for i, sc := range selectorCases {
		list = append(list, strings.Replace(sc.extractor, `"name":"x"`, `"name":"x`+strconv.Itoa(i)+`"`, 1))
	}
	siteStart := time.Now()
	a := call(ctx, c, "POST", srv.base+"/v1/analyze/site", withKey(key, "application/json"),
		strings.NewReader(`{"url":"`+site.URL+`/","options":{"maxPages":10,"extract":[`+strings.Join(list, ",")+`]}}`))
	var js jobState
	json.Unmarshal(a.head, &js)
	if a.status != http.StatusAccepted || js.ID == "" {
		t.Fatalf("site analysis: %d %.300s", a.status, a.head)
	}
	const siteDeadline = 40 * time.Second
	id := js.ID
	_, js = waitJob(ctx, c, srv, key, id, siteStart.Add(siteDeadline))
	took := time.Since(siteStart)
	result := fullJob(ctx, t, c, srv.base, key, id)
	t.Logf("site analysis with the %d matchers on 5 pages: %s in %v; budget errors in the report: %d", len(list), js.Status, took.Round(100*time.Millisecond),
		strings.Count(result, "budget")+strings.Count(result, "node visits"))
	if js.Status != string(store.JobSucceeded) || took > siteDeadline+time.Second {
		t.Errorf("site analysis %s (%s) after %v", js.Status, js.Error, took)
	}
	if !strings.Contains(result, "css selector stopped after") || !strings.Contains(result, "regex stopped after") {
		t.Errorf("the site report lacks the budget errors of the extractors")
	}

	// Four bombs at once from two Free accounts, in a loop, while a third
	// tenant analyses a plain page ten times.
	free := []string{bombKey(t, db[:2], "free1@example.com"), bombKey(t, db[:2], "free2@example.com")}
	third := tenantKey(t, db[:2], "third@example.com")
	stop := make(chan struct{})
	var (
		mu    sync.Mutex
		bombs []answer
		wg    sync.WaitGroup
	)
	for i := range 4 {
		wg.Go(func() {
			for n := 0; n < 25; n++ { // bounded; usually stopped sooner
				select {
				case <-stop:
					return
				default:
				}
				sc := selectorCases[(i+n)%4] // the CSS bombs
				a := pageWithExtractor(ctx, c, srv.base, free[i%2], site.URL+sc.path, sc.extractor)
				mu.Lock()
				bombs = append(bombs, a)
				mu.Unlock()
			}
		})
	}
	var lat []time.Duration
	answered := 0
	for range 10 {
		a := call(ctx, c, "POST", srv.base+"/v1/analyze/page", withKey(third, "application/json"),
			strings.NewReader(`{"url":"`+site.URL+`/plain","options":{"depth":"basic"}}`))
		lat = append(lat, a.took)
		if a.err == nil && a.status == http.StatusOK {
			answered++
		} else {
			t.Errorf("third tenant: %d %v %.200s", a.status, a.err, a.head)
		}
	}
	close(stop)
	wg.Wait()
	slices.Sort(lat)
	t.Logf("third tenant during 4 selector bombs from 2 Free accounts: %d/10 answered 200, latency median %v, max %v; bombs sent %d: %s",
		answered, lat[len(lat)/2].Round(time.Millisecond), lat[len(lat)-1].Round(time.Millisecond), len(bombs), statusCounts(bombs))
	if lat[len(lat)-1] > 10*time.Second {
		t.Errorf("third tenant waited %v, want under 10 s", lat[len(lat)-1])
	}
	for _, b := range bombs {
		if p := b.refusalProblem(); p != "" {
			t.Errorf("bomb: %s", p)
		}
	}

	// A bomb site analysis holds the only site slot; another waits; the
	// first is canceled and the second starts.
	submit := func(key, body string) string {
		a := call(ctx, c, "POST", srv.base+"/v1/analyze/site", withKey(key, "application/json"), strings.NewReader(body))
		var js jobState
		json.Unmarshal(a.head, &js)
		if a.status != http.StatusAccepted || js.ID == "" {
			t.Fatalf("site analysis: %d %.300s", a.status, a.head)
		}
		return js.ID
	}
	status := func(key, id string) string {
		a := call(ctx, c, "GET", srv.base+"/v1/analyze/site/"+id, withKey(key, ""), nil)
		return statusOf(a.head)
	}
	// until polls status every 50 ms until ok, at most limit.
	until := func(limit time.Duration, ok func() bool) bool {
		for end := time.Now().Add(limit); time.Now().Before(end) && ctx.Err() == nil; time.Sleep(50 * time.Millisecond) {
			if ok() {
				return true
			}
		}
		return false
	}
	chainStart := served.Load()
	bomb := submit(free[0], `{"url":"`+site.URL+`/p/0","options":{"maxPages":200,"extract":[`+strings.Join(list, ",")+`]}}`)
	if !until(20*time.Second, func() bool { return status(free[0], bomb) == "running" && served.Load() > chainStart+5 }) {
		t.Fatalf("the bomb site analysis did not start: %s", status(free[0], bomb))
	}
	waiting := submit(free[1], `{"url":"`+site.URL+`/plain","options":{"maxPages":1}}`)
	if st := status(free[1], waiting); st != "queued" {
		t.Errorf("second site analysis %s while the only slot is taken, want queued", st)
	}
	canceled := time.Now()
	if a := call(ctx, c, "DELETE", srv.base+"/v1/analyze/site/"+bomb, withKey(free[0], ""), nil); a.status/100 != 2 {
		t.Fatalf("DELETE: %d %.300s", a.status, a.head)
	}
	started := until(10*time.Second, func() bool { st := status(free[1], waiting); return st != "queued" && st != "" })
	freed := time.Since(canceled)
	t.Logf("DELETE of a running bomb site analysis (%d pages served): the waiting analysis left the queue %v later (%s)",
		served.Load()-chainStart, freed.Round(10*time.Millisecond), status(free[1], waiting))
	if !started || freed > 5*time.Second {
		t.Errorf("the slot of the canceled analysis was free only after %v (started %v), want under 5 s", freed, started)
	}
	if !srv.alive() {
		t.Fatalf("server died:\n%s", tail(srv.out.String(), 3000))
	}
}

// fullJob reads a job's whole answer (a few hundred KB here).
func fullJob(ctx context.Context, t *testing.T, c *http.Client, base, key, id string) string {
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/v1/analyze/site/"+id, nil)
	req.Header = withKey(key, "")
	resp, err := c.Do(req)
	if err != nil {
		t.Errorf("job %s: %v", id, err)
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	return string(b)
}

// TestHostileSelectorSIGTERM sends SIGTERM to the server while a site
// analysis runs the hostile matchers on a chain of bomb pages: the server
// exits within shutdownBound, the job stays unfinished in the store, and
// after a restart it resumes and completes with its extractors' budget
// errors.
func TestHostileSelectorSIGTERM(t *testing.T) {
	skipHostile(t)
	const chain = 120
	var served atomic.Int64
	site := serve(t, selectorSite(chain, &served))
	dir, db := dbArgs(t)
	args := append(db, "-allow-private", "-crawl-rate", "10")
	srv := startWatched(t, args...)
	c := hostileClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 85*time.Second)
	defer cancel()
	const email = "sigterm@example.com"
	key := tenantKey(t, db[:2], email)
	var list []string
	for i, sc := range selectorCases {
		list = append(list, strings.Replace(sc.extractor, `"name":"x"`, `"name":"x`+strconv.Itoa(i)+`"`, 1))
	}
	a := call(ctx, c, "POST", srv.base+"/v1/analyze/site", withKey(key, "application/json"),
		strings.NewReader(`{"url":"`+site.URL+`/","options":{"maxPages":200,"extract":[`+strings.Join(list, ",")+`]}}`))
	var js jobState
	json.Unmarshal(a.head, &js)
	if a.status != http.StatusAccepted || js.ID == "" {
		t.Fatalf("site analysis: %d %.300s", a.status, a.head)
	}
	// SIGTERM once the crawl is well under way.
	for served.Load() < 25 {
		if ctx.Err() != nil || !srv.alive() {
			t.Fatalf("the crawl did not start (%d pages served):\n%s", served.Load(), tail(srv.out.String(), 3000))
		}
		time.Sleep(20 * time.Millisecond)
	}
	before := served.Load()
	srv.stopMonitor()
	sent := time.Now()
	srv.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-srv.exited:
	case <-time.After(shutdownBound + 10*time.Second):
		srv.kill()
		t.Fatalf("server still running %v after SIGTERM:\n%s", shutdownBound+10*time.Second, tail(srv.out.String(), 3000))
	}
	exit := time.Since(sent)
	t.Logf("SIGTERM after %d of %d pages served: server exited in %v (bound %v)", before, chain+5, exit.Round(10*time.Millisecond), shutdownBound)
	if exit > shutdownBound {
		t.Errorf("server exited %v after SIGTERM, over its bound %v", exit, shutdownBound)
	}

	// The job is unfinished in the store: the next start resumes it.
	st, err := sqlstore.Open(context.Background(), filepath.Join(dir, "api.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	acct, err := st.AccountByEmail(context.Background(), email)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := st.Job(context.Background(), acct.ID, js.ID)
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	if stored.Status.Done() {
		t.Fatalf("job stored as %s (%s) after SIGTERM; want it queued or running, to resume", stored.Status, stored.Error)
	}

	again := &watched{instance: startInstance(t, args...)}
	restarted := time.Now()
	id := js.ID
	_, js = waitJob(ctx, c, again, key, id, restarted.Add(60*time.Second))
	result := fullJob(ctx, t, c, again.base, key, id)
	t.Logf("job stored as %s at SIGTERM; after the restart it ended %s in %v; pages served in all %d",
		stored.Status, js.Status, time.Since(restarted).Round(100*time.Millisecond), served.Load())
	if js.Status != string(store.JobSucceeded) {
		t.Fatalf("job %s (%s) after the restart:\n%s", js.Status, js.Error, tail(again.out.String(), 3000))
	}
	if !strings.Contains(result, "css selector stopped after") || !strings.Contains(result, "regex stopped after") {
		t.Errorf("the resumed job's report lacks the extractors' budget errors: %d bytes: %.300s", len(result), result)
	}
	if !strings.Contains(result, fmt.Sprintf("/p/%d", chain-1)) {
		t.Errorf("the resumed job's report lacks the end of the chain")
	}
	again.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-again.exited:
	case <-time.After(shutdownBound + 10*time.Second):
		t.Errorf("restarted server still running %v after SIGTERM", shutdownBound+10*time.Second)
	}
}
