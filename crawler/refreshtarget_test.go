package crawler_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
)

// TestInScopeRefreshTargetJudged: the in-scope target of a meta refresh or
// Refresh header, crawled as a redirect's, is judged on the refreshing
// page as a link, the verdict a page analysis with CheckLinks gives it
// (links.broken_internal, links.redirect_internal), once when the page
// also links to it; a target the crawl did not fetch (robots.txt, Scope)
// is no finding; the refresh is no inlink. A crawl by a coordinator and a
// worker sharing a frontier reports the same.
func TestInScopeRefreshTargetJudged(t *testing.T) {
	pages := map[string]fixturePage{
		"/r404":      {body: fixtureHTML(metaRefresh("/gone"), "")},
		"/r200":      {body: fixtureHTML("", ""), refresh: "0; url=/fine"},
		"/rmoved":    {body: fixtureHTML(metaRefresh("/moved"), "")},
		"/rblocked":  {body: fixtureHTML(metaRefresh("/private/x"), "")},
		"/rexcluded": {body: fixtureHTML(metaRefresh("/excluded"), "")},
		"/both":      {body: fixtureHTML(metaRefresh("/gone2"), `<a href="/gone2">gone</a>`)},
		"/moved":     {location: "/fine"},
		"/fine":      {body: fixtureHTML("", "")},
		"/private/x": {body: fixtureHTML("", "")},
	}
	// The refreshing pages, linked from "/".
	refreshing := []string{"/r404", "/r200", "/rmoved", "/rblocked", "/rexcluded", "/both"}
	site := newFixtureSite(t, pages, refreshing, "User-agent: *\nDisallow: /private/\n")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// "ID page target element"; the element of /both's finding is its
	// link's, as a page analysis names it.
	want := []string{
		"links.broken_internal /both /gone2 <a href>",
		"links.broken_internal /r404 /gone " + `<meta http-equiv="refresh"> or Refresh header`,
		"links.redirect_internal /rmoved /moved " + `<meta http-equiv="refresh"> or Refresh header`,
	}
	found := func(rep *crawler.SiteReport) []string {
		var out []string
		for _, f := range rep.LinkFindings {
			el := f.Evidence.Element
			if strings.HasPrefix(el, "<a ") {
				el = "<a href>"
			}
			out = append(out, f.ID+" "+strings.TrimPrefix(f.URL, site.URL)+" "+strings.TrimPrefix(f.Evidence.URLs[0], site.URL)+" "+el)
		}
		slices.Sort(out)
		return out
	}
	// judged says id is a verdict on an internal link target.
	judged := func(id string) bool {
		return id == "links.broken_internal" || id == "links.redirect_internal"
	}
	opts := func(o crawler.Options) *crawler.Options {
		o.SkipExternalLinks = true
		o.Scope.Exclude = []string{"/excluded$"}
		return testOptions(o)
	}

	rep, err := crawler.New(opts(crawler.Options{})).Run(ctx, site.URL)
	if err != nil {
		t.Fatal(err)
	}
	if got := found(rep); !slices.Equal(got, want) {
		t.Errorf("link findings\n%q\nwant\n%q", got, want)
	}
	got := pagesByPath(t, site.URL, rep)
	for path, id := range map[string]string{"/r404": "links.broken_internal", "/rmoved": "links.redirect_internal", "/both": "links.broken_internal"} {
		if !slices.Contains(got[path].Findings, id) {
			t.Errorf("page %s: findings %v, want %s among them", path, got[path].Findings, id)
		}
	}
	for _, path := range []string{"/r200", "/rblocked", "/rexcluded"} {
		for _, id := range got[path].Findings {
			if judged(id) {
				t.Errorf("page %s: finding %s, want none", path, id)
			}
		}
	}
	// The target was crawled, though no link leads to it: the refresh is
	// no inlink.
	if p, ok := got["/gone"]; !ok || p.Status != http.StatusNotFound || p.Inlinks != 0 {
		t.Errorf("/gone: crawled %v, status %d, %d inlinks; want crawled, 404, 0 inlinks", ok, p.Status, p.Inlinks)
	}
	if n, m := site.requests("/excluded"), site.requests("/private/x"); n != 0 || m != 0 {
		t.Errorf("requests to /excluded %d, to /private/x %d; want none", n, m)
	}

	// A page analysis with CheckLinks gives the pages the crawl judged
	// the same link findings.
	for _, path := range []string{"/r404", "/r200", "/rmoved", "/both"} {
		a, err := analyzer.Analyze(ctx, site.URL+path, &analyzer.Options{CheckLinks: true, AllowPrivate: true})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, f := range a.Findings {
			if judged(f.ID) {
				ids = append(ids, f.ID)
			}
		}
		var crawled []string
		for _, id := range got[path].Findings {
			if judged(id) {
				crawled = append(crawled, id)
			}
		}
		if slices.Sort(ids); !slices.Equal(ids, crawled) {
			t.Errorf("%s: page analysis reports %q, the crawl %q", path, ids, crawled)
		}
	}

	// A coordinator and a worker sharing a frontier: the refresh target
	// travels with the page's edges.
	reps := runShared(t, ctx, 2, site.URL, opts)
	if got := found(reps[0]); !slices.Equal(got, want) {
		t.Errorf("shared crawl: link findings\n%q\nwant\n%q", got, want)
	}
	if p := pagesByPath(t, site.URL, reps[0])["/gone"]; p.Inlinks != 0 {
		t.Errorf("shared crawl: /gone has %d inlinks, want 0", p.Inlinks)
	}
}
