package dashboard_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/seokit/seokit/httpapi/store"
)

// TestAnalysisSkipExternal starts an analysis with the form's "Skip
// external link checks" box ticked: the job's request says so, and its page
// shows it.
func TestAnalysisSkipExternal(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client(t)
	token := e.login(t, c)
	_, body := get(t, c, e.srv.URL+"/dashboard/analyses")
	if !strings.Contains(body, `name="skip_external"`) {
		t.Fatal("the new analysis form has no skip_external checkbox")
	}
	resp, _ := post(t, c, e.srv.URL+"/dashboard/analyses", url.Values{"csrf_token": {token}, "domain": {"127.0.0.1:9"}, "max_pages": {"5"}, "skip_external": {"on"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("start: %d", resp.StatusCode)
	}
	jobs, err := e.st.Jobs(context.Background(), e.acct.ID, 10)
	if err != nil || len(jobs) != 1 {
		t.Fatalf("jobs %d, %v", len(jobs), err)
	}
	var req struct {
		Options struct {
			SkipExternalLinks bool `json:"skipExternalLinks"`
		} `json:"options"`
	}
	if err := json.Unmarshal(jobs[0].Request, &req); err != nil || !req.Options.SkipExternalLinks {
		t.Errorf("stored request %s, want options.skipExternalLinks true", jobs[0].Request)
	}
	_, body = get(t, c, e.srv.URL+resp.Header.Get("Location"))
	if !strings.Contains(body, "external links not checked") {
		t.Error("the analysis page does not say external links are not checked")
	}
}

// TestAnalysisExternalProgress shows the external link checking phase of a
// running analysis, on its page and in the progress JSON.
func TestAnalysisExternalProgress(t *testing.T) {
	e := newEnv(t, nil)
	now := e.clock.Now()
	j := &store.Job{ID: "job_extprogress", AccountID: e.acct.ID, Kind: "site", Status: store.JobQueued,
		Request: []byte(`{"domain":"example.com","options":{}}`), CreatedAt: now, UpdatedAt: now}
	ctx := context.Background()
	if err := e.st.CreateJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	j.Status, j.StartedAt = store.JobRunning, now
	j.Progress = []byte(`{"pagesDone":30,"errors":0,"queued":0,"skipped":0,"pagesPerSecond":3,"updatedAt":"2025-01-01T00:00:00Z",` +
		`"phase":"checking_external","external":{"done":5,"total":800,"unchecked":2}}`)
	if err := e.st.UpdateJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	c := e.client(t)
	e.login(t, c)
	_, body := get(t, c, e.srv.URL+"/dashboard/analyses/"+j.ID)
	for _, want := range []string{"Checking external links: ", `<span id="ext-done">5</span> of <span id="ext-total">800</span>`} {
		if !strings.Contains(body, want) {
			t.Errorf("analysis page lacks %q", want)
		}
	}
	_, body = get(t, c, e.srv.URL+"/dashboard/analyses/"+j.ID+"/progress")
	var p struct {
		Phase    string
		External struct{ Done, Total int }
	}
	if err := json.Unmarshal([]byte(body), &p); err != nil {
		t.Fatal(err)
	}
	if p.Phase != "checking_external" || p.External.Done != 5 || p.External.Total != 800 {
		t.Errorf("progress %s, want the phase and 5 of 800 external checks", body)
	}
}
