package crawler

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/internal/racetest"
	"github.com/seokit/seokit/seo"
)

const siteOrigin = "https://example.com"

// pg returns an indexable 200 HTML page at path with a unique title,
// description, H1 and text fingerprint, changed by mods.
func pg(path string, mods ...func(*PageSummary)) PageSummary {
	h := uint64(len(path))*0x9E3779B97F4A7C15 ^ uint64(path[len(path)-1])<<7
	for _, c := range path {
		h = (h ^ uint64(c)) * 1099511628211
	}
	p := PageSummary{
		URL: siteOrigin + path, Status: 200, Depth: ptr(1), IsHTML: true, Indexable: true,
		Title: "Title " + path, Description: "Description " + path, H1: "Heading " + path,
		TextHash: h, SimHash: h * 0xBF58476D1CE4E5B9, Score: ptr(90),
	}
	for _, m := range mods {
		m(&p)
	}
	return p
}

func link(from, to string) Edge { return Edge{From: siteOrigin + from, To: siteOrigin + to} }

// deepSite is a site with the page at path at depth, reached through
// chain.
func deepSite(path string, depth int) testSite {
	pages, edges := chain(path, depth)
	pages = append(pages, pg(path, func(p *PageSummary) { p.Depth = ptr(depth) }))
	return testSite{pages: pages, edges: edges, linked: []string{"/chain1"}}
}

// chain returns the pages /chain1 ... /chain<depth-1> at depths 1 to
// depth-1 and the links from each to the next, the last to to: linked
// from the home page, /chain1 puts to at depth, as a crawl would find it
// (the report gives every page the fewest links from the home page).
func chain(to string, depth int) ([]PageSummary, []Edge) {
	var pages []PageSummary
	var edges []Edge
	for d := 1; d < depth; d++ {
		path := fmt.Sprintf("/chain%d", d)
		pages = append(pages, pg(path, func(p *PageSummary) { p.Depth = ptr(d) }))
		next := to
		if d+1 < depth {
			next = fmt.Sprintf("/chain%d", d+1)
		}
		edges = append(edges, link(path, next))
	}
	return pages, edges
}
func nofollow(from, to string) Edge {
	return Edge{From: siteOrigin + from, To: siteOrigin + to, Nofollow: true}
}

// testSite is a crawl to feed a siteBuilder. The home page "/" is added
// with followed links to every path in linked.
type testSite struct {
	pages         []PageSummary
	edges         []Edge
	linked        []string
	sitemap       []string // paths
	foreign       []string // absolute sitemap URLs on other hosts
	sitemapExists bool
	ai            *aiFacts // see aiFixture
	external      []extFixture
}

func (s testSite) build(t testing.TB) *SiteReport {
	t.Helper()
	start, _ := url.Parse(siteOrigin + "/")
	return s.buildOn(newSiteBuilder(start, nil))
}

// buildOn feeds s to b and builds the report.
func (s testSite) buildOn(b *siteBuilder) *SiteReport {
	home := pg("/", func(p *PageSummary) { p.Depth = ptr(0) })
	var homeEdges []Edge
	for _, l := range s.linked {
		homeEdges = append(homeEdges, link("/", l))
	}
	b.addPage(home, homeEdges)
	for _, p := range s.pages {
		var es []Edge
		for _, e := range s.edges {
			if e.From == p.URL {
				es = append(es, e)
			}
		}
		b.addPage(p, es)
	}
	if len(s.external) > 0 {
		// The answers as a checker would have them, without requests.
		c := newExtChecker(context.Background(), nil, &Options{MaxExternalChecks: len(s.external)})
		b.link.ext = c
		for _, x := range s.external {
			u, err := url.Parse(x.To)
			kind, ok := targetKindOf(x.As)
			if err != nil || !ok {
				panic(fmt.Sprintf("external target %+v: bad URL or kind", x))
			}
			c.preset(targetKey(u), extResult{done: true, status: x.Status, err: x.Error, down: x.Status == 0})
			b.addExternal(siteOrigin+x.From, c.known([]*url.URL{u}), kind)
		}
	}
	for _, loc := range s.sitemap {
		b.addSitemapURL(siteOrigin+loc, siteOrigin+"/sitemap.xml")
	}
	for _, loc := range s.foreign {
		b.addSitemapURL(loc, siteOrigin+"/sitemap.xml")
	}
	return b.build(&crawlFacts{Domain: "example.com", StartURL: siteOrigin + "/", SitemapExists: s.sitemapExists || len(s.sitemap) > 0, AI: s.ai})
}

// siteFinding returns the site finding id about path ("" matches any URL).
func siteFinding(rep *SiteReport, id, path string) *seo.Finding {
	for i, f := range rep.SiteFindings {
		if f.ID == id && (path == "" || f.URL == siteOrigin+path) {
			return &rep.SiteFindings[i]
		}
	}
	return nil
}

