package dashboard_test

import (
	"context"
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestAnalysisConfig starts an analysis with the form's "Advanced:
// configuration (JSON)" field: a bad document is refused on the form naming
// the field at fault, and a good one reaches the job's request, with the
// form's fields set on top of it.
func TestAnalysisConfig(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client(t)
	token := e.login(t, c)
	_, body := get(t, c, e.srv.URL+"/dashboard/analyses")
	for _, v := range []string{`name="config"`, "Advanced: configuration (JSON)"} {
		if !strings.Contains(body, v) {
			t.Fatalf("the new analysis form has no %s", v)
		}
	}
	for _, tc := range []struct{ name, doc, want string }{
		{"bad selector", `{"extract":[{"name":"a","type":"css","expr":"h1"},{"name":"b","type":"css","expr":"[["}]}`, "extract[1].expr"},
		{"unknown field", `{"exclude":["/cart"],"extrct":[]}`, "extrct"},
		{"wrong type", `{"maxPages":"ten"}`, "maxPages"},
		{"not JSON", `{"exclude":`, "config"},
		{"bad segment", `{"segments":[{"name":"a b","url":"x"}]}`, "segments[0].name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := post(t, c, e.srv.URL+"/dashboard/analyses", url.Values{"csrf_token": {token}, "domain": {"127.0.0.1:9"}, "config": {tc.doc}})
			if resp.StatusCode != http.StatusBadRequest {
				t.Fatalf("status %d, want 400", resp.StatusCode)
			}
			body = html.UnescapeString(body)
			if !strings.Contains(body, "Configuration: "+tc.want) {
				t.Errorf("the error does not name %s", tc.want)
			}
			if !strings.Contains(body, tc.doc) || !strings.Contains(body, `id="config" name="config" rows="8" spellcheck="false" autocapitalize="off" aria-describedby="config-hint" aria-invalid="true"`) {
				t.Error("the form does not keep the document and mark the field")
			}
		})
	}
	if jobs, _ := e.st.Jobs(context.Background(), e.acct.ID, 10); len(jobs) != 0 {
		t.Fatalf("%d jobs started by bad configurations", len(jobs))
	}

	doc := `{"maxPages": 50, "exclude": ["/cart"], "extract": [{"name": "price", "type": "css", "expr": ".price"}], "segments": [{"name": "products", "url": "/p/"}]}`
	resp, _ := post(t, c, e.srv.URL+"/dashboard/analyses", url.Values{"csrf_token": {token}, "domain": {"127.0.0.1:9"}, "max_pages": {"20"}, "subdomains": {"on"}, "config": {doc}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("start: %d", resp.StatusCode)
	}
	jobs, err := e.st.Jobs(context.Background(), e.acct.ID, 10)
	if err != nil || len(jobs) != 1 {
		t.Fatalf("jobs %d, %v", len(jobs), err)
	}
	var req struct {
		Options struct {
			MaxPages          int      `json:"maxPages"`
			IncludeSubdomains bool     `json:"includeSubdomains"`
			Exclude           []string `json:"exclude"`
			Extract           []struct {
				Name string `json:"name"`
			} `json:"extract"`
			Segments []struct {
				Name string `json:"name"`
			} `json:"segments"`
		} `json:"options"`
	}
	if err := json.Unmarshal(jobs[0].Request, &req); err != nil {
		t.Fatal(err)
	}
	o := req.Options
	if o.MaxPages != 20 || !o.IncludeSubdomains || len(o.Exclude) != 1 || len(o.Extract) != 1 || o.Extract[0].Name != "price" || len(o.Segments) != 1 {
		t.Errorf("stored request %s", jobs[0].Request)
	}
}
