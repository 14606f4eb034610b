package crawler

import (
	"iter"
	"slices"

	"github.com/seokit/seokit/seo"
)

// The link graph of a crawl: URLs interned to int32 node ids (a node is a
// crawled page or a target kept by name), the edges of each page
// delta-encoded in one arena (edges.go), and what the site checks and
// PageRank (pagerank.go) read from it once the crawl is over.

// intern returns the node id of u, adding a node for it when it has none.
func (b *siteBuilder) intern(u string) int32 {
	if id, ok := b.ids[u]; ok {
		return id
	}
	id := int32(len(b.urls))
	b.ids[u] = id
	b.urls = append(b.urls, u)
	return id
}

// internTarget returns the node id of u, interning it only while fewer
// than maxTargets nodes are not crawled pages.
func (b *siteBuilder) internTarget(u string) (int32, bool) {
	if id, ok := b.ids[u]; ok {
		return id, true
	}
	if len(b.urls)-b.ncrawled >= b.maxTargets {
		return 0, false
	}
	return b.intern(u), true
}

// markCrawled records that node id is a crawled page.
func (b *siteBuilder) markCrawled(id int32) {
	w, bit := int(id/64), uint64(1)<<(id%64)
	for len(b.crawled) <= w {
		b.crawled = append(b.crawled, 0)
	}
	if b.crawled[w]&bit == 0 {
		b.crawled[w] |= bit
		b.ncrawled++
	}
}

// id returns the node id of u, interning it whatever maxTargets says: the
// crawl calls it for URLs admitted to the frontier, which MaxQueuedURLs
// bounds.
func (b *siteBuilder) id(u string) int32 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.intern(u)
}

// targetID is internTarget under the builder's lock.
func (b *siteBuilder) targetID(u string) (int32, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.internTarget(u)
}

// url returns the URL of node id.
func (b *siteBuilder) url(id int32) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.urls[id]
}

// addEdges records the outgoing edges of the page sum crawled at node from:
// its redirect hops as redirect edges, then edges, whose targets are
// interned while MaxLinkTargets allows (droppedEdges counts the others).
// An in-scope refresh target (Edge.Target TargetRefresh) is no link: it
// goes to linkScope.refresh, not into the graph.
// Repeated edges from one page are stored once, followed when any copy is.
// ids, when longer than zero, holds the node id of edges[k].To for the
// first len(ids) edges, or -1 where it is not known: a link target the
// crawl admitted has its node already, found without a lookup by URL.
// The caller holds b.mu.
func (b *siteBuilder) addEdges(from int32, sum *PageSummary, edges []Edge, ids []int32) {
	sc := b.scratch[:0]
	isHop := func(f, t string) bool {
		for i, h := range sum.Redirects {
			if h.URL == f && (h.Location == t || hopTarget(sum, i) == t) {
				return true
			}
		}
		return false
	}
	for i, h := range sum.Redirects {
		if t := hopTarget(sum, i); t != "" && h.URL != "" {
			f, okf := b.internTarget(h.URL)
			t, okt := b.internTarget(t)
			if !okf || !okt {
				b.droppedEdges++
				continue
			}
			sc = append(sc, edge{uint32(f), uint32(t) | edgeRedirect})
		}
	}
	for k, e := range edges {
		f := from
		if e.To == "" {
			continue
		}
		if e.Target == TargetRefresh && !e.External {
			// No link: kept aside for the link-scope checks only.
			if id, ok := b.internTarget(e.To); ok {
				b.link.refresh = append(b.link.refresh, edge{uint32(from), uint32(id)})
			}
			continue
		}
		if e.From != "" && e.From != sum.URL {
			id, ok := b.internTarget(e.From)
			if !ok {
				b.droppedEdges++
				continue
			}
			f = id
		}
		var id int32
		if k < len(ids) && ids[k] >= 0 {
			id = ids[k]
		} else {
			var ok bool
			if id, ok = b.internTarget(e.To); !ok {
				b.droppedEdges++
				continue
			}
		}
		t := uint32(id)
		if len(sum.Redirects) > 0 && isHop(e.From, e.To) {
			t |= edgeRedirect
		} else if e.Nofollow || sum.Nofollow {
			t |= edgeNofollow
		}
		sc = append(sc, edge{uint32(f), t})
	}
	slices.SortFunc(sc, func(x, y edge) int {
		if x.from != y.from {
			return int(int64(x.from) - int64(y.from))
		}
		return int(int64(x.to&edgeIDMask) - int64(y.to&edgeIDMask))
	})
	kept := sc[:0]
	for _, e := range sc {
		if n := len(kept); n > 0 && kept[n-1].from == e.from && kept[n-1].target() == e.target() {
			last := &kept[n-1]
			if !e.nofollow() {
				last.to &^= edgeNofollow
			}
			last.to |= e.to & edgeRedirect
			continue
		}
		kept = append(kept, e)
	}
	off := len(b.arena)
	b.arena = b.runs.appendPage(b.arena, uint32(from), kept)
	b.edges = append(b.edges, edgeList{uint32(off), uint32(len(b.arena))})
	b.scratch = sc[:0]
}