func redirects(hops ...string) []seo.Redirect {
	var out []seo.Redirect
	for i := 0; i+1 < len(hops); i++ {
		out = append(out, seo.Redirect{URL: siteOrigin + hops[i], Status: 301, Location: siteOrigin + hops[i+1]})
	}
	return out
}

func TestSiteChecks(t *testing.T) {
	sameTitle := func(p *PageSummary) { p.Title = "Red  Shoes" }
	canonTo := func(path string) func(*PageSummary) {
		return func(p *PageSummary) { p.Canonical = siteOrigin + path }
	}
	noindex := func(p *PageSummary) { p.Noindex, p.Indexable = true, false }
	alt := func(code, path string) analyzer.Alternate {
		return analyzer.Alternate{Code: code, URL: siteOrigin + path, Source: "html"}
	}
	tests := []struct {
		name string
		site testSite
		id   string
		path string // URL of the expected finding ("" any)
		want bool
		urls []string // paths that must be in Evidence.URLs
	}{
		{
			name: "duplicate titles", id: "site.duplicate_title", path: "/a", want: true, urls: []string{"/a", "/b"},
			site: testSite{pages: []PageSummary{pg("/a", sameTitle), pg("/b", func(p *PageSummary) { p.Title = "red shoes" })}, linked: []string{"/a", "/b"}},
		},
		{
			name: "duplicate titles canonicalised to one URL", id: "site.duplicate_title", want: false,
			site: testSite{pages: []PageSummary{pg("/a", sameTitle), pg("/b", sameTitle, canonTo("/a"))}, linked: []string{"/a", "/b"}},
		},
		{
			name: "duplicate titles on a noindex page", id: "site.duplicate_title", want: false,
			site: testSite{pages: []PageSummary{pg("/a", sameTitle), pg("/b", sameTitle, noindex)}, linked: []string{"/a", "/b"}},
		},
		{
			name: "duplicate descriptions", id: "site.duplicate_description", want: true, urls: []string{"/a", "/b"},
			site: testSite{pages: []PageSummary{pg("/a", func(p *PageSummary) { p.Description = "Same" }), pg("/b", func(p *PageSummary) { p.Description = "same" })}, linked: []string{"/a", "/b"}},
		},
		{
			name: "distinct descriptions", id: "site.duplicate_description", want: false,
			site: testSite{pages: []PageSummary{pg("/a"), pg("/b")}, linked: []string{"/a", "/b"}},
		},
		{
			name: "duplicate h1", id: "site.duplicate_h1", want: true,
			site: testSite{pages: []PageSummary{pg("/a", func(p *PageSummary) { p.H1 = "Welcome" }), pg("/b", func(p *PageSummary) { p.H1 = "Welcome" })}, linked: []string{"/a", "/b"}},
		},
		{
			name: "duplicate h1 on a 404", id: "site.duplicate_h1", want: false,
			site: testSite{pages: []PageSummary{pg("/a", func(p *PageSummary) { p.H1 = "Welcome" }), pg("/b", func(p *PageSummary) { p.H1 = "Welcome"; p.Status = 404; p.Indexable = false })}, linked: []string{"/a", "/b"}},
		},
		{
			name: "duplicate content", id: "site.duplicate_content", want: true, urls: []string{"/a", "/b"},
			site: testSite{pages: []PageSummary{pg("/a", func(p *PageSummary) { p.TextHash = 42 }), pg("/b", func(p *PageSummary) { p.TextHash = 42 })}, linked: []string{"/a", "/b"}},
		},
		{
			name: "empty main text is not duplicate content", id: "site.duplicate_content", want: false,
			site: testSite{pages: []PageSummary{pg("/a", func(p *PageSummary) { p.TextHash = 0 }), pg("/b", func(p *PageSummary) { p.TextHash = 0 })}, linked: []string{"/a", "/b"}},
		},
		{
			name: "near duplicate within 3 bits", id: "site.near_duplicate", want: true, urls: []string{"/a", "/b"},
			site: testSite{pages: []PageSummary{pg("/a", func(p *PageSummary) { p.SimHash = 0xF0F0F0F0F0F0F0F0 }), pg("/b", func(p *PageSummary) { p.SimHash = 0xF0F0F0F0F0F0F0F0 ^ 0b1011 })}, linked: []string{"/a", "/b"}},
		},
		{
			name: "near duplicate from real fingerprints", id: "site.near_duplicate", want: true, urls: []string{"/a", "/b"},
			site: testSite{pages: []PageSummary{
				pg("/a", func(p *PageSummary) {
					fp := analyzer.FingerprintText(longText(0))
					p.TextHash, p.SimHash = fp.TextHash, fp.SimHash
				}),
				pg("/b", func(p *PageSummary) {
					fp := analyzer.FingerprintText(longText(1))
					p.TextHash, p.SimHash = fp.TextHash, fp.SimHash
				}),
			}, linked: []string{"/a", "/b"}},
		},
		{
			name: "simhashes 4 bits apart", id: "site.near_duplicate", want: false,
			site: testSite{pages: []PageSummary{pg("/a", func(p *PageSummary) { p.SimHash = 0xF0F0F0F0F0F0F0F0 }), pg("/b", func(p *PageSummary) { p.SimHash = 0xF0F0F0F0F0F0F0F0 ^ 0x1000100010001 })}, linked: []string{"/a", "/b"}},
		},
		{
			name: "trailing slash duplicate", id: "site.trailing_slash_duplicate", path: "/shop/", want: true,
			site: testSite{pages: []PageSummary{pg("/shop"), pg("/shop/")}, linked: []string{"/shop", "/shop/"}},
		},
		{
			name: "trailing slash variant canonicalised", id: "site.trailing_slash_duplicate", want: false,
			site: testSite{pages: []PageSummary{pg("/shop"), pg("/shop/", canonTo("/shop"))}, linked: []string{"/shop", "/shop/"}},
		},
		{
			name: "orphan sitemap URL", id: "site.orphan", path: "/lonely", want: true, urls: []string{"/sitemap.xml"},
			site: testSite{pages: []PageSummary{pg("/lonely", func(p *PageSummary) { p.Depth = nil })}, sitemap: []string{"/", "/lonely"}},
		},
		{
			name: "foreign sitemap URL is not an orphan", id: "site.orphan", want: false,
			site: testSite{sitemap: []string{"/"}, foreign: []string{"https://other.example/x"}},
		},
		{
			name: "linked sitemap URL", id: "site.orphan", want: false,
			site: testSite{pages: []PageSummary{pg("/a")}, linked: []string{"/a"}, sitemap: []string{"/", "/a"}},
		},
		{
			name: "deep page", id: "site.deep_page", path: "/deep", want: true,
			site: deepSite("/deep", 5),
		},
		{
			name: "page at depth 4", id: "site.deep_page", want: false,
			site: deepSite("/deep", 4),
		},
		{
			name: "linked only from noindex pages", id: "site.noindex_inlinks_only", path: "/t", want: true, urls: []string{"/n"},
			site: testSite{pages: []PageSummary{pg("/n", noindex), pg("/t")}, linked: []string{"/n"}, edges: []Edge{link("/n", "/t")}},
		},
		{
			name: "linked from an indexable page too", id: "site.noindex_inlinks_only", want: false,
			site: testSite{pages: []PageSummary{pg("/n", noindex), pg("/t")}, linked: []string{"/n", "/t"}, edges: []Edge{link("/n", "/t")}},
		},
		{
			name: "only nofollow inlinks", id: "site.nofollow_inlinks_only", path: "/t", want: true, urls: []string{"/a"},
			site: testSite{pages: []PageSummary{pg("/a"), pg("/t")}, linked: []string{"/a"}, edges: []Edge{nofollow("/a", "/t")}},
		},
		{
			name: "one followed inlink", id: "site.nofollow_inlinks_only", want: false,
			site: testSite{pages: []PageSummary{pg("/a"), pg("/t")}, linked: []string{"/a", "/t"}, edges: []Edge{nofollow("/a", "/t")}},
		},
		{
			name: "nofollow link to indexable page", id: "site.nofollow_to_indexable", path: "/t", want: true, urls: []string{"/a"},
			site: testSite{pages: []PageSummary{pg("/a"), pg("/t")}, linked: []string{"/a", "/t"}, edges: []Edge{nofollow("/a", "/t")}},
		},
		{
			name: "nofollow link to noindex page", id: "site.nofollow_to_indexable", want: false,
			site: testSite{pages: []PageSummary{pg("/a"), pg("/t", noindex)}, linked: []string{"/a", "/t"}, edges: []Edge{nofollow("/a", "/t")}},
		},
		{
			name: "linked redirect chain", id: "site.redirect_chain", path: "/old", want: true, urls: []string{"/"},
			site: testSite{pages: []PageSummary{pg("/old", func(p *PageSummary) {
				p.Redirects = redirects("/old", "/mid", "/new")
				p.FinalURL = siteOrigin + "/new"
			})}, linked: []string{"/old"}},
		},
		{
			name: "redirect chain across crawled URLs", id: "site.redirect_chain", path: "/a", want: true,
			site: testSite{pages: []PageSummary{
				pg("/a", func(p *PageSummary) { p.Redirects = redirects("/a", "/b"); p.FinalURL, p.Status = siteOrigin+"/b", 301 }),
				pg("/b", func(p *PageSummary) { p.Redirects = redirects("/b", "/c"); p.FinalURL, p.Status = siteOrigin+"/c", 301 }),
				pg("/c"),
			}, linked: []string{"/a"}},
		},
		{
			name: "unlinked redirect chain", id: "site.redirect_chain", want: false,
			site: testSite{pages: []PageSummary{
				pg("/a", func(p *PageSummary) { p.Redirects = redirects("/a", "/b"); p.FinalURL, p.Status = siteOrigin+"/b", 301 }),
				pg("/b", func(p *PageSummary) { p.Redirects = redirects("/b", "/c"); p.FinalURL, p.Status = siteOrigin+"/c", 301 }),
				pg("/c"),
			}, linked: []string{"/c"}},
		},
		{
			name: "single redirect", id: "site.redirect_chain", want: false,
			site: testSite{pages: []PageSummary{pg("/old", func(p *PageSummary) { p.Redirects = redirects("/old", "/new"); p.FinalURL = siteOrigin + "/new" })}, linked: []string{"/old"}},
		},
		{
			name: "linked redirect loop", id: "site.redirect_loop", path: "/x", want: true,
			site: testSite{pages: []PageSummary{pg("/x", func(p *PageSummary) {
				p.Redirects = redirects("/x", "/y", "/x")
				p.Status, p.Indexable, p.Error = 301, false, "too many redirects"
			})}, linked: []string{"/x"}},
		},
		{
			name: "redirect loop across two crawled URLs", id: "site.redirect_loop", path: "/x", want: true,
			site: testSite{pages: []PageSummary{
				pg("/x", func(p *PageSummary) { p.Redirects = redirects("/x", "/y"); p.Status, p.Indexable = 301, false }),
				pg("/y", func(p *PageSummary) { p.Redirects = redirects("/y", "/x"); p.Status, p.Indexable = 301, false }),
			}, linked: []string{"/x"}},
		},
		{
			name: "redirect chain without loop", id: "site.redirect_loop", want: false,
			site: testSite{pages: []PageSummary{pg("/old", func(p *PageSummary) {
				p.Redirects = redirects("/old", "/mid", "/new")
				p.FinalURL = siteOrigin + "/new"
			})}, linked: []string{"/old"}},
		},
		{
			name: "sitemap lists noindex URL", id: "site.sitemap_noindex", path: "/n", want: true,
			site: testSite{pages: []PageSummary{pg("/n", noindex)}, linked: []string{"/n"}, sitemap: []string{"/n"}},
		},
		{
			name: "sitemap lists indexable URL", id: "site.sitemap_noindex", want: false,
			site: testSite{pages: []PageSummary{pg("/n")}, linked: []string{"/n"}, sitemap: []string{"/n"}},
		},
		{
			name: "sitemap lists canonicalised URL", id: "site.sitemap_non_canonical", path: "/c", want: true,
			site: testSite{pages: []PageSummary{pg("/c", canonTo("/d")), pg("/d")}, linked: []string{"/c", "/d"}, sitemap: []string{"/c", "/d"}},
		},
		{
			name: "sitemap lists self-canonical URL", id: "site.sitemap_non_canonical", want: false,
			site: testSite{pages: []PageSummary{pg("/c", canonTo("/c"))}, linked: []string{"/c"}, sitemap: []string{"/c"}},
		},
		{
			name: "sitemap lists redirecting URL", id: "site.sitemap_redirect", path: "/old", want: true,
			site: testSite{pages: []PageSummary{pg("/old", func(p *PageSummary) { p.Redirects = redirects("/old", "/new"); p.FinalURL = siteOrigin + "/new" })}, linked: []string{"/old"}, sitemap: []string{"/old"}},
		},
		{
			name: "sitemap lists final URL", id: "site.sitemap_redirect", want: false,
			site: testSite{pages: []PageSummary{pg("/new")}, linked: []string{"/new"}, sitemap: []string{"/new"}},
		},
		{
			name: "sitemap lists 404", id: "site.sitemap_broken_url", path: "/gone", want: true,
			site: testSite{pages: []PageSummary{pg("/gone", func(p *PageSummary) { p.Status, p.Indexable = 404, false })}, sitemap: []string{"/gone"}},
		},
		{
			name: "sitemap lists 200", id: "site.sitemap_broken_url", want: false,
			site: testSite{pages: []PageSummary{pg("/ok")}, sitemap: []string{"/ok"}},
		},
		{
			name: "sitemap lists blocked URL", id: "site.sitemap_blocked", path: "/private", want: true,
			site: testSite{pages: []PageSummary{pg("/private", func(p *PageSummary) { p.Status, p.Indexable, p.RobotsBlocked = 0, false, true })}, sitemap: []string{"/private"}},
		},
		{
			name: "sitemap lists allowed URL", id: "site.sitemap_blocked", want: false,
			site: testSite{pages: []PageSummary{pg("/public")}, sitemap: []string{"/public"}},
		},
		{
			name: "indexable page not in sitemap", id: "site.not_in_sitemap", path: "/a", want: true,
			site: testSite{pages: []PageSummary{pg("/a")}, linked: []string{"/a"}, sitemap: []string{"/"}},
		},
		{
			name: "no sitemap at all", id: "site.not_in_sitemap", want: false,
			site: testSite{pages: []PageSummary{pg("/a")}, linked: []string{"/a"}},
		},
		{
			name: "canonical chain", id: "canonical.chain", path: "/a", want: true, urls: []string{"/b", "/c"},
			site: testSite{pages: []PageSummary{pg("/a", canonTo("/b")), pg("/b", canonTo("/c")), pg("/c")}, linked: []string{"/a", "/b", "/c"}},
		},
		{
			name: "canonical to self-canonical target", id: "canonical.chain", want: false,
			site: testSite{pages: []PageSummary{pg("/a", canonTo("/b")), pg("/b", canonTo("/b"))}, linked: []string{"/a", "/b"}},
		},
		{
			name: "hreflang return link missing", id: "hreflang.return_missing", path: "/en", want: true, urls: []string{"/de"},
			site: testSite{pages: []PageSummary{
				pg("/en", func(p *PageSummary) { p.Hreflang = []analyzer.Alternate{alt("en", "/en"), alt("de", "/de")} }),
				pg("/de"),
			}, linked: []string{"/en", "/de"}},
		},
		{
			name: "hreflang return links present", id: "hreflang.return_missing", want: false,
			site: testSite{pages: []PageSummary{
				pg("/en", func(p *PageSummary) { p.Hreflang = []analyzer.Alternate{alt("en", "/en"), alt("de", "/de")} }),
				pg("/de", func(p *PageSummary) { p.Hreflang = []analyzer.Alternate{alt("en", "/en"), alt("de", "/de")} }),
			}, linked: []string{"/en", "/de"}},
		},
		{
			name: "hreflang cluster with different sets", id: "hreflang.cluster_inconsistent", want: true, urls: []string{"/en", "/de"},
			site: testSite{pages: []PageSummary{
				pg("/en", func(p *PageSummary) { p.Hreflang = []analyzer.Alternate{alt("en", "/en"), alt("de", "/de")} }),
				pg("/de", func(p *PageSummary) { p.Hreflang = []analyzer.Alternate{alt("en", "/en"), alt("de-AT", "/de")} }),
			}, linked: []string{"/en", "/de"}},
		},
		{
			name: "hreflang cluster consistent", id: "hreflang.cluster_inconsistent", want: false,
			site: testSite{pages: []PageSummary{
				pg("/en", func(p *PageSummary) { p.Hreflang = []analyzer.Alternate{alt("en", "/en"), alt("de", "/de")} }),
				pg("/de", func(p *PageSummary) { p.Hreflang = []analyzer.Alternate{alt("de", "/de"), alt("EN", "/en")} }),
			}, linked: []string{"/en", "/de"}},
		},
	}
	sev := map[string]seo.Severity{"hreflang.return_missing": seo.Warning}
	for _, c := range Catalog() {
		sev[c.ID] = c.Severity
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := tc.site.build(t)
			f := siteFinding(rep, tc.id, tc.path)
			if (f != nil) != tc.want {
				t.Fatalf("finding %s on %q present = %v, want %v; findings: %v", tc.id, tc.path, f != nil, tc.want, rep.SiteFindings)
			}
			if f == nil {
				return
			}
			if f.Severity != sev[tc.id] {
				t.Errorf("severity %v, want %v", f.Severity, sev[tc.id])
			}
			for _, u := range tc.urls {
				if !slices.Contains(f.Evidence.URLs, siteOrigin+u) {
					t.Errorf("Evidence.URLs %v lacks %s", f.Evidence.URLs, siteOrigin+u)
				}
			}
			var g *FindingGroup
			for i := range rep.Findings {
				if rep.Findings[i].ID == tc.id {
					g = &rep.Findings[i]
				}
			}
			if g == nil || g.Count < 1 || len(g.Examples) == 0 {
				t.Errorf("finding group for %s missing or empty: %+v", tc.id, g)
			}
		})
	}
}

