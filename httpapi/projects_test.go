package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/storetest"
	"github.com/seokit/seokit/seo"
)

// createProject posts body and returns the project created.
func (a *testAPI) createProject(key, body string) Project {
	a.t.Helper()
	resp := a.call("POST", "/v1/projects", key, body)
	wantStatus(a.t, resp, 201)
	var p Project
	readJSON(a.t, resp, &p)
	if resp.Header.Get("Location") != p.Links.Self {
		a.t.Errorf("Location %q, want %q", resp.Header.Get("Location"), p.Links.Self)
	}
	return p
}

func TestProjectsCRUD(t *testing.T) {
	a := newTestAPI(t, &Options{AllowPrivate: true})
	p := a.createProject(a.key, `{"domain":"Shop.Example.com","keywords":[" oak tables ","oak chairs","oak tables"]}`)
	if !strings.HasPrefix(p.ID, "prj_") || p.Domain != "shop.example.com" || p.Name != "shop.example.com" || p.TimeZone != "UTC" ||
		fmt.Sprint(p.Keywords) != "[oak tables oak chairs]" || p.Links.Analyses != "/v1/projects/"+p.ID+"/analyses" || p.CreatedAt.IsZero() {
		t.Errorf("created %+v; want the normalised domain as name, UTC, keywords trimmed without repeats", p)
	}
	q := a.createProject(a.key, `{"name":"Blog","domain":"blog.example.com","timeZone":"Europe/Berlin","config":{"maxPages":20,"include":["/posts/"]}}`)
	if q.Name != "Blog" || q.TimeZone != "Europe/Berlin" || q.Config.MaxPages != 20 || fmt.Sprint(q.Config.Include) != "[/posts/]" || len(q.Keywords) != 0 || q.Keywords == nil {
		t.Errorf("created %+v", q)
	}

	resp := a.call("GET", "/v1/projects/"+p.ID, a.key, "")
	wantStatus(t, resp, 200)
	var got Project
	readJSON(t, resp, &got)
	if got.ID != p.ID || got.Domain != p.Domain || fmt.Sprint(got.Keywords) != fmt.Sprint(p.Keywords) {
		t.Errorf("GET = %+v, want %+v", got, p)
	}
	resp = a.call("GET", "/v1/projects", a.key, "")
	wantStatus(t, resp, 200)
	var list ProjectList
	readJSON(t, resp, &list)
	if len(list.Projects) != 2 || list.Projects[0].ID != q.ID || list.Projects[1].ID != p.ID {
		t.Errorf("list = %+v, want [%s %s] (newest first)", list.Projects, q.ID, p.ID)
	}

	resp = a.call("PATCH", "/v1/projects/"+p.ID, a.key, `{"name":"Shop","timeZone":"America/New_York","keywords":["boots"]}`)
	wantStatus(t, resp, 200)
	var up Project
	readJSON(t, resp, &up)
	if up.Name != "Shop" || up.TimeZone != "America/New_York" || fmt.Sprint(up.Keywords) != "[boots]" || up.Domain != p.Domain {
		t.Errorf("PATCH = %+v; want only name, timeZone and keywords changed", up)
	}
	resp = a.call("PATCH", "/v1/projects/"+q.ID, a.key, `{"config":null}`)
	wantStatus(t, resp, 200)
	readJSON(t, resp, &up)
	if up.Config.MaxPages != 0 || up.Config.Include != nil || up.Name != "Blog" {
		t.Errorf("PATCH config null = %+v; want the default configuration", up)
	}
	if e := apiErr(t, a.call("PATCH", "/v1/projects/"+q.ID, a.key, `{"domain":"shop.example.com"}`), 409, CodeConflict); e.Field != "domain" {
		t.Errorf("PATCH to another project's domain: field %q, want domain", e.Field)
	}

	resp = a.call("DELETE", "/v1/projects/"+p.ID, a.key, "")
	wantStatus(t, resp, 204)
	apiErr(t, a.call("GET", "/v1/projects/"+p.ID, a.key, ""), 404, CodeNotFound)
	apiErr(t, a.call("DELETE", "/v1/projects/"+p.ID, a.key, ""), 404, CodeNotFound)
	apiErr(t, a.call("PATCH", "/v1/projects/"+p.ID, a.key, `{"name":"x"}`), 404, CodeNotFound)

	t.Run("read-only key", func(t *testing.T) {
		ro := a.newKey(a.acct.ID, auth.ScopeRead)
		wantStatus(t, a.call("GET", "/v1/projects/"+q.ID, ro, ""), 200)
		apiErr(t, a.call("POST", "/v1/projects", ro, `{"domain":"ro.example.com"}`), 403, CodeForbidden)
		apiErr(t, a.call("DELETE", "/v1/projects/"+q.ID, ro, ""), 403, CodeForbidden)
	})
}

