package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func testSite(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!DOCTYPE html><html lang="en"><head><title>x</title></head><body><h1>Hello</h1><a href="/about">About us</a></body></html>`))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return 2
}

func TestAnalyzeCommand(t *testing.T) {
	srv := testSite(t)
	for _, tt := range []struct {
		name     string
		args     []string
		code     int
		contains string
	}{
		{"text", []string{"analyze", "-allow-private", "-fail-on", "none", srv.URL + "/"}, 0, "Score "},
		{"flags after url", []string{"analyze", srv.URL + "/", "-allow-private", "-fail-on", "none"}, 0, "WARNINGS"},
		{"fail on warning", []string{"analyze", "-allow-private", "-fail-on", "warning", srv.URL + "/"}, 1, "title.too_short"},
		{"private refused", []string{"analyze", srv.URL + "/"}, 2, ""},
		{"no url", []string{"analyze"}, 2, ""},
		{"bad url", []string{"analyze", "ftp://x"}, 2, ""},
		{"bad depth", []string{"analyze", "-allow-private", "-depth", "deep", srv.URL}, 2, ""},
		{"unknown command", []string{"explode"}, 2, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(context.Background(), tt.args, &out, &errOut)
			if got := exitCode(err); got != tt.code {
				t.Fatalf("exit code %d (%v); want %d\nstdout:\n%s\nstderr:\n%s", got, err, tt.code, out.String(), errOut.String())
			}
			if !strings.Contains(out.String(), tt.contains) {
				t.Errorf("output lacks %q:\n%s", tt.contains, out.String())
			}
		})
	}
}

func TestAnalyzeJSON(t *testing.T) {
	srv := testSite(t)
	var out bytes.Buffer
	if err := run(context.Background(), []string{"analyze", "-json", "-allow-private", "-fail-on", "none", srv.URL}, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Status   int `json:"status"`
		Findings []struct {
			ID, Severity, Message, URL string
			Evidence                   map[string]any
		} `json:"findings"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out.String())
	}
	if rep.Status != 200 || len(rep.Findings) == 0 {
		t.Fatalf("status %d, %d findings", rep.Status, len(rep.Findings))
	}
	for _, f := range rep.Findings {
		if f.ID == "" || f.Severity == "" || f.Message == "" || f.URL == "" {
			t.Errorf("incomplete finding %+v", f)
		}
	}
}
