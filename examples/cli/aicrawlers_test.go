package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/seokit/seokit/crawler/crawlertest"
)

func TestAICrawlersCommand(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			w.Write([]byte("User-agent: OAI-SearchBot\nDisallow: /\n"))
		case "/":
			if strings.Contains(r.UserAgent(), "Claude-User") {
				http.Error(w, "no bots", http.StatusForbidden)
				return
			}
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(`<!DOCTYPE html><html lang="en"><head><title>Home</title></head><body><h1>Home</h1></body></html>`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"ai-crawlers", "-allow-private", srv.URL}, &out, &errOut); err != nil {
		t.Fatalf("ai-crawlers: %v\n%s", err, errOut.String())
	}
	for _, want := range []string{"OAI-SearchBot", "BLOCKED", "line 2: Disallow: /", "REFUSED: status 403", "/llms.txt: absent (status 404)",
		"ai.search_crawlers_blocked", "ai.firewall_blocks"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}

	out.Reset()
	if err := run(context.Background(), []string{"ai-crawlers", "-allow-private", "-skip-probe", "-json", srv.URL}, &out, &errOut); err != nil {
		t.Fatalf("ai-crawlers -json: %v\n%s", err, errOut.String())
	}
	var rep struct {
		Status       string
		Baseline     *struct{}
		ProbeSkipped string
		Crawlers     []struct {
			Token string
			Home  struct{ Allowed bool }
		}
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Status != "complete" || rep.Baseline != nil || rep.ProbeSkipped == "" || len(rep.Crawlers) < 13 {
		t.Errorf("-skip-probe -json: %+v", rep)
	}
}

func TestChecksListsAITokens(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"checks", "-v"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ai.search_crawlers_blocked", "GPTBot", "https://platform.openai.com/docs/bots", "Google-Extended", "control token"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("checks -v lacks %q", want)
		}
	}
}

func TestCrawlSegments(t *testing.T) {
	t.Parallel()
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 3, Categories: 1, NoSitemap: true})
	defer site.Close()
	var out, errOut bytes.Buffer
	args := []string{"crawl", "-allow-private", "-skip-external-links", "-quiet", "-segment", "home=depth:0", "-segment", "deep=depth:1-", "-segment", "deep=url:/", site.URL}
	if err := run(context.Background(), args, &out, &errOut); err != nil {
		t.Fatalf("crawl: %v\n%s", err, errOut.String())
	}
	if !strings.Contains(out.String(), "SEGMENTS") || !strings.Contains(out.String(), "home                      1 pages") {
		t.Errorf("output lacks the segments:\n%s", out.String())
	}
	err := run(context.Background(), []string{"crawl", "-segment", "x=url:((", site.URL}, &out, &errOut)
	if err == nil || !strings.Contains(errOut.String(), "segments[0].url") {
		t.Errorf("bad -segment: %v\n%s", err, errOut.String())
	}
}

// TestCrawlAICrawlerProbeURLs: crawl -ai-crawlers probes a crawled page
// besides the home page and prints a refusal found only there.
func TestCrawlAICrawlerProbeURLs(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/", "/shop/1":
			if r.URL.Path == "/shop/1" && strings.Contains(r.UserAgent(), "GPTBot") {
				http.Error(w, "no bots", http.StatusForbidden)
				return
			}
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(`<!DOCTYPE html><html lang="en"><head><title>Page</title></head><body class="` + r.URL.Path +
				`"><h1>Page</h1><a href="/shop/1">Shop</a></body></html>`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"crawl", "-allow-private", "-quiet", "-skip-external-links", "-ai-crawlers", srv.URL}, &out, &errOut); err != nil {
		t.Fatalf("crawl: %v\n%s", err, errOut.String())
	}
	for _, want := range []string{"sampled pages probed (one per template): " + srv.URL + "/shop/1 (200,", "GPTBot              REFUSED on " + srv.URL + "/shop/1 (robots.txt: allowed): status 403"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
