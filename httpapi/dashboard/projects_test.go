package dashboard_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/dashboard"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

// lateProjectsAPI is lateAPI for the project pages' tests.
type lateProjectsAPI struct{ lateAPI }

// lateProjects hands the dashboard's Projects to the late API server.
type lateProjects struct{ *lateAPI }

var _ service.Projects = lateProjects{}

func (l lateProjects) Create(ctx context.Context, accountID string, req service.ProjectRequest) (*service.Project, error) {
	return l.s.Projects().Create(ctx, accountID, req)
}
func (l lateProjects) Get(ctx context.Context, accountID, id string) (*service.Project, error) {
	return l.s.Projects().Get(ctx, accountID, id)
}
func (l lateProjects) List(ctx context.Context, accountID string) ([]service.Project, error) {
	return l.s.Projects().List(ctx, accountID)
}
func (l lateProjects) Update(ctx context.Context, accountID, id string, req service.ProjectRequest) (*service.Project, error) {
	return l.s.Projects().Update(ctx, accountID, id, req)
}
func (l lateProjects) Delete(ctx context.Context, accountID, id string) error {
	return l.s.Projects().Delete(ctx, accountID, id)
}
func (l lateProjects) Analyses(ctx context.Context, accountID, id string, limit int) (*service.ProjectAnalyses, error) {
	return l.s.Projects().Analyses(ctx, accountID, id, limit)
}

// lateSchedules and lateAlerts hand the dashboard's Schedules and Alerts
// to the late API server.
type (
	lateSchedules struct{ *lateAPI }
	lateAlerts    struct{ *lateAPI }
)

var (
	_ service.Schedules = lateSchedules{}
	_ service.Alerts    = lateAlerts{}
)

func (l lateSchedules) Create(ctx context.Context, accountID, projectID string, req service.ScheduleRequest) (*service.Schedule, error) {
	return l.s.Schedules().Create(ctx, accountID, projectID, req)
}
func (l lateSchedules) List(ctx context.Context, accountID, projectID string) ([]service.Schedule, error) {
	return l.s.Schedules().List(ctx, accountID, projectID)
}
func (l lateSchedules) Update(ctx context.Context, accountID, projectID, id string, req service.ScheduleRequest) (*service.Schedule, error) {
	return l.s.Schedules().Update(ctx, accountID, projectID, id, req)
}
func (l lateSchedules) Delete(ctx context.Context, accountID, projectID, id string) error {
	return l.s.Schedules().Delete(ctx, accountID, projectID, id)
}
func (l lateAlerts) CreateRule(ctx context.Context, accountID, projectID string, req service.AlertRuleRequest) (*service.AlertRule, error) {
	return l.s.Alerts().CreateRule(ctx, accountID, projectID, req)
}
func (l lateAlerts) Rules(ctx context.Context, accountID, projectID string) ([]service.AlertRule, error) {
	return l.s.Alerts().Rules(ctx, accountID, projectID)
}
func (l lateAlerts) UpdateRule(ctx context.Context, accountID, projectID, id string, req service.AlertRuleRequest) (*service.AlertRule, error) {
	return l.s.Alerts().UpdateRule(ctx, accountID, projectID, id, req)
}
func (l lateAlerts) DeleteRule(ctx context.Context, accountID, projectID, id string) error {
	return l.s.Alerts().DeleteRule(ctx, accountID, projectID, id)
}
func (l lateAlerts) Deliveries(ctx context.Context, accountID, projectID string, limit int) ([]service.AlertDelivery, error) {
	return l.s.Alerts().Deliveries(ctx, accountID, projectID, limit)
}
func (l lateAlerts) Test(ctx context.Context, accountID, projectID, id string) (*service.AlertTestResult, error) {
	return l.s.Alerts().Test(ctx, accountID, projectID, id)
}

