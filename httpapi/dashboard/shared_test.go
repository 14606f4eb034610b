package dashboard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/dashboard"
	"github.com/seokit/seokit/httpapi/plans"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/rankings/memstore"
)

// newServiceEnv is a dashboard over the real API server's analyses
// service, with the API served beside it; jobs stay queued. quota is the
// dashboard's Quota option (nil: none).
func newServiceEnv(t *testing.T, daily int, quota func(*lateAPI) dashboard.Quota) (*env, *lateAPI) {
	t.Helper()
	late := &lateAPI{}
	o := dashboard.Options{Analyses: late}
	if quota != nil {
		o.Quota = quota(late)
	}
	e := newEnv(t, &envOptions{realClock: true, opts: o, api: func(e *env) http.Handler {
		s, err := httpapi.New(context.Background(), &httpapi.Options{Store: e.st, Auth: e.au, AllowPrivate: true, Queue: idleQueue{},
			Plans:  map[store.Plan]plans.Limits{store.Free: {DailyRequests: daily, ConcurrentSiteJobs: 5, MaxSitePages: 500}},
			Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatalf("httpapi.New: %v", err)
		}
		t.Cleanup(func() { s.Close() })
		late.s = s
		return s
	}})
	return e, late
}

// TestAnalysisPageRendersTheAPIValue: an analysis started on the dashboard
// is read three ways: GET /v1/analyze/site/{id}, the service's Get, and
// the dashboard's analysis page. The API's answer is exactly the service
// value's JSON, and the page shows the fields of that same value; the
// dashboard's row type embeds service.Job, so a field added to it is in
// both without a second struct.
func TestAnalysisPageRendersTheAPIValue(t *testing.T) {
	if f, ok := reflect.TypeOf(dashboard.JobRow{}).FieldByName("Job"); !ok || !f.Anonymous || f.Type != reflect.TypeOf(service.Job{}) {
		t.Fatalf("dashboard.JobRow does not embed service.Job: %+v", f)
	}
	if reflect.TypeOf(httpapi.Job{}) != reflect.TypeOf(service.Job{}) {
		t.Fatal("httpapi.Job is not service.Job")
	}
	e, late := newServiceEnv(t, 100, func(l *lateAPI) dashboard.Quota { return l })
	ctx := context.Background()
	c := e.client(t)
	token := e.login(t, c)

	resp, body := post(t, c, e.srv.URL+"/dashboard/analyses", url.Values{"csrf_token": {token}, "domain": {"127.0.0.1:9"}, "max_pages": {"7"}})
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/dashboard/analyses/job_") {
		t.Fatalf("start analysis: %d %q\n%s", resp.StatusCode, loc, body)
	}
	id := strings.TrimPrefix(loc, "/dashboard/analyses/")
	// The job runs: its progress is stored as the worker stores it.
	j, err := e.st.Job(ctx, e.acct.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	j.Status, j.StartedAt, j.UpdatedAt = store.JobRunning, time.Now().UTC(), time.Now().UTC()
	j.Progress = []byte(`{"pagesDone":41,"errors":2,"queued":13,"skipped":0,"pagesPerSecond":3.5,"current":"http://127.0.0.1:9/deep/page","updatedAt":"2026-03-14T09:26:53Z","phase":"crawling"}`)
	if err := e.st.UpdateJob(ctx, j); err != nil {
		t.Fatal(err)
	}

	// The API's answer.
	resp, body = post(t, c, e.srv.URL+"/dashboard/keys", url.Values{"csrf_token": {token}, "name": {"reader"}, "permissions": {"read"}, "expires": {"30"}})
	m := strings.Index(body, `value="`+auth.KeyPrefix)
	if resp.StatusCode != http.StatusCreated || m < 0 {
		t.Fatalf("create key: %d\n%s", resp.StatusCode, body)
	}
	key := body[m+len(`value="`):]
	key = key[:strings.IndexByte(key, '"')]
	req, _ := http.NewRequest("GET", e.srv.URL+"/v1/analyze/site/"+id, nil)
	req.Header.Set("X-API-Key", key)
	ar, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	apiBody, _ := io.ReadAll(ar.Body)
	ar.Body.Close()
	if ar.StatusCode != http.StatusOK {
		t.Fatalf("GET /v1/analyze/site/%s: %d %s", id, ar.StatusCode, apiBody)
	}

	// The service's value, encoded as the API encodes it.
	v, res, err := late.s.Analyses().Get(ctx, e.acct.ID, id)
	if err != nil || res != nil {
		t.Fatalf("service Get: %v, result %v", err, res)
	}
	enc, _ := json.Marshal(v)
	if !bytes.Equal(bytes.TrimSpace(apiBody), enc) {
		t.Fatalf("the API answered\n%s\nthe service's value encodes as\n%s", apiBody, enc)
	}
	if v.Progress == nil || v.Progress.PagesDone != 41 || v.Options.MaxPages != 7 || v.Domain != "127.0.0.1:9" {
		t.Fatalf("service value = %+v (progress %+v)", v, v.Progress)
	}

	// The dashboard's page shows that value's fields.
	_, page := get(t, c, e.srv.URL+loc)
	for _, want := range []string{
		"Analysis of " + v.Domain,
		`id="job-status">` + v.Status + `<`,
		`id="pages-done">41<`, `id="pages-queued">13<`, `id="pages-errors">2<`,
		`id="current">` + v.Progress.Current + `<`,
		"at most 7 pages",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("analysis page lacks %q", want)
		}
	}
	// And its list row, from the service's List.
	if _, list := get(t, c, e.srv.URL+"/dashboard/analyses"); !strings.Contains(list, `href="/dashboard/analyses/`+id+`">`+v.Domain+`<`) {
		t.Error("analyses page does not list the job")
	}
}

