package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/dashboard"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/seo"
)

// blockingSite serves a page whose answer waits until release is closed;
// started receives once when the first request for it arrived.
type blockingSite struct {
	*httptest.Server
	started chan struct{}
	release chan struct{}
	rel     sync.Once
}

// free lets the held answer go.
func (b *blockingSite) free() { b.rel.Do(func() { close(b.release) }) }

func newBlockingSite(t *testing.T) *blockingSite {
	b := &blockingSite{started: make(chan struct{}), release: make(chan struct{})}
	var once sync.Once
	b.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		once.Do(func() { close(b.started) })
		select {
		case <-b.release:
		case <-r.Context().Done():
		}
		io.WriteString(w, "<!doctype html><html lang=en><head><title>Held</title></head><body><h1>Held</h1></body></html>")
	}))
	t.Cleanup(func() { b.free(); b.Close() })
	return b
}

// holdPageAnalysis starts a page analysis of site by key and waits until
// it holds its slot (the site got its request). The returned function
// releases the site and returns the analysis's status.
func holdPageAnalysis(t *testing.T, a *testAPI, site *blockingSite, key string) func() int {
	t.Helper()
	status := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest("GET", a.ts.URL+"/v1/analyze?url="+site.URL+"/", nil)
		req.Header.Set("X-API-Key", key)
		resp, err := a.client.Do(req)
		if err != nil {
			status <- -1
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		status <- resp.StatusCode
	}()
	select {
	case <-site.started:
	case <-time.After(30 * time.Second):
		t.Fatal("the held analysis never reached the site")
	}
	return func() int {
		site.free()
		return <-status
	}
}

func TestAdmissionRefusals(t *testing.T) {
	cases := []struct {
		name       string
		adm        AdmissionOptions
		sameAcct   bool
		wantStatus int
		wantCode   string
	}{
		{"global limit", AdmissionOptions{MaxPageAnalyses: 1, AccountConcurrency: 5, Wait: time.Millisecond}, false, 503, CodeUnavailable},
		{"account limit", AdmissionOptions{MaxPageAnalyses: 5, AccountConcurrency: 1, Wait: time.Millisecond}, true, 429, CodeRateLimited},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			adm := tc.adm
			a := newTestAPI(t, &Options{AllowPrivate: true, Admission: &adm})
			site := newBlockingSite(t)
			done := holdPageAnalysis(t, a, site, a.key)
			key := a.key
			if !tc.sameAcct {
				_, key = a.account("b@example.com", store.Free, auth.ScopeRead, auth.ScopeWrite)
			}
			resp := a.call("GET", "/v1/analyze?url="+site.URL+"/", key, "")
			if resp.Header.Get("Retry-After") == "" {
				t.Error("refusal without Retry-After")
			}
			e := apiErr(t, resp, tc.wantStatus, tc.wantCode)
			if !strings.Contains(e.Message, "page analys") {
				t.Errorf("message %q does not name the kind", e.Message)
			}
			if got := done(); got != 200 {
				t.Errorf("held analysis: status %d, want 200", got)
			}
			if !strings.Contains(a.logs.String(), "admission refused") {
				t.Error("refusal not logged")
			}
			// The slots are free again.
			wantStatus(t, a.call("GET", "/v1/analyze?url="+site.URL+"/", key, ""), 200)
		})
	}
}

