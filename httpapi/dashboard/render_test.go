package dashboard_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestAnalysisRenderChoice starts an analysis with the form's Rendering
// choice: the job's request carries options.render; an unknown choice is
// refused on the form.
func TestAnalysisRenderChoice(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client(t)
	token := e.login(t, c)
	_, body := get(t, c, e.srv.URL+"/dashboard/analyses")
	for _, v := range []string{`name="render"`, `value="none" selected`, `value="auto"`, `value="always"`} {
		if !strings.Contains(body, v) {
			t.Fatalf("the new analysis form has no %s", v)
		}
	}
	resp, _ := post(t, c, e.srv.URL+"/dashboard/analyses", url.Values{"csrf_token": {token}, "domain": {"127.0.0.1:9"}, "render": {"sometimes"}})
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("unknown rendering choice: %d, want 400", resp.StatusCode)
	}
	resp, _ = post(t, c, e.srv.URL+"/dashboard/analyses", url.Values{"csrf_token": {token}, "domain": {"127.0.0.1:9"}, "render": {"always"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("start: %d", resp.StatusCode)
	}
	jobs, err := e.st.Jobs(context.Background(), e.acct.ID, 10)
	if err != nil || len(jobs) != 1 {
		t.Fatalf("jobs %d, %v", len(jobs), err)
	}
	var req struct {
		Options struct {
			Render string `json:"render"`
		} `json:"options"`
	}
	if err := json.Unmarshal(jobs[0].Request, &req); err != nil || req.Options.Render != "always" {
		t.Errorf("stored request %s, want options.render always", jobs[0].Request)
	}
}
