package crawler_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/seo"
)

// TestExternalRefreshAndRedirectTargets: the external target of a refresh
// (meta or Refresh header) and the external Location of a redirect are
// checked as external links are, within the same checker (one request per
// distinct URL, counted in ExternalChecked), and reported on the
// refreshing page (links.broken_external, as a page analysis with
// CheckLinks reports a refresh target) and on the redirecting URL
// (site.redirect_broken_external). A crawl by several workers sharing a
// frontier reports the same.
func TestExternalRefreshAndRedirectTargets(t *testing.T) {
	var mu sync.Mutex
	asked := map[string]int{} // requests per path of the external host
	ext := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked[r.URL.Path]++
		mu.Unlock()
		if r.URL.Path == "/gone" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte("ok"))
	}))
	defer ext.Close()
	port := ext.Listener.Addr().(*net.TCPAddr).Port
	gone, ok := fmt.Sprintf("http://ext.test:%d/gone", port), fmt.Sprintf("http://ext.test:%d/ok", port)

	cases := []struct {
		name  string
		pages map[string]fixturePage // besides "/", which links to each
		skip  bool                   // SkipExternalLinks
		max   int                    // MaxExternalChecks, 0 for the default
		// want are the findings whose target is on the external host,
		// "ID path".
		want []string
		// checked and unchecked are ExternalChecked and
		// ExternalUnchecked; asked the requests per external path, nil
		// when any paths, as many as checked.
		checked, unchecked int
		asked              map[string]int
	}{
		{name: "meta refresh to a 404", pages: map[string]fixturePage{"/r": {body: fixtureHTML(metaRefresh(gone), "")}},
			want: []string{"links.broken_external /r"}, checked: 1, asked: map[string]int{"/gone": 1}},
		{name: "Refresh header to a 404", pages: map[string]fixturePage{"/r": {body: fixtureHTML("", ""), refresh: "0; url=" + gone}},
			want: []string{"links.broken_external /r"}, checked: 1, asked: map[string]int{"/gone": 1}},
		{name: "refresh to a 200", pages: map[string]fixturePage{"/r": {body: fixtureHTML(metaRefresh(ok), "")}},
			checked: 1, asked: map[string]int{"/ok": 1}},
		{name: "redirect to a 404", pages: map[string]fixturePage{"/go": {location: gone}},
			want: []string{"site.redirect_broken_external /go"}, checked: 1, asked: map[string]int{"/gone": 1}},
		{name: "redirect to a 200", pages: map[string]fixturePage{"/go": {location: ok}},
			checked: 1, asked: map[string]int{"/ok": 1}},
		{name: "SkipExternalLinks", skip: true,
			pages: map[string]fixturePage{"/r": {body: fixtureHTML(metaRefresh(gone), "")}, "/go": {location: gone}, "/l": {body: fixtureHTML("", `<a href="`+gone+`">x</a>`)}}},
		{name: "linked, refreshed to and redirected to: checked once",
			pages: map[string]fixturePage{
				"/r":    {body: fixtureHTML(metaRefresh(gone+"#top"), "")},
				"/l":    {body: fixtureHTML("", `<a href="`+gone+`">x</a>`)},
				"/go":   {location: gone},
				"/both": {body: fixtureHTML(metaRefresh(gone), `<a href="`+gone+`">x</a>`)},
			},
			want:    []string{"links.broken_external /both", "links.broken_external /l", "links.broken_external /r", "site.redirect_broken_external /go"},
			checked: 1, asked: map[string]int{"/gone": 1}},
		{name: "one MaxExternalChecks for links, refresh and redirect targets", max: 1,
			pages:   map[string]fixturePage{"/l": {body: fixtureHTML("", `<a href="`+ok+`?l">x</a>`)}, "/r": {body: fixtureHTML(metaRefresh(ok+"?r"), "")}, "/go": {location: ok + "?go"}},
			checked: 1, unchecked: 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			site := newFixtureSite(t, tc.pages, sorted(keys(tc.pages)), "")
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			opts := func(o crawler.Options) *crawler.Options {
				o.Fetcher = seo.NewFetcher(&seo.FetcherOptions{AllowPrivate: true, Resolver: &countingResolver{n: map[string]int{}}})
				o.SkipExternalLinks = tc.skip
				o.MaxExternalChecks = tc.max
				return testOptions(o)
			}
			found := func(rep *crawler.SiteReport) []string {
				var out []string
				for _, f := range rep.LinkFindings {
					if len(f.Evidence.URLs) > 0 && strings.Contains(f.Evidence.URLs[0], "ext.test") {
						out = append(out, f.ID+" "+strings.TrimPrefix(f.URL, site.URL))
					}
				}
				slices.Sort(out)
				return out
			}
			askedNow := func() map[string]int {
				mu.Lock()
				defer mu.Unlock()
				m := asked
				asked = map[string]int{}
				return m
			}

			askedOK := func(got map[string]int) bool {
				if tc.asked != nil {
					return equalCounts(got, tc.asked)
				}
				n := 0
				for _, v := range got {
					n += v
				}
				return n == tc.checked
			}
			askedNow()
			single, err := crawler.New(opts(crawler.Options{})).Run(ctx, site.URL)
			if err != nil {
				t.Fatal(err)
			}
			if got := found(single); !slices.Equal(got, tc.want) {
				t.Errorf("findings about the external host %q, want %q", got, tc.want)
			}
			// The IDs join the pages' findings too, which the page
			// table (CSV) and the finding groups show.
			pages := pagesByPath(t, site.URL, single)
			for _, w := range tc.want {
				id, path, _ := strings.Cut(w, " ")
				if !slices.Contains(pages[path].Findings, id) {
					t.Errorf("page %s: findings %v, want %s among them", path, pages[path].Findings, id)
				}
			}
			if single.ExternalChecked != tc.checked || single.ExternalUnchecked != tc.unchecked {
				t.Errorf("external checked %d, unchecked %d; want %d, %d", single.ExternalChecked, single.ExternalUnchecked, tc.checked, tc.unchecked)
			}
			if got := askedNow(); !askedOK(got) {
				t.Errorf("requests to the external host %v, want %v (%d in all)", got, tc.asked, tc.checked)
			}
			for _, f := range single.LinkFindings {
				if strings.HasSuffix(f.URL, "/r") && f.Evidence.Element != `<meta http-equiv="refresh"> or Refresh header` {
					t.Errorf("%s on %s: element %q, want the refresh's", f.ID, f.URL, f.Evidence.Element)
				}
			}

			// A coordinator and a worker sharing a frontier: the targets
			// travel with the pages' edges to the coordinator's checker.
			reps := runShared(t, ctx, 2, site.URL, opts)
			if got := found(reps[0]); !slices.Equal(got, tc.want) {
				t.Errorf("shared crawl: findings about the external host %q, want %q", got, tc.want)
			}
			if reps[0].ExternalChecked != tc.checked || reps[0].ExternalUnchecked != tc.unchecked {
				t.Errorf("shared crawl: external checked %d, unchecked %d; want %d, %d", reps[0].ExternalChecked, reps[0].ExternalUnchecked, tc.checked, tc.unchecked)
			}
			if got := askedNow(); !askedOK(got) {
				t.Errorf("shared crawl: requests to the external host %v, want %v (%d in all)", got, tc.asked, tc.checked)
			}
		})
	}
}

// keys returns the keys of m.
func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// equalCounts reports whether a and b hold the same non-zero counts.
func equalCounts(a, b map[string]int) bool {
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	for k, v := range b {
		if a[k] != v {
			return false
		}
	}
	return true
}