func TestSiteCatalog(t *testing.T) {
	cat := Catalog()
	if !slices.IsSortedFunc(cat, func(a, b seo.CheckInfo) int { return strings.Compare(a.ID, b.ID) }) {
		t.Error("Catalog is not sorted by ID")
	}
	want := map[string]seo.Severity{
		"site.duplicate_title": seo.Warning, "site.near_duplicate": seo.Notice, "site.redirect_loop": seo.Error,
		"site.orphan": seo.Warning, "site.not_in_sitemap": seo.Notice, "canonical.chain": seo.Warning,
		"hreflang.cluster_inconsistent": seo.Notice,
	}
	seen := map[string]bool{}
	for _, c := range analyzer.Catalog() {
		if slices.ContainsFunc(cat, func(x seo.CheckInfo) bool { return x.ID == c.ID }) {
			t.Errorf("%s is in both the crawler and the analyzer catalogue", c.ID)
		}
	}
	for _, c := range cat {
		if seen[c.ID] {
			t.Errorf("ID %s listed twice", c.ID)
		}
		seen[c.ID] = true
		if c.Summary == "" {
			t.Errorf("%s has no summary", c.ID)
		}
		if s, ok := want[c.ID]; ok && s != c.Severity {
			t.Errorf("%s severity %v, want %v", c.ID, c.Severity, s)
		}
	}
	for id := range want {
		if !seen[id] {
			t.Errorf("Catalog lacks %s", id)
		}
	}
}

