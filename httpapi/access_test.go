package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
	"github.com/seokit/seokit/seo"
)

// Credentials of the login-protected test site.
const (
	testPassword = "pw-9f3a1c"
	testCookie   = "ck-77b2e0"
	testAPIKey   = "key-51d0aa"
)

// loginSite serves /, /p1 ... /p{n-1} (each linking to all) only to
// requests carrying the test credentials; others get 401. It records the
// User-Agent of the page requests and counts the refused ones.
type loginSite struct {
	*httptest.Server
	mu      sync.Mutex
	refused int
	paths   []string
	agents  []string
}

func newLoginSite(t *testing.T, n int) *loginSite {
	t.Helper()
	s := &loginSite{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, p, ok := r.BasicAuth()
		c, err := r.Cookie("session")
		if !ok || u != "ann" || p != testPassword || err != nil || c.Value != testCookie || r.Header.Get("X-Api-Key") != testAPIKey {
			s.mu.Lock()
			s.refused++
			s.mu.Unlock()
			http.Error(w, "login required", http.StatusUnauthorized)
			return
		}
		if r.URL.Path == "/robots.txt" || r.URL.Path == "/sitemap.xml" {
			http.NotFound(w, r)
			return
		}
		s.mu.Lock()
		s.paths = append(s.paths, r.URL.Path)
		s.agents = append(s.agents, r.UserAgent())
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><html lang=en><head><title>Page %s of the test site</title></head><body><h1>Page</h1>", r.URL.Path)
		for i := 1; i < n; i++ {
			fmt.Fprintf(w, `<a href="/p%d">page %d</a> `, i, i)
		}
		io.WriteString(w, "</body></html>")
	}))
	t.Cleanup(s.Close)
	return s
}

func accessOptions() string {
	return fmt.Sprintf(`"basicAuth":{"username":"ann","password":%q},"cookies":{"session":%q},"headers":{"X-Api-Key":%q,"X-Staging":"1"}`,
		testPassword, testCookie, testAPIKey)
}

// noSecrets fails when any test credential appears in s.
func noSecrets(t *testing.T, what, s string) {
	t.Helper()
	for _, secret := range []string{testPassword, testCookie, testAPIKey} {
		if strings.Contains(s, secret) {
			t.Errorf("%s contains the credential %q", what, secret)
		}
	}
}