func TestAdmissionMemoryBudget(t *testing.T) {
	a := newTestAPI(t, &Options{Admission: &AdmissionOptions{Wait: time.Millisecond}})
	// Other work holds all but 1 MiB of the budget.
	held, err := a.srv.adm.mem.Reserve(context.Background(), DefaultMemoryBudget-1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer held()
	resp := a.call("POST", "/v1/optimize/content", a.key, `{"content":"Oak tables are sturdy.","keywords":["oak tables"]}`)
	if resp.Header.Get("Retry-After") == "" {
		t.Error("refusal without Retry-After")
	}
	e := apiErr(t, resp, 503, CodeUnavailable)
	if !strings.Contains(e.Message, "memory") {
		t.Errorf("message %q does not say memory", e.Message)
	}
}

func TestMemoryBudgetReserve(t *testing.T) {
	adm := newAdmission(&AdmissionOptions{MemoryBudget: 100, Wait: time.Millisecond}, discardLogger())
	var b seo.MemoryBudget = adm.mem
	ctx := context.Background()
	rel, err := b.Reserve(ctx, 60)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Reserve(ctx, 60); !errors.Is(err, seo.ErrUnavailable) {
		t.Fatalf("Reserve over a saturated budget: %v, want ErrUnavailable", err)
	}
	_, err = b.Reserve(ctx, 101)
	var tl *service.TooLargeError
	if !errors.Is(err, seo.ErrUnavailable) || !errors.As(err, &tl) {
		t.Fatalf("Reserve over the whole budget: %v, want ErrUnavailable and a *service.TooLargeError", err)
	}
	// The API says an action over the whole budget cannot succeed (409,
	// no Retry-After), and a saturated budget to retry (503).
	if e, _ := toAPIError(err); e.Status != http.StatusConflict || e.Code != CodeConflict || retryAfter(e) != "" || !strings.Contains(e.Message, "cannot succeed on a retry") {
		t.Errorf("over the whole budget: %+v, Retry-After %q; want 409 conflict without Retry-After", e, retryAfter(e))
	}
	_, err = b.Reserve(ctx, 60)
	if e, _ := toAPIError(err); e.Status != http.StatusServiceUnavailable || retryAfter(e) == "" {
		t.Errorf("over a saturated budget: %+v; want 503 with Retry-After", e)
	}
	rel()
	rel() // twice is harmless
	rel2, err := b.Reserve(ctx, 100)
	if err != nil {
		t.Fatalf("Reserve after release: %v", err)
	}
	rel2()
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := b.Reserve(cctx, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("Reserve with a canceled ctx: %v", err)
	}
}

// idleQueue keeps jobs queued: no worker runs them.
type idleQueue struct{}

func (idleQueue) Start(context.Context, RunFunc) error      { return nil }
func (idleQueue) Enqueue(context.Context, *store.Job) error { return nil }
func (idleQueue) Stop(context.Context) error                { return nil }

func TestSitePlanCaps(t *testing.T) {
	a := newTestAPI(t, &Options{AllowPrivate: true, Queue: idleQueue{}})
	e := apiErr(t, a.call("POST", "/v1/analyze/site", a.key, `{"domain":"127.0.0.1:9","options":{"maxPages":501}}`), 400, CodeInvalidRequest)
	if e.Field != "options.maxPages" || !strings.Contains(e.Message, "500") {
		t.Errorf("maxPages over the Free cap: %+v, want options.maxPages naming 500", e)
	}
	wantStatus(t, a.call("POST", "/v1/analyze/site", a.key, `{"domain":"127.0.0.1:9","options":{"maxPages":500}}`), 202)
	resp := a.call("POST", "/v1/analyze/site", a.key, `{"domain":"127.0.0.1:9"}`)
	if resp.Header.Get("Retry-After") == "" {
		t.Error("concurrent-jobs refusal without Retry-After")
	}
	if e := apiErr(t, resp, 429, CodeRateLimited); !strings.Contains(e.Message, "queued or running") {
		t.Errorf("concurrent-jobs refusal: %q", e.Message)
	}
	// Pro allows 3 at once and 10,000 pages.
	_, pro := a.account("pro@example.com", store.Pro, auth.ScopeRead, auth.ScopeWrite)
	for range 3 {
		wantStatus(t, a.call("POST", "/v1/analyze/site", pro, `{"domain":"127.0.0.1:9","options":{"maxPages":10000}}`), 202)
	}
	apiErr(t, a.call("POST", "/v1/analyze/site", pro, `{"domain":"127.0.0.1:9"}`), 429, CodeRateLimited)
}

func TestSiteDomainPolicy(t *testing.T) {
	a := newTestAPI(t, &Options{Queue: idleQueue{}})
	long := strings.Repeat("a", 64)
	cases := []struct{ body, field string }{
		{`{"domain":"169.254.169.254"}`, "domain"},
		{`{"domain":"localhost"}`, "domain"},
		{`{"domain":"127.0.0.1"}`, "domain"},
		{`{"domain":"10.1.2.3"}`, "domain"},
		{`{"domain":"[::1]"}`, "domain"},
		{`{"domain":"metadata.google.internal"}`, "domain"},
		{`{"domain":"example.com:22"}`, "domain"},
		{`{"domain":"` + strings.Repeat("a", 300) + `.com"}`, "domain"},
		{`{"domain":"` + long + `.com"}`, "domain"},
		{`{"domain":"` + strings.Repeat("abcdefghi.", 26) + `com"}`, "domain"},
		{`{"domain":"https://example.com/"}`, "domain"},
		{`{}`, "domain"},
		{`{"url":"http://169.254.169.254/latest/"}`, "url"},
		{`{"url":"https://example.com:22/"}`, "url"},
		{`{"url":"ftp://example.com/"}`, "url"},
		{`{"domain":"example.com","url":"https://example.com/"}`, "url"},
	}
	for _, tc := range cases {
		t.Run(tc.body[:min(len(tc.body), 40)], func(t *testing.T) {
			e := apiErr(t, a.call("POST", "/v1/analyze/site", a.key, tc.body), 400, CodeInvalidRequest)
			if e.Field != tc.field {
				t.Errorf("field %q, want %q (%s)", e.Field, tc.field, e.Message)
			}
		})
	}
}

func TestSiteStartURL(t *testing.T) {
	a := newTestAPI(t, &Options{AllowPrivate: true, Queue: idleQueue{}})
	resp := a.call("POST", "/v1/analyze/site", a.key, `{"url":"http://127.0.0.1:8080/blog/","options":{"maxPages":10}}`)
	wantStatus(t, resp, 202)
	var j Job
	readJSON(t, resp, &j)
	if j.URL != "http://127.0.0.1:8080/blog/" || j.Domain != "127.0.0.1:8080" || j.Options.MaxPages != 10 {
		t.Errorf("job = %+v; want url http://127.0.0.1:8080/blog/, domain 127.0.0.1:8080", j)
	}
}

func TestJobListWithoutResults(t *testing.T) {
	a := newTestAPI(t, nil)
	rep := &crawler.SiteReport{Domain: "example.com", StartURL: "https://example.com/" + strings.Repeat("x", 1<<20)}
	rep.Score = &seo.Score{Value: 77}
	rep.StatusCodes, rep.Findings, rep.SiteFindings, rep.LinkFindings, rep.Pages = map[int]int{}, []crawler.FindingGroup{}, []seo.Finding{}, []seo.Finding{}, []crawler.PageSummary{}
	rep.Crawl.DepthHistogram = []int{}
	rep.Graph.OrphanCheck = crawler.OrphanCheckNoSitemap
	result, _ := json.Marshal(rep)
	id := a.storeSiteJob(a.acct.ID, "example.com", store.JobSucceeded, rep, time.Now().UTC())
	resp := a.call("GET", "/v1/analyze/site", a.key, "")
	wantStatus(t, resp, 200)
	body, _ := io.ReadAll(resp.Body)
	if strings.Contains(string(body), "result") || len(body) > 4096 {
		t.Errorf("the list carries the result (%d bytes)", len(body))
	}
	resp = a.call("GET", "/v1/analyze/site/"+id, a.key, "")
	wantStatus(t, resp, 200)
	var got struct {
		ID     string
		Result json.RawMessage
	}
	readJSON(t, resp, &got)
	if got.ID != id || string(got.Result) != string(result) {
		t.Errorf("GET of the job: id %q, result of %d bytes; want the stored %d bytes as is", got.ID, len(got.Result), len(result))
	}
}

// TestRankingsGetIsARead proves GET /v1/rankings tracks nothing (neither
// the rankings store nor the account's watchlist changes), that POST
// /v1/rankings/track tracks, and that a refusal of Options.OnRankings (the
// account's cap of tracked keywords) is a 400 naming keywords, with
// nothing tracked, never a silent drop.
func TestRankingsGetIsARead(t *testing.T) {
	readError := func(t *testing.T, resp *http.Response) Error {
		var e struct{ Error Error }
		readJSON(t, resp, &e)
		return e.Error
	}
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, ":memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	watch, err := dashboard.NewSQLWatchlist(ctx, st.DB(), string(st.Dialect()))
	if err != nil {
		t.Fatal(err)
	}
	o := dataOptions(t)
	o.Store = st
	const maxWatched = 3
	o.OnRankings = func(ctx context.Context, accountID string, tracked []rankings.Tracked) error {
		return watch.Watch(ctx, accountID, tracked, maxWatched)
	}
	a := newTestAPI(t, o)
	trackedIn := func() (store, list int) {
		ts, err := o.Tracker.Store().Tracked(ctx, rankings.Filter{Domain: "example.com"})
		if err != nil {
			t.Fatal(err)
		}
		ws, err := watch.Watched(ctx, a.acct.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		return len(ts), len(ws)
	}
	s0, w0 := trackedIn()

	resp := a.call("GET", "/v1/rankings?domain=example.com&keywords[]=oak+tables&keywords[]=new+keyword", a.key, "")
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET: status %d", resp.StatusCode)
	}
	if s, w := trackedIn(); s != s0 || w != w0 {
		t.Errorf("GET /v1/rankings tracked keywords: store %d -> %d, watchlist %d -> %d", s0, s, w0, w)
	}

	resp = a.call("POST", "/v1/rankings/track", a.key, `{"domain":"example.com","keywords":["oak tables","new keyword"]}`)
	var tr TrackResponse
	readJSON(t, resp, &tr)
	if resp.StatusCode != 200 || tr.Tracked != 2 || len(tr.Rankings) != 2 {
		t.Fatalf("POST track: status %d, %+v", resp.StatusCode, tr)
	}
	s1, w1 := trackedIn()
	if w1 != w0+2 || s1 < s0+1 { // "oak tables" may be tracked already by the fixture
		t.Errorf("POST track: store %d -> %d, watchlist %d -> %d; want the 2 keywords tracked", s0, s1, w0, w1)
	}

	resp = a.call("POST", "/v1/rankings/track", a.key, `{"domain":"example.com","keywords":["oak chairs","oak desks"]}`)
	env := readError(t, resp)
	if resp.StatusCode != 400 || env.Field != "keywords" || !strings.Contains(env.Message, "over its limit of 3 tracked keywords") {
		t.Errorf("over the cap: status %d, %+v; want 400 naming keywords", resp.StatusCode, env)
	}
	if s, w := trackedIn(); s != s1 || w != w1 {
		t.Errorf("a refused track changed tracking: store %d -> %d, watchlist %d -> %d", s1, s, w1, w)
	}

	resp = a.call("POST", "/v1/rankings/track", a.key, `{"domain":"example.com","keywords":[]}`)
	env = readError(t, resp)
	if resp.StatusCode != 400 || env.Field != "keywords" {
		t.Errorf("no keywords: status %d, %+v; want 400 naming keywords", resp.StatusCode, env)
	}
}

func TestAdmitCountsOneQuota(t *testing.T) {
	a := newTestAPI(t, &Options{Limits: map[store.Plan]int{store.Free: 2}})
	ctx := context.Background()
	if err := a.srv.CountAction(ctx, a.acct.ID, ActionSiteAnalysis); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, a.call("GET", "/v1/analyze/site", a.key, ""), 200)
	err := a.srv.CountAction(ctx, a.acct.ID, ActionTrackKeywords)
	var rf dashboard.Refusal
	if !errors.As(err, &rf) || rf.StatusCode() != 429 || !strings.Contains(rf.PublicMessage(), "daily request limit of 2") {
		t.Fatalf("Admit over the limit: %v", err)
	}
	apiErr(t, a.call("GET", "/v1/analyze/site", a.key, ""), 429, CodeRateLimited)
	today := time.Now().UTC().Truncate(24 * time.Hour)
	u, err := a.st.Usage(ctx, a.acct.ID, today, today)
	if err != nil || len(u) != 1 || u[0].Count != 2 {
		t.Fatalf("usage = %v, %v; want 2 (one action, one request)", u, err)
	}
	var _ dashboard.Quota = a.srv
}

