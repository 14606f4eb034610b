package crawler

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/seo"
)

// siteFixture is a small crawl described in testdata/<area>/*.json. In the
// file, "@/" stands for the site's origin ("https://example.com/").
type siteFixture struct {
	// Options are the site check thresholds of the build.
	Options SiteCheckOptions `json:"options"`
	// Pages are page summaries over pg(path) defaults: the fields of
	// PageSummary's JSON, and textHash and simHash.
	Pages []json.RawMessage `json:"pages"`
	// Links are edges between pages: [from, to] paths, or [from, to,
	// "nofollow"].
	Links [][]string `json:"links"`
	// Linked are the paths the home page links to.
	Linked []string `json:"linked"`
	// Sitemap lists the paths of the sitemap.
	Sitemap []string `json:"sitemap"`
	// Want maps check IDs to the paths whose finding they must report.
	Want map[string][]string `json:"want"`
	// Absent lists check IDs that must not report.
	Absent []string `json:"absent"`
	// AI is what the crawl fetched for the AI readiness checks.
	AI *aiFixture `json:"ai"`
	// External are checked external targets of pages and what they
	// answered.
	External []extFixture `json:"external"`
}

// extFixture is an external target a page refers to and its answer, as
// the external checker would have it.
type extFixture struct {
	// From is the referring page's path; To the absolute target URL.
	From, To string
	// As is the Edge.Target value of the reference ("" for a link).
	As     string
	Status int
	Error  string
}

// loadSiteFixture reads one fixture file.
func loadSiteFixture(t *testing.T, path string) (*siteFixture, testSite) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b = []byte(strings.ReplaceAll(string(b), `"@/`, `"`+siteOrigin+`/`))
	var fx siteFixture
	if err := json.Unmarshal(b, &fx); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	site := testSite{linked: fx.Linked, sitemap: fx.Sitemap, ai: fx.AI.facts(), external: fx.External}
	for _, raw := range fx.Pages {
		var extra struct {
			Path              string `json:"path"`
			TextHash, SimHash *uint64
		}
		if err := json.Unmarshal(raw, &extra); err != nil || extra.Path == "" {
			t.Fatalf("%s: page %s: needs a path (%v)", path, raw, err)
		}
		p := pg(extra.Path)
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatalf("%s: page %s: %v", path, raw, err)
		}
		if extra.TextHash != nil {
			p.TextHash = *extra.TextHash
		}
		if extra.SimHash != nil {
			p.SimHash = *extra.SimHash
		}
		site.pages = append(site.pages, p)
	}
	for _, l := range fx.Links {
		e := link(l[0], l[1])
		e.Nofollow = len(l) > 2 && l[2] == "nofollow"
		site.edges = append(site.edges, e)
	}
	return &fx, site
}

// build builds the report of s with the site check options o.
func (s testSite) buildWith(t testing.TB, o SiteCheckOptions) *SiteReport {
	t.Helper()
	start, _ := url.Parse(siteOrigin + "/")
	b := newSiteBuilder(start, &Options{SiteChecks: o})
	return s.buildOn(b)
}

// TestSiteChecksByArea runs the fixtures of testdata/<area> for every
// registered site check area: each area has fixtures where its checks fire
// and where they do not, and every ID the area declares fires in one.
func TestSiteChecksByArea(t *testing.T) {
	areas := map[string][]siteCheck{}
	for _, c := range builtinSiteChecks {
		areas[c.Area] = append(areas[c.Area], c)
	}
	for area, checks := range areas {
		t.Run(area, func(t *testing.T) {
			files, _ := filepath.Glob(filepath.Join("testdata", area, "*.json"))
			if len(files) == 0 {
				t.Fatalf("no fixtures in testdata/%s", area)
			}
			fired, quiet := map[string]bool{}, 0
			for _, file := range files {
				fx, site := loadSiteFixture(t, file)
				rep := site.buildWith(t, fx.Options)
				for id, paths := range fx.Want {
					for _, p := range paths {
						if f := siteOrLinkFinding(rep, id, p); f == nil {
							t.Errorf("%s: no %s on %s; site findings %v, link findings %v", file, id, p, ids(rep.SiteFindings), ids(rep.LinkFindings))
						}
					}
					fired[id] = true
				}
				for _, id := range fx.Absent {
					if f := siteOrLinkFinding(rep, id, ""); f != nil {
						t.Errorf("%s: unexpected %s on %s: %s", file, id, f.URL, f.Message)
					}
					quiet++
				}
			}
			if quiet == 0 {
				t.Errorf("testdata/%s has no fixture where a check does not fire", area)
			}
			for _, c := range checks {
				for _, in := range c.IDs {
					if !fired[in.ID] {
						t.Errorf("no fixture of testdata/%s fires %s", area, in.ID)
					}
				}
				if len(c.IDs) == 0 && len(fired) == 0 {
					t.Errorf("no fixture of testdata/%s fires a check", area)
				}
			}
		})
	}
}

