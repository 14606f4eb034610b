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

// TestSiteJobSegments runs a site analysis with options.segments: the
// report counts the segments, and a bad regular expression is a 400
// naming options.segments[i].url.
func TestSiteJobSegments(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/", "/blog/a", "/blog/b":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<!doctype html><html lang=en><head><title>A page of the test site</title></head><body><h1>Page</h1><a href="/blog/a">a</a> <a href="/blog/b">b</a> <a href="/gone">gone</a></body></html>`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(site.Close)
	a := newTestAPI(t, &Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Free: 10_000}})
	resp := a.call("POST", "/v1/analyze/site", a.key, fmt.Sprintf(`{"domain":%q,"options":{"maxPages":10,"skipExternalLinks":true,"segments":[{"name":"blog","url":"/blog/"},{"name":"missing","status":"4xx"}]}}`, hostOf(t, site.URL)))
	wantStatus(t, resp, 202)
	var created Job
	readJSON(t, resp, &created)
	j := waitJob(t, a, a.key, created.ID, func(j Job) bool { return j.Status == "succeeded" || j.Status == "failed" })
	if j.Status != "succeeded" {
		t.Fatalf("job %+v", j)
	}
	var rep crawler.SiteReport
	if err := json.Unmarshal(j.Result, &rep); err != nil {
		t.Fatal(err)
	}
	pages := map[string]int{}
	for _, s := range rep.Segments {
		pages[s.Name] = s.Pages
	}
	if pages["blog"] != 2 || pages["missing"] != 1 || pages[crawler.NoSegment] != 1 {
		t.Errorf("segments %+v", rep.Segments)
	}

	resp = a.call("POST", "/v1/analyze/site", a.key, fmt.Sprintf(`{"domain":%q,"options":{"segments":[{"name":"ok"},{"name":"bad","url":"(("}]}}`, hostOf(t, site.URL)))
	wantStatus(t, resp, 400)
	var e struct{ Error Error }
	readJSON(t, resp, &e)
	if e.Error.Code != CodeInvalidRequest || e.Error.Field != "options.segments[1].url" {
		t.Errorf("bad segment: %+v", e)
	}
}
