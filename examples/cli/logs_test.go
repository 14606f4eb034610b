package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/logs"
)

// logsCrawl writes the site report of a crawl of the logged site, as
// `cli crawl -json` does, and returns its path.
func logsCrawl(t *testing.T) string {
	t.Helper()
	page := func(u string, status int, indexable bool) crawler.PageSummary {
		return crawler.PageSummary{URL: "https://www.example.com" + u, Status: status, Indexable: indexable}
	}
	rep := &crawler.SiteReport{Pages: []crawler.PageSummary{page("/", 200, true), page("/old", 301, false), page("/private/a", 200, true), page("/never", 200, true)}}
	var buf bytes.Buffer
	if err := writeJSON(&buf, rep); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "crawl.json")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLogsCommand runs `cli logs` on a combined log with verified and
// spoofed bots, the site's robots.txt, local range files and a crawl
// report, and checks the JSON and text reports' counts.
func TestLogsCommand(t *testing.T) {
	crawl := logsCrawl(t)
	args := []string{"logs", "testdata/logs/access.log", "-crawl", crawl, "-robots", "testdata/logs/robots.txt", "-ranges", "testdata/logs/ranges", "-quiet"}
	var out, errOut bytes.Buffer
	if err := run(context.Background(), append(args, "-json"), &out, &errOut); err != nil {
		t.Fatalf("%v: %s", err, errOut.String())
	}
	var rep logs.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Requests != 7 || rep.Totals.BotHits != 6 || rep.Totals.VerifiedHits != 4 || rep.Totals.SpoofedHits != 1 || rep.Totals.UnverifiableHits != 1 {
		t.Errorf("requests %d, totals %+v", rep.Requests, rep.Totals)
	}
	bots := map[string][3]int64{}
	for _, b := range rep.Bots {
		bots[b.Bot.Token] = [3]int64{b.Verified, b.Spoofed, b.Unverifiable}
	}
	if bots["GPTBot"] != [3]int64{2, 1, 0} || bots["Googlebot"] != [3]int64{2, 0, 0} || bots["ClaudeBot"] != [3]int64{0, 0, 1} {
		t.Errorf("bots verified/spoofed/unverifiable = %v", bots)
	}
	j := rep.Join
	if j == nil || j.CrawlPages != 4 || j.Orphans.URLs != 1 || j.Orphans.Sample[0].URL != "/orphan" ||
		j.Redirecting.Hits != 1 || j.NeverFetched.URLs != 2 || len(j.Disallowed) != 1 || j.Disallowed[0].Hits != 2 {
		t.Errorf("join = %+v", j)
	}
	ids := map[string]bool{}
	for _, f := range rep.Findings {
		ids[f.ID] = true
	}
	for _, id := range []string{"logs.spoofed_bot", "logs.ai_bot_ignores_robots", "logs.orphan_urls", "logs.indexable_not_crawled"} {
		if !ids[id] {
			t.Errorf("no %s finding in %v", id, ids)
		}
	}

	out.Reset()
	if err := run(context.Background(), append(args, "-csv"), &out, &errOut); err != nil {
		t.Fatal(err)
	}
	csvWant := "url,hits,search,ai_search,ai_training,user_fetcher,seo_tool,other_bot,2xx,3xx,4xx,5xx,last_status,statuses,last_crawl\n" +
		"/private/a,2,0,0,2,0,0,0,2,0,0,0,200,200,GPTBot=2026-11-01T10:00:30Z\n"
	if !strings.HasPrefix(out.String(), csvWant) || strings.Count(out.String(), "\n") != 5 {
		t.Errorf("CSV:\n%s\nwant it to start with\n%s", out.String(), csvWant)
	}

	// -html writes the page with its charts and the join next to the
	// usual output.
	htmlFile := filepath.Join(t.TempDir(), "logs.html")
	out.Reset()
	if err := run(context.Background(), append(args, "-html", htmlFile), &out, &errOut); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(htmlFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"<!doctype html>", `aria-label="Bot hits per day"`, "<td>GPTBot</td>", "Orphan URLs: fetched by bots, not found by the crawl: 1 URLs, 1 hits", `id="join-disallowed"`} {
		if !strings.Contains(string(page), s) {
			t.Errorf("HTML report lacks %q", s)
		}
	}
	if !strings.Contains(out.String(), "GPTBot") {
		t.Error("-html left out the text report")
	}

	out.Reset()
	if err := run(context.Background(), args, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"GPTBot", "spoofed from 198.51.100.7 (1 hits): outside OpenAI's published ranges for GPTBot",
		"orphan URLs (fetched by bots, not found by the crawl): 1 URLs, 1 hits", "robots.txt says / bot did: 1 bots fetched disallowed URLs",
		"/private/a (2): line 2: Disallow: /private/", "logs.ai_bot_ignores_robots"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("text report lacks %q:\n%s", s, out.String())
		}
	}
}

