package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
)

func TestCrawlSkipExternalLinks(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	ext := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.NotFound(w, r)
	}))
	defer ext.Close()
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 3, Categories: 1, NoSitemap: true, ExtraLinks: []string{ext.URL + "/gone"}})
	defer site.Close()

	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"crawl", "-allow-private", "-skip-external-links", "-json", site.URL}, &out, &errOut); err != nil {
		t.Fatalf("crawl: %v\n%s", err, errOut.String())
	}
	var rep struct{ ExternalChecked, ExternalUnchecked int }
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if n := hits.Load(); n != 0 || rep.ExternalChecked != 0 || rep.ExternalUnchecked != 0 {
		t.Errorf("-skip-external-links: %d requests to the external host, report %+v; want none", n, rep)
	}

	out.Reset()
	if err := run(context.Background(), []string{"crawl", "-allow-private", site.URL}, &out, &errOut); err != nil {
		t.Fatalf("crawl: %v\n%s", err, errOut.String())
	}
	if hits.Load() == 0 || !strings.Contains(out.String(), "External links 1 checked") || !strings.Contains(out.String(), "links.broken_external") {
		t.Errorf("without the switch: %d requests; output:\n%s", hits.Load(), out.String())
	}
}

func TestExternalSummaryAndProgress(t *testing.T) {
	t.Parallel()
	rep := &crawler.SiteReport{ExternalChecked: 6, ExternalUnchecked: 794,
		ExternalUncheckedReasons: map[string]int{"host_failing": 794}, ExternalFailingHosts: []string{"a.example", "b.example"}}
	want := "External links 6 checked, 794 not checked (host_failing 794); hosts given up after 3 failures: a.example b.example"
	if got := externalSummary(rep); got != want {
		t.Errorf("summary\n got %q\nwant %q", got, want)
	}
	var w bytes.Buffer
	b := &progressBar{w: &w, budget: time.Minute}
	p := crawler.Progress{Done: 30, Phase: crawler.PhaseCheckingExternal, External: &crawler.ExternalProgress{Done: 3, Total: 800}}
	b.update(p)
	b.update(p)
	if got := w.String(); strings.Count(got, "\n") != 1 || !strings.Contains(got, "checking external links (3 of 800 done, at most 1m0s); -skip-external-links") {
		t.Errorf("notice %q, want one line with the counts and the switch", got)
	}
	w.Reset()
	b = &progressBar{w: &w, tty: true, max: 30}
	b.update(p)
	if got := w.String(); !strings.Contains(got, "checking external links: 3/800") {
		t.Errorf("progress line %q", got)
	}
}

func TestAnalyzeSkipExternalLinks(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	ext := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer ext.Close()
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<!doctype html><html lang=en><head><title>A page with one external link</title></head><body><h1>Page</h1><a href="`+
			strings.Replace(ext.URL, "127.0.0.1", "localhost", 1)+`/ref">a reference</a></body></html>`)
	}))
	defer page.Close()
	for _, tt := range []struct {
		args []string
		want bool
	}{
		{[]string{"analyze", "-allow-private", "-links", "-json", "-fail-on", "none", page.URL}, true},
		{[]string{"analyze", "-allow-private", "-links", "-skip-external-links", "-json", "-fail-on", "none", page.URL}, false},
	} {
		hits.Store(0)
		var out, errOut bytes.Buffer
		if err := run(context.Background(), tt.args, &out, &errOut); err != nil {
			t.Fatalf("%v: %v\n%s", tt.args, err, errOut.String())
		}
		if got := hits.Load() > 0; got != tt.want {
			t.Errorf("%v: external host requested %v, want %v", tt.args, got, tt.want)
		}
	}
}
