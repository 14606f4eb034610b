package dashboard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/dashboard"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/seo"
)

const (
	testEmail    = "ada@example.com"
	testPassword = "correct horse battery staple"
)

// clock is a settable time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// env is a dashboard over an in-memory store with one account.
type env struct {
	st    store.Store
	au    *auth.Server
	d     *dashboard.Dashboard
	acct  *store.Account
	clock *clock
	an    *testAnalyses
	mux   *http.ServeMux
	srv   *httptest.Server
}

type envOptions struct {
	realClock bool
	opts      dashboard.Options
	// rankings, when set and opts.Tracking is not, is the store of a
	// rankings service without a SERP source (storeTracking).
	rankings rankings.Store
	// api, when set, adds routes (the /v1 API) to the server's mux.
	api func(e *env) http.Handler
}

func newEnv(t *testing.T, eo *envOptions) *env {
	t.Helper()
	if eo == nil {
		eo = &envOptions{}
	}
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, ":memory:", nil)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	e := &env{st: st, clock: &clock{t: time.Now().UTC()}}
	now := e.clock.Now
	if eo.realClock {
		now = time.Now
	}
	var d *dashboard.Dashboard
	au, err := auth.New(ctx, st, &auth.Options{
		Now: now,
		SessionAccount: func(r *http.Request) (string, bool) {
			return d.SessionAccount(r)
		},
	})
	if err != nil {
		t.Fatalf("auth.New: %v", err)
	}
	e.au = au
	e.an = &testAnalyses{st: st, now: now}
	t.Cleanup(e.an.wait)
	o := eo.opts
	o.Now = now
	if o.Analyses == nil {
		o.Analyses = e.an
	}
	if eo.rankings != nil && o.Quota == nil {
		o.Quota = fixedQuota(1000) // the limits shown
	}
	if eo.rankings != nil && o.Tracking == nil {
		o.Tracking = storeTracking{rankings.NewTracker(nil, eo.rankings, &rankings.TrackerOptions{Now: now})}
	}
	d, err = dashboard.New(st, au, &o)
	if err != nil {
		t.Fatalf("dashboard.New: %v", err)
	}
	e.d = d
	e.acct, err = au.CreateAccount(ctx, testEmail, "Ada", testPassword, store.Free)
	if err != nil {
		t.Fatalf("create account: %v", err)
	}
	e.mux = http.NewServeMux()
	e.mux.Handle("/dashboard/", d)
	e.mux.Handle("/dashboard", d)
	if eo.api != nil {
		e.mux.Handle("/", eo.api(e))
	} else {
		au.Register(e.mux)
	}
	e.srv = httptest.NewServer(e.mux)
	t.Cleanup(e.srv.Close)
	return e
}

// client returns an HTTP client with a cookie jar that does not follow
// redirects.
func (e *env) client(t *testing.T) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

var csrfRE = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

func csrfOf(t *testing.T, body string) string {
	t.Helper()
	m := csrfRE.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no csrf_token in page:\n%s", body)
	}
	return m[1]
}