func TestProjectValidation(t *testing.T) {
	a := newTestAPI(t, &Options{AllowPrivate: true})
	p := a.createProject(a.key, `{"domain":"example.com"}`)
	long := strings.Repeat("x", MaxProjectNameBytes+1)
	many := `"k0"` + strings.Repeat(`,"k"`, MaxProjectKeywords)
	for _, tc := range []struct{ name, method, body, field string }{
		{"missing domain", "POST", `{"name":"x"}`, "domain"},
		{"domain with scheme", "POST", `{"domain":"https://example.org"}`, "domain"},
		{"domain with path", "POST", `{"domain":"example.org/shop"}`, "domain"},
		{"unknown field", "POST", `{"domain":"example.org","owner":"me"}`, "owner"},
		{"bad time zone", "POST", `{"domain":"example.org","timeZone":"Mars/Olympus"}`, "timeZone"},
		{"local time zone", "POST", `{"domain":"example.org","timeZone":"Local"}`, "timeZone"},
		{"long name", "POST", `{"domain":"example.org","name":"` + long + `"}`, "name"},
		{"control character in name", "POST", `{"domain":"example.org","name":"a\u0007b"}`, "name"},
		{"right-to-left override in name", "POST", `{"domain":"example.org","name":"a\u202eb"}`, "name"},
		{"unknown config field", "POST", `{"domain":"example.org","config":{"maxDepth":3}}`, "config.maxDepth"},
		{"bad extractor", "POST", `{"domain":"example.org","config":{"extract":[{"name":"x","type":"css","expr":"[["}]}}`, "config.extract[0].expr"},
		{"maxPages over the plan", "POST", `{"domain":"example.org","config":{"maxPages":100000}}`, "config.maxPages"},
		{"config not an object", "POST", `{"domain":"example.org","config":[1]}`, "config"},
		{"empty keyword", "POST", `{"domain":"example.org","keywords":["a",""]}`, "keywords[1]"},
		{"long keyword", "POST", `{"domain":"example.org","keywords":["` + strings.Repeat("k", 201) + `"]}`, "keywords[0]"},
		{"too many keywords", "POST", `{"domain":"example.org","keywords":[` + many + `]}`, "keywords"},
		// A keyword every scheduled rank check of the project would
		// refuse, as POST /v1/rankings/track does.
		{"NUL in keyword", "POST", `{"domain":"example.org","keywords":["oak","oak\u0000tables"]}`, "keywords[1]"},
		{"control character in keyword", "PATCH", `{"keywords":["oak\u0007tables"]}`, "keywords[0]"},
		{"redacted credential never stored", "POST", `{"domain":"example.org","config":{"headers":{"Authorization":"[redacted]"}}}`, "config.headers.Authorization"},
		{"empty name", "PATCH", `{"name":"  "}`, "name"},
		{"bad domain", "PATCH", `{"domain":"exa mple.com"}`, "domain"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := "/v1/projects"
			if tc.method == "PATCH" {
				path += "/" + p.ID
			}
			e := apiErr(t, a.call(tc.method, path, a.key, tc.body), 400, CodeInvalidRequest)
			if e.Field != tc.field {
				t.Errorf("field %q, want %q (%s)", e.Field, tc.field, e.Message)
			}
		})
	}
	for _, tc := range []struct{ name, query, field string }{
		{"zero", "limit=0", "limit"},
		{"too many", "limit=501", "limit"},
		{"not a number", "limit=ten", "limit"},
	} {
		t.Run("history "+tc.name, func(t *testing.T) {
			e := apiErr(t, a.call("GET", "/v1/projects/"+p.ID+"/analyses?"+tc.query, a.key, ""), 400, CodeInvalidRequest)
			if e.Field != tc.field {
				t.Errorf("field %q, want %q", e.Field, tc.field)
			}
		})
	}
}

