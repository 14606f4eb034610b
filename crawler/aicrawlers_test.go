package crawler_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/seo"
)

// TestAICrawlerProbe crawls a site whose firewall refuses ClaudeBot (403)
// and serves PerplexityBot a challenge page, while robots.txt allows both.
func TestAICrawlerProbe(t *testing.T) {
	var mu sync.Mutex
	agents := map[string]int{}
	home := cleanRoutes()["/"]
	rs := cleanRoutes().with(routes{
		"/robots.txt": serveRobots("User-agent: *\nDisallow: /b\n\nUser-agent: GPTBot\nDisallow: /\n"),
		"/llms.txt": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/markdown")
			w.Write([]byte("# Site\n\n> A test site.\n\n## Pages\n\n- [A](/a): page A\n"))
		},
		"/": func(w http.ResponseWriter, r *http.Request) {
			ua := r.UserAgent()
			mu.Lock()
			agents[ua]++
			mu.Unlock()
			switch {
			case strings.Contains(ua, "ClaudeBot"):
				http.Error(w, "forbidden", http.StatusForbidden)
			case strings.Contains(ua, "PerplexityBot"):
				w.Header().Set("Cf-Mitigated", "challenge")
				w.Write([]byte("<html>Just a moment...</html>"))
			default:
				home(w, r)
			}
		},
	})
	srv := httptest.NewServer(rs)
	defer srv.Close()
	rep := crawlFacts(t, srv.URL, crawler.Options{AICrawlers: true})
	ai := rep.AICrawlers
	if ai == nil {
		t.Fatal("no aiCrawlers report")
	}
	if ai.Status != "complete" || ai.Baseline == nil || ai.Baseline.Status != 200 || !ai.LLMsTxt.Present || ai.LLMsTxt.IssuesTotal != 0 || ai.LLMsTxt.Links != 1 {
		t.Fatalf("report %+v, baseline %+v, llms.txt %+v", ai, ai.Baseline, ai.LLMsTxt)
	}
	rows := map[string]crawler.AICrawlerStatus{}
	for _, c := range ai.Crawlers {
		rows[c.Token] = c
	}
	if c := rows["ClaudeBot"]; c.Probe == nil || !c.Probe.Blocked || c.Probe.Status != 403 {
		t.Errorf("ClaudeBot probe %+v: want blocked with 403", c.Probe)
	}
	if c := rows["PerplexityBot"]; c.Probe == nil || !c.Probe.Blocked || !c.Probe.Challenge {
		t.Errorf("PerplexityBot probe %+v: want a blocked challenge", c.Probe)
	}
	if c := rows["OAI-SearchBot"]; c.Probe == nil || c.Probe.Blocked || !c.Home.Allowed || c.BlockedURLs != 1 {
		t.Errorf("OAI-SearchBot %+v probe %+v: want allowed, not blocked, /b disallowed", c, c.Probe)
	}
	if c := rows["GPTBot"]; c.Home.Allowed || c.Home.Line != 5 || c.Home.Rule != "Disallow: /" {
		t.Errorf("GPTBot home %+v: want disallowed by line 5", c.Home)
	}
	if c := rows["Google-Extended"]; c.Probe != nil {
		t.Errorf("Google-Extended probed: %+v", c.Probe)
	}
	var fw string
	for _, f := range rep.SiteFindings {
		switch f.ID {
		case "ai.firewall_blocks":
			fw = f.Evidence.Value
		case "ai.search_crawlers_blocked", "ai.llms_txt_malformed":
			t.Errorf("unexpected %s: %s", f.ID, f.Message)
		}
	}
	if fw != "ClaudeBot, PerplexityBot" {
		t.Errorf("ai.firewall_blocks names %q, want ClaudeBot, PerplexityBot", fw)
	}
	mu.Lock()
	defer mu.Unlock()
	probes := 0
	for _, c := range crawler.AICrawlers() {
		if c.UserAgent != "" {
			probes += agents[c.UserAgent]
		}
	}
	if probes != 11 {
		t.Errorf("%d probe requests for the home page, want one per crawler with a fetcher (11): %v", probes, agents)
	}
}

// TestAICrawlersOff checks that a crawl without Options.AICrawlers sends
// no request for /llms.txt and reports no aiCrawlers.
func TestAICrawlersOff(t *testing.T) {
	var mu sync.Mutex
	llms := 0
	srv := httptest.NewServer(cleanRoutes().with(routes{"/llms.txt": func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		llms++
		mu.Unlock()
		http.NotFound(w, r)
	}}))
	defer srv.Close()
	rep := crawlFacts(t, srv.URL, crawler.Options{})
	mu.Lock()
	defer mu.Unlock()
	if rep.AICrawlers != nil || llms != 0 {
		t.Errorf("aiCrawlers %v, %d /llms.txt requests: want none", rep.AICrawlers, llms)
	}
}

