package crawler_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
)

// TestTemplateLinksNotFollowed: a link inside an inert <template> is not a
// link in browsers (the content is an inert DocumentFragment, not part of
// the document), so the crawl neither follows it nor counts it as an
// inlink; a link inside a declarative shadow root is rendered and is
// followed.
func TestTemplateLinksNotFollowed(t *testing.T) {
	t.Parallel()
	pages := map[string]string{
		"/": `<html><head><title>Home</title></head><body><p><a href="/visible">Visible</a></p>` +
			`<template><a href="/template-only">Template only</a><a href="/both">Both</a></template>` +
			`<div><template shadowrootmode="open"><a href="/shadow-root">Shadow root</a></template></div></body></html>`,
		"/visible":       `<html><head><title>Visible</title></head><body><a href="/both">Both</a></body></html>`,
		"/both":          `<html><head><title>Both</title></head><body>Linked from a page and a template.</body></html>`,
		"/template-only": `<html><head><title>Template only</title></head><body>Only a template links here.</body></html>`,
		"/shadow-root":   `<html><head><title>Shadow root</title></head><body>A shadow root links here.</body></html>`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(body))
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := crawler.New(testOptions(crawler.Options{SkipExternalLinks: true})).Run(ctx, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	got := pagesByPath(t, srv.URL, rep)
	if p, ok := got["/template-only"]; ok {
		t.Errorf("/template-only, linked from a template only, crawled (%d inlinks)", p.Inlinks)
	}
	for path, want := range map[string]struct{ depth, inlinks int }{
		"/visible": {1, 1}, "/shadow-root": {1, 1},
		// The template's link adds no inlink and no shorter path.
		"/both": {2, 1},
	} {
		p, ok := got[path]
		if !ok {
			t.Errorf("%s not crawled", path)
			continue
		}
		if depthOf(p) != want.depth || p.Inlinks != want.inlinks {
			t.Errorf("%s: depth %d, %d inlinks; want depth %d, %d inlinks", path, depthOf(p), p.Inlinks, want.depth, want.inlinks)
		}
	}
	if len(got) != 4 {
		t.Errorf("%d pages crawled, want 4 (home, /visible, /both, /shadow-root)", len(got))
	}
}