func TestProjectCapAndDomain(t *testing.T) {
	a := newTestAPI(t, &Options{AllowPrivate: true})
	for i := range 3 { // the Free plan's cap
		a.createProject(a.key, fmt.Sprintf(`{"domain":"site%d.example.com"}`, i))
	}
	e := apiErr(t, a.call("POST", "/v1/projects", a.key, `{"domain":"site9.example.com"}`), 409, CodeConflict)
	if !strings.Contains(e.Message, "3 projects") {
		t.Errorf("cap message %q does not say how many", e.Message)
	}
	// Deleting one makes room; a domain is one project per account.
	resp := a.call("GET", "/v1/projects", a.key, "")
	var list ProjectList
	readJSON(t, resp, &list)
	wantStatus(t, a.call("DELETE", "/v1/projects/"+list.Projects[0].ID, a.key, ""), 204)
	if e := apiErr(t, a.call("POST", "/v1/projects", a.key, `{"domain":"SITE1.example.com"}`), 409, CodeConflict); e.Field != "domain" {
		t.Errorf("duplicate domain: field %q, want domain", e.Field)
	}
	a.createProject(a.key, `{"domain":"site9.example.com"}`)

	// Another account has its own cap and may use the same domain.
	_, bKey := a.account("b@example.com", store.Pro, auth.ScopeRead, auth.ScopeWrite)
	a.createProject(bKey, `{"domain":"site1.example.com"}`)
}

func TestProjectsOfAnotherAccount(t *testing.T) {
	a := newTestAPI(t, &Options{AllowPrivate: true})
	p := a.createProject(a.key, `{"domain":"example.com","keywords":["oak tables"]}`)
	_, bKey := a.account("b@example.com", store.Free, auth.ScopeRead, auth.ScopeWrite)
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/v1/projects/" + p.ID, ""},
		{"PATCH", "/v1/projects/" + p.ID, `{"name":"mine"}`},
		{"DELETE", "/v1/projects/" + p.ID, ""},
		{"GET", "/v1/projects/" + p.ID + "/analyses", ""},
		{"POST", "/v1/analyze/site", `{"projectId":"` + p.ID + `"}`},
		{"GET", "/v1/rankings?projectId=" + p.ID, ""},
	} {
		e := apiErr(t, a.call(c.method, c.path, bKey, c.body), 404, CodeNotFound)
		if c.method == "POST" && !strings.Contains(e.Message, "projectId") {
			t.Errorf("%s %s: message %q does not name projectId", c.method, c.path, e.Message)
		}
	}
	resp := a.call("GET", "/v1/projects", bKey, "")
	var list ProjectList
	readJSON(t, resp, &list)
	if len(list.Projects) != 0 {
		t.Errorf("B lists A's projects: %+v", list.Projects)
	}
	// The project is untouched.
	resp = a.call("GET", "/v1/projects/"+p.ID, a.key, "")
	var got Project
	readJSON(t, resp, &got)
	if got.Name != "example.com" {
		t.Errorf("B changed A's project: %+v", got)
	}
}

// credSite serves a small site and records the Authorization headers and
// cookies it was sent.
type credSite struct {
	mu      sync.Mutex
	auth    []string
	cookies []string
}

func (c *credSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/robots.txt" || r.URL.Path == "/sitemap.xml" {
		http.NotFound(w, r)
		return
	}
	c.mu.Lock()
	c.auth = append(c.auth, r.Header.Get("Authorization"))
	c.cookies = append(c.cookies, r.Header.Get("Cookie"))
	c.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, `<!doctype html><html lang=en><head><title>Page %s of the project site</title></head><body><h1>Page</h1><a href="/a">a</a> <a href="/b">b</a></body></html>`, r.URL.Path)
}

