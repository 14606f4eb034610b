package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi/store"
)

// TestSiteJobSegmentsByExtractedValue groups pages by the first value of
// an extractor; a segment naming no extractor of options.extract is a 400
// naming options.segments[i].extract.
func TestSiteJobSegmentsByExtractedValue(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		kind := map[string]string{"/": "home", "/p/1": "product", "/p/2": "product", "/c/1": "category"}[r.URL.Path]
		if kind == "" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html lang=en><head><title>A %s page of the test site</title></head><body data-type=%s><h1>Page</h1><a href="/p/1">1</a> <a href="/p/2">2</a> <a href="/c/1">c</a></body></html>`, kind, kind)
	}))
	t.Cleanup(site.Close)
	a := newTestAPI(t, &Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Free: 10_000}})
	resp := a.call("POST", "/v1/analyze/site", a.key, fmt.Sprintf(`{"domain":%q,"options":{"maxPages":10,"skipExternalLinks":true,
		"extract":[{"name":"type","type":"css","expr":"body","attr":"data-type"}],
		"segments":[{"name":"products","extract":"type","value":"^product$"},{"name":"typed","extract":"type"}]}}`, hostOf(t, site.URL)))
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
	if pages["products"] != 2 || pages["typed"] != 2 {
		t.Errorf("segments %+v", rep.Segments)
	}

	resp = a.call("POST", "/v1/analyze/site", a.key, fmt.Sprintf(`{"domain":%q,"options":{"segments":[{"name":"x","extract":"price"}]}}`, hostOf(t, site.URL)))
	wantStatus(t, resp, 400)
	var e struct{ Error Error }
	readJSON(t, resp, &e)
	if e.Error.Code != CodeInvalidRequest || e.Error.Field != "options.segments[0].extract" {
		t.Errorf("segment naming no extractor: %+v", e)
	}
}