// TestMemoryBudgetTooSmall: a budget in which the site analyses run at
// once could not each analyse a page is refused at start, since their
// reservations would wait on each other.
func TestMemoryBudgetTooSmall(t *testing.T) {
	_, err := New(context.Background(), &Options{Admission: &AdmissionOptions{MemoryBudget: 64 << 20}})
	if err == nil || !strings.Contains(err.Error(), "memory budget") {
		t.Fatalf("New with a 64 MiB budget: %v, want an error naming the memory budget", err)
	}
}

// TestPageAnalysisReservesByBody: a page analysis reserves from the
// budget by the size of the body it fetched, so a page larger than the
// memory left is refused with 503 while small pages pass.
func TestPageAnalysisReservesByBody(t *testing.T) {
	big := strings.Repeat(`<p><a href="/x">x</a></p>`, 200_000) // 5 MB
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/big" {
			io.WriteString(w, "<!doctype html><title>big</title>"+big)
			return
		}
		io.WriteString(w, "<!doctype html><title>small</title><p>small page</p>")
	}))
	defer site.Close()
	a := newTestAPI(t, &Options{AllowPrivate: true, Admission: &AdmissionOptions{Wait: time.Millisecond}})
	// Leave 32 MiB: enough for a small page, not for 5 MB of links.
	held, err := a.srv.adm.mem.Reserve(context.Background(), DefaultMemoryBudget-32<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer held()
	wantStatus(t, a.call("GET", "/v1/analyze?url="+site.URL+"/small", a.key, ""), 200)
	resp := a.call("GET", "/v1/analyze?url="+site.URL+"/big", a.key, "")
	if resp.Header.Get("Retry-After") == "" {
		t.Error("refusal without Retry-After")
	}
	apiErr(t, resp, 503, CodeUnavailable)
}