// newProjectsEnv is a dashboard over the real API server, whose queue
// keeps site analyses queued (q nil) or runs them.
func newProjectsEnv(t *testing.T, q httpapi.Queue) *env {
	t.Helper()
	late := &lateProjectsAPI{}
	return newEnv(t, &envOptions{realClock: true, opts: dashboard.Options{Analyses: late, Quota: late, Projects: lateProjects{&late.lateAPI},
		Schedules: lateSchedules{&late.lateAPI}, Alerts: lateAlerts{&late.lateAPI}},
		api: func(e *env) http.Handler {
			if q == nil {
				q = idleQueue{}
			}
			s, err := httpapi.New(context.Background(), &httpapi.Options{Store: e.st, Auth: e.au, AllowPrivate: true, Queue: q,
				Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatalf("httpapi.New: %v", err)
			}
			if err := s.Start(context.Background()); err != nil {
				t.Fatalf("Start: %v", err)
			}
			t.Cleanup(func() { s.Close() })
			late.s = s
			return s
		}})
}

var projectLinkRE = regexp.MustCompile(`^/dashboard/projects/(prj_[A-Za-z0-9]+)\?done=created$`)

// createProject creates a project through the dashboard's form and
// returns its ID.
func createProject(t *testing.T, e *env, c *http.Client, token string, form url.Values) string {
	t.Helper()
	form.Set("csrf_token", token)
	resp, body := post(t, c, e.srv.URL+"/dashboard/projects", form)
	m := projectLinkRE.FindStringSubmatch(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusSeeOther || m == nil {
		t.Fatalf("create project: %d %q\n%s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	return m[1]
}

// storeProjectJob stores a finished site analysis of the project with
// rep as its report and the summary the API writes.
func storeProjectJob(t *testing.T, st store.Store, accountID, projectID, domain string, status store.JobStatus, rep *crawler.SiteReport, at time.Time) string {
	t.Helper()
	ctx := context.Background()
	req, _ := json.Marshal(httpapi.SiteRequest{Domain: domain})
	j := &store.Job{AccountID: accountID, Kind: "site", Status: store.JobQueued, Request: req, CreatedAt: at, ProjectID: projectID}
	if err := st.CreateJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	j.Status, j.FinishedAt = status, at
	if status == store.JobFailed {
		j.Error = "the site did not answer"
	}
	if rep != nil {
		j.Result, _ = json.Marshal(rep)
		var score *int
		if rep.Score != nil {
			score = &rep.Score.Value
		}
		j.Summary, _ = json.Marshal(httpapi.JobSummary{Score: score, Pages: rep.Crawl.Fetched,
			Errors: rep.FindingCounts.Checks.Errors, Warnings: rep.FindingCounts.Checks.Warnings, Findings: rep.FindingCounts.Findings})
	}
	if err := st.UpdateJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	return j.ID
}

func siteReport(domain string, score int, pages map[string]string) *crawler.SiteReport {
	rep := &crawler.SiteReport{Domain: domain, StartURL: "http://" + domain + "/"}
	rep.Score = &seo.Score{Value: score}
	for u, title := range pages {
		rep.Pages = append(rep.Pages, crawler.PageSummary{URL: "http://" + domain + u, Status: 200, Title: title, Indexable: true})
	}
	rep.Crawl.Fetched = len(pages)
	rep.FindingCounts.Checks.Errors = 1
	return rep
}

// TestProjectPages creates, lists, shows, changes and deletes a project
// through the forms; the API's validation messages name the field; a
// form without the CSRF token and another account's project are refused;
// no page answers 500.
func TestProjectPages(t *testing.T) {
	e := newProjectsEnv(t, nil)
	c := e.client(t)
	token := e.login(t, c)
	base := e.srv.URL + "/dashboard"

	resp, body := get(t, c, base+"/projects")
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "No projects yet") || !strings.Contains(body, `href="/dashboard/projects" aria-current="page"`) {
		t.Fatalf("empty projects page: %d\n%s", resp.StatusCode, body)
	}
	for _, tc := range []struct {
		name   string
		form   url.Values
		status int
		input  string // the input marked invalid
		msg    string
	}{
		{"bad zone", url.Values{"domain": {"example.com"}, "time_zone": {"Mars/Olympus"}}, 400, "pj-tz", "IANA time zone"},
		{"bad domain", url.Values{"domain": {"not a domain"}}, 400, "pj-domain", "domain"},
		{"no domain", url.Values{"name": {"x"}}, 400, "pj-domain", "domain"},
		{"config not JSON", url.Values{"domain": {"example.com"}, "config": {"{maxPages"}}, 400, "pj-config", "not valid JSON"},
		{"bad config", url.Values{"domain": {"example.com"}, "config": {`{"maxPages": -3}`}}, 400, "pj-config", "config.maxPages"},
		{"unknown config field", url.Values{"domain": {"example.com"}, "config": {`{"maxPagez": 3}`}}, 400, "pj-config", "maxPagez"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.form.Set("csrf_token", token)
			resp, body := post(t, c, base+"/projects", tc.form)
			if resp.StatusCode != tc.status || !strings.Contains(body, tc.msg) {
				t.Fatalf("status %d, want %d with %q\n%s", resp.StatusCode, tc.status, tc.msg, body)
			}
			if !regexp.MustCompile(`id="` + tc.input + `"[^>]*aria-invalid="true"`).MatchString(body) {
				t.Errorf("input %s is not marked invalid", tc.input)
			}
		})
	}
	if resp, _ := post(t, c, base+"/projects", url.Values{"domain": {"example.com"}}); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("create without CSRF token: %d, want 403", resp.StatusCode)
	}
	if ps, _ := e.st.Projects(context.Background(), e.acct.ID); len(ps) != 0 {
		t.Fatalf("%d projects after refused forms", len(ps))
	}

	id := createProject(t, e, c, token, url.Values{"name": {"Oak shop"}, "domain": {"Oak-Shop.example"}, "time_zone": {"Europe/Berlin"},
		"keywords": {"oak tables\n\nwalnut desks\n"}, "config": {`{"exclude": ["/cart"], "headers": {"Authorization": "Bearer s3cret"}}`}})
	p, err := e.st.Project(context.Background(), e.acct.ID, id)
	if err != nil || p.Domain != "oak-shop.example" || p.TimeZone != "Europe/Berlin" || len(p.Keywords) != 2 {
		t.Fatalf("stored project %+v (%v)", p, err)
	}
	// The same domain again is a conflict naming the domain.
	resp, body = post(t, c, base+"/projects", url.Values{"csrf_token": {token}, "domain": {"oak-shop.example"}})
	if resp.StatusCode != http.StatusConflict || !strings.Contains(body, "already has a project") {
		t.Fatalf("duplicate domain: %d\n%s", resp.StatusCode, body)
	}
	resp, body = get(t, c, base+"/projects/"+id+"?done=created")
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "The project was created.") || !strings.Contains(body, "oak tables") ||
		!strings.Contains(body, "No analyses yet") {
		t.Fatalf("project page: %d\n%s", resp.StatusCode, body)
	}
	if strings.Contains(body, "s3cret") || !strings.Contains(body, "[redacted]") {
		t.Fatal("the settings form shows the stored credential or no redacted value")
	}
	// Saving the form as shown keeps the credential.
	form := url.Values{"csrf_token": {token}, "name": {"Oak shop (EU)"}, "domain": {"oak-shop.example"}, "time_zone": {"UTC"},
		"keywords": {"oak tables"}, "config": {`{"exclude": ["/cart"], "headers": {"Authorization": "[redacted]"}}`}}
	if resp, body := post(t, c, base+"/projects/"+id, form); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("save settings: %d\n%s", resp.StatusCode, body)
	}
	if p, _ = e.st.Project(context.Background(), e.acct.ID, id); p.Name != "Oak shop (EU)" || len(p.Keywords) != 1 || len(p.Config) == 0 {
		t.Fatalf("project after save: %+v", p)
	}
	form.Set("time_zone", "Nowhere/Else")
	if resp, body := post(t, c, base+"/projects/"+id, form); resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "IANA time zone") ||
		!strings.Contains(body, `value="Nowhere/Else"`) {
		t.Fatalf("bad zone in settings: %d\n%s", resp.StatusCode, body)
	}
	_, body = get(t, c, base+"/projects")
	if !strings.Contains(body, "Oak shop (EU)") || !strings.Contains(body, "none yet") || !strings.Contains(body, "1 project.") {
		t.Fatalf("projects list:\n%s", body)
	}

	// Another account sees none of it: 404 for every page and action.
	other, err := e.au.CreateAccount(context.Background(), "bob@example.com", "Bob", testPassword, store.Free)
	if err != nil {
		t.Fatal(err)
	}
	jobID := storeProjectJob(t, e.st, e.acct.ID, id, "oak-shop.example", store.JobSucceeded, siteReport("oak-shop.example", 80, map[string]string{"/": "Home"}), time.Now().Add(-time.Hour))
	c2 := e.client(t)
	token2 := loginAs(t, e, c2, "bob@example.com")
	for _, path := range []string{"/projects/" + id, "/analyses/" + jobID + "/diff", "/analyses/" + jobID + "/diff.html", "/projects/prj_missing"} {
		if resp, body := get(t, c2, base+path); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s as another account: %d\n%s", path, resp.StatusCode, body)
		}
	}
	for _, path := range []string{"/projects/" + id, "/projects/" + id + "/delete", "/projects/" + id + "/run"} {
		resp, _ := post(t, c2, base+path, url.Values{"csrf_token": {token2}, "confirm": {"yes"}, "domain": {"oak-shop.example"}})
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("POST %s as another account: %d", path, resp.StatusCode)
		}
	}
	if _, body := get(t, c2, base+"/projects"); strings.Contains(body, "Oak shop") {
		t.Error("another account's project is listed")
	}
	if js, _ := e.st.Jobs(context.Background(), other.ID, 10); len(js) != 0 {
		t.Errorf("another account's run started %d jobs", len(js))
	}

	// Run now queues an analysis attached to the project.
	resp, body = post(t, c, base+"/projects/"+id+"/run", url.Values{"csrf_token": {token}})
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/dashboard/analyses/job_") {
		t.Fatalf("run now: %d %q\n%s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	js, _ := e.st.ProjectJobs(context.Background(), e.acct.ID, id, 10)
	if len(js) != 2 || js[0].Status != store.JobQueued {
		t.Fatalf("project jobs after run now: %d", len(js))
	}

	// Deleting needs the box ticked.
	if resp, body := post(t, c, base+"/projects/"+id+"/delete", url.Values{"csrf_token": {token}}); resp.StatusCode != http.StatusBadRequest ||
		!strings.Contains(body, "Tick the box") {
		t.Fatalf("delete without confirmation: %d\n%s", resp.StatusCode, body)
	}
	resp, _ = post(t, c, base+"/projects/"+id+"/delete", url.Values{"csrf_token": {token}, "confirm": {"yes"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/dashboard/projects?done=deleted" {
		t.Fatalf("delete: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, _ := get(t, c, base+"/projects/"+id); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("deleted project: %d, want 404", resp.StatusCode)
	}
}

// loginAs signs c in as another account (password testPassword).
func loginAs(t *testing.T, e *env, c *http.Client, email string) string {
	t.Helper()
	_, body := get(t, c, e.srv.URL+"/dashboard/login")
	resp, body := post(t, c, e.srv.URL+"/dashboard/login", url.Values{
		"csrf_token": {csrfOf(t, body)}, "email": {email}, "password": {testPassword}, "next": {"/dashboard/"},
	})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("login as %s: %d\n%s", email, resp.StatusCode, body)
	}
	_, body = get(t, c, e.srv.URL+"/dashboard/")
	return csrfOf(t, body)
}

// TestProjectHistory shows a history of 60 analyses (some failed) as
// charts and a paged table: failed analyses are marks on the axis and
// "failed" in the table, never zeros; each successful analysis links the
// diff with the previous successful one, and the diff page shows it.
func TestProjectHistory(t *testing.T) {
	e := newProjectsEnv(t, nil)
	c := e.client(t)
	token := e.login(t, c)
	base := e.srv.URL + "/dashboard"
	id := createProject(t, e, c, token, url.Values{"domain": {"oak-shop.example"}})
	start := time.Now().Add(-60 * time.Hour).UTC()
	var ids []string
	for i := range 60 {
		status, rep := store.JobSucceeded, siteReport("oak-shop.example", 50+i%40, map[string]string{"/": "Home", "/a": "A"})
		if i%10 == 3 {
			status, rep = store.JobFailed, nil
		}
		if i == 59 {
			rep = siteReport("oak-shop.example", 70, map[string]string{"/": "Home, new title", "/b": "B"})
		}
		ids = append(ids, storeProjectJob(t, e.st, e.acct.ID, id, "oak-shop.example", status, rep, start.Add(time.Duration(i)*time.Hour)))
	}
	resp, body := get(t, c, base+"/projects/"+id)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("project page: %d\n%s", resp.StatusCode, body)
	}
	if n := strings.Count(body, `<figure class="chart trend">`); n != 4 {
		t.Errorf("%d trend charts, want 4", n)
	}
	// 6 failed analyses, marked on each of the 4 charts.
	if n := strings.Count(body, `class="missing failed"`); n != 24 {
		t.Errorf("%d failed marks, want 24", n)
	}
	if !strings.Contains(body, "6 without a result") {
		t.Error("the page does not say how many analyses have no result")
	}
	if n := strings.Count(body, "<tr><td><a href=\"/dashboard/analyses/job_"); n != 25 {
		t.Errorf("history table shows %d rows, want 25 (one page)", n)
	}
	if !strings.Contains(body, "Page 1 of 3") || !strings.Contains(body, "60 analyses") {
		t.Error("the history is not paged or not counted")
	}
	diff := "/dashboard/analyses/" + ids[59] + "/diff?against=" + ids[58]
	if !strings.Contains(body, `href="`+strings.ReplaceAll(diff, "&", "&amp;")+`"`) && !strings.Contains(body, `href="`+diff+`"`) {
		t.Fatalf("no link to the diff with the previous analysis %s", diff)
	}
	// An analysis after a failed one is compared with the last success.
	if d := "/dashboard/analyses/" + ids[54] + "/diff?against=" + ids[52]; !strings.Contains(body, d) {
		t.Errorf("no diff link skipping the failed analysis: %s", d)
	}
	if !strings.Contains(body, "the site did not answer") {
		t.Error("a failed analysis does not show its error")
	}
	resp, body = get(t, c, base+"/projects/"+id+"?page=3")
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "Page 3 of 3") {
		t.Fatalf("history page 3: %d", resp.StatusCode)
	}
	if resp, _ := get(t, c, base+"/projects/"+id+"?page=-4"); resp.StatusCode != http.StatusOK {
		t.Fatalf("history page -4: %d", resp.StatusCode)
	}

	resp, body = get(t, c, e.srv.URL+diff)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("diff page: %d\n%s", resp.StatusCode, body)
	}
	for _, want := range []string{"Home, new title", "http://oak-shop.example/b", "http://oak-shop.example/a", "Pages added", `<span class="field">title</span>`} {
		if !strings.Contains(body, want) {
			t.Errorf("diff page lacks %q", want)
		}
	}
	// Without against, the previous successful analysis of the project.
	if resp, body := get(t, c, base+"/analyses/"+ids[59]+"/diff"); resp.StatusCode != http.StatusOK || !strings.Contains(body, ids[58]) {
		t.Errorf("default diff: %d", resp.StatusCode)
	}
	resp, body = get(t, c, base+"/analyses/"+ids[59]+"/diff.html?against="+ids[58])
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Security-Policy"), "sandbox") || !strings.Contains(body, "Home, new title") {
		t.Fatalf("diff.html: %d %q", resp.StatusCode, resp.Header.Get("Content-Security-Policy"))
	}
	// A failed analysis has nothing to compare: 409 with the reason.
	if resp, body := get(t, c, base+"/analyses/"+ids[3]+"/diff"); resp.StatusCode != http.StatusConflict || !strings.Contains(body, "no report") {
		t.Errorf("diff of a failed analysis: %d\n%s", resp.StatusCode, body)
	}
	if resp, _ := get(t, c, base+"/analyses/"+ids[59]+"/diff?against=job_nope"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("diff against a missing analysis: %d", resp.StatusCode)
	}
	_, body = get(t, c, base+"/projects")
	if !strings.Contains(body, ">70<") {
		t.Error("the projects list does not show the last score")
	}
}

