package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
	"github.com/seokit/seokit/crawler/crawlreport"
	"github.com/seokit/seokit/seo"
)

// TestCrawlOutputsAgree crawls one site and checks that the JSON report,
// the CLI text and the HTML report show the same finding counts, that
// pages without a score (404) do not count in the site score, and that
// robots-blocked URLs are reported as not fetched, not as pages.
func TestCrawlOutputsAgree(t *testing.T) {
	t.Parallel()
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 12, Categories: 3, Broken: 2, Orphans: 1, Disallow: []string{"/a/4"}})
	defer site.Close()
	rep, err := crawler.New(&crawler.Options{AllowPrivate: true, PerHostRate: -1, RequestTimeout: 10 * time.Second}).Run(context.Background(), site.URL)
	if err != nil {
		t.Fatal(err)
	}

	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var j struct {
		Score struct {
			Value  int            `json:"value"`
			Counts map[string]int `json:"counts"`
		} `json:"score"`
		FindingCounts struct {
			Checks   map[string]int `json:"checks"`
			Findings map[string]int `json:"findings"`
		} `json:"findingCounts"`
		Pages []struct {
			URL         string `json:"url"`
			Status      int    `json:"status"`
			Depth       *int   `json:"depth"`
			Score       *int   `json:"score"`
			ScoreReason string `json:"scoreReason"`
		} `json:"pages"`
		NotFetched []struct {
			URL    string `json:"url"`
			Reason string `json:"reason"`
		} `json:"notFetched"`
	}
	if err := json.Unmarshal(b, &j); err != nil {
		t.Fatal(err)
	}
	fc := j.FindingCounts
	if fc.Findings["error"] == 0 || fc.Checks["error"] == 0 {
		t.Fatalf("no errors counted on a site with broken links: %s", b[:min(len(b), 2000)])
	}
	if fmt.Sprint(j.Score.Counts) != fmt.Sprint(fc.Checks) {
		t.Errorf("score counts %v, finding counts' checks %v: one definition expected", j.Score.Counts, fc.Checks)
	}

	var text bytes.Buffer
	printSiteReport(&text, rep, false)
	want := fmt.Sprintf("findings: %d errors, %d warnings, %d notices (distinct checks: %d, %d, %d)",
		fc.Findings["error"], fc.Findings["warning"], fc.Findings["notice"], fc.Checks["error"], fc.Checks["warning"], fc.Checks["notice"])
	if !strings.Contains(text.String(), want) {
		t.Errorf("CLI text lacks %q:\n%s", want, text.String())
	}

	var html bytes.Buffer
	if err := crawlreport.WriteHTML(&html, rep); err != nil {
		t.Fatal(err)
	}
	for sev, label := range map[string]string{"error": "Errors", "warning": "Warnings", "notice": "Notices"} {
		re := regexp.MustCompile(`<div class="num">(\d+)</div><div class="lbl">` + label + ` \((\d+) checks\)`)
		m := re.FindStringSubmatch(html.String())
		if m == nil || m[1] != fmt.Sprint(fc.Findings[sev]) || m[2] != fmt.Sprint(fc.Checks[sev]) {
			t.Errorf("HTML %s tile %v, want %d findings of %d checks", label, m, fc.Findings[sev], fc.Checks[sev])
		}
	}

	// Only the scored pages make the mean; a 404 has no score.
	var scores []int
	broken := 0
	for _, p := range j.Pages {
		switch {
		case p.Status == 404:
			broken++
			if p.Score != nil || p.ScoreReason != "error_status" {
				t.Errorf("%s: 404 with score %v reason %q, want none, error_status", p.URL, p.Score, p.ScoreReason)
			}
		case p.Score != nil:
			scores = append(scores, *p.Score)
		}
		if p.Depth != nil && *p.Depth < 0 {
			t.Errorf("%s: depth %d", p.URL, *p.Depth)
		}
		if strings.HasSuffix(p.URL, "/a/12") && p.Depth != nil {
			t.Errorf("sitemap-only %s at depth %d, want null", p.URL, *p.Depth)
		}
		if strings.HasSuffix(p.URL, "/a/4") {
			t.Errorf("robots-blocked %s reported as a page", p.URL)
		}
	}
	if broken != 2 {
		t.Errorf("%d pages answered 404, want 2", broken)
	}
	if got := seo.SiteScore(scores, rep.SiteFindings).Value; got != j.Score.Value {
		t.Errorf("site score %d, want %d from the %d scored pages", j.Score.Value, got, len(scores))
	}
	if len(j.NotFetched) != 1 || !strings.HasSuffix(j.NotFetched[0].URL, "/a/4") || j.NotFetched[0].Reason != "robots_blocked" {
		t.Errorf("notFetched %+v, want /a/4 robots_blocked", j.NotFetched)
	}
	if !strings.Contains(text.String(), "Not fetched   1 (") || !strings.Contains(html.String(), "URLs not fetched") {
		t.Errorf("CLI or HTML does not list the URL not fetched:\n%s", text.String())
	}
}
