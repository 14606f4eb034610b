package crawler

import (
	"context"
	"net/url"
	"strings"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/seo"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Canonical, hreflang and image targets during a crawl.
//
// A page's in-scope canonical URL and hreflang alternates are crawled like
// the links it holds (Options.NoCrawlCanonicals and NoCrawlHreflang turn
// that off): the same scope, robots.txt, depth, page budget and politeness
// apply, and linkscope.go then reports canonical.target_* and
// hreflang.target_* from the pages crawled. They are not links: they add
// no edge to the link graph, so they count as no inlink.
//
// Images are checked, never crawled. Each distinct in-scope image source
// (<img src>, the first candidate of an <img> or <picture><source>
// srcset) that robots.txt allows is requested once per crawl by a
// resource checker (HEAD, GET when HEAD is refused, the body discarded
// past a small cap) that takes the crawl's per-host politeness slots, at
// most Options.MaxResourceChecks of them; SiteReport.ResourceUnchecked
// counts the others and why. External images, canonical URLs and hreflang
// alternates go to the external checker with the external links. Either
// way each page referring to a target costs one 8-byte edge (page node,
// target id and kind), and images.broken, canonical.target_* and
// hreflang.target_* are reported on it through analyzer.TargetFindings.

// Sources of the frontier items found through a page's head.
const (
	// SourceCanonical marks a URL found as a page's canonical URL.
	SourceCanonical = "canonical"
	// SourceHreflang marks a URL found as a page's hreflang alternate.
	SourceHreflang = "hreflang"
)

// targetKind says how a page refers to a checked target; it is kept in the
// top bits of a target edge's id.
type targetKind uint8

const (
	targetLink targetKind = iota
	targetCanonical
	targetHreflang
	targetImage
)

const (
	targetKindShift = 30
	targetIDMask    = 1<<targetKindShift - 1
)

// targetRef packs a checker id and the kind of reference into one edge end.
func targetRef(id int32, kind targetKind) uint32 {
	return uint32(id)&targetIDMask | uint32(kind)<<targetKindShift
}

// splitTargetRef undoes targetRef.
func splitTargetRef(v uint32) (int32, targetKind) {
	return int32(v & targetIDMask), targetKind(v >> targetKindShift)
}

// maxImagesPerPage caps the image sources taken from one page.
const maxImagesPerPage = 1000

// pageImages returns the distinct image sources of p: <img src>, and the
// first candidate of each srcset of an <img> or a <picture>'s <source>.
func pageImages(p *analyzer.Page) []*url.URL {
	var out []*url.URL
	seen := map[string]bool{}
	add := func(u *url.URL) {
		if u == nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(out) >= maxImagesPerPage {
			return
		}
		v := *u
		v.Fragment, v.RawFragment = "", ""
		if k := v.String(); !seen[k] {
			seen[k] = true
			out = append(out, &v)
		}
	}
	for _, r := range p.Resources {
		if r.Kind == "image" {
			add(r.URL)
		}
	}
	srcset := func(n *html.Node) {
		if v, ok := analyzer.Attr(n, "srcset"); ok {
			if c := firstSrcset(v); c != "" {
				add(p.Resolve(c))
			}
		}
	}
	for _, n := range p.ByTag(atom.Img) {
		srcset(n)
	}
	for _, n := range p.ByTag(atom.Source) {
		if n.Parent != nil && n.Parent.DataAtom == atom.Picture {
			srcset(n)
		}
	}
	return out
}

// firstSrcset returns the URL of the first candidate of a srcset value, or
// "" (data: URLs included: the caller keeps http(s) only).
func firstSrcset(s string) string {
	s = strings.TrimLeft(s, " \t\n\r\f,")
	end := strings.IndexAny(s, " \t\n\r\f")
	if end >= 0 {
		s = s[:end]
	}
	return strings.TrimRight(s, ",")
}

// wants reports whether any of ids is enabled in the crawl's analysis.
func (cr *crawl) wants(ids ...string) bool {
	ls := &cr.builder.link
	for _, id := range ids {
		if !ls.disabled[id] && !ls.disabled[seo.AreaOf(id)] {
			return true
		}
	}
	return false
}

// headTargets admits the in-scope canonical URL and hreflang alternates of
// the page sum (fetched as it) to the frontier, and queues the external
// ones for the external checker; sum answered 200 with HTML.
func (cr *crawl) headTargets(it Item, sum *PageSummary) []Item {
	var items []Item
	depth := it.Depth + 1
	if it.Depth < 0 {
		depth = -1
	}
	base, _ := url.Parse(effURL(sum))
	resolve := func(s string) *url.URL {
		s = strings.TrimSpace(s)
		if s == "" || base == nil {
			return nil
		}
		u, err := base.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil
		}
		u.Fragment, u.RawFragment = "", ""
		return u
	}
	var extCanon, extHreflang []*url.URL
	target := func(u *url.URL, source string, ext *[]*url.URL, crawl bool) {
		if n, s, ok := cr.inScope(u); ok {
			if crawl && s != it.URL {
				if item, ok := cr.allowItem(n, s, depth, source, it.URL); ok {
					items = append(items, item)
				}
			}
			return
		}
		if cr.ext != nil && len(*ext) < MaxLinksPerPage {
			*ext = append(*ext, u)
		}
	}
	if canonicalisedElsewhere(sum) {
		if u := resolve(sum.Canonical); u != nil {
			target(u, SourceCanonical, &extCanon, !cr.o.NoCrawlCanonicals)
		}
	}
	for _, a := range sum.Hreflang {
		if a.Source == "sitemap" {
			continue
		}
		if u := resolve(a.URL); u != nil && u.String() != sum.URL && u.String() != sum.Canonical {
			target(u, SourceHreflang, &extHreflang, !cr.o.NoCrawlHreflang)
		}
	}
	if len(extCanon) > 0 && cr.wants("canonical.target_error", "canonical.target_redirect") {
		if ids := cr.ext.add(extCanon); len(ids) > 0 {
			cr.builder.addExternal(it.URL, ids, targetCanonical)
		}
	}
	if len(extHreflang) > 0 && cr.wants("hreflang.target_error", "hreflang.target_redirect") {
		if ids := cr.ext.add(extHreflang); len(ids) > 0 {
			cr.builder.addExternal(it.URL, ids, targetHreflang)
		}
	}
	return items
}

// checkImages queues the image sources of the page at from: in-scope ones
// robots.txt allows for the resource checker, external ones for the
// external checker.
func (cr *crawl) checkImages(ctx context.Context, from string, imgs []*url.URL) {
	if len(imgs) == 0 || !cr.wants("images.broken") {
		return
	}
	var own, ext []*url.URL
	for _, u := range imgs {
		if n, _, ok := cr.inScope(u); ok {
			if cr.res != nil && (cr.o.IgnoreRobots || cr.robots.Get(ctx, n).Allowed(cr.o.RobotsToken, n.RequestURI())) {
				own = append(own, n)
			}
			continue
		}
		if cr.ext != nil {
			ext = append(ext, u)
		}
	}
	if len(own) > 0 {
		if ids := cr.res.add(own); len(ids) > 0 {
			cr.builder.addResource(from, ids, targetImage)
		}
	}
	if len(ext) > 0 {
		if ids := cr.ext.add(ext); len(ids) > 0 {
			cr.builder.addExternal(from, ids, targetImage)
		}
	}
}
