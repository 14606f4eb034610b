package analyzer

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestResourceChecks: with CheckLinks, a <script src> or <link
// rel=stylesheet href> answering 4xx/5xx, on the page's host or another,
// is resources.broken_script or resources.broken_stylesheet, naming it;
// one that answers 200 is not; each is requested once however often the
// page uses it; a preload is not a script; and disabling the area costs
// no request.
func TestResourceChecks(t *testing.T) {
	var log requestLog
	ok := func(ctype string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ctype)
			w.Write([]byte("/* fine */"))
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/js/ok.js", ok("text/javascript"))
	mux.HandleFunc("/css/ok.css", ok("text/css"))
	mux.HandleFunc("/css/error.css", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", http.StatusServiceUnavailable) })
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.add(r)
		mux.ServeHTTP(w, r) // unknown paths answer 404
	}))
	defer srv.Close()
	extURL := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	page := fixture(t, "resources", "page.html", map[string]string{"EXT": extURL})
	analyze := func(disable ...string) *Report {
		t.Helper()
		opts := &Options{Depth: Complete, CheckLinks: true, Fetcher: newTestFetcher(t), LinkTimeout: 2 * time.Second, Disable: disable}
		rep, err := AnalyzeHTML(context.Background(), srv.URL+"/page", http.Header{"Content-Type": {"text/html"}}, page, opts)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	rep := analyze()
	for _, tt := range []struct {
		id, target string
		want       bool
	}{
		{"resources.broken_script", "/js/missing.js", true},
		{"resources.broken_script", extURL + "/js/gone.js", true},
		{"resources.broken_script", "/js/ok.js", false},
		{"resources.broken_script", "/js/preload-missing.js", false},
		{"resources.broken_stylesheet", "/css/missing.css", true},
		{"resources.broken_stylesheet", "/css/error.css", true},
		{"resources.broken_stylesheet", "/css/ok.css", false},
	} {
		got := findingsWith(rep, tt.id, tt.target)
		if tt.want != (len(got) == 1) {
			t.Errorf("%s on %s: %d findings, want %v; evidence %+v", tt.id, tt.target, len(got), tt.want, got)
		}
		if tt.want && len(got) == 1 && (!strings.HasPrefix(got[0].Element, "<") || !strings.Contains(got[0].Detail, "status")) {
			t.Errorf("%s on %s: evidence %+v lacks the element or the status", tt.id, tt.target, got[0])
		}
	}
	for _, id := range []string{"resources.broken_script", "resources.broken_stylesheet"} {
		if _, ok := catalog[id]; !ok {
			t.Errorf("%s is not declared", id)
		}
	}
	if n := log.total("/js/ok.js"); n != 2 {
		// Once on the page's host, once under the external name.
		t.Errorf("/js/ok.js requested %d times, want 2 (once per host name)", n)
	}
	if n := log.total("/css/missing.css"); n != 1 {
		t.Errorf("/css/missing.css requested %d times, want once", n)
	}

	before := log.total("/js/missing.js") + log.total("/css/missing.css")
	rep = analyze("resources")
	if n := log.total("/js/missing.js") + log.total("/css/missing.css") - before; n != 0 {
		t.Errorf("%d requests for scripts and stylesheets with the resources area disabled", n)
	}
	if len(evidence(rep, "resources.broken_script")) != 0 {
		t.Error("resources.broken_script reported with the area disabled")
	}
}