// TestOptimizeSlowBodyHoldsNoSlot: an account whose optimisation bodies
// arrive slowly (declared large, a few bytes sent) holds its own
// account's count and the bodies' memory while they come, not the
// server's optimisation slots: another account's optimisation runs
// meanwhile. A third slow body of the same account is 429 at once.
func TestOptimizeSlowBodyHoldsNoSlot(t *testing.T) {
	a := newTestAPI(t, &Options{Admission: &AdmissionOptions{MaxOptimizations: 2, AccountConcurrency: 2, Wait: 500 * time.Millisecond}})
	_, keyB := a.account("b@example.com", store.Free, auth.ScopeRead, auth.ScopeWrite)
	for range 2 {
		c, err := net.Dial("tcp", a.ts.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		fmt.Fprintf(c, "POST /v1/optimize/content HTTP/1.1\r\nHost: x\r\nX-API-Key: %s\r\nContent-Type: application/json\r\n"+
			"Content-Length: 10000000\r\n\r\n{\"content\":\"", a.key)
	}
	// The slow bodies are being received once the account's count is full.
	deadline := time.Now().Add(10 * time.Second)
	for a.accountCount(KindOptimize) < 2 {
		if time.Now().After(deadline) {
			t.Fatal("the slow bodies were never received")
		}
		time.Sleep(10 * time.Millisecond)
	}
	start := time.Now()
	resp := a.call("POST", "/v1/optimize/content", keyB, `{"content":"Oak tables are sturdy.","keywords":["oak tables"],"locale":"en-US"}`)
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("another account's optimisation while slow bodies arrive: status %d %s after %v, want 200", resp.StatusCode, b, time.Since(start))
	}
	apiErr(t, a.call("POST", "/v1/optimize/content", a.key, `{"content":"Oak tables are sturdy.","keywords":["oak tables"],"locale":"en-US"}`), 429, CodeRateLimited)
}

