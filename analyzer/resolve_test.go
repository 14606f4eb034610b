package analyzer

import (
	"encoding/json"
	"net/http"
	"os"
	"slices"
	"testing"

	"github.com/seokit/seokit/seo"
	"golang.org/x/text/encoding/htmlindex"
)

// TestLinkResolution runs testdata/links/resolve.json: the URL each <a
// href> of a document resolves to.
func TestLinkResolution(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("testdata/links/resolve.json")
	if err != nil {
		t.Fatal(err)
	}
	var table struct {
		Cases []struct {
			Name, URL, Charset, Label, Body, Canonical string
			NoCharset                                  bool
			Links                                      []string
		}
	}
	if err := json.Unmarshal(raw, &table); err != nil {
		t.Fatal(err)
	}
	for _, tc := range table.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			body, ct := tc.Body, "text/html; charset=utf-8"
			if tc.Charset != "" {
				enc, err := htmlindex.Get(tc.Charset)
				if err != nil {
					t.Fatal(err)
				}
				if body, err = enc.NewEncoder().String(tc.Body); err != nil {
					t.Fatalf("encoding the body in %s: %v", tc.Charset, err)
				}
				ct = "text/html; charset=" + tc.Charset
			}
			if tc.Label != "" {
				ct = "text/html; charset=" + tc.Label
			}
			if tc.NoCharset {
				ct = "text/html"
			}
			rep := analyzeString(t, body, tc.URL, http.Header{"Content-Type": {ct}}, nil)
			var got []string
			for _, l := range rep.Links.List {
				got = append(got, l.URL)
			}
			if !slices.Equal(got, tc.Links) {
				t.Errorf("links = %q; want %q", got, tc.Links)
			}
			if tc.Canonical != "" && (len(rep.Canonical) != 1 || rep.Canonical[0].URL != tc.Canonical) {
				t.Errorf("canonical = %+v; want %s", rep.Canonical, tc.Canonical)
			}
		})
	}
}

// TestTargetBase checks that a linked page's own canonical resolves
// against its base URL as the analysed page's links do: the first <base
// href> outside <template>, resolved against the page's URL.
func TestTargetBase(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, head, want string }{
		{"no base", ``, "https://example.com/dir/c"},
		{"first base counts", `<base href="/first/"><base href="/second/">`, "https://example.com/first/c"},
		{"base without href is skipped", `<base target="_top"><base href="sub/">`, "https://example.com/dir/sub/c"},
		{"a first base that does not parse ends the search", `<base href="http://exa mple.com/"><base href="/second/">`, "https://example.com/dir/c"},
		{"base in template", `<template><base href="/tpl/"></template>`, "https://example.com/dir/c"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := &seo.Response{
				URL:    "https://example.com/dir/page",
				Status: http.StatusOK,
				Header: http.Header{"Content-Type": {"text/html"}},
				Body:   []byte(`<html><head>` + tc.head + `<link rel="canonical" href="c"></head><body></body></html>`),
			}
			f := lcFactsOfDoc(resp, nil)
			if len(f.canonicals) != 1 || f.canonicals[0] != tc.want {
				t.Errorf("canonicals = %q; want [%q]", f.canonicals, tc.want)
			}
		})
	}
}