// hopTarget is where redirect hop i of s leads: the next hop's URL, else the
// final URL, else the hop's Location.
func hopTarget(s *PageSummary, i int) string {
	if i+1 < len(s.Redirects) {
		return s.Redirects[i+1].URL
	}
	if s.FinalURL != "" {
		return s.FinalURL
	}
	return s.Redirects[i].Location
}

// inScope reports whether u is on a host of the crawl (the start host, and
// its subdomains with Options.IncludeSubdomains); true when the start is unknown.
func (b *siteBuilder) inScope(u string) bool {
	if b.startHost == "" {
		return true
	}
	pu, err := seo.ParseHref(u)
	return err == nil && seo.HostInScope(pu.Host, b.startHost, b.subdomains)
}

// addSitemapURL records that the sitemap at sitemapURL lists loc. loc must be
// normalised the way crawled URLs are. It reports whether loc is kept by
// name (a node), which MaxLinkTargets bounds; its hash is kept for
// InSitemap up to MaxSitemapURLs.
func (b *siteBuilder) addSitemapURL(loc, sitemapURL string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.smHashes) >= b.maxSitemap && len(b.smHashes) > b.smCompacted {
		// Full, perhaps of repeats: make room by dropping them once.
		slices.Sort(b.smHashes)
		b.smHashes = slices.Compact(b.smHashes)
		b.smCompacted = len(b.smHashes)
	}
	if len(b.smHashes) < b.maxSitemap {
		b.smHashes = append(b.smHashes, hash64(loc))
	} else {
		b.smDropped++
	}
	id, ok := b.internTarget(loc)
	if !ok {
		b.smLocsDropped++
		return false
	}
	if _, ok := b.sitemap[id]; !ok {
		b.sitemap[id] = b.intern(sitemapURL)
	}
	return true
}

// sourceList collects the linking pages of one node for evidence.
type sourceList struct {
	all, nofollow []string
}

// followedGraph returns the followed internal edges between distinct
// crawled pages as a graph over page indexes. It reads them from the edge
// arena on each call rather than copying them: most edges of a large site
// are its menus' links, which the arena holds once for all pages
// (edgeRuns) and a copy would hold for each.
func (r *siteRun) followedGraph() *arenaGraph {
	g := &arenaGraph{r: r}
	// Edges recorded with another page than their source (redirect hops
	// of a summary's Redirects) are rare: gather them first, by source.
	for i := range r.npages {
		for e := range r.edgesOf(i) {
			if f, t, ok := g.followed(e); ok && int(f) != i {
				if g.foreign == nil {
					g.foreign = map[int32][]int32{}
				}
				g.foreign[f] = append(g.foreign[f], t)
			}
		}
	}
	return g
}

// arenaGraph is the graph of followedGraph (a linkGraph): the targets of
// page u are the followed edges recorded with u, then those recorded with
// other pages from u (foreign), in the order recorded.
type arenaGraph struct {
	r       *siteRun
	foreign map[int32][]int32
	edges   []edge // scratch of targetsOf
}

