package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// loginSite serves /, /a, /b and /c, each linking to all, to requests
// with basic auth ann:pw, cookie s=1 and header X-Staging: 1; it records
// the paths of the pages served; the func returns them and forgets them.
func loginSite(t *testing.T) (*httptest.Server, func() []string) {
	var mu sync.Mutex
	var paths []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, p, ok := r.BasicAuth()
		c, err := r.Cookie("s")
		if !ok || u != "ann" || p != "pw" || err != nil || c.Value != "1" || r.Header.Get("X-Staging") != "1" {
			http.Error(w, "login required", http.StatusUnauthorized)
			return
		}
		if r.URL.Path == "/robots.txt" || r.URL.Path == "/sitemap.xml" || r.URL.Path == "/favicon.ico" {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html lang=en><head><title>A page of the site</title></head><body><h1>Page</h1><a href="/a">a</a> <a href="/b">b</a> <a href="/c">c</a></body></html>`)
	}))
	t.Cleanup(ts.Close)
	return ts, func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := paths
		paths = nil
		slices.Sort(out)
		return slices.Compact(out)
	}
}

func TestCrawlScopeAndAccessFlags(t *testing.T) {
	site, served := loginSite(t)
	list := filepath.Join(t.TempDir(), "urls.txt")
	os.WriteFile(list, []byte("# pages to audit\n"+site.URL+"/a\n\nnot a url\n"+site.URL+"/c\n"), 0o600)
	t.Setenv("SEOKIT_BASIC_AUTH", "ann:pw")
	access := []string{"-header", "X-Staging: 1", "-cookie", "s=1", "-user-agent", "googlebot-desktop"}
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"exclude", []string{"-exclude", "/b$", site.URL}, []string{"/", "/a", "/c"}},
		{"include", []string{"-include", `/(a)?$`, site.URL}, []string{"/", "/a"}},
		{"list", []string{"-list", list}, []string{"/a", "/c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			served()
			var out, errOut bytes.Buffer
			args := append(append([]string{"crawl", "-allow-private", "-skip-external-links", "-quiet", "-json"}, access...), tt.args...)
			if err := run(context.Background(), args, &out, &errOut); err != nil {
				t.Fatalf("crawl: %v\n%s", err, errOut.String())
			}
			var rep struct {
				Pages []struct {
					URL    string `json:"url"`
					Status int    `json:"status"`
				} `json:"pages"`
			}
			if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range rep.Pages {
				if p.Status != 200 {
					t.Errorf("%s: status %d", p.URL, p.Status)
				}
				got = append(got, strings.TrimPrefix(p.URL, site.URL))
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("pages %q, want %q", got, tt.want)
			}
			if tt.name == "list" && !strings.Contains(errOut.String(), "urls.txt:4: skipped") {
				t.Errorf("the bad line is not reported: %s", errOut.String())
			}
			if all := out.String() + errOut.String(); strings.Contains(all, "ann:pw") || strings.Contains(all, "YW5uOnB3") {
				t.Error("the credentials are printed")
			}
			for _, p := range served() {
				if !slices.Contains(tt.want, p) && !strings.HasPrefix(p, "/seokit-404-check-") {
					t.Errorf("%s was requested", p)
				}
			}
		})
	}
}

func TestCrawlAccessFlagErrors(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"-header", "no colon"},
		{"-header", "Host: x"},
		{"-cookie", "novalue"},
		{"-basic-auth", "nopassword"},
		{"-user-agent", "a\x01b"},
		{"-exclude", "("},
	} {
		var out, errOut bytes.Buffer
		err := run(context.Background(), append(append([]string{"crawl", "-allow-private", "-quiet"}, args...), "127.0.0.1:1"), &out, &errOut)
		if err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}

// TestCrawlStartOutOfScope refuses, before any request, a scope that
// leaves out the start URL, naming the flag's member.
func TestCrawlStartOutOfScope(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var hits []string
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits = append(hits, r.URL.Path)
		mu.Unlock()
		http.NotFound(w, r)
	}))
	t.Cleanup(site.Close)
	served := func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := hits
		hits = nil
		return out
	}
	for _, tc := range []struct {
		args  []string
		field string
	}{
		{[]string{"-exclude", `:[0-9]+/$`, site.URL}, "exclude"},
		{[]string{"-include", "/blog/", site.URL}, "include"},
		{[]string{"-max-folder-depth", "1", site.URL + "/a/b"}, "maxFolderDepth"},
	} {
		var out, errOut bytes.Buffer
		err := run(context.Background(), append([]string{"crawl", "-allow-private", "-quiet"}, tc.args...), &out, &errOut)
		if err == nil || !strings.HasPrefix(err.Error(), tc.field+": ") || !strings.Contains(err.Error(), "start URL") {
			t.Errorf("%v: error %v, want one on %s", tc.args, err, tc.field)
		}
		if got := served(); len(got) > 0 {
			t.Errorf("%v: pages requested %v", tc.args, got)
		}
	}
}