func TestSiteReportTotals(t *testing.T) {
	s := testSite{
		pages: []PageSummary{
			pg("/a", func(p *PageSummary) { p.Findings = []string{"title.too_long"}; p.Score = ptr(96) }),
			pg("/b", func(p *PageSummary) { p.Findings = []string{"title.too_long"}; p.Score = ptr(96); p.Depth = ptr(2) }),
			pg("/gone", func(p *PageSummary) {
				p.Status, p.Indexable, p.Score, p.ScoreReason = 404, false, nil, analyzer.ScoreErrorStatus
			}),
			{URL: siteOrigin + "/private", Depth: ptr(1), RobotsBlocked: true, ScoreReason: analyzer.ScoreNotFetched},
			{URL: siteOrigin + "/down", Error: "connection refused", ScoreReason: analyzer.ScoreNotFetched},
		},
		linked: []string{"/a", "/gone", "/private"},
		edges:  []Edge{link("/a", "/b"), link("/a", "/b"), link("/b", "/")},
	}
	rep := s.build(t)
	if got := rep.StatusCodes; got[200] != 3 || got[404] != 1 || len(got) != 2 {
		t.Errorf("StatusCodes = %v, want 200:3 404:1 (URLs not fetched are not pages)", got)
	}
	wantNF := []NotFetchedURL{
		{URL: siteOrigin + "/down", Reason: NotFetchedFailed, Error: "connection refused"},
		{URL: siteOrigin + "/private", Reason: NotFetchedRobots, Depth: ptr(1), FoundOn: siteOrigin + "/"},
	}
	if diff := cmp.Diff(wantNF, rep.NotFetched); diff != "" || len(rep.Pages) != 4 {
		t.Errorf("NotFetched (-want +got):\n%s\npages %d, want 4", diff, len(rep.Pages))
	}
	if rep.Graph.Nodes != 4 || rep.Graph.Edges != 5 || rep.Graph.MaxDepth != 2 {
		t.Errorf("Graph = %+v, want 4 nodes (URLs not fetched are not pages), 5 distinct edges, max depth 2", rep.Graph)
	}
	if !slices.IsSortedFunc(rep.Pages, func(a, b PageSummary) int { return strings.Compare(a.URL, b.URL) }) {
		t.Error("pages not sorted by URL")
	}
	byURL := map[string]PageSummary{}
	for _, p := range rep.Pages {
		byURL[strings.TrimPrefix(p.URL, siteOrigin)] = p
	}
	if byURL["/b"].Inlinks != 1 || byURL["/"].Inlinks != 1 || byURL["/a"].Inlinks != 1 {
		t.Errorf("inlinks: / %d, /a %d, /b %d; want 1 each", byURL["/"].Inlinks, byURL["/a"].Inlinks, byURL["/b"].Inlinks)
	}
	if byURL["/"].LinkScore <= byURL["/gone"].LinkScore {
		t.Errorf("home link score %v should exceed dead-end /gone %v", byURL["/"].LinkScore, byURL["/gone"].LinkScore)
	}
	var g *FindingGroup
	for i := range rep.Findings {
		if rep.Findings[i].ID == "title.too_long" {
			g = &rep.Findings[i]
		}
	}
	if g == nil || g.Count != 2 || g.Pages != 2 || g.Severity != seo.Warning && len(analyzer.Catalog()) > 0 {
		t.Errorf("title.too_long group = %+v, want 2 pages", g)
	}
	// Home links to /gone (404), so it also gets links.broken_internal
	// (-10): the mean of the scored pages is (80+96+96)/3 = 90.7, rounded to
	// 91; /gone (404) has no score and does not count.
	if len(rep.SiteFindings) != 0 || rep.Score.Value != 91 {
		t.Errorf("score %d with site findings %v; want 91 and none", rep.Score.Value, rep.SiteFindings)
	}
	if byURL["/gone"].Score != nil || byURL["/gone"].ScoreReason != analyzer.ScoreErrorStatus {
		t.Errorf("/gone score %v reason %q, want none, error_status", byURL["/gone"].Score, byURL["/gone"].ScoreReason)
	}
	want := FindingCounts{Checks: seo.Counts{Errors: 1, Warnings: 1}, Findings: seo.Counts{Errors: 1, Warnings: 2}}
	if rep.FindingCounts != want || rep.Score.Counts != want.Checks {
		t.Errorf("finding counts %+v, score counts %+v; want %+v and its checks", rep.FindingCounts, rep.Score.Counts, want)
	}
	if len(rep.Crawl.DepthHistogram) != 3 || rep.Crawl.DepthHistogram[1] != 2 {
		t.Errorf("depth histogram %v, want [1 2 1]", rep.Crawl.DepthHistogram)
	}
}