// TestProjectSchedulesAndAlerts adds, pauses, resumes and deletes a
// schedule and adds, mutes, unmutes and deletes an alert rule through the
// project page; the API's messages name what is wrong; another account
// gets 404 and a form without the CSRF token 403.
func TestProjectSchedulesAndAlerts(t *testing.T) {
	e := newProjectsEnv(t, nil)
	c := e.client(t)
	token := e.login(t, c)
	base := e.srv.URL + "/dashboard/projects/"
	id := createProject(t, e, c, token, url.Values{"domain": {"oak-shop.example"}, "time_zone": {"Europe/Berlin"}})
	ctx := context.Background()
	form := func(kv ...string) url.Values {
		v := url.Values{"csrf_token": {token}}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v
	}

	resp, body := post(t, c, base+id+"/schedules", form("kind", "site", "spec", "every full moon"))
	if resp.StatusCode != http.StatusBadRequest || !regexp.MustCompile(`id="sc-spec"[^>]*aria-invalid="true"`).MatchString(body) || !strings.Contains(body, "spec") {
		t.Fatalf("bad spec: %d\n%s", resp.StatusCode, body)
	}
	if resp, _ := post(t, c, base+id+"/schedules", url.Values{"kind": {"site"}, "spec": {"daily"}}); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("schedule without CSRF token: %d", resp.StatusCode)
	}
	resp, body = post(t, c, base+id+"/schedules", form("kind", "site", "spec", "daily@06:00"))
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("add schedule: %d\n%s", resp.StatusCode, body)
	}
	scs, err := e.st.Schedules(ctx, e.acct.ID, id)
	if err != nil || len(scs) != 1 {
		t.Fatalf("schedules %v (%v)", scs, err)
	}
	sid := scs[0].ID
	_, body = get(t, c, base+id+"?done=schedule")
	// 06:00 in Berlin, in the project's zone.
	if !strings.Contains(body, "06:00 Europe/Berlin") || !strings.Contains(body, "The schedule was saved.") {
		t.Errorf("schedule row does not show the next run in the project's zone:\n%s", body)
	}
	if resp, _ := post(t, c, base+id+"/schedules/"+sid, form("paused", "true")); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("pause: %d", resp.StatusCode)
	}
	if sc, _ := e.st.Schedule(ctx, e.acct.ID, sid); !sc.Paused {
		t.Fatal("the schedule is not paused")
	}
	if _, body := get(t, c, e.srv.URL+"/dashboard/projects"); !strings.Contains(body, "not scheduled") {
		t.Error("a paused schedule shows a next run on the projects list")
	}
	post(t, c, base+id+"/schedules/"+sid, form("paused", "false"))
	if sc, _ := e.st.Schedule(ctx, e.acct.ID, sid); sc.Paused {
		t.Fatal("the schedule is not resumed")
	}
	if _, body := get(t, c, e.srv.URL+"/dashboard/projects"); !strings.Contains(body, "Europe/Berlin") {
		t.Error("the projects list does not show the next run")
	}

	resp, body = post(t, c, base+id+"/alerts", form("kind", "new_findings", "channel", "webhook", "target", "not a url"))
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "target") {
		t.Fatalf("bad target: %d\n%s", resp.StatusCode, body)
	}
	resp, body = post(t, c, base+id+"/alerts", form("kind", "new_findings", "channel", "webhook", "target", "https://hooks.example/x", "params", "{severity"))
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "not valid JSON") {
		t.Fatalf("bad params: %d\n%s", resp.StatusCode, body)
	}
	resp, body = post(t, c, base+id+"/alerts", form("kind", "score_drop", "channel", "slack", "target", "https://hooks.example/x", "params", `{"points": 5}`))
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("add alert rule: %d\n%s", resp.StatusCode, body)
	}
	rules, err := e.st.AlertRules(ctx, e.acct.ID, id)
	if err != nil || len(rules) != 1 {
		t.Fatalf("rules %v (%v)", rules, err)
	}
	aid := rules[0].ID
	post(t, c, base+id+"/alerts/"+aid, form("muted", "true"))
	if r, _ := e.st.AlertRule(ctx, e.acct.ID, aid); !r.Muted {
		t.Fatal("the rule is not muted")
	}
	if _, body := get(t, c, base+id); !strings.Contains(body, ">Unmute</button>") {
		t.Error("a muted rule offers no Unmute")
	}
	post(t, c, base+id+"/alerts/"+aid, form("muted", "false"))
	if r, _ := e.st.AlertRule(ctx, e.acct.ID, aid); r.Muted {
		t.Fatal("the rule is not unmuted")
	}

	// Another account: 404 for every action, nothing changes.
	if _, err := e.au.CreateAccount(ctx, "bob@example.com", "Bob", testPassword, store.Free); err != nil {
		t.Fatal(err)
	}
	c2 := e.client(t)
	token2 := loginAs(t, e, c2, "bob@example.com")
	for _, path := range []string{id + "/schedules", id + "/schedules/" + sid, id + "/schedules/" + sid + "/delete",
		id + "/alerts", id + "/alerts/" + aid, id + "/alerts/" + aid + "/delete", id + "/alerts/" + aid + "/test"} {
		resp, body := post(t, c2, base+path, url.Values{"csrf_token": {token2}, "paused": {"true"}, "muted": {"true"},
			"kind": {"site"}, "spec": {"daily"}, "channel": {"webhook"}, "target": {"https://hooks.example/x"}})
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("POST %s as another account: %d\n%s", path, resp.StatusCode, body)
		}
	}
	if sc, _ := e.st.Schedule(ctx, e.acct.ID, sid); sc.Paused {
		t.Error("another account paused the schedule")
	}

	for _, path := range []string{id + "/schedules/" + sid + "/delete", id + "/alerts/" + aid + "/delete"} {
		if resp, _ := post(t, c, base+path, form()); resp.StatusCode != http.StatusSeeOther {
			t.Errorf("POST %s: %d", path, resp.StatusCode)
		}
	}
	if scs, _ := e.st.Schedules(ctx, e.acct.ID, id); len(scs) != 0 {
		t.Error("the schedule is not deleted")
	}
	if rules, _ := e.st.AlertRules(ctx, e.acct.ID, id); len(rules) != 0 {
		t.Error("the rule is not deleted")
	}
}