// accountCount is the per-account count of kind of the test's account.
func (a *testAPI) accountCount(kind Kind) int {
	a.srv.adm.mu.Lock()
	defer a.srv.adm.mu.Unlock()
	return a.srv.adm.accounts[accountKind{a.acct.ID, kind}]
}

// TestPageAnalysisTimeout: a page analysis that hangs on the page itself
// stops at Options.PageTimeout, answers 503 saying so and frees its
// account's slot, instead of running on after its client could be
// answered.
func TestPageAnalysisTimeout(t *testing.T) {
	a := newTestAPI(t, &Options{AllowPrivate: true, PageTimeout: time.Second})
	release := make(chan struct{})
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		select { // a page that never answers
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); site.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
	defer cancel()
	start := time.Now()
	resp, err := a.send(a.req("GET", "/v1/analyze?url="+site.URL+"/&checkLinks=true", a.key, "").WithContext(ctx))
	if err != nil {
		t.Fatalf("page analysis of a hanging page: %v after %v, want 503 after the 1 s page timeout", err, time.Since(start))
	}
	e := apiErr(t, resp, 503, CodeUnavailable)
	if !strings.Contains(e.Message, "took longer than 1s") {
		t.Errorf("message %q does not say the analysis timed out", e.Message)
	}
	if n := a.accountCount(KindPage); n != 0 {
		t.Errorf("%d page analyses of the account still admitted after the answer", n)
	}
}