func (g *arenaGraph) nodes() int { return g.r.npages }

func (g *arenaGraph) targetsOf(u int, buf []int32) []int32 {
	l := g.r.edges[u]
	g.edges = decodeEdges(g.edges[:0], g.r.b.arena[l.off:l.end], g.r.nodeOf[u], g.r.b.runs.runs)
	for _, e := range g.edges {
		if f, t, ok := g.followed(e); ok && int(f) == u {
			buf = append(buf, t)
		}
	}
	return append(buf, g.foreign[int32(u)]...)
}

// followed returns the pages an edge leads from and to, ok when it is a
// followed link between two distinct crawled pages.
func (g *arenaGraph) followed(e edge) (from, to int32, ok bool) {
	if e.nofollow() {
		return 0, 0, false
	}
	f, t := g.r.pageOf[e.from], g.r.pageOf[e.target()]
	return f, t, f >= 0 && t >= 0 && f != t
}

// index drops repeated summaries of one URL (the first wins) and maps nodes
// to pages.
func (r *siteRun) index() {
	b := r.b
	r.pageOf = make([]int32, len(b.urls))
	for i := range r.pageOf {
		r.pageOf[i] = -1
	}
	r.nodeOf = make([]int32, 0, b.recs.n)
	var keep []int32 // the records kept, once one is not
	for k := range b.recs.n {
		n := b.recs.at(k).node
		if r.pageOf[n] >= 0 {
			if keep == nil {
				keep = make([]int32, k, b.recs.n)
				for i := range keep {
					keep[i] = int32(i)
				}
			}
			continue
		}
		r.pageOf[n] = int32(len(r.nodeOf))
		r.nodeOf = append(r.nodeOf, n)
		if keep != nil {
			keep = append(keep, int32(k))
		}
	}
	r.npages = len(r.nodeOf)
	r.recOf = keep
	if keep == nil {
		// No repeated URL: share the builder's edges instead of copying.
		r.edges = b.edges
	} else {
		r.edges = make([]edgeList, len(keep))
		for i, k := range keep {
			r.edges[i] = b.edges[k]
		}
	}
	for i, p := range r.pages() {
		if p.FinalURL == "" {
			continue
		}
		if n, ok := b.ids[p.FinalURL]; ok && r.pageOf[n] >= 0 {
			continue
		}
		if _, ok := r.byFinal[p.FinalURL]; !ok {
			r.byFinal[p.FinalURL] = int32(i)
		}
	}
}

// rec returns the record of page i.
func (r *siteRun) rec(i int) *pageRec {
	if r.recOf != nil {
		return r.b.recs.at(int(r.recOf[i]))
	}
	return r.b.recs.at(i)
}

// page returns page i expanded into buf (see siteBuilder.view):
// read-only, valid until buf is reused.
func (r *siteRun) page(i int, buf *pageBuf) *PageSummary {
	return r.b.view(r.rec(i), buf)
}

// update stores p, page i as changed by a site check, back into its
// record. A page kept whole (pageRec.more) is p itself, changed in place.
func (r *siteRun) update(i int, p *PageSummary) {
	rec := r.rec(i)
	if rec.more != nil {
		return
	}
	s := *p
	// Depth and Score point into the buffer p was expanded into.
	s.Depth, s.Score = depthPtr(p.depth()), nil
	if p.Score != nil {
		v := *p.Score
		s.Score = &v
	}
	s.Findings = r.b.shareIDs(s.Findings)
	*rec = r.b.record(&s)
}

// pages yields every page with its index, in order, each expanded into
// one buffer the next reuses: read-only, valid until the next step.
func (r *siteRun) pages() iter.Seq2[int, *PageSummary] {
	return func(yield func(int, *PageSummary) bool) {
		var buf pageBuf
		for i := range r.npages {
			if !yield(i, r.page(i, &buf)) {
				return
			}
		}
	}
}

// edgesOf yields the distinct edges recorded with page i, sorted by
// (from, target).
func (r *siteRun) edgesOf(i int) iter.Seq[edge] {
	l := r.edges[i]
	return edgesIn(r.b.arena[l.off:l.end], r.nodeOf[i], r.b.runs.runs)
}