func TestProjectSiteAnalyses(t *testing.T) {
	cs := &credSite{}
	site := httptest.NewServer(cs)
	t.Cleanup(site.Close)
	host := hostOf(t, site.URL)
	a := newTestAPI(t, &Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Free: 10_000}})
	ctx := context.Background()

	const secret, cookie = "Bearer s3cret-t0ken-4f9a", "sess-8c1e7d"
	p := a.createProject(a.key, fmt.Sprintf(`{"domain":%q,"config":{"maxPages":10,"headers":{"Authorization":%q,"X-Team":"seo"},
		"cookies":{"sid":%q},"basicAuth":null}}`, host, secret, cookie))
	if p.Config.Headers["Authorization"] != seo.Redacted || p.Config.Headers["X-Team"] != "seo" || p.Config.Cookies["sid"] != seo.Redacted {
		t.Errorf("answer shows credentials: %+v", p.Config)
	}
	if d, ok := a.st.(storetest.Dumper); ok {
		dump, err := d.Dump(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(dump, []byte(p.ID)) || bytes.Contains(dump, []byte("s3cret-t0ken")) || bytes.Contains(dump, []byte(cookie)) {
			t.Errorf("the stored project holds a credential in the clear (or is missing)")
		}
	}
	// The answer sent back keeps the stored credentials.
	body, _ := json.Marshal(map[string]any{"config": p.Config})
	wantStatus(t, a.call("PATCH", "/v1/projects/"+p.ID, a.key, string(body)), 200)

	// A site analysis with only projectId crawls the project's domain
	// with its saved configuration.
	resp := a.call("POST", "/v1/analyze/site", a.key, `{"projectId":"`+p.ID+`"}`)
	wantStatus(t, resp, 202)
	var created Job
	readJSON(t, resp, &created)
	if created.ProjectID != p.ID || created.Domain != host || created.Options.MaxPages != 10 || created.Options.Headers["Authorization"] != seo.Redacted {
		t.Errorf("created %+v; want the project's domain and configuration, credentials redacted", created)
	}
	j := waitJob(t, a, a.key, created.ID, func(j Job) bool { return j.Status == "succeeded" || j.Status == "failed" })
	if j.Status != "succeeded" || j.ProjectID != p.ID {
		t.Fatalf("job %s %q (project %q)", j.Status, j.Error, j.ProjectID)
	}
	cs.mu.Lock()
	if len(cs.auth) == 0 || cs.auth[0] != secret || !strings.Contains(cs.cookies[0], "sid="+cookie) {
		t.Errorf("the site got Authorization %q and Cookie %q; want the project's", cs.auth, cs.cookies)
	}
	cs.mu.Unlock()

	// Domain and url must be the project's; options of its own replace
	// the saved configuration.
	if e := apiErr(t, a.call("POST", "/v1/analyze/site", a.key, `{"projectId":"`+p.ID+`","domain":"example.org"}`), 400, CodeInvalidRequest); e.Field != "domain" {
		t.Errorf("another domain: field %q, want domain", e.Field)
	}
	if e := apiErr(t, a.call("POST", "/v1/analyze/site", a.key, `{"projectId":"`+p.ID+`","url":"https://example.org/blog/"}`), 400, CodeInvalidRequest); e.Field != "url" {
		t.Errorf("another url: field %q, want url", e.Field)
	}
	apiErr(t, a.call("POST", "/v1/analyze/site", a.key, `{"projectId":"prj_missing"}`), 404, CodeNotFound)

	// History: newest first, summaries of succeeded analyses only.
	failed := &store.Job{AccountID: a.acct.ID, Kind: "site", ProjectID: p.ID, Request: []byte(`{"domain":"` + host + `"}`),
		Status: store.JobFailed, Error: "the site analysis failed", CreatedAt: time.Now().UTC().Add(time.Minute)}
	if err := a.st.CreateJob(ctx, failed); err != nil {
		t.Fatal(err)
	}
	resp = a.call("GET", "/v1/projects/"+p.ID+"/analyses", a.key, "")
	wantStatus(t, resp, 200)
	var raw map[string]any
	b, _ := io.ReadAll(resp.Body)
	json.Unmarshal(b, &raw)
	var h ProjectAnalyses
	json.Unmarshal(b, &h)
	if h.ProjectID != p.ID || len(h.Analyses) != 2 || h.HasMore || h.Analyses[0].ID != failed.ID || h.Analyses[1].ID != j.ID {
		t.Fatalf("history %s", b)
	}
	if first := raw["analyses"].([]any)[0].(map[string]any); first["summary"] != nil || first["status"] != "failed" || first["error"] == "" {
		t.Errorf("a failed analysis shows %v; want its status, error and a null summary", first)
	}
	sum := h.Analyses[1].Summary
	if sum == nil || sum.Pages != 3 || sum.Indexable == nil || *sum.Indexable != 3 || sum.StopReason != "done" || sum.FinishedAt.IsZero() {
		t.Errorf("summary %+v; want 3 pages, all indexable", sum)
	}
	var rep crawler.SiteReport
	if err := json.Unmarshal(j.Result, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Score == nil {
		t.Fatalf("report has no score (%s)", rep.ScoreReason)
	}
	if sum != nil && (sum.Score == nil || *sum.Score != rep.Score.Value || sum.Errors != rep.FindingCounts.Checks.Errors ||
		sum.Warnings != rep.FindingCounts.Checks.Warnings || sum.Notices != rep.FindingCounts.Checks.Notices ||
		sum.Findings != rep.FindingCounts.Findings) {
		t.Errorf("summary %+v does not repeat the report's score %d and counts %+v", sum, rep.Score.Value, rep.FindingCounts)
	}
	resp = a.call("GET", "/v1/projects/"+p.ID+"/analyses?limit=1", a.key, "")
	readJSON(t, resp, &h)
	if len(h.Analyses) != 1 || !h.HasMore {
		t.Errorf("limit 1: %d analyses, hasMore %v; want 1, true", len(h.Analyses), h.HasMore)
	}

	// Deleting the project keeps its analyses, without the project.
	wantStatus(t, a.call("DELETE", "/v1/projects/"+p.ID, a.key, ""), 204)
	kept := waitJob(t, a, a.key, j.ID, func(Job) bool { return true })
	if kept.ProjectID != "" || kept.Status != "succeeded" {
		t.Errorf("analysis after its project was deleted: %s, project %q; want kept without a project", kept.Status, kept.ProjectID)
	}
	apiErr(t, a.call("GET", "/v1/projects/"+p.ID+"/analyses", a.key, ""), 404, CodeNotFound)
}

func TestProjectDiffDefault(t *testing.T) {
	a := newTestAPI(t, &Options{AllowPrivate: true})
	ctx := context.Background()
	p := a.createProject(a.key, `{"domain":"example.com"}`)
	t0 := time.Now().UTC().Add(-time.Hour)
	// store is storeSiteJob with a project.
	stored := func(project, title string, at time.Time) string {
		req, _ := json.Marshal(SiteRequest{Domain: "example.com", ProjectID: project})
		rep, _ := json.Marshal(&crawler.SiteReport{Domain: "example.com",
			Pages: []crawler.PageSummary{{URL: "https://example.com/", Status: 200, Indexable: true, Title: title}}})
		j := &store.Job{AccountID: a.acct.ID, Kind: "site", ProjectID: project, Request: req, CreatedAt: at}
		if err := a.st.CreateJob(ctx, j); err != nil {
			t.Fatal(err)
		}
		j.Status, j.FinishedAt, j.Result = store.JobSucceeded, at, rep
		if err := a.st.UpdateJob(ctx, j); err != nil {
			t.Fatal(err)
		}
		return j.ID
	}
	first := stored(p.ID, "One", t0)
	outside := stored("", "Outside", t0.Add(time.Minute)) // same domain, no project
	second := stored(p.ID, "Two", t0.Add(2*time.Minute))

	diffOf := func(id string) (old string) {
		t.Helper()
		resp := a.call("GET", "/v1/analyze/site/"+id+"/diff", a.key, "")
		wantStatus(t, resp, 200)
		var got struct{ Old, New string }
		readJSON(t, resp, &got)
		return got.Old
	}
	if old := diffOf(second); old != first {
		t.Errorf("diff of the project's analysis compares with %s, want the project's previous %s (not %s)", old, first, outside)
	}
	if old := diffOf(outside); old != first {
		t.Errorf("diff of an analysis without a project compares with %s, want the account's previous %s", old, first)
	}
	apiErr(t, a.call("GET", "/v1/analyze/site/"+first+"/diff", a.key, ""), 404, CodeNotFound)

	// A comparison costs one unit wherever it is asked for: the API
	// request's own, and one of the service called without a request
	// that paid (the dashboard's comparison pages computed it for free).
	used := func() int {
		t.Helper()
		today := time.Now().UTC().Truncate(24 * time.Hour)
		u, err := a.st.Usage(ctx, a.acct.ID, today, today)
		if err != nil || len(u) != 1 {
			t.Fatalf("usage %v, %v", u, err)
		}
		return u[0].Count
	}
	before := used()
	diffOf(second)
	if n := used() - before; n != 1 {
		t.Errorf("GET .../diff counted %d units, want 1 (the request)", n)
	}
	before = used()
	if _, err := a.srv.Analyses().Diff(ctx, a.acct.ID, second, ""); err != nil {
		t.Fatal(err)
	}
	if n := used() - before; n != 1 {
		t.Errorf("a comparison without a paid request (the dashboard's) counted %d units, want 1", n)
	}
}

func TestRankingsOfProject(t *testing.T) {
	opts := dataOptions(t)
	opts.AllowPrivate = true
	a := newTestAPI(t, opts)
	p := a.createProject(a.key, `{"domain":"example.com","keywords":["oak tables","oak chairs"]}`)
	resp := a.call("GET", "/v1/rankings?projectId="+p.ID, a.key, "")
	wantStatus(t, resp, 200)
	var res RankingsResponse
	readJSON(t, resp, &res)
	if res.Domain != "example.com" || len(res.Rankings) != 2 {
		t.Errorf("rankings of the project: %s, %d keywords; want example.com and its 2", res.Domain, len(res.Rankings))
	}
	// Keywords given replace the tracked ones; the domain must match.
	resp = a.call("GET", "/v1/rankings?projectId="+p.ID+"&domain=example.com&keywords[]=oak+tables", a.key, "")
	wantStatus(t, resp, 200)
	readJSON(t, resp, &res)
	if len(res.Rankings) != 1 {
		t.Errorf("rankings with keywords[] = %d, want 1", len(res.Rankings))
	}
	if e := apiErr(t, a.call("GET", "/v1/rankings?projectId="+p.ID+"&domain=example.org", a.key, ""), 400, CodeInvalidRequest); e.Field != "domain" {
		t.Errorf("field %q, want domain", e.Field)
	}
	empty := a.createProject(a.key, `{"domain":"example.net"}`)
	if e := apiErr(t, a.call("GET", "/v1/rankings?projectId="+empty.ID, a.key, ""), 400, CodeInvalidRequest); e.Field != "keywords[]" {
		t.Errorf("project without keywords: field %q, want keywords[]", e.Field)
	}
	apiErr(t, a.call("GET", "/v1/rankings?projectId=prj_missing", a.key, ""), 404, CodeNotFound)
}

// TestProjectCredentialsUnderAnotherSecret: credentials sealed under one
// CallbackSecret cannot be used under another; the answer says to send
// them again, and a new configuration replaces them.
func TestProjectCredentialsUnderAnotherSecret(t *testing.T) {
	a := newTestAPI(t, &Options{AllowPrivate: true, CallbackSecret: []byte("first secret")})
	p := a.createProject(a.key, `{"domain":"example.com","config":{"basicAuth":{"username":"u","password":"pw-1"}}}`)
	b := newTestAPI(t, &Options{AllowPrivate: true, Store: a.st, CallbackSecret: []byte("second secret")}, apiConfig{noAccount: true})
	e := apiErr(t, b.call("POST", "/v1/analyze/site", a.key, `{"projectId":"`+p.ID+`"}`), 409, CodeConflict)
	if !strings.Contains(e.Message, "PATCH /v1/projects/"+p.ID) {
		t.Errorf("message %q does not say how to fix it", e.Message)
	}
	apiErr(t, b.call("PATCH", "/v1/projects/"+p.ID, a.key, `{"config":{"basicAuth":{"username":"u","password":"[redacted]"}}}`), 409, CodeConflict)
	wantStatus(t, b.call("PATCH", "/v1/projects/"+p.ID, a.key, `{"config":{"basicAuth":{"username":"u","password":"pw-2"}}}`), 200)
	wantStatus(t, b.call("PATCH", "/v1/projects/"+p.ID, a.key, `{"name":"renamed"}`), 200)
}

// TestProjectCredentialsStayWithDomain: stored credentials never follow a
// project to another domain, where a crawl would send them: changing the
// domain without sending config again is refused, and "[redacted]" cannot
// carry them over.
func TestProjectCredentialsStayWithDomain(t *testing.T) {
	a := newTestAPI(t, &Options{AllowPrivate: true})
	p := a.createProject(a.key, `{"domain":"example.com","config":{"basicAuth":{"username":"u","password":"hunter2"}}}`)
	for _, tt := range []struct{ body, field string }{
		{`{"domain":"example.org"}`, "config"},
		{`{"domain":"example.org","config":{"basicAuth":{"username":"u","password":"[redacted]"}}}`, "config.basicAuth.password"},
	} {
		if e := apiErr(t, a.call("PATCH", "/v1/projects/"+p.ID, a.key, tt.body), 400, CodeInvalidRequest); e.Field != tt.field {
			t.Errorf("%s: field %q, want %q (%s)", tt.body, e.Field, tt.field, e.Message)
		}
	}
	wantStatus(t, a.call("PATCH", "/v1/projects/"+p.ID, a.key, `{"domain":"example.org","config":{}}`), 200)
	wantStatus(t, a.call("PATCH", "/v1/projects/"+p.ID, a.key, `{"domain":"example.net"}`), 200)
}