// TestPageAnalysisLinkBudget: a page analysis whose link targets hang
// answers 200 within Options.PageTimeout, where it answered 503: its link
// checks stop at half the page timeout, the hanging targets are reported
// not checked (time_budget) and not broken, and a target that answered
// 404 in time is still a broken link. A canonical URL on the hanging host,
// whose robots.txt hangs too, is not read as disallowed by robots.txt.
func TestPageAnalysisLinkBudget(t *testing.T) {
	a := newTestAPI(t, &Options{AllowPrivate: true, PageTimeout: time.Second})
	// The hanging targets are on a host of their own, so that they do not
	// hold the page host's 4 checks at once.
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // a link target, or robots.txt, that never answers
	}))
	defer slow.Close()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		var b strings.Builder
		fmt.Fprintf(&b, `<!doctype html><html lang=en><head><title>Links</title><link rel=canonical href="%s/hang/0"></head><body><h1>Links</h1>`, slow.URL)
		for i := range 40 {
			fmt.Fprintf(&b, `<a href="%s/hang/%d">link %d</a>`, slow.URL, i, i)
		}
		io.WriteString(w, b.String()+`<a href="/missing">missing</a></body></html>`)
	}))
	defer site.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
	defer cancel()
	start := time.Now()
	resp, err := a.send(a.req("GET", "/v1/analyze?url="+site.URL+"/&checkLinks=true", a.key, "").WithContext(ctx))
	elapsed := time.Since(start)
	if err != nil {
		t.Fatalf("page analysis with hanging links: %v after %v, want 200 within the 1 s page timeout", err, elapsed)
	}
	wantStatus(t, resp, 200)
	if elapsed > time.Second+5*time.Second {
		t.Errorf("answered after %v, with a 1 s page timeout", elapsed)
	}
	var rep analyzer.Report
	readJSON(t, resp, &rep)
	notChecked := 0
	for _, l := range rep.Links.List {
		switch {
		case strings.HasPrefix(l.URL, slow.URL):
			if l.NotChecked != analyzer.NotCheckedTimeBudget || l.Status != 0 {
				t.Errorf("hanging link %+v, want not checked (time_budget)", l)
			}
			notChecked++
		case l.Status != http.StatusNotFound || l.NotChecked != "":
			t.Errorf("missing link %+v, want status 404", l)
		}
	}
	if notChecked != 40 || rep.Links.Unchecked != 40 {
		t.Errorf("%d hanging links listed not checked, %d counted, want 40", notChecked, rep.Links.Unchecked)
	}
	if got, want := rep.Truncated["linkChecks"], (seo.Truncation{Total: 41, Omitted: 40}); got != want {
		t.Errorf(`truncated["linkChecks"] = %+v, want %+v`, got, want)
	}
	var broken []string
	for _, f := range rep.Findings {
		if strings.HasPrefix(f.ID, "links.broken") || strings.HasPrefix(f.ID, "canonical.target_") {
			broken = append(broken, f.ID+" "+f.Evidence.Value)
		}
	}
	if want := "links.broken_internal " + site.URL + "/missing"; len(broken) != 1 || broken[0] != want {
		t.Errorf("broken link findings %q, want only %q", broken, want)
	}
	if n := a.accountCount(KindPage); n != 0 {
		t.Errorf("%d page analyses of the account still admitted after the answer", n)
	}
}
