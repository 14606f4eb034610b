package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi/store"
)

// TestSiteJobSkipExternalLinks runs a site analysis with and without
// options.skipExternalLinks on a site linking to another host: with it the
// other host gets no request, and the job keeps the option.
func TestSiteJobSkipExternalLinks(t *testing.T) {
	var hits atomic.Int64
	ext := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(ext.Close)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html lang=en><head><title>Home page of the test site</title></head><body><h1>Home</h1><a href="%s/ref">a reference</a></body></html>`, ext.URL)
	}))
	t.Cleanup(site.Close)
	a := newTestAPI(t, &Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Free: 10_000}})
	for _, skip := range []bool{true, false} {
		t.Run(fmt.Sprintf("skip=%v", skip), func(t *testing.T) {
			hits.Store(0)
			resp := a.call("POST", "/v1/analyze/site", a.key, fmt.Sprintf(`{"domain":%q,"options":{"maxPages":5,"skipExternalLinks":%v}}`, hostOf(t, site.URL), skip))
			wantStatus(t, resp, 202)
			var created Job
			readJSON(t, resp, &created)
			if created.Options.SkipExternalLinks != skip {
				t.Errorf("created job options %+v", created.Options)
			}
			j := waitJob(t, a, a.key, created.ID, func(j Job) bool { return j.Status == "succeeded" || j.Status == "failed" })
			if j.Status != "succeeded" || j.Options.SkipExternalLinks != skip {
				t.Fatalf("job %+v", j)
			}
			var rep crawler.SiteReport
			if err := json.Unmarshal(j.Result, &rep); err != nil {
				t.Fatal(err)
			}
			want := 1
			if skip {
				want = 0
			}
			if n := hits.Load(); (n > 0) != (want > 0) || rep.ExternalChecked != want {
				t.Errorf("external host got %d requests, report checked %d; want %d checked", n, rep.ExternalChecked, want)
			}
		})
	}
}

func TestProgressJSONExternal(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	b := progressJSON(&crawler.Progress{Done: 30, Phase: crawler.PhaseCheckingExternal,
		External: &crawler.ExternalProgress{Done: 5, Total: 800, Unchecked: 2}}, now)
	var p JobProgress
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	if p.PagesDone != 30 || p.Phase != "checking_external" || p.External == nil || *p.External != (crawler.ExternalProgress{Done: 5, Total: 800, Unchecked: 2}) {
		t.Errorf("job progress %s", b)
	}
}
