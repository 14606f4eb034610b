package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi/store"
)

// TestSiteJobAICrawlers runs a site analysis with options.aiCrawlers on a
// site whose server refuses ClaudeBot: the report carries the matrix and
// ai.firewall_blocks, and a bad value is a 400 naming the field.
func TestSiteJobAICrawlers(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/robots.txt":
			fmt.Fprint(w, "User-agent: GPTBot\nDisallow: /\n")
		case r.URL.Path != "/":
			http.NotFound(w, r)
		case strings.Contains(r.UserAgent(), "ClaudeBot"):
			http.Error(w, "forbidden", http.StatusForbidden)
		default:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<!doctype html><html lang=en><head><title>Home page of the test site</title></head><body><h1>Home</h1></body></html>`)
		}
	}))
	t.Cleanup(site.Close)
	a := newTestAPI(t, &Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Free: 10_000}})
	resp := a.call("POST", "/v1/analyze/site", a.key, fmt.Sprintf(`{"domain":%q,"options":{"maxPages":3,"skipExternalLinks":true,"aiCrawlers":true}}`, hostOf(t, site.URL)))
	wantStatus(t, resp, 202)
	var created Job
	readJSON(t, resp, &created)
	j := waitJob(t, a, a.key, created.ID, func(j Job) bool { return j.Status == "succeeded" || j.Status == "failed" })
	if j.Status != "succeeded" || !j.Options.AICrawlers {
		t.Fatalf("job %+v", j)
	}
	var rep crawler.SiteReport
	if err := json.Unmarshal(j.Result, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.AICrawlers == nil || len(rep.AICrawlers.Crawlers) != len(crawler.AICrawlers()) {
		t.Fatalf("aiCrawlers %+v", rep.AICrawlers)
	}
	found := false
	for _, f := range rep.SiteFindings {
		found = found || (f.ID == "ai.firewall_blocks" && f.Evidence.Value == "ClaudeBot")
	}
	if !found {
		t.Errorf("no ai.firewall_blocks naming ClaudeBot: %+v", rep.SiteFindings)
	}

	resp = a.call("POST", "/v1/analyze/site", a.key, fmt.Sprintf(`{"domain":%q,"options":{"aiCrawlers":"yes"}}`, hostOf(t, site.URL)))
	wantStatus(t, resp, 400)
	var e struct{ Error Error }
	readJSON(t, resp, &e)
	if e.Error.Code != CodeInvalidRequest || e.Error.Field != "options.aiCrawlers" {
		t.Errorf("bad aiCrawlers: %+v", e)
	}
}
