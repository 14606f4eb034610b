package dashboard_test

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlreport"
	"github.com/seokit/seokit/internal/racetest"
	"github.com/seokit/seokit/seo"
)

// largeReport is a synthetic report of n pages with long URLs and hostile
// titles, the shape of a big crawl.
func largeReport(n int) *crawler.SiteReport {
	rep := &crawler.SiteReport{
		Domain: "big-shop.example", StartURL: "https://big-shop.example/",
		StartedAt: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC), FinishedAt: time.Date(2026, 3, 1, 10, 12, 0, 0, time.UTC),
		StatusCodes: map[int]int{}, Graph: crawler.GraphStats{OrphanCheck: crawler.OrphanCheckDone},
		Crawl: crawler.CrawlStats{Fetched: n, StopReason: "done", DepthHistogram: make([]int, 8)},
		Score: &seo.Score{Value: 71},
	}
	ids := []struct {
		id  string
		sev seo.Severity
		msg string
	}{
		{"links.broken_internal", seo.Error, "An internal link target answers 4xx/5xx or cannot be fetched."},
		{"title.too_long", seo.Warning, "The title is longer than 60 characters."},
		{"description.missing", seo.Warning, "The page has no meta description."},
		{"images.alt_missing", seo.Warning, "Images without an alt attribute."},
		{"site.deep_page", seo.Notice, "The page is more than 4 clicks away from the start URL."},
		{"headings.h1_missing", seo.Warning, "The page has no H1."},
	}
	count := map[string]int{}
	for i := range n {
		u := fmt.Sprintf("https://big-shop.example/catalogue/category-%d/sub-category-%d/product-%d-with-a-very-long-descriptive-slug?utm_campaign=spring&ref=%030d", i%40, i%400, i, i)
		status := 200
		switch {
		case i%97 == 0:
			status = 404
		case i%151 == 0:
			status = 301
		}
		title := fmt.Sprintf("Product %d – a long page title that goes on and on to show how titles wrap in the table", i)
		if i%50 == 0 {
			title = fmt.Sprintf("</script><script>document.title='pwned';alert(%d)</script><!--", i)
		}
		depth, score := i%8, 40+i%61
		p := crawler.PageSummary{URL: u, Status: status, Depth: &depth, Title: title, WordCount: 200 + i%900,
			Inlinks: i % 30, LinkScore: float64(i%1000) / 10, Score: &score}
		if i%333 == 0 {
			p.Depth = nil // a sitemap-only URL
		}
		if status >= 300 {
			p.Score, p.ScoreReason = nil, "error_status"
			if status < 400 {
				p.ScoreReason = "redirect"
			}
		}
		for k, f := range ids {
			if (i+k)%(k+2) == 0 {
				p.Findings = append(p.Findings, f.id)
				count[f.id]++
				switch f.sev {
				case seo.Error:
					p.Errors++
				case seo.Warning:
					p.Warnings++
				default:
					p.Notices++
				}
			}
		}
		// The template issue below: every page has it, as analyses report it.
		p.Findings = append(p.Findings, "security.csp_missing")
		p.Notices++
		rep.StatusCodes[status]++
		rep.Crawl.DepthHistogram[i%8]++
		rep.Pages = append(rep.Pages, p)
		if i%10 == 0 {
			rep.LinkFindings = append(rep.LinkFindings, seo.Finding{ID: "links.broken_internal", Severity: seo.Error,
				Message: "the internal link to " + u + "x is broken (status 404)", URL: u,
				Evidence: seo.Evidence{Element: "<a href>", Value: u + "x", Detail: "status 404", URLs: []string{u + "x"}}})
		}
	}
	for _, f := range ids {
		var ex []string
		for _, p := range rep.Pages[:200] {
			if len(ex) < 5 && strings.Contains(strings.Join(p.Findings, " "), f.id) {
				ex = append(ex, p.URL)
			}
		}
		rep.Findings = append(rep.Findings, crawler.FindingGroup{ID: f.id, Severity: f.sev, Scope: seo.ScopePage,
			Count: count[f.id], Pages: count[f.id], Message: f.msg, Examples: ex,
			Priority: seo.Priority(f.sev, seo.SiteReach(count[f.id], n), false)})
	}
	// A template issue: every page lacks a Content-Security-Policy.
	rep.Findings = append(rep.Findings, crawler.FindingGroup{ID: "security.csp_missing", Severity: seo.Notice, Scope: seo.ScopePage,
		Count: n, Pages: n, Message: "No Content-Security-Policy restricts what the page may load.", Template: true,
		Examples: []string{rep.Pages[0].URL}, Priority: seo.Priority(seo.Notice, 1, true)})
	slices.SortStableFunc(rep.Findings, func(a, b crawler.FindingGroup) int { return cmp.Compare(b.Priority, a.Priority) })
	rep.FindingCounts = crawler.CountFindings(rep.Findings)
	rep.Score.Counts = rep.FindingCounts.Checks
	for i := range 40 {
		depth := 3
		rep.NotFetched = append(rep.NotFetched, crawler.NotFetchedURL{
			URL: fmt.Sprintf("https://big-shop.example/account/orders-%d?session=%030d", i, i), Reason: "robots_blocked",
			Depth: &depth, FoundOn: rep.Pages[i].URL})
	}
	return rep
}