func TestSiteBuilderConcurrentAdds(t *testing.T) {
	start, _ := url.Parse(siteOrigin + "/")
	finished := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	b := newSiteBuilder(start, &Options{Now: func() time.Time { return finished }})
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				path := fmt.Sprintf("/w%d/p%d", w, i)
				b.addPage(pg(path), []Edge{link(path, "/"), link(path, fmt.Sprintf("/w%d/p%d", w, (i+1)%100))})
			}
		}()
	}
	wg.Wait()
	rep := b.build(nil)
	if len(rep.Pages) != 800 || rep.Graph.Edges != 1600 {
		t.Errorf("got %d pages, %d edges; want 800 and 1600", len(rep.Pages), rep.Graph.Edges)
	}
	if !rep.FinishedAt.Equal(finished) || rep.StartURL != siteOrigin+"/" {
		t.Errorf("FinishedAt %v, StartURL %q; want Options.Now and the start URL", rep.FinishedAt, rep.StartURL)
	}
	again := b.build(nil)
	if again.Graph != rep.Graph || len(again.Pages) != len(rep.Pages) || again.Pages[5].Inlinks != rep.Pages[5].Inlinks {
		t.Errorf("a second build differs: %+v vs %+v", again.Graph, rep.Graph)
	}
}

func TestSummarize(t *testing.T) {
	no := false
	rep := &analyzer.Report{
		URL: siteOrigin + "/old", FinalURL: siteOrigin + "/new", Status: 200, IsHTML: true,
		Redirects:   redirects("/old", "/new"),
		Title:       &analyzer.Text{Text: "Title"},
		Description: &analyzer.Text{Text: "Desc"},
		Headings:    []analyzer.Heading{{Level: 2, Text: "Sub"}, {Level: 1, Text: "Main"}},
		Canonical:   []analyzer.Canonical{{URL: "/new", Source: "html"}, {URL: siteOrigin + "/new", Source: "header"}},
		Robots:      analyzer.Robots{Indexable: true, Follow: true, Directives: []analyzer.Directive{{Value: "nofollow", Source: "meta:robots"}}},
		Fingerprint: analyzer.Fingerprint{TextHash: 7, SimHash: 9},
		Findings:    []seo.Finding{{ID: "b.x"}, {ID: "a.y"}, {ID: "b.x"}},
		Score:       &seo.Score{Value: 80, Counts: seo.Counts{Warnings: 2}},
		Timings:     seo.Timings{Total: 1500 * time.Millisecond},
	}
	s := summarize(rep, 3)
	if s.FinalURL != siteOrigin+"/new" || *s.Depth != 3 || !s.Indexable || s.Noindex || !s.Nofollow {
		t.Errorf("summary flags wrong: %+v", s)
	}
	if s.H1 != "Main" || s.Title != "Title" || s.Description != "Desc" || s.Canonical != siteOrigin+"/new" {
		t.Errorf("summary texts wrong: %+v", s)
	}
	if !slices.Equal(s.Findings, []string{"a.y", "b.x"}) || s.Warnings != 2 || s.ResponseMs != 1500 || s.TextHash != 7 {
		t.Errorf("summary counts wrong: %+v", s)
	}
	rep.Canonical = append(rep.Canonical, analyzer.Canonical{URL: siteOrigin + "/other", Source: "html"})
	rep.Robots.RobotsTxtAllowed = &no
	s = summarize(rep, 3)
	if s.Canonical != "" || !s.RobotsBlocked || s.Indexable {
		t.Errorf("conflicting canonicals / blocked: %+v", s)
	}
	rep.Robots = analyzer.Robots{Directives: []analyzer.Directive{{Value: "noindex, follow", Source: "header"}}}
	s = summarize(rep, 0)
	if !s.Noindex || s.Indexable {
		t.Errorf("noindex header not seen: %+v", s)
	}
}