// siteOrLinkFinding returns the site or link finding id on path ("" any).
func siteOrLinkFinding(rep *SiteReport, id, path string) *seo.Finding {
	if f := siteFinding(rep, id, path); f != nil {
		return f
	}
	for i, f := range rep.LinkFindings {
		if f.ID == id && (path == "" || f.URL == siteOrigin+path) {
			return &rep.LinkFindings[i]
		}
	}
	return nil
}

func ids(fs []seo.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.ID+" "+strings.TrimPrefix(f.URL, siteOrigin))
	}
	return out
}

// TestSiteCheckOwners checks that every ID a crawl reports has one owner:
// each site catalogue ID is declared by exactly one registered site check
// (the crawl-level IDs by facts.go's crawlChecks), no site check declares
// an ID of the analyzer's catalogue, and every analyzer ID a site check
// reports across the crawl is reported by exactly one.
func TestSiteCheckOwners(t *testing.T) {
	owners := map[string][]string{}
	for _, c := range builtinSiteChecks {
		if c.Run == nil || c.Area == "" {
			t.Errorf("site check of area %q has no Run or Area", c.Area)
		}
		for _, in := range c.IDs {
			owners[in.ID] = append(owners[in.ID], "site check "+c.Area)
		}
		for _, id := range c.Reports {
			owners[id] = append(owners[id], "site check "+c.Area)
		}
	}
	for _, in := range crawlChecks {
		owners[in.ID] = append(owners[in.ID], "crawl")
	}
	page := map[string]bool{}
	for _, in := range analyzer.Catalog() {
		page[in.ID] = true
	}
	for _, in := range Catalog() {
		if o := owners[in.ID]; len(o) != 1 {
			t.Errorf("%s is produced by %d owners %v, want 1", in.ID, len(o), o)
		}
		if page[in.ID] {
			t.Errorf("%s is declared by both the analyzer and the crawler", in.ID)
		}
	}
	for _, c := range builtinSiteChecks {
		for _, id := range c.Reports {
			if !page[id] {
				t.Errorf("site check %s reports %s, which is not in the analyzer's catalogue", c.Area, id)
			}
			if o := owners[id]; len(o) != 1 {
				t.Errorf("%s is reported by %d site checks %v, want 1", id, len(o), o)
			}
		}
	}
	if !slices.ContainsFunc(builtinSiteChecks, func(c siteCheck) bool { return slices.Contains(c.Reports, "links.broken_internal") }) {
		t.Error("no site check reports links.broken_internal")
	}
}

// TestNofollowPageNotOnTargets: the links of a page that is nofollow as a
// whole (meta robots) are not reported on each target as rel="nofollow"
// links: only /c, which an anchor marked rel="nofollow" points to, gets
// site.nofollow_to_indexable, with that page as its one source.
func TestNofollowPageNotOnTargets(t *testing.T) {
	fx, site := loadSiteFixture(t, filepath.Join("testdata", "inlinks", "meta_nofollow.json"))
	rep := site.buildWith(t, fx.Options)
	var got []string
	for _, f := range rep.SiteFindings {
		if f.ID != "site.nofollow_to_indexable" {
			continue
		}
		got = append(got, strings.TrimPrefix(f.URL, siteOrigin))
		if len(f.Evidence.URLs) != 1 || f.Evidence.URLs[0] != siteOrigin+"/a" {
			t.Errorf("%s quotes %v, want only %s/a", f.URL, f.Evidence.URLs, siteOrigin)
		}
	}
	if len(got) != 1 || got[0] != "/c" {
		t.Errorf("site.nofollow_to_indexable on %v, want only /c", got)
	}
}
