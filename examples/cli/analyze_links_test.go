package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestAnalyzeLinkBudget: with -links, targets that never answer are cut
// by the link check's budget (half of -timeout) and printed as not
// checked; the analysis answers within -timeout instead of failing with it.
func TestAnalyzeLinkBudget(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte(`<!doctype html><html lang="en"><head><title>Links that hang</title></head><body><h1>Links</h1>` +
				`<a href="/ok">ok</a> <a href="/hang/1">one</a> <a href="/hang/2">two</a> <a href="/hang/3">three</a></body></html>`))
		case strings.HasPrefix(r.URL.Path, "/hang/"):
			<-r.Context().Done()
		case r.URL.Path == "/ok":
			w.Write([]byte("ok"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	start := time.Now()
	code, out, errOut := runCLI(t, "analyze", "-allow-private", "-links", "-fail-on", "none", "-timeout", "6s", srv.URL+"/")
	took := time.Since(start)
	if code != 0 {
		t.Fatalf("exit %d after %v: %s", code, took, errOut)
	}
	if !strings.Contains(out, "4 internal, 0 external, 0 nofollow, 3 not checked") {
		t.Errorf("the links line does not count the 3 targets not checked:\n%s", out)
	}
	if !strings.Contains(out, "link checks stopped at their time budget (half of -timeout): 3 of 4 targets not checked") {
		t.Errorf("the report does not say the link checks were cut:\n%s", out)
	}
	if took > 6*time.Second {
		t.Errorf("took %v, over -timeout", took)
	}
}