// TestSiteBuilderScale feeds 100,000 pages with 30 links each and checks the
// memory held and the time taken. The builder runs on one goroutine, so the
// race detector has nothing to check here and only distorts the two
// figures: under -race it skips and .ci/run runs it without.
func TestSiteBuilderScale(t *testing.T) {
	if testing.Short() {
		t.Skip("large synthetic crawl skipped in -short mode")
	}
	if racetest.Enabled {
		t.Skip("SKIP under -race: a time and memory bound on one goroutine; run it without -race: go test ./crawler -run '^TestSiteBuilderScale$'")
	}
	const pages, links = 100_000, 30
	urls := make([]string, pages)
	for i := range urls {
		urls[i] = fmt.Sprintf("%s/section-%d/page-%d", siteOrigin, i%97, i)
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	begin := time.Now()
	start, _ := url.Parse(siteOrigin + "/")
	b := newSiteBuilder(start, nil)
	rng := rand.New(rand.NewPCG(1, 2))
	edges := make([]Edge, links)
	for i, u := range urls {
		for k := range edges {
			edges[k] = Edge{From: u, To: urls[rng.IntN(pages)], Nofollow: k == 0}
		}
		h := rng.Uint64()
		b.addPage(PageSummary{
			URL: u, Status: 200, IsHTML: true, Indexable: true, Depth: ptr(1 + i%4),
			Title: "Page " + u[len(siteOrigin):], TextHash: h, SimHash: rng.Uint64(), Score: ptr(90),
			Findings: []string{"description.missing"},
		}, edges)
		if i%10_000 == 0 {
			b.addSitemapURL(u, siteOrigin+"/sitemap.xml")
		}
	}
	rep := b.build(&crawlFacts{})
	elapsed := time.Since(begin)
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("100k pages x %d links: %v, %.1f MB held", links, elapsed, float64(held)/(1<<20))
	if len(rep.Pages) != pages {
		t.Fatalf("got %d pages", len(rep.Pages))
	}
	if held > 150<<20 {
		t.Errorf("builder and report hold %.1f MB, want under 150 MB", float64(held)/(1<<20))
	}
	// The time bound is relative to the least any builder must do, interning
	// every edge's URLs in a map, timed here on the same machine, so that
	// loaded machines and -race runs are judged fairly. A plain run takes
	// about 2x the floor (a few seconds), a -race run about 11x; a quadratic
	// step would take hours.
	floor := internFloor(urls, links)
	t.Logf("interning floor %v, ratio %.1f", floor, float64(elapsed)/float64(floor))
	if limit := 30 * floor; elapsed > limit {
		t.Errorf("took %v, want under %v (30x the interning floor)", elapsed, limit)
	}
	runtime.KeepAlive(b)
	runtime.KeepAlive(rep)
}

// internFloor times interning links URLs per page into a map, as a baseline.
func internFloor(urls []string, links int) time.Duration {
	rng := rand.New(rand.NewPCG(3, 4))
	begin := time.Now()
	ids := map[string]int32{}
	for range urls {
		for range links {
			u := urls[rng.IntN(len(urls))]
			if _, ok := ids[u]; !ok {
				ids[u] = int32(len(ids))
			}
		}
	}
	return time.Since(begin)
}

func TestSiteEvidenceCapped(t *testing.T) {
	var s testSite
	for i := range 25 {
		path := fmt.Sprintf("/p%02d", i)
		s.pages = append(s.pages, pg(path, func(p *PageSummary) { p.Title = "Same title" }))
		s.linked = append(s.linked, path)
	}
	rep := s.build(t)
	f := siteFinding(rep, "site.duplicate_title", "")
	if f == nil {
		t.Fatal("no site.duplicate_title finding")
	}
	if len(f.Evidence.URLs) != maxEvidenceURLs || !strings.Contains(f.Evidence.Detail, "25 URLs") {
		t.Errorf("evidence lists %d URLs with detail %q; want %d and the total 25", len(f.Evidence.URLs), f.Evidence.Detail, maxEvidenceURLs)
	}
	if f.URL != siteOrigin+"/p00" || f.Evidence.URLs[0] != siteOrigin+"/p00" {
		t.Errorf("finding URL %q, first evidence %q; want the first URL in order", f.URL, f.Evidence.URLs[0])
	}
}

// longText returns about 1,200 words of varied text with the given number
// of words replaced, for near-duplicate fingerprints.
func longText(edits int) string {
	vocab := strings.Fields("crawl index rank title link page site audit query score text word blue green north south river stone")
	rng := rand.New(rand.NewPCG(11, 12))
	words := make([]string, 1200)
	for i := range words {
		words[i] = vocab[rng.IntN(len(vocab))]
	}
	for e := range edits {
		words[300+400*e] = "edited"
	}
	return strings.Join(words, " ")
}

// TestRepeatedPageFirstWins adds one URL twice: the report keeps its first
// summary and edges, and the pages added after it keep theirs (the run maps
// pages to records past the repeat).
func TestRepeatedPageFirstWins(t *testing.T) {
	start, _ := url.Parse(siteOrigin + "/")
	b := newSiteBuilder(start, nil)
	b.addPage(pg("/", func(p *PageSummary) { p.Depth = ptr(0) }), []Edge{link("/", "/a"), link("/", "/b")})
	b.addPage(pg("/a", func(p *PageSummary) { p.Title = "First" }), []Edge{link("/a", "/b")})
	b.addPage(pg("/a", func(p *PageSummary) { p.Title = "Title /b" }), []Edge{link("/a", "/c")})
	b.addPage(pg("/b"), nil)
	rep := b.build(&crawlFacts{})
	var got []string
	for _, p := range rep.Pages {
		got = append(got, fmt.Sprintf("%s %q inlinks %d", strings.TrimPrefix(p.URL, siteOrigin), p.Title, p.Inlinks))
	}
	want := []string{`/ "Title /" inlinks 0`, `/a "First" inlinks 1`, `/b "Title /b" inlinks 2`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pages (-want +got):\n%s", diff)
	}
	if f := siteFinding(rep, "site.duplicate_title", "/a"); f != nil {
		t.Errorf("the repeated summary's title was checked: %+v", f)
	}
	if rep.Graph.Edges != 3 {
		t.Errorf("%d edges, want 3 (the repeat's link to /c dropped)", rep.Graph.Edges)
	}
}