// TestAICrawlerProbeURLs crawls a site whose firewall refuses ClaudeBot on
// /shop/ only: the home page probe passes, the probe of a sampled shop page
// (one page per template, the template with the most pages first) reveals
// the block.
func TestAICrawlerProbeURLs(t *testing.T) {
	var mu sync.Mutex
	probed := map[string]int{} // path -> requests with an AI crawler's user agent
	ais := map[string]bool{}
	for _, c := range crawler.AICrawlers() {
		if c.UserAgent != "" {
			ais[c.UserAgent] = true
		}
	}
	page := func(layout string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			if ais[r.UserAgent()] {
				probed[r.URL.Path]++
			}
			mu.Unlock()
			if strings.HasPrefix(r.URL.Path, "/shop/") && strings.Contains(r.UserAgent(), "ClaudeBot") {
				http.Error(w, "forbidden", http.StatusForbidden)
				return
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<!doctype html><html lang="en"><head><title>%s</title></head><body>%s`+
				`<p>Links: <a href="/">home</a> <a href="/shop/1">one</a> <a href="/shop/2">two</a> <a href="/blog/1">post</a> <a href="/about">about</a> <a href="/help">help</a></p>`+
				`<p>%s</p></body></html>`, r.URL.Path, layout, strings.Repeat("Words of the page. ", 80))
		}
	}
	rs := cleanRoutes().with(routes{
		"/":         page(`<main class="home"></main>`),
		"/shop/1":   page(`<div class="product"><span class="price">1</span></div>`),
		"/shop/2":   page(`<div class="product"><span class="price">2</span></div>`),
		"/blog/1":   page(`<article class="post"></article>`),
		"/about":    page(`<section class="about"></section>`),
		"/help":     page(`<section class="help"></section>`),
		"/a":        nil,
		"/b":        nil,
		"/llms.txt": func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) },
	})
	srv := httptest.NewServer(rs)
	defer srv.Close()
	rep := crawlFacts(t, srv.URL, crawler.Options{AICrawlers: true})
	ai := rep.AICrawlers
	if ai == nil {
		t.Fatal("no aiCrawlers report")
	}
	if len(ai.ProbeURLs) != crawler.MaxAIProbeURLs || ai.ProbeURLs[0].URL != srv.URL+"/shop/1" || ai.ProbeURLsReason != "" {
		t.Fatalf("probe URLs %+v (%s), want %d with /shop/1 first", ai.ProbeURLs, ai.ProbeURLsReason, crawler.MaxAIProbeURLs)
	}
	templates := map[string]bool{}
	for _, p := range ai.ProbeURLs {
		if p.Baseline == nil || p.Baseline.Status != 200 || p.Template == "" || templates[p.Template] {
			t.Errorf("probe URL %+v: want a normal fetch answering 200 and a template of its own", p)
		}
		templates[p.Template] = true
	}
	for _, c := range ai.Crawlers {
		if c.ControlOnly {
			if len(c.URLProbes) != 0 {
				t.Errorf("%s: control token probed %+v", c.Token, c.URLProbes)
			}
			continue
		}
		if len(c.URLProbes) != len(ai.ProbeURLs) {
			t.Fatalf("%s: %d URL probes, want %d", c.Token, len(c.URLProbes), len(ai.ProbeURLs))
		}
		for _, u := range c.URLProbes {
			shop := strings.Contains(u.URL, "/shop/")
			if u.Probe == nil || !u.Allowed || u.Probe.Blocked != (shop && c.Token == "ClaudeBot") {
				t.Errorf("%s on %s: %+v probe %+v", c.Token, u.URL, u, u.Probe)
			}
		}
		if c.Probe == nil || c.Probe.Blocked {
			t.Errorf("%s home probe %+v: want not blocked", c.Token, c.Probe)
		}
	}
	var fw *seo.Finding
	for i, f := range rep.SiteFindings {
		if f.ID == "ai.firewall_blocks" {
			fw = &rep.SiteFindings[i]
		}
	}
	if fw == nil || fw.Evidence.Value != "ClaudeBot" || len(fw.Evidence.URLs) != 1 || !strings.Contains(fw.Evidence.URLs[0], "/shop/1: status 403") {
		t.Errorf("ai.firewall_blocks %+v: want ClaudeBot refused on /shop/1", fw)
	}
	mu.Lock()
	defer mu.Unlock()
	total := 0
	for _, n := range probed {
		total += n
	}
	if probed["/shop/2"] != 0 || total != 11*(1+crawler.MaxAIProbeURLs) {
		t.Errorf("AI crawler requests by path %v: want 11 on the home page and on each of the %d sampled URLs", probed, crawler.MaxAIProbeURLs)
	}
	if want := 1 + 12*(1+crawler.MaxAIProbeURLs); ai.ProbeRequests != want {
		t.Errorf("probeRequests %d, want %d", ai.ProbeRequests, want)
	}
}