func TestSiteJobScopeAndAccess(t *testing.T) {
	site := newLoginSite(t, 5)
	a := newTestAPI(t, &Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Free: 10_000}})
	body := fmt.Sprintf(`{"domain":%q,"options":{"skipExternalLinks":true,"exclude":["/p2$"],"userAgent":"bingbot",%s}}`, hostOf(t, site.URL), accessOptions())
	resp := a.call("POST", "/v1/analyze/site", a.key, body)
	wantStatus(t, resp, 202)
	raw, _ := io.ReadAll(resp.Body)
	noSecrets(t, "the 202 answer", string(raw))
	var created Job
	if err := json.Unmarshal(raw, &created); err != nil {
		t.Fatal(err)
	}
	o := created.Options
	if o.BasicAuth == nil || o.BasicAuth.Username != "ann" || o.BasicAuth.Password != "[redacted]" ||
		o.Cookies["session"] != "[redacted]" || o.Headers["X-Api-Key"] != "[redacted]" || o.Headers["X-Staging"] != "1" {
		t.Errorf("job options %+v", o)
	}
	j := waitJob(t, a, a.key, created.ID, func(j Job) bool { return j.Status == "succeeded" || j.Status == "failed" })
	if j.Status != "succeeded" {
		t.Fatalf("job %+v", j)
	}
	var rep struct {
		Crawl struct {
			Fetched      int `json:"fetched"`
			ScopeSkipped []struct {
				Reason string `json:"reason"`
				Count  int    `json:"count"`
			} `json:"scopeSkipped"`
		} `json:"crawl"`
		StatusCodes map[string]int `json:"statusCodes"`
	}
	if err := json.Unmarshal(j.Result, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Crawl.Fetched != 4 || rep.StatusCodes["200"] != 4 || len(rep.Crawl.ScopeSkipped) != 1 || rep.Crawl.ScopeSkipped[0].Count != 1 {
		t.Errorf("crawl %+v, status codes %v: want 4 pages, all 200, /p2 excluded", rep.Crawl, rep.StatusCodes)
	}
	site.mu.Lock()
	if site.refused != 0 || len(site.agents) == 0 || !strings.Contains(site.agents[0], "bingbot") {
		t.Errorf("refused %d requests, agents %q", site.refused, site.agents)
	}
	for _, p := range site.paths {
		if p == "/p2" {
			t.Error("/p2 was requested")
		}
	}
	site.mu.Unlock()

	got := a.call("GET", "/v1/analyze/site/"+j.ID, a.key, "")
	raw, _ = io.ReadAll(got.Body)
	noSecrets(t, "GET of the job", string(raw))
	list := a.call("GET", "/v1/analyze/site", a.key, "")
	raw, _ = io.ReadAll(list.Body)
	noSecrets(t, "the job list", string(raw))
	noSecrets(t, "the server log", a.logs.String())
	stored, err := a.st.Job(context.Background(), a.acct.ID, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	noSecrets(t, "the stored job", string(stored.Request)+string(stored.Result)+string(stored.Progress)+stored.Error)
}

func TestSiteJobListMode(t *testing.T) {
	site := newLoginSite(t, 6)
	a := newTestAPI(t, &Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Free: 10_000}})
	body := fmt.Sprintf(`{"domain":%q,"options":{"skipExternalLinks":true,"urls":[%q,%q,%q],%s}}`, hostOf(t, site.URL),
		site.URL+"/p1", site.URL+"/p3", site.URL+"/p3", accessOptions())
	resp := a.call("POST", "/v1/analyze/site", a.key, body)
	wantStatus(t, resp, 202)
	var created Job
	readJSON(t, resp, &created)
	j := waitJob(t, a, a.key, created.ID, func(j Job) bool { return j.Status == "succeeded" || j.Status == "failed" })
	var rep struct {
		Crawl struct {
			Fetched int `json:"fetched"`
		} `json:"crawl"`
	}
	if err := json.Unmarshal(j.Result, &rep); err != nil || j.Status != "succeeded" {
		t.Fatalf("job %+v: %v", j, err)
	}
	site.mu.Lock()
	defer site.mu.Unlock()
	if rep.Crawl.Fetched != 2 || strings.Join(site.paths, " ") != "/p1 /p3" && strings.Join(site.paths, " ") != "/p3 /p1" {
		t.Errorf("fetched %d, paths %q; want /p1 and /p3 only", rep.Crawl.Fetched, site.paths)
	}
}