// TestLogsRobotsURL fetches robots.txt from a local server with
// -allow-private (the safe fetcher refuses loopback without it).
func TestLogsRobotsURL(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte("User-agent: GPTBot\nDisallow: /private/\n"))
	}))
	defer srv.Close()
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"logs", "-json", "-quiet", "-verify=false", "-allow-private", "-crawl", logsCrawl(t),
		"-robots", srv.URL + "/robots.txt", "testdata/logs/access.log"}, &out, &errOut)
	if err != nil {
		t.Fatalf("%v: %s", err, errOut.String())
	}
	var rep logs.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	// Verification off: the spoofed GPTBot hit on / counts too, and / is allowed.
	if rep.Join == nil || len(rep.Join.Disallowed) != 1 || rep.Join.Disallowed[0].Token != "GPTBot" || rep.Join.Disallowed[0].Hits != 2 {
		t.Fatalf("join %+v", rep.Join)
	}
}

// TestLogsGzipAndErrors reads a gzipped log with verification off, and
// checks the usage errors.
func TestLogsGzipAndErrors(t *testing.T) {
	raw, err := os.ReadFile("testdata/logs/access.log")
	if err != nil {
		t.Fatal(err)
	}
	gz := filepath.Join(t.TempDir(), "access.log.gz")
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write(raw)
	_ = zw.Close()
	if err := os.WriteFile(gz, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"logs", "-verify=false", "-json", "-format", "combined", gz}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	var rep logs.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Requests != 7 || rep.Totals.UnverifiableHits != 6 || rep.Verification.Enabled || rep.Join != nil {
		t.Errorf("gzip log: requests %d, totals %+v, verification %+v", rep.Requests, rep.Totals, rep.Verification)
	}

	cases := []struct {
		name string
		args []string
		msg  string
	}{
		{"no file", []string{"logs"}, "one or more log files"},
		{"bad format", []string{"logs", "-input-format", "csv", "x.log"}, `-input-format "csv"`},
		{"bad output format", []string{"logs", "-format", "xml", "x.log"}, `-format must be text, json, csv`},
		{"json and csv", []string{"logs", "-json", "-csv", "x.log"}, "cannot be combined"},
		{"nginx without a format", []string{"logs", "-format", "nginx", "x.log"}, "needs -log-format"},
		{"negative top", []string{"logs", "-top", "-1", "x.log"}, "must not be negative"},
		{"bad log format", []string{"logs", "-log-format", "no variables", "x.log"}, "-log-format"},
		{"bad field map", []string{"logs", "-fields", "when=t", "x.log"}, "-fields"},
		{"missing crawl", []string{"logs", "-crawl", "nope.json", "testdata/logs/access.log"}, "-crawl"},
		{"unreadable log", []string{"logs", "-verify=false", "testdata/logs/nope.log"}, "no log could be read"},
		{"robots.txt on loopback", []string{"logs", "-robots", "http://127.0.0.1:9/robots.txt", "testdata/logs/access.log"}, "is not allowed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(context.Background(), c.args, &out, &errOut)
			if exitCode(err) != 2 || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("err %v (exit %d), want exit 2 with %q", err, exitCode(err), c.msg)
			}
		})
	}
	var help bytes.Buffer
	if err := run(context.Background(), []string{"logs", "-h"}, &bytes.Buffer{}, &help); !errors.Is(err, flag.ErrHelp) || !strings.Contains(help.String(), "usage: cli logs") {
		t.Fatalf("-h: %v\n%s", err, help.String())
	}
}