// TestAnalysisChargedWithoutDashboardQuota: the dashboard has no Quota at
// all, yet each analysis it starts is charged to the account's daily
// limit by the service, and one over the limit is refused (429) and not
// stored. Tracking keywords cannot be configured without the rankings
// service that charges it.
func TestAnalysisChargedWithoutDashboardQuota(t *testing.T) {
	e, _ := newServiceEnv(t, 2, nil)
	ctx := context.Background()
	c := e.client(t)
	token := e.login(t, c)
	used := func() int {
		t.Helper()
		today := time.Now().UTC().Truncate(24 * time.Hour)
		u, err := e.st.Usage(ctx, e.acct.ID, today, today)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, x := range u {
			n += x.Count
		}
		return n
	}
	start := url.Values{"csrf_token": {token}, "domain": {"127.0.0.1:9"}, "max_pages": {"5"}}
	for i := 1; i <= 2; i++ {
		if resp, body := post(t, c, e.srv.URL+"/dashboard/analyses", start); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("analysis %d: %d\n%s", i, resp.StatusCode, body)
		}
		if n := used(); n != i {
			t.Fatalf("usage after %d analyses = %d, want %d", i, n, i)
		}
	}
	resp, body := post(t, c, e.srv.URL+"/dashboard/analyses", start)
	if resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(body, "daily request limit of 2") {
		t.Fatalf("third analysis: %d\n%s", resp.StatusCode, body)
	}
	if js, _ := e.st.Jobs(ctx, e.acct.ID, 10); len(js) != 2 {
		t.Fatalf("%d jobs stored, want 2: the refused analysis must not be stored", len(js))
	}
	t.Logf("daily limit 2, no dashboard Quota: 2 analyses counted %d units, the third refused 429", used())

	_, err := dashboard.New(e.st, e.au, &dashboard.Options{Rankings: memstore.New(nil)})
	if err == nil || !strings.Contains(err.Error(), "Tracking") {
		t.Fatalf("dashboard.New with Rankings and no Tracking: err = %v, want a refusal", err)
	}
}