func TestSiteScopeInvalid(t *testing.T) {
	a := newTestAPI(t, &Options{AllowPrivate: true})
	many := make([]string, 501)
	for i := range many {
		many[i] = fmt.Sprintf("https://example.com/p%d", i)
	}
	manyJSON, _ := json.Marshal(many)
	bad := []struct{ name, opts, field string }{
		{"bad include", `"include":["(x"]`, "options.include[0]"},
		{"bad exclude", `"exclude":["ok","[z-a]"]`, "options.exclude[1]"},
		{"negative folder depth", `"maxFolderDepth":-1`, "options.maxFolderDepth"},
		{"list past the plan's cap", `"urls":` + string(manyJSON), "options.urls"},
		{"list entry not a URL", `"urls":["https://example.com/","/relative"]`, "options.urls[1]"},
		{"Host header", `"headers":{"Host":"evil.example"}`, "options.headers.Host"},
		{"hop-by-hop header", `"headers":{"Transfer-Encoding":"chunked"}`, "options.headers.Transfer-Encoding"},
		{"header with a newline", `"headers":{"X-A":"a\r\nb"}`, "options.headers.X-A"},
		{"user agent with a newline", `"userAgent":"a\nb"`, "options.userAgent"},
		{"bad cookie", `"cookies":{"bad name":"v"}`, "options.cookies.bad name"},
		{"username with a colon", `"basicAuth":{"username":"a:b","password":"x"}`, "options.basicAuth"},
		{"start URL excluded", `"exclude":["\\.com/$"]`, "options.exclude"},
		{"start URL not included", `"include":["/blog/"]`, "options.include"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			e := apiErr(t, a.call("POST", "/v1/analyze/site", a.key, `{"domain":"example.com","options":{`+tc.opts+`}}`), 400, CodeInvalidRequest)
			if e.Field != tc.field {
				t.Errorf("field %q, want %q (%s)", e.Field, tc.field, e.Message)
			}
		})
	}
	// A start URL deeper than maxFolderDepth is refused at submit.
	e := apiErr(t, a.call("POST", "/v1/analyze/site", a.key, `{"url":"https://example.com/a/b/c","options":{"maxFolderDepth":2}}`), 400, CodeInvalidRequest)
	if e.Field != "options.maxFolderDepth" || !strings.Contains(e.Message, "start URL") {
		t.Errorf("deep start: field %q (%s)", e.Field, e.Message)
	}
}

// TestSealedCredentialsResume stores a job with sealed credentials, as
// submitted, and resumes it in a new server with the same secret (the
// crawl authenticates) and with another one (the job fails, saying why).
func TestSealedCredentialsResume(t *testing.T) {
	ctx := context.Background()
	site := newLoginSite(t, 3)
	secret := []byte("a master secret of the deployment")
	for _, tc := range []struct {
		name   string
		secret []byte
		want   string
	}{{"same secret", secret, "succeeded"}, {"other secret", []byte("another secret"), "failed"}} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "api.db")
			st, err := sqlstore.Open(ctx, path, nil)
			if err != nil {
				t.Fatal(err)
			}
			a := newTestAPI(t, &Options{Store: st, AllowPrivate: true, CallbackSecret: secret})
			var req SiteRequest
			body := fmt.Sprintf(`{"domain":%q,"options":{"skipExternalLinks":true,%s}}`, hostOf(t, site.URL), accessOptions())
			if err := json.Unmarshal([]byte(body), &req); err != nil {
				t.Fatal(err)
			}
			sealed, err := a.srv.sealRequest(req)
			if err != nil {
				t.Fatal(err)
			}
			noSecrets(t, "the sealed request", string(sealed))
			b, j := restartWithRunningJob(t, a, st, path, sealed, Options{AllowPrivate: true, CallbackSecret: tc.secret})
			got := waitJob(t, b, a.key, j.ID, func(j Job) bool { return j.Status == "succeeded" || j.Status == "failed" })
			if got.Status != tc.want {
				t.Fatalf("resumed job %+v, want %s", got, tc.want)
			}
			if tc.want == "succeeded" && (got.Progress == nil || got.Progress.PagesDone != 3) {
				t.Errorf("resumed job progress %+v", got.Progress)
			}
			if tc.want == "failed" && !strings.Contains(got.Error, "credentials cannot be decrypted") {
				t.Errorf("error %q", got.Error)
			}
		})
	}
}

func TestPageAnalysisUserAgent(t *testing.T) {
	var mu sync.Mutex
	var agents []string
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		agents = append(agents, r.UserAgent())
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<!doctype html><html lang=en><head><title>A page</title></head><body><h1>A page</h1></body></html>")
	}))
	t.Cleanup(page.Close)
	a := newTestAPI(t, &Options{AllowPrivate: true})
	wantStatus(t, a.call("POST", "/v1/analyze/page", a.key, fmt.Sprintf(`{"url":%q,"options":{"userAgent":"googlebot-smartphone"}}`, page.URL+"/")), 200)
	mu.Lock()
	if len(agents) == 0 || !strings.Contains(agents[0], "Googlebot/2.1") || !strings.Contains(agents[0], "Mobile") {
		t.Errorf("user agents %q", agents)
	}
	mu.Unlock()
	e := apiErr(t, a.call("POST", "/v1/analyze/page", a.key, fmt.Sprintf(`{"url":%q,"options":{"userAgent":"a\nb"}}`, page.URL+"/")), 400, CodeInvalidRequest)
	if e.Field != "options.userAgent" {
		t.Errorf("field %q", e.Field)
	}
}