// largePageReport analyses a page with n links whose URLs are long and
// whose anchor texts and title are hostile, the shape of a big page.
func largePageReport(t *testing.T, n int) *analyzer.Report {
	t.Helper()
	var page strings.Builder
	page.WriteString(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>&lt;/script&gt;&lt;script&gt;document.title='pwned'&lt;/script&gt; Big catalogue page</title></head><body><h1>Catalogue</h1>`)
	for i := range n {
		text := fmt.Sprintf("Product %d with a long descriptive anchor text", i)
		switch {
		case i%50 == 0:
			text = "&lt;/script&gt;&lt;script&gt;document.title='pwned'&lt;/script&gt;"
		case i%7 == 0:
			text = "click here"
		}
		fmt.Fprintf(&page, `<a href="https://big-shop.example/catalogue/category-%d/sub-category-%d/product-%d-with-a-very-long-descriptive-slug?utm_campaign=spring&amp;ref=%030d">%s</a> `, i%40, i%400, i, i, text)
		if i%10 == 0 {
			fmt.Fprintf(&page, `<img src="/images/product-%d-in-a-very-long-file-name-that-goes-on-and-on.jpg">`, i)
		}
	}
	page.WriteString(`</body></html>`)
	rep, err := analyzer.AnalyzeHTML(context.Background(), "https://big-shop.example/catalogue/?page=1&sort=price-ascending&utm_source=newsletter",
		http.Header{"Content-Type": {"text/html; charset=utf-8"}}, []byte(page.String()), &analyzer.Options{Depth: analyzer.Complete})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestLargeReportInBrowser loads the HTML site report and the dashboard's
// analysis view of a 10,000-page report (1,000 under -race), and the HTML page report of a page
// with 1,000 links, in headless Chromium, 1280 and 390 px wide: nothing
// scrolls sideways, the URL column is at least 240 px wide at both widths, the
// section navigation is there, the first contentful paint (the best of 3 loads, so a
// busy machine does not fail it) comes within 2 s, the tables page, sort
// and filter, and crawled script does not run. With
// SEOKIT_UPDATE_SCREENSHOTS=1 it saves the screenshots in docs/
// (site-report-1280.png, site-report-390.png, dashboard-analysis-1280.png,
// dashboard-analysis-390.png, page-report-1280.png, page-report-390.png).
func TestLargeReportInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser: skipped in -short mode")
	}
	pages := 10_000
	if racetest.Enabled {
		// The report's size feeds the paint time; the race detector
		// slows the server's decode of every view several times over.
		// .ci/run runs the 10,000-page report without -race.
		pages = 1000
		t.Logf("under -race the report has %d pages (go test ./httpapi/dashboard -run '^TestLargeReportInBrowser$' runs 10,000)", pages)
	}
	ctx := browser(t)
	e := newEnv(t, nil)
	rep := largeReport(pages)
	var html bytes.Buffer
	if err := crawlreport.WriteHTML(&html, rep); err != nil {
		t.Fatal(err)
	}
	t.Logf("HTML site report of %d pages: %d bytes", len(rep.Pages), html.Len())
	pageRep := largePageReport(t, 1000)
	var pageHTML bytes.Buffer
	if err := pageRep.WriteHTML(&pageHTML); err != nil {
		t.Fatal(err)
	}
	t.Logf("HTML page report of %d links: %d bytes", len(pageRep.Links.List), pageHTML.Len())
	j := storeReport(t, e, e.acct.ID, rep)

	// Sign the browser in through the login form.
	run := func(name string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		if err := chromedp.Do(sctx, actions...); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	run("sign in", chromedp.Navigate(e.srv.URL+"/dashboard/login"), chromedp.WaitVisible(chromedp.CSS("#email")),
		chromedp.SendKeys(chromedp.CSS("#email"), testEmail), chromedp.SendKeys(chromedp.CSS("#password"), testPassword),
		chromedp.Click(chromedp.CSS("button.primary")), chromedp.WaitVisible(chromedp.CSS("a.tile")))

	// The dashboard serves the report under its policy, which lets the
	// report's own script run.
	run("report.html", chromedp.Navigate(e.srv.URL+"/dashboard/analyses/"+j.ID+"/report.html"),
		chromedp.WaitVisible(chromedp.CSS("#rt-pages .rt-controls:not([hidden])")))
	// The report file itself, as a static server sends it.
	file := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Path == "/page.html" {
			w.Header().Set("Content-Security-Policy", "sandbox allow-scripts; "+analyzer.HTMLReportPolicy)
			w.Write(pageHTML.Bytes())
			return
		}
		w.Header().Set("Content-Security-Policy", "sandbox allow-scripts; "+crawlreport.HTMLPolicy)
		w.Write(html.Bytes())
	}))
	defer file.Close()

	// table is the table a view is waited for and checked by.
	views := []struct{ name, url, table string }{
		{"site-report", file.URL + "/report.html", "pages"},
		{"dashboard-analysis", e.srv.URL + "/dashboard/analyses/" + j.ID, "pages"},
		{"page-report", file.URL + "/page.html", "links"},
	}
	for _, width := range []int64{1280, 390} {
		for _, v := range views {
			name := fmt.Sprintf("%s-%d", v.name, width)
			t.Run(name, func(t *testing.T) {
				opts := []chromedp.EmulateViewportOption{chromedp.EmulateScale(1)}
				if width < 500 {
					opts = append(opts, chromedp.EmulateMobile)
				}
				eval := func(expr string) float64 {
					t.Helper()
					f, err := chromedp.Run(ctx, chromedp.Evaluate[float64](expr))
					if err != nil {
						t.Fatalf("%s: %v", expr, err)
					}
					return f
				}
				// The first contentful paint is the best of 3 loads, each
				// logged. The dashboard decodes the stored report on every
				// view; that server time is logged, and the browser's part
				// is held to 2 s.
				const loads = 3
				bestFCP, bestAfter := -1.0, -1.0
				for i := range loads {
					run("open "+name, chromedp.EmulateViewport(width, 1800, opts...), chromedp.Navigate(v.url),
						chromedp.WaitVisible(chromedp.CSS("#rt-"+v.table+" .rt-controls:not([hidden])")))
					// The table can be visible before the browser has
					// painted it: wait up to 10 s for the paint entry.
					fcp, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`new Promise(resolve => {
						new PerformanceObserver(list => {
							const e = list.getEntries().find(e => e.name === "first-contentful-paint");
							if (e) resolve(e.startTime);
						}).observe({type: "paint", buffered: true});
						setTimeout(() => resolve(-1), 10000);
					})`, chromedp.EvalAwaitPromise))
					if err != nil {
						t.Fatalf("first contentful paint: %v", err)
					}
					server := eval(`performance.getEntriesByType("navigation")[0].responseStart`)
					t.Logf("%s: load %d of %d: first contentful paint %.0f ms (response began at %.0f ms, %.0f ms after it)", name, i+1, loads, fcp, server, fcp-server)
					if fcp >= 0 && (bestFCP < 0 || fcp < bestFCP) {
						bestFCP = fcp
					}
					if fcp >= 0 && (bestAfter < 0 || fcp-server < bestAfter) {
						bestAfter = fcp - server
					}
				}
				if bestFCP < 0 || bestAfter > 2000 {
					t.Errorf("first contentful paint, best of %d loads: %v ms after the response began, want under 2000", loads, bestAfter)
				}
				if v.name != "dashboard-analysis" && bestFCP > 2000 {
					t.Errorf("%s: first contentful paint, best of %d loads: %v ms, want under 2000", v.name, loads, bestFCP)
				}
				scroll, inner := eval(`document.scrollingElement.scrollWidth`), eval(`window.innerWidth`)
				if scroll > inner {
					t.Errorf("scrolls sideways: scrollWidth %v > innerWidth %v", scroll, inner)
				}
				// The URL column keeps its width (ellipsed at 1280, the full
				// URL on hover; on a phone the card's width, wrapped), measured
				// on the first row's cell, since on a phone the header row is
				// a row of sort buttons; the section navigation is there.
				urlW := eval(`document.querySelector("#rt-` + v.table + ` tbody td.k-url").getBoundingClientRect().width`)
				toc := eval(`document.querySelectorAll("nav.toc a").length`)
				t.Logf("%s: URL column %.0f px, %.0f section links", name, urlW, toc)
				if urlW < 240 {
					t.Errorf("URL column %.0f px wide, want at least 240", urlW)
				}
				if toc < 3 {
					t.Errorf("section navigation has %.0f links", toc)
				}
				height := eval(`document.scrollingElement.scrollHeight`)
				rows := eval(`document.querySelectorAll("#rt-` + v.table + ` tbody tr").length`)
				t.Logf("%s: scrollWidth %v, innerWidth %v, best first contentful paint %.0f ms (%.0f ms after the response began), height %v px, %v %s rows shown", name, scroll, inner, bestFCP, bestAfter, height, rows, v.table)
				if title, _ := chromedp.Run(ctx, chromedp.Title()); title == "pwned" {
					t.Fatal("crawled script ran")
				}
				// A URL cell holds the whole URL, ellipsed, with it in its title.
				if eval(`(() => { const c = document.querySelector("#rt-`+v.table+` td.k-url"); return c.textContent === c.title && c.textContent.length > 100 ? 1 : 0 })()`) != 1 {
					t.Error("URL cell does not hold the full URL")
				}
				pageScreenshot(t, ctx, v.name, width)
				if width != 1280 {
					return
				}
				if v.table != "pages" {
					// The page report's links table pages on.
					run("next page", chromedp.Click(chromedp.CSS("#rt-links .rt-next")))
					s, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#rt-links .rt-count")))
					if !strings.HasPrefix(s, "51–100 of 1000") {
						t.Errorf("links after next page: count %q", s)
					}
					return
				}
				// Filter by finding ID, sort by status, page on.
				count := func() string {
					s, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#rt-pages .rt-count")))
					return s
				}
				run("filter", chromedp.SetValue(chromedp.CSS("#rt-pages .rt-id"), "links.broken_internal"),
					chromedp.Evaluate[chromedp.Void](`document.querySelector("#rt-pages .rt-id").dispatchEvent(new Event("change"))`))
				if got, want := count(), fmt.Sprintf("of %d (filtered from %d)", pages/2, pages); !strings.HasSuffix(got, want) {
					t.Errorf("after filtering by ID: count %q, want one ending %q", got, want)
				}
				run("sort", chromedp.Click(chromedp.CSS(`#rt-pages th[data-key="status"] button`)))
				if got := eval(`+document.querySelector("#rt-pages tbody tr td.k-num").textContent`); got != 404 {
					t.Errorf("sorted by status (descending first): first row status %v, want 404", got)
				}
				run("next page", chromedp.Click(chromedp.CSS("#rt-pages .rt-next")))
				if got := count(); !strings.HasPrefix(got, "101–200 of") {
					t.Errorf("after next page: count %q", got)
				}
			})
		}
	}
}

// pageScreenshot saves a screenshot of the window (its first 1800 px) as name-width.png in the test's
// artefacts, and in docs/ with SEOKIT_UPDATE_SCREENSHOTS=1.
func pageScreenshot(t *testing.T, ctx context.Context, name string, width int64) {
	t.Helper()
	buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	file := fmt.Sprintf("%s-%d.png", name, width)
	if err := os.WriteFile(filepath.Join(artefacts(t), file), buf, 0o644); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("SEOKIT_UPDATE_SCREENSHOTS") == "1" {
		if err := os.WriteFile(filepath.Join("..", "..", "docs", file), buf, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