// pageFor returns the crawled page at u (requested or final URL), or -1.
func (r *siteRun) pageFor(u string) int {
	if n, ok := r.b.ids[u]; ok && r.pageOf[n] >= 0 {
		return int(r.pageOf[n])
	}
	if i, ok := r.byFinal[u]; ok {
		return int(i)
	}
	return -1
}

// inSitemap reports whether a sitemap lists p's URL or final URL, by the
// hashes of the sitemap URLs (sorted by build).
func (r *siteRun) inSitemap(p *PageSummary) bool {
	listed := func(u string) bool {
		_, ok := slices.BinarySearch(r.b.smHashes, hash64(u))
		return ok
	}
	return listed(p.URL) || (p.FinalURL != "" && listed(p.FinalURL))
}

// effURL is the URL whose content the summary describes.
func effURL(p *PageSummary) string {
	if p.FinalURL != "" {
		return p.FinalURL
	}
	return p.URL
}

// canonicalOf is the URL a page consolidates to: its canonical, else itself.
func canonicalOf(p *PageSummary) string {
	if p.Canonical != "" {
		return p.Canonical
	}
	return effURL(p)
}

// canonicalisedElsewhere reports whether p names another URL as canonical.
func canonicalisedElsewhere(p *PageSummary) bool {
	return p.Canonical != "" && p.Canonical != p.URL && p.Canonical != p.FinalURL
}

// links counts the inlinks of every node from the distinct edges of each page.
func (r *siteRun) links() {
	n := len(r.b.urls)
	r.inlinks = make([]int32, n)
	r.followedIn = make([]int32, n)
	r.nofollowIn = make([]int32, n)
	r.fromIndex = make([]int32, n)
	for i, p := range r.pages() {
		for e := range r.edgesOf(i) {
			t := e.target()
			if e.redirect() || int32(e.from) == t || t == r.nodeOf[i] {
				continue
			}
			r.inlinks[t]++
			switch {
			case !e.nofollow():
				r.followedIn[t]++
			case !p.Nofollow:
				// rel="nofollow" on the link itself. The links of a page
				// that is nofollow as a whole (meta robots, X-Robots-Tag)
				// pass nothing either, but that is the page's finding
				// (indexability.nofollow_page), not each target's.
				r.nofollowIn[t]++
			}
			if !p.Noindex {
				r.fromIndex[t]++
			}
		}
	}
}

// checkSources lists the linking pages of the pages whose sources a site
// check asks for (siteCheck.Sources), in one pass over the graph.
func (r *siteRun) checkSources() {
	want := make([]bool, len(r.b.urls))
	wanted := 0
	for i := range r.npages {
		n := r.nodeOf[i]
		if want[n] {
			continue
		}
		for _, c := range builtinSiteChecks {
			if c.Sources != nil && c.Sources(r, i) {
				want[n] = true
				wanted++
				break
			}
		}
	}
	r.collectSources(want, wanted)
}

// collectSources lists the linking pages of the nodes in want.
func (r *siteRun) collectSources(want []bool, wanted int) {
	if wanted == 0 {
		return
	}
	r.sources = make([]*sourceList, len(r.b.urls))
	for i, p := range r.pages() {
		src := p.URL
		for e := range r.edgesOf(i) {
			t := e.target()
			if e.redirect() || !want[t] || t == r.nodeOf[i] {
				continue
			}
			s := r.sources[t]
			if s == nil {
				s = &sourceList{}
				r.sources[t] = s
			}
			if len(s.all) < maxEvidenceURLs {
				s.all = append(s.all, src)
			}
			if e.nofollow() && !p.Nofollow && len(s.nofollow) < maxEvidenceURLs {
				s.nofollow = append(s.nofollow, src)
			}
		}
	}
}

// sourcesOf returns the linking pages collected for node n, or nil.
func (r *siteRun) sourcesOf(n int32) *sourceList {
	if int(n) < len(r.sources) {
		return r.sources[n]
	}
	return nil
}