// TestRedactedPlaceholderNeverSent checks that "[redacted]", which answers
// show in place of stored credentials, is never sent to the site as the
// credential: a new site analysis has nothing stored and refuses it naming
// the field; one attached to a project keeps the project's stored value.
func TestRedactedPlaceholderNeverSent(t *testing.T) {
	site := newLoginSite(t, 3)
	host := hostOf(t, site.URL)
	a := newTestAPI(t, &Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Free: 10_000}})
	for _, tc := range []struct{ name, options, field string }{
		{"password", `"basicAuth":{"username":"ann","password":"[redacted]"}`, "options.basicAuth.password"},
		{"header", `"headers":{"X-Api-Key":"[redacted]"}`, "options.headers.X-Api-Key"},
		{"cookie", `"cookies":{"session":"[redacted]"}`, "options.cookies.session"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := fmt.Sprintf(`{"domain":%q,"options":{%s}}`, host, tc.options)
			e := apiErr(t, a.call("POST", "/v1/analyze/site", a.key, body), 400, CodeInvalidRequest)
			if e.Field != tc.field || !strings.Contains(e.Message, "[redacted]") {
				t.Errorf("field %q message %q, want field %q saying why", e.Field, e.Message, tc.field)
			}
		})
	}

	// A project holding the credentials: the options of one of its
	// analyses' answers, sent back with projectId, keep its values.
	p := a.createProject(a.key, fmt.Sprintf(`{"domain":%q,"config":{%s}}`, host, accessOptions()))
	resp := a.call("POST", "/v1/analyze/site", a.key, `{"projectId":"`+p.ID+`"}`)
	wantStatus(t, resp, 202)
	var first Job
	readJSON(t, resp, &first)
	if first.Options.BasicAuth == nil || first.Options.BasicAuth.Password != seo.Redacted || first.Options.Cookies["session"] != seo.Redacted {
		t.Fatalf("answer options %+v, want credentials redacted", first.Options)
	}
	waitJob(t, a, a.key, first.ID, func(j Job) bool { return j.Status == "succeeded" || j.Status == "failed" })
	first.Options.SkipExternalLinks = true
	sent, err := json.Marshal(map[string]any{"projectId": p.ID, "options": first.Options})
	if err != nil {
		t.Fatal(err)
	}
	// The same options without the project have nothing to keep.
	noProject, _ := json.Marshal(map[string]any{"domain": host, "options": first.Options})
	if e := apiErr(t, a.call("POST", "/v1/analyze/site", a.key, string(noProject)), 400, CodeInvalidRequest); !strings.HasPrefix(e.Field, "options.") {
		t.Errorf("answer sent back without a project: field %q, want an options credential", e.Field)
	}
	resp = a.call("POST", "/v1/analyze/site", a.key, string(sent))
	wantStatus(t, resp, 202)
	var second Job
	readJSON(t, resp, &second)
	j := waitJob(t, a, a.key, second.ID, func(j Job) bool { return j.Status == "succeeded" || j.Status == "failed" })
	if j.Status != "succeeded" {
		t.Fatalf("job %s %q", j.Status, j.Error)
	}
	site.mu.Lock()
	defer site.mu.Unlock()
	if site.refused != 0 || len(site.paths) == 0 {
		t.Errorf("the site refused %d requests and served %d pages; want every request to carry the real credentials", site.refused, len(site.paths))
	}
}