func get(t *testing.T, c *http.Client, u string) (*http.Response, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func post(t *testing.T, c *http.Client, u string, form url.Values) (*http.Response, string) {
	t.Helper()
	resp, err := c.PostForm(u, form)
	if err != nil {
		t.Fatalf("POST %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// login signs c in and returns the CSRF token of the session's forms.
func (e *env) login(t *testing.T, c *http.Client) string {
	t.Helper()
	_, body := get(t, c, e.srv.URL+"/dashboard/login")
	resp, body := post(t, c, e.srv.URL+"/dashboard/login", url.Values{
		"csrf_token": {csrfOf(t, body)}, "email": {testEmail}, "password": {testPassword}, "next": {"/dashboard/"},
	})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/dashboard/" {
		t.Fatalf("login: status %d, location %q, body:\n%s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	resp, body = get(t, c, e.srv.URL+"/dashboard/")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("overview after login: status %d", resp.StatusCode)
	}
	return csrfOf(t, body)
}

// testAnalyses runs site analyses with the crawler in goroutines and
// stores them as jobs, the way the API's job queue does.
type testAnalyses struct {
	st  store.Store
	now func() time.Time
	wg  sync.WaitGroup

	mu      sync.Mutex
	cancels map[string]context.CancelFunc
}

var _ service.Analyses = (*testAnalyses)(nil)

func (a *testAnalyses) wait() {
	a.mu.Lock()
	for _, c := range a.cancels {
		c()
	}
	a.mu.Unlock()
	a.wg.Wait()
}

func (a *testAnalyses) Submit(ctx context.Context, accountID string, sr service.SiteRequest) (*service.Job, error) {
	t, err := service.ParseTarget(sr.Domain, sr.URL)
	if err != nil {
		return nil, err
	}
	domain := t.Host()
	if sr.Options.Render == "none" {
		sr.Options.Render = ""
	}
	req, _ := json.Marshal(sr)
	now := a.now().UTC()
	j := &store.Job{ID: "job_" + strings.ReplaceAll(now.Format("150405.000000000"), ".", ""), AccountID: accountID, Kind: "site",
		Status: store.JobQueued, Request: req, CreatedAt: now, UpdatedAt: now}
	if err := a.st.CreateJob(ctx, j); err != nil {
		return nil, err
	}
	jctx, cancel := context.WithCancel(context.Background())
	a.mu.Lock()
	if a.cancels == nil {
		a.cancels = map[string]context.CancelFunc{}
	}
	a.cancels[j.ID] = cancel
	a.mu.Unlock()
	a.wg.Add(1)
	go a.run(jctx, *j, domain, sr.Options.MaxPages, sr.Options.IncludeSubdomains)
	v := service.JobView(j, "")
	return &v, nil
}

func (a *testAnalyses) Get(ctx context.Context, accountID, id string) (*service.Job, service.Result, error) {
	j, err := a.st.Job(ctx, accountID, id)
	if err != nil {
		return nil, nil, err
	}
	v := service.JobView(j, "")
	if len(j.Result) == 0 || !service.HasResult(&v) {
		return &v, nil, nil
	}
	return &v, bytesResult(j.Result), nil
}

// Report decodes the stored report as the API server's does, without its
// admission control (tested over the API server's service:
// httpapi.TestDashboardReportAdmission).
func (a *testAnalyses) Report(ctx context.Context, accountID, id string) (*service.Job, *crawler.SiteReport, func(), error) {
	j, res, err := a.Get(ctx, accountID, id)
	if err != nil || res == nil {
		return j, nil, func() {}, err
	}
	var rep crawler.SiteReport
	if err := json.Unmarshal(res.(bytesResult), &rep); err != nil {
		return nil, nil, nil, err
	}
	return j, &rep, func() {}, nil
}

func (a *testAnalyses) List(ctx context.Context, accountID string, limit int) ([]service.Job, error) {
	js, err := a.st.Jobs(ctx, accountID, limit)
	if err != nil {
		return nil, err
	}
	out := make([]service.Job, 0, len(js))
	for i := range js {
		out = append(out, service.JobView(&js[i], ""))
	}
	return out, nil
}

func (a *testAnalyses) Screenshot(ctx context.Context, accountID, jobID, pageURL string) ([]byte, error) {
	ss, ok := a.st.(store.Screenshots)
	if !ok {
		return nil, store.ErrNotFound
	}
	return ss.Screenshot(ctx, accountID, jobID, pageURL)
}

// Diff is not offered by the test analyses: the comparison pages are
// tested over the API server's service (projects_test.go).
func (a *testAnalyses) Diff(ctx context.Context, accountID, id, against string) (*service.SiteDiff, error) {
	return nil, fmt.Errorf("test analyses do not compare: %w", seo.ErrUnavailable)
}

// bytesResult is a stored report held in memory.
type bytesResult []byte

func (b bytesResult) Size() int                    { return len(b) }
func (b bytesResult) Open() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }

func (a *testAnalyses) run(ctx context.Context, j store.Job, domain string, maxPages int, subdomains bool) {
	defer a.wg.Done()
	j.Status, j.StartedAt = store.JobRunning, a.now().UTC()
	if err := a.st.UpdateJob(ctx, &j); err != nil {
		return
	}
	var mu sync.Mutex
	co := &crawler.Options{
		AllowPrivate: true, MaxPages: maxPages, IncludeSubdomains: subdomains, PerHostRate: -1,
		SkipExternalLinks: true, RequestTimeout: 5 * time.Second, ProgressInterval: 50 * time.Millisecond,
		Progress: func(p crawler.Progress) {
			b, _ := json.Marshal(map[string]any{"pagesDone": p.Done, "errors": p.Errors, "queued": p.Queued,
				"skipped": p.Skipped, "pagesPerSecond": p.PagesPerSecond, "current": p.Current, "updatedAt": a.now().UTC()})
			mu.Lock()
			defer mu.Unlock()
			c := j
			c.Progress, c.UpdatedAt = b, a.now().UTC()
			a.st.UpdateJob(ctx, &c)
		},
	}
	rep, err := crawler.New(co).Run(ctx, domain)
	mu.Lock()
	defer mu.Unlock()
	if ctx.Err() != nil {
		return
	}
	if err != nil {
		j.Status, j.Error = store.JobFailed, err.Error()
	} else {
		j.Result, _ = json.Marshal(rep)
		j.Status = store.JobSucceeded
		j.Progress, _ = json.Marshal(map[string]any{"pagesDone": rep.Crawl.Fetched, "errors": rep.Crawl.Errors,
			"queued": rep.Crawl.Queued, "skipped": rep.Crawl.Skipped, "updatedAt": a.now().UTC()})
	}
	j.FinishedAt, j.UpdatedAt = a.now().UTC(), a.now().UTC()
	a.st.UpdateJob(context.Background(), &j)
}

func (a *testAnalyses) Cancel(ctx context.Context, accountID, jobID string) (*service.Job, error) {
	j, err := a.st.Job(ctx, accountID, jobID)
	if err != nil {
		return nil, err
	}
	if j.Status.Done() {
		v := service.JobView(j, "")
		return &v, store.ErrConflict
	}
	now := a.now().UTC()
	j.Status, j.FinishedAt, j.UpdatedAt = store.JobCanceled, now, now
	if err := a.st.UpdateJob(ctx, j); err != nil {
		return nil, err
	}
	a.mu.Lock()
	if c := a.cancels[jobID]; c != nil {
		c()
	}
	a.mu.Unlock()
	v := service.JobView(j, "")
	return &v, nil
}

// newTestSite serves testdata/site on loopback.
func newTestSite(t *testing.T) *httptest.Server {
	t.Helper()
	pages := map[string]string{"/": "index.html", "/about": "about.html", "/news": "news.html", "/robots.txt": "robots.txt"}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		b, err := os.ReadFile(filepath.Join("testdata", "site", name))
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		if strings.HasSuffix(name, ".txt") {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		} else {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
		}
		w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// storeTracking is the rankings service of a server without a SERP
// source and without quota: the keywords it tracks go to its tracker's
// store. The tests that count the charge use the API server's
// (httpapi.Server.Rankings).
type storeTracking struct{ t *rankings.Tracker }

var _ service.Rankings = storeTracking{}

func (s storeTracking) Check(ctx context.Context, _ string, req service.RankingsRequest) (*service.RankingsResponse, error) {
	res, err := s.t.Rankings(ctx, req.Domain, req.Keywords, &rankings.CheckOptions{Device: rankings.Device(req.Device)})
	if err != nil {
		return nil, err
	}
	return &service.RankingsResponse{Domain: req.Domain, Device: req.Device, SourceStatus: service.SourceNone, Rankings: res}, nil
}

func (s storeTracking) Track(ctx context.Context, _ string, req service.TrackRequest) ([]rankings.Ranking, error) {
	loc, err := seo.ParseLocale(req.Locale)
	if err != nil {
		return nil, err
	}
	opts := &rankings.CheckOptions{Locale: loc, Device: rankings.Device(req.Device)}
	if err := s.t.Track(ctx, req.Domain, req.Keywords, opts); err != nil {
		return nil, err
	}
	return s.t.Latest(ctx, req.Domain, req.Keywords, opts)
}

func (s storeTracking) Untrack(ctx context.Context, _ string, req service.TrackRequest) error {
	loc, err := seo.ParseLocale(req.Locale)
	if err != nil {
		return err
	}
	return s.t.Untrack(ctx, req.Domain, req.Keywords, &rankings.CheckOptions{Locale: loc, Device: rankings.Device(req.Device)})
}

func (storeTracking) Source() (string, bool) { return "", false }

// fixedQuota is a Quota that admits every action and shows its daily
// limit.
type fixedQuota int

func (q fixedQuota) CountAction(context.Context, string, string) error { return nil }
func (q fixedQuota) DailyLimit(context.Context, string) (int, error) {
	return int(q), nil
}
func (q fixedQuota) MaxSitePages(context.Context, string) (int, error) { return 10_000, nil }
func (q fixedQuota) TrackedKeywords(context.Context, string) (int, error) {
	return dashboard.MaxWatched, nil
}

func (s storeTracking) History(ctx context.Context, _ string, req service.HistoryRequest) (*service.RankingHistory, error) {
	st := s.t.Store()
	f := rankings.Filter{Domain: req.Domain, Keywords: req.Keywords}
	h := &service.RankingHistory{}
	var err error
	if h.Latest, err = st.Latest(ctx, f); err != nil {
		return nil, err
	}
	if fs, ok := st.(rankings.FailureStore); ok {
		if h.Failures, err = fs.LatestFailures(ctx, f); err != nil {
			return nil, err
		}
	}
	f.From, f.To = req.From, req.To
	if h.Observations, err = st.History(ctx, f); err != nil {
		return nil, err
	}
	return h, nil
}
