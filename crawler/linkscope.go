package crawler

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/seo"
)

// Link-scope checks during a crawl.
//
// The analyzer runs its link-scope checks (links.broken_internal,
// canonical.target_error, hreflang.target_noindex ...) by fetching every
// target of the one page it analyses. A crawl answers the same questions
// without extra requests for internal targets: it has already fetched them.
// After the crawl the build walks the link graph and the page summaries and
// reports, on the linking (source) page:
//
//   - links.broken_internal and links.redirect_internal for <a> links
//     (followed or nofollow) to crawled URLs answering 4xx/5xx, failing, or
//     answering 3xx, and for a page's in-scope refresh target (meta
//     refresh or Refresh header), which a page analysis with CheckLinks
//     judges as a link (once when the page also links to it); the
//     refresh is no link of the graph (no inlink, no PageRank);
//   - canonical.target_error, canonical.target_redirect and
//     canonical.target_noindex for a crawled canonical target;
//   - hreflang.target_error, hreflang.target_redirect,
//     hreflang.target_noindex and hreflang.target_non_canonical for crawled
//     hreflang alternates.
//
// In-scope canonical URLs and hreflang alternates are crawled like links
// (resources.go), so they are answered from crawled pages too. Images are
// checked, not crawled: in-scope ones by a second checker of this kind
// within the crawl's politeness (Options.SkipResourceChecks,
// MaxResourceChecks), reported as images.broken.
//
// External targets are never crawled: <a> links, refresh targets (meta
// refresh or Refresh header), the Location of redirects, and the images,
// canonical URLs and hreflang alternates of other hosts. Unless
// Options.SkipExternalLinks is set, each distinct one is checked once,
// concurrently with the crawl,
// by extChecker (HEAD, GET when HEAD is refused, redirects not followed),
// and links.broken_external or links.redirect_external (images.broken,
// canonical.target_*, hreflang.target_* for the other kinds) is reported on
// every page referring to it. A refresh target is judged as a link, as a
// page analysis with CheckLinks judges it, and once when the page also
// links to it. A redirect to a broken external URL is reported on the
// redirecting URL as site.redirect_broken_external: the crawl does not
// follow it, and the redirect alone would read as a fine one. A host is
// checked one target at a time until it first
// answers; after HostFailLimit checks in a row with no answer at all
// (timeout, refused connection, DNS failure) it is given up and its other
// targets are counted as unchecked ("host_failing"), not reported as
// broken: three timeouts say the host is unreachable from the crawler, not
// that 800 links are broken. Once the pages are done the crawl waits at most
// Options.ExternalBudget for the checks left ("time_budget").
//
// These are page findings: their IDs join the source page's
// PageSummary.Findings, and its Score and counts drop by the page score rule
// (an ID the page already has subtracts nothing more). The findings in full,
// with the target URL and its answer in Evidence, are in
// SiteReport.LinkFindings, at most MaxLinkFindingsPerID per ID.
//
// Memory stays proportional to the graph: internal targets reuse the edges
// the crawl keeps anyway; an external link costs one 8-byte pair (page
// node, external id), and only the first Options.MaxExternalChecks distinct
// external URLs are kept as strings. A resumed crawl checks the external
// links of the pages it fetches itself, not of the pages replayed.

func init() {
	registerSite(siteCheck{
		Area: "links",
		IDs: []seo.CheckInfo{
			{ID: redirectBrokenExternal, Severity: seo.Warning, Scope: seo.ScopeLink,
				Summary: "A crawled URL redirects to another site's URL that answers 4xx/5xx or cannot be fetched.",
				Source: "Google Search Central, Redirects and Google Search (https://developers.google.com/search/docs/crawling-indexing/301-redirects): a redirect sends users and Googlebot on to its target; " +
					"Screaming Frog SEO Spider, Response Codes tab: the Redirect URL of each URL, and the Internal and External filters (https://www.screamingfrog.co.uk/guides/response-codes/)",
				Differs: "Screaming Frog lists the redirect and its external target's status as separate rows; seokit reports the redirecting URL when its external target is broken."},
		},
		Reports: []string{
			"links.broken_internal", "links.redirect_internal", "links.broken_external", "links.redirect_external",
			"canonical.target_error", "canonical.target_redirect", "canonical.target_noindex",
			"hreflang.target_error", "hreflang.target_redirect", "hreflang.target_noindex", "hreflang.target_non_canonical",
			"images.broken", "resources.broken_script", "resources.broken_stylesheet",
		},
		Run: (*siteRun).linkScope,
	})
}

// MaxLinkFindingsPerID caps the findings of one ID kept in full in
// SiteReport.LinkFindings; FindingGroup.Count still counts them all.
const MaxLinkFindingsPerID = 1000

// extBodyLimit caps the body read by the GET fallback of an external check.
const extBodyLimit = 64 << 10

// linkScope is the builder's link-scope state.
type linkScope struct {
	disabled map[string]bool
	// muted are the muted IDs and areas; pageMuted counts the muted
	// findings of the pages added so far.
	muted     map[string]bool
	pageMuted map[string]analyzer.MutedFinding
	severity  map[string]seo.Severity
	// ext checks the external targets; nil when they are not checked.
	ext *extChecker
	// extEdges links a page (builder node id, from) to an external target
	// (extChecker id and target kind, to; see targetRef): 8 bytes per
	// distinct pair.
	extEdges []edge
	// res checks the in-scope images; nil when they are not checked.
	// resEdges link pages to them as extEdges do.
	res      *extChecker
	resEdges []edge
	// refresh links a page (from) to the node of its in-scope refresh
	// target (to, no flags): 8 bytes per refreshing page, outside the
	// link graph, so the target counts no inlink and gets no PageRank.
	refresh []edge
}

// init reads the disabled checks and severity overrides of the per-page
// analysis options.
func (ls *linkScope) init(opts *Options) {
	if opts == nil || opts.Analyzer == nil {
		return
	}
	for _, id := range opts.Analyzer.Disable {
		if ls.disabled == nil {
			ls.disabled = map[string]bool{}
		}
		ls.disabled[strings.TrimSpace(id)] = true
	}
	for _, id := range opts.Analyzer.Mute {
		if ls.muted == nil {
			ls.muted = map[string]bool{}
		}
		ls.muted[strings.TrimSpace(id)] = true
	}
	ls.severity = opts.Analyzer.Severity
}

// isMuted reports whether id is muted by ID or area.
func (ls *linkScope) isMuted(id string) bool {
	return ls.muted[id] || ls.muted[seo.AreaOf(id)]
}

// addMuted adds the muted counts of one page.
func (ls *linkScope) addMuted(ms []analyzer.MutedFinding) {
	for _, m := range ms {
		if ls.pageMuted == nil {
			ls.pageMuted = map[string]analyzer.MutedFinding{}
		}
		ls.pageMuted[m.ID] = addMuted(ls.pageMuted[m.ID], m.ID, m.Severity, m.Count)
	}
}

// addMuted returns m with n more findings of id.
func addMuted(m analyzer.MutedFinding, id string, sev seo.Severity, n int) analyzer.MutedFinding {
	m.ID = id
	m.Severity = max(m.Severity, sev)
	m.Count += n
	return m
}

// mute counts one muted finding of id in this build.
func (r *siteRun) mute(id string, sev seo.Severity) {
	if r.muted == nil {
		r.muted = maps.Clone(r.b.link.pageMuted)
		if r.muted == nil {
			r.muted = map[string]analyzer.MutedFinding{}
		}
	}
	r.muted[id] = addMuted(r.muted[id], id, sev, 1)
}

// dropMuted returns fs without the findings of disabled IDs and without
// the muted ones, which it counts.
func (r *siteRun) dropMuted(fs []seo.Finding) []seo.Finding {
	ls := &r.b.link
	if len(ls.muted) == 0 && len(ls.disabled) == 0 {
		return fs
	}
	return slices.DeleteFunc(fs, func(f seo.Finding) bool {
		if ls.disabled[f.ID] || ls.disabled[seo.AreaOf(f.ID)] {
			return true
		}
		if ls.isMuted(f.ID) {
			r.mute(f.ID, f.Severity)
			return true
		}
		return false
	})
}

// mutedList returns the muted counts of the crawl, most severe first, then
// by ID.
func (r *siteRun) mutedList() []analyzer.MutedFinding {
	all := r.muted
	if all == nil {
		all = r.b.link.pageMuted
	}
	if len(all) == 0 {
		return nil
	}
	out := slices.Collect(maps.Values(all))
	analyzer.SortMuted(out)
	return out
}

// addExternal records that the page at from refers to the external
// targets ids as kind.
func (b *siteBuilder) addExternal(from string, ids []int32, kind targetKind) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.link.extEdges = b.addTargetEdges(b.link.extEdges, from, ids, kind)
}

// addResource records that the page at from uses the in-scope resources
// ids (resource checker ids) as kind.
func (b *siteBuilder) addResource(from string, ids []int32, kind targetKind) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.link.resEdges = b.addTargetEdges(b.link.resEdges, from, ids, kind)
}

// addTargetEdges appends to es an edge from the page at from to each id;
// b.mu is held.
func (b *siteBuilder) addTargetEdges(es []edge, from string, ids []int32, kind targetKind) []edge {
	f := uint32(b.intern(from))
	for _, id := range ids {
		es = append(es, edge{f, targetRef(id, kind)})
	}
	return es
}

// linkHit is one link-scope finding before it is reported.
type linkHit struct {
	id, target string
	msg        string
	ev         seo.Evidence
}

// linkAcc accumulates the link-scope findings of a build.
type linkAcc struct {
	r        *siteRun
	counts   map[string]int // findings per ID
	pages    map[string]int // distinct source pages per ID
	kept     map[string]int
	full     []seo.Finding
	omitted  int
	lastPage map[string]int
}

// linkScope runs the link-scope checks over the graph, the summaries and the
// external check results; see the comment at the top of linkscope.go.
func (r *siteRun) linkScope() {
	acc := &linkAcc{r: r, counts: map[string]int{}, pages: map[string]int{}, kept: map[string]int{}, lastPage: map[string]int{}}
	r.link = acc
	ls := &r.b.link

	ext := checkedTargets(ls.ext, ls.extEdges, true)
	own := checkedTargets(ls.res, ls.resEdges, false)
	slices.SortFunc(ls.refresh, func(x, y edge) int { return cmp.Compare(x.from, y.from) })

	order := make([]int32, r.npages)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(r.b.urls[r.nodeOf[a]], r.b.urls[r.nodeOf[b]]) })

	var hits []linkHit
	var buf, qbuf pageBuf
	memo := newTargetMemo(len(r.b.urls))
	for _, pi := range order {
		i := int(pi)
		p := r.page(i, &buf)
		if p.RobotsBlocked {
			continue
		}
		hits = hits[:0]
		node := r.nodeOf[i]
		// A redirect's links are not followed: its one checked target is
		// where it leads, when that is external (targetRedirect).
		redirect := p.Status/100 == 3
		// The in-scope refresh target is judged as a link, as a page
		// analysis with CheckLinks judges it: once when the page also
		// links to it.
		refresh := refreshTarget(ls.refresh, node)
		for e := range r.edgesOf(i) {
			if redirect {
				break
			}
			t := e.target()
			if e.redirect() || int32(e.from) != node || t == node {
				continue
			}
			if t == refresh {
				refresh = -1
			}
			j := r.pageOf[t]
			if j < 0 {
				continue
			}
			hits = memo.hits(hits, t, func(hits []linkHit) []linkHit {
				return r.targetHits(hits, analyzer.InternalLink, r.b.urls[t], `<a href>`, r.page(int(j), &qbuf))
			})
		}
		if refresh >= 0 {
			if j := r.pageOf[refresh]; j >= 0 {
				hits = r.targetHits(hits, analyzer.InternalLink, r.b.urls[refresh], refreshElement, r.page(int(j), &qbuf))
			}
		}
		hits = ext.hits(hits, node)
		hits = own.hits(hits, node)
		if p.IsHTML && p.Status == http.StatusOK {
			hits = r.canonicalTarget(p, i, hits, &qbuf)
			hits = r.hreflangTargets(p, i, hits, &qbuf)
		}
		if len(hits) == 0 {
			continue
		}
		slices.SortFunc(hits, func(a, b linkHit) int {
			if c := strings.Compare(a.id, b.id); c != 0 {
				return c
			}
			return strings.Compare(a.target, b.target)
		})
		for _, h := range hits {
			acc.add(i, h)
		}
	}
	SortFindings(acc.full)
}

// refreshElement is the Evidence.Element of a refresh target's findings:
// the crawl keeps the target, not which of the two declared it.
const refreshElement = `<meta http-equiv="refresh"> or Refresh header`

// refreshTarget returns the node of the in-scope refresh target of the
// page at node, or -1; es (linkScope.refresh) is sorted by page.
func refreshTarget(es []edge, node int32) int32 {
	k, found := slices.BinarySearchFunc(es, uint32(node), func(e edge, n uint32) int { return cmp.Compare(e.from, n) })
	if !found {
		return -1
	}
	return int32(es[k].to)
}

// targetMemo remembers the link-scope findings of the internal link
// targets linkScope has judged: a page linked from many others is judged
// once, its verdicts (few pages have any) copied for the other links.
type targetMemo struct {
	done  []uint64            // bitset of the nodes judged
	found map[int32][]linkHit // their findings, for those with any
}

func newTargetMemo(nodes int) *targetMemo {
	return &targetMemo{done: make([]uint64, (nodes+63)/64), found: map[int32][]linkHit{}}
}

// hits appends the findings of a link to node, judged by judge the
// first time (which appends them to the hits it is given).
func (m *targetMemo) hits(hits []linkHit, node int32, judge func([]linkHit) []linkHit) []linkHit {
	w, bit := node/64, uint64(1)<<(node%64)
	if m.done[w]&bit == 0 {
		m.done[w] |= bit
		n := len(hits)
		hits = judge(hits)
		if len(hits) > n {
			m.found[node] = cloneHits(nil, hits[n:])
		}
		return hits
	}
	return cloneHits(hits, m.found[node])
}

// cloneHits appends copies of hs to hits, their evidence's slices and
// pointers copied, so no two findings share them.
func cloneHits(hits, hs []linkHit) []linkHit {
	for _, h := range hs {
		h.ev.URLs = slices.Clone(h.ev.URLs)
		if h.ev.Measured != nil {
			v := *h.ev.Measured
			h.ev.Measured = &v
		}
		if h.ev.Threshold != nil {
			v := *h.ev.Threshold
			h.ev.Threshold = &v
		}
		hits = append(hits, h)
	}
	return hits
}

// canonicalTarget checks the crawled canonical target of p, expanding it
// into buf.
func (r *siteRun) canonicalTarget(p *PageSummary, i int, hits []linkHit, buf *pageBuf) []linkHit {
	if !canonicalisedElsewhere(p) {
		return hits
	}
	j := r.crawledPage(p.Canonical)
	if j < 0 || j == i {
		return hits
	}
	return r.targetHits(hits, analyzer.CanonicalTarget, p.Canonical, `<link rel="canonical">`, r.page(j, buf))
}

// hreflangTargets checks the crawled hreflang alternates of p, expanding
// them into buf.
func (r *siteRun) hreflangTargets(p *PageSummary, i int, hits []linkHit, buf *pageBuf) []linkHit {
	if len(p.Hreflang) == 0 {
		return hits
	}
	base, _ := seo.NewBaseURL(nil)
	if b, err := seo.ParseHref(effURL(p)); err == nil {
		base, _ = seo.NewBaseURL(b)
	}
	var seen []int
	for _, a := range p.Hreflang {
		if a.Source == "sitemap" || strings.TrimSpace(a.URL) == "" {
			continue
		}
		u := strings.TrimSpace(a.URL)
		if v, err := base.Resolve(u); err == nil {
			u = v.String()
		}
		if u == p.URL || u == p.FinalURL || u == p.Canonical {
			continue
		}
		j := r.crawledPage(u)
		if j < 0 || j == i || slices.Contains(seen, j) {
			continue
		}
		seen = append(seen, j)
		hits = r.targetHits(hits, analyzer.HreflangTarget, u, `<link rel="alternate" hreflang="`+a.Code+`">`, r.page(j, buf))
	}
	return hits
}

// crawledPage returns the page crawled at exactly u (as written, or in
// normal form), or -1. Unlike pageFor it does not match final URLs: a
// redirect's summary describes the redirect, not its destination.
func (r *siteRun) crawledPage(u string) int {
	if n, ok := r.b.ids[u]; ok && r.pageOf[n] >= 0 {
		return int(r.pageOf[n])
	}
	pu, err := seo.ParseHref(u)
	if err != nil || pu.Host == "" {
		return -1
	}
	if n, ok := r.b.ids[seo.NormalizeURL(pu, nil).String()]; ok && r.pageOf[n] >= 0 {
		return int(r.pageOf[n])
	}
	return -1
}

// targetHits appends the link-scope findings of the crawled page q as the
// target u of a link, canonical or hreflang reference: the verdicts are
// analyzer.TargetFindings', given what the crawl knows of q. A URL
// robots.txt kept the crawl from was not fetched.
func (r *siteRun) targetHits(hits []linkHit, kind analyzer.TargetKind, u, el string, q *PageSummary) []linkHit {
	t := analyzer.Target{
		Kind: kind, URL: u, Element: el, SiteWording: true,
		Fetched: !q.RobotsBlocked && (q.Status != 0 || q.Error != ""),
		Status:  q.Status, Location: locationOf(q), Blocked: q.RobotsBlocked && !robotsUnavailable(q), Noindex: q.Noindex,
	}
	if q.Status == 0 {
		t.Error = q.Error
	}
	if kind == analyzer.HreflangTarget && q.Status/100 == 2 && q.IsHTML && canonicalisedElsewhere(q) {
		t.Canonical = q.Canonical
	}
	return appendHits(hits, u, &t)
}

// locationOf is where a crawled redirect leads, or "".
func locationOf(q *PageSummary) string {
	if len(q.Redirects) > 0 && q.Redirects[0].Location != "" {
		return q.Redirects[0].Location
	}
	return q.FinalURL
}

// checkedSet is what a checker answered and the (page, target) edges to
// its targets, sorted by page.
type checkedSet struct {
	edges    []edge
	res      []extResult
	urls     []string
	external bool
}

// checkedTargets returns the results of c for the edges es, sorting es;
// external says c checks external targets.
func checkedTargets(c *extChecker, es []edge, external bool) checkedSet {
	if c == nil || len(es) == 0 {
		return checkedSet{}
	}
	res, urls := c.results()
	slices.SortFunc(es, func(x, y edge) int {
		if c := cmp.Compare(x.from, y.from); c != 0 {
			return c
		}
		return cmp.Compare(x.to, y.to)
	})
	return checkedSet{edges: es, res: res, urls: urls, external: external}
}

// hits appends the findings of the checked targets of the page node.
func (s *checkedSet) hits(hits []linkHit, node int32) []linkHit {
	es := s.edges
	if len(es) == 0 {
		return hits
	}
	lo := sort.Search(len(es), func(k int) bool { return es[k].from >= uint32(node) })
	hi := lo
	for hi < len(es) && es[hi].from == uint32(node) {
		hi++
	}
	page := es[lo:hi] // sorted by target: links (kind 0) first
	for k, e := range page {
		if k > 0 && page[k-1].to == e.to {
			continue
		}
		id, kind := splitTargetRef(e.to)
		if kind == targetRefresh {
			// A refresh target the page also links to is one target
			// of the page, reported once, as a page analysis does.
			if _, linked := slices.BinarySearchFunc(page, targetRef(id, targetLink), func(e edge, to uint32) int { return cmp.Compare(e.to, to) }); linked {
				continue
			}
		}
		hits = checkedHits(hits, kind, s.external, s.urls[id], &s.res[id])
	}
	return hits
}

// checkedHits appends the findings of one checked target u, referred to
// as kind.
func checkedHits(hits []linkHit, kind targetKind, external bool, u string, res *extResult) []linkHit {
	if !res.done || res.forbidden {
		return hits
	}
	t := analyzer.Target{URL: u, SiteWording: true, Fetched: true, Status: res.status, Error: res.err, Location: res.loc}
	switch kind {
	case targetCanonical:
		t.Kind, t.Element = analyzer.CanonicalTarget, `<link rel="canonical">`
	case targetHreflang:
		t.Kind, t.Element = analyzer.HreflangTarget, `<link rel="alternate" hreflang>`
	case targetImage:
		t.Kind, t.Element, t.ContentType = analyzer.ImageTarget, `<img>`, res.ctype
	case targetScript:
		t.Kind, t.Element = analyzer.ScriptTarget, `<script src>`
	case targetStylesheet:
		t.Kind, t.Element = analyzer.StylesheetTarget, `<link rel="stylesheet">`
	case targetRefresh:
		t.Kind, t.Element = analyzer.ExternalLink, refreshElement
	case targetRedirect:
		return redirectHits(hits, u, &t)
	default:
		t.Kind, t.Element = analyzer.ExternalLink, `<a href>`
		if !external {
			t.Kind = analyzer.InternalLink
		}
	}
	return appendHits(hits, u, &t)
}

// redirectBrokenExternal is the finding of a crawled URL that redirects
// to an external URL that is broken.
const redirectBrokenExternal = "site.redirect_broken_external"

// redirectHits appends the finding of the external Location u of a
// crawled redirect, answered as t: redirectBrokenExternal when a link to
// u would be links.broken_external. An external redirect that redirects
// again is no finding: sites move their pages, and the redirect chain
// checks are about the site's own URLs.
func redirectHits(hits []linkHit, u string, t *analyzer.Target) []linkHit {
	t.Kind, t.Element = analyzer.ExternalLink, "Location"
	var buf [2]analyzer.TargetFinding
	for _, f := range analyzer.TargetFindings(buf[:0], t) {
		if f.ID == "links.broken_external" {
			hits = append(hits, linkHit{redirectBrokenExternal, u, fmt.Sprintf("the redirect to %s is broken (%s)", u, f.Evidence.Detail), f.Evidence})
		}
	}
	return hits
}

// appendHits appends the findings of t, whose target is u.
func appendHits(hits []linkHit, u string, t *analyzer.Target) []linkHit {
	var buf [4]analyzer.TargetFinding
	for _, f := range analyzer.TargetFindings(buf[:0], t) {
		hits = append(hits, linkHit{f.ID, u, f.Message, f.Evidence})
	}
	return hits
}

// linkSeverity returns the severity of a link-scope ID, with the analysis
// options' overrides (in r.sev), and false when the ID is disabled.
func (r *siteRun) linkSeverity(id string) (seo.Severity, bool) {
	ls := &r.b.link
	if ls.disabled[id] || ls.disabled[seo.AreaOf(id)] {
		return 0, false
	}
	if in, ok := r.sev[id]; ok {
		return in.Severity, true
	}
	return seo.Warning, true
}

// add reports one finding on page i: counted, kept in full under the cap,
// and its ID added to the page with the page score rule.
func (a *linkAcc) add(i int, h linkHit) {
	sev, ok := a.r.linkSeverity(h.id)
	if !ok {
		return
	}
	if a.r.b.link.isMuted(h.id) {
		a.r.mute(h.id, sev)
		return
	}
	var buf pageBuf
	p := a.r.page(i, &buf)
	a.counts[h.id]++
	if last, ok := a.lastPage[h.id]; !ok || last != i {
		a.lastPage[h.id] = i
		a.pages[h.id]++
	}
	if a.kept[h.id] < MaxLinkFindingsPerID {
		a.kept[h.id]++
		a.full = append(a.full, seo.Finding{ID: h.id, Severity: sev, Message: h.msg, Evidence: h.ev, URL: p.URL})
	} else {
		a.omitted++
	}
	k, found := slices.BinarySearch(p.Findings, h.id)
	if found {
		return
	}
	p.Findings = slices.Insert(slices.Clip(p.Findings), k, h.id) // p.Findings may be shared

	if p.Score != nil {
		v := max(0, *p.Score-sev.Weight())
		p.Score = &v
	}
	switch sev {
	case seo.Error:
		p.Errors++
	case seo.Warning:
		p.Warnings++
	case seo.Notice:
		p.Notices++
	}
	a.r.update(i, p)
}

// adjustGroups makes FindingGroup.Count of the link-scope IDs count every
// finding, not one per page. The order stays: it follows the priority,
// which counts pages, not findings.
func (a *linkAcc) adjustGroups(groups []FindingGroup) {
	if a == nil || len(a.counts) == 0 {
		return
	}
	for k := range groups {
		g := &groups[k]
		if extra := a.counts[g.ID] - a.pages[g.ID]; extra > 0 {
			g.Count += extra
		}
	}
}

// extResult is what one external target answered.
type extResult struct {
	done      bool // checked to the end (not cancelled)
	forbidden bool // the fetcher refused the address (private network)
	down      bool // no HTTP answer: timeout, refused connection, DNS failure ...
	status    int
	loc, err  string
	// ctype is the Content-Type of a 2xx answer.
	ctype string
	// skip says why a target was not checked (UncheckedHostFailing); empty
	// for a check cancelled by a budget or a stop.
	skip string
}

// Why external link targets were left unchecked: the keys of
// SiteReport.ExternalUncheckedReasons.
const (
	// UncheckedMaxChecks: past Options.MaxExternalChecks.
	UncheckedMaxChecks = "max_checks"
	// UncheckedHostFailing: the target's host failed HostFailLimit checks
	// in a row, so the crawl stopped trying it.
	UncheckedHostFailing = "host_failing"
	// UncheckedHostUnresolvable: the name of the target's host does not
	// resolve (analyzer.TargetNotChecked), so the crawl gave the host up
	// at its first target: nothing is known of the targets themselves.
	UncheckedHostUnresolvable = analyzer.NotCheckedHostUnresolvable
	// UncheckedTimeBudget: Options.ExternalBudget or the crawl's TimeBudget
	// ran out first; a page analysis's link check names its own budget's
	// cuts alike.
	UncheckedTimeBudget = analyzer.NotCheckedTimeBudget
	// UncheckedCanceled: the crawl was stopped.
	UncheckedCanceled = "canceled"
)

// HostFailLimit is how many external checks of one host in a row may fail
// with no HTTP answer (timeout, refused connection, DNS failure) before
// the crawl gives the host up: its remaining targets are reported as
// unchecked (UncheckedHostFailing), not as broken links.
const HostFailLimit = 3

// maxFailingHosts caps SiteReport.ExternalFailingHosts.
const maxFailingHosts = 100

// errExternalBudget is the cause of checks cancelled by
// Options.ExternalBudget.
var errExternalBudget = errors.New("crawler: external check budget spent")

// extChecker checks distinct external URLs once each, with at most global
// checks in flight and perHost per host. URLs are queued per host and
// started as slots free up, so only running checks hold a goroutine.
//
// It is also the one place that decides when a host is given up: a host
// runs one check at a time until it first answers, and after
// HostFailLimit checks in a row without an answer its remaining targets
// are skipped (extHost.note).
type extChecker struct {
	ctx     context.Context
	cancel  context.CancelCauseFunc
	fetcher *seo.Fetcher
	ua      string
	timeout time.Duration
	max     int
	global  int
	perHost int
	// acquire, when set, takes a slot of the crawl's politeness for the
	// host of each request (in-scope resources share the pages' limits).
	acquire func(ctx context.Context, host string) (func(), error)
	// external: the targets are on other hosts than the crawl's, so a
	// host whose name does not resolve leaves them not checked.
	external bool

	mu      sync.Mutex
	ids     map[string]int32
	urls    []string
	res     []extResult
	hosts   map[string]*extHost
	ready   []*extHost // hosts with queued URLs and a free slot
	failing []string   // hosts given up, in order
	running int
	wg      sync.WaitGroup

	over distinctCounter // distinct URLs beyond max
	// overShared and lostShared count a shared crawl's targets refused
	// over the cap and claimed but never answered (sharedUnchecked).
	overShared, lostShared int
	checked                atomic.Int64
	settled                atomic.Int64 // targets checked, cancelled or skipped
	skipped                atomic.Int64 // settled without a check to the end
}

// extHost is the queue of one host.
type extHost struct {
	name     string
	pending  []int32
	inflight int
	queued   bool // in ready
	answered bool // some check got an HTTP answer
	fails    int  // checks in a row without an answer
	failing  bool // given up: fails reached HostFailLimit, or its name does not resolve
	// skip is why its remaining targets are not checked once failing:
	// UncheckedHostFailing or UncheckedHostUnresolvable.
	skip string
}

// note records the outcome of one check of h and reports whether it makes
// h a failing host.
func (h *extHost) note(r *extResult) bool {
	switch {
	case h.failing:
		return false
	case r.skip == UncheckedHostUnresolvable:
		h.failing, h.skip = true, r.skip
		return true
	case !r.done:
		return false
	case r.down:
		h.fails++
		h.failing = h.fails >= HostFailLimit
		h.skip = UncheckedHostFailing
		return h.failing
	default:
		h.fails = 0
		h.answered = true
		return false
	}
}

// newExtChecker returns a checker whose checks run under ctx.
func newExtChecker(ctx context.Context, f *seo.Fetcher, o *Options) *extChecker {
	c := &extChecker{
		fetcher: f, ua: o.UserAgent, timeout: o.ExternalTimeout,
		max: o.MaxExternalChecks, global: max(1, o.Concurrency), perHost: max(1, o.PerHostConcurrency),
		ids: map[string]int32{}, hosts: map[string]*extHost{},
		over: distinctCounter{limit: 1 << 16}, external: true,
	}
	c.ctx, c.cancel = context.WithCancelCause(ctx)
	return c
}

// newResourceChecker returns a checker of in-scope resources: at most
// MaxResourceChecks of them, each request within the crawl's per-host
// politeness (acquire) and RequestTimeout.
func newResourceChecker(ctx context.Context, f *seo.Fetcher, o *Options, acquire func(context.Context, string) (func(), error)) *extChecker {
	c := newExtChecker(ctx, f, o)
	c.max, c.timeout, c.acquire, c.external = o.MaxResourceChecks, o.RequestTimeout, acquire, false
	return c
}

// add queues the new URLs among us for checking and returns the ids of all
// of them (within the cap), without repeats.
func (c *extChecker) add(us []*url.URL) []int32 {
	var out []int32
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, u := range us {
		key := targetKey(u)
		id, ok := c.ids[key]
		if !ok {
			if len(c.urls) >= c.max {
				c.over.add(key)
				continue
			}
			id = int32(len(c.urls))
			c.ids[key] = id
			c.urls = append(c.urls, key)
			c.res = append(c.res, extResult{})
			h := c.hosts[u.Host]
			if h == nil {
				h = &extHost{name: u.Host}
				c.hosts[u.Host] = h
			}
			if h.failing {
				c.res[id].skip = h.skip
				c.settle(false)
			} else {
				h.pending = append(h.pending, id)
				c.wg.Add(1)
				c.markReady(h)
				c.schedule()
			}
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// preset records the answer r a worker of a shared crawl stored for the
// target key, which is then known without a check of its own.
func (c *extChecker) preset(key string, r extResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.ids[key]; ok {
		return
	}
	c.ids[key] = int32(len(c.urls))
	c.urls = append(c.urls, key)
	c.res = append(c.res, r)
	c.settle(r.done)
	if r.done {
		c.checked.Add(1)
	}
}

// known returns the ids of the URLs among us that preset recorded,
// without repeats; the others are not checked here.
func (c *extChecker) known(us []*url.URL) []int32 {
	var out []int32
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, u := range us {
		if id, ok := c.ids[targetKey(u)]; ok && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// sharedUnchecked records the targets of a shared crawl refused over the
// cap (over) and those claimed but never answered (lost: the worker
// stopped first), for stats.
func (c *extChecker) sharedUnchecked(over, lost int) {
	c.mu.Lock()
	c.overShared, c.lostShared = over, lost
	c.mu.Unlock()
}

// settle counts a target whose check ended (done) or was given up.
func (c *extChecker) settle(done bool) {
	c.settled.Add(1)
	if !done {
		c.skipped.Add(1)
	}
}

// slots is how many checks of h may run at once: one until h first
// answers, so a host that does not answer costs one check at a time.
func (c *extChecker) slots(h *extHost) int {
	if h.answered {
		return c.perHost
	}
	return 1
}

// markReady puts h in the ready queue if it has work and a free slot.
func (c *extChecker) markReady(h *extHost) {
	if !h.queued && !h.failing && len(h.pending) > 0 && h.inflight < c.slots(h) {
		h.queued = true
		c.ready = append(c.ready, h)
	}
}

// schedule starts checks while global slots are free. c.mu is held.
func (c *extChecker) schedule() {
	for c.running < c.global && len(c.ready) > 0 {
		h := c.ready[0]
		c.ready[0] = nil
		c.ready = c.ready[1:]
		h.queued = false
		if h.failing || len(h.pending) == 0 || h.inflight >= c.slots(h) {
			continue
		}
		id := h.pending[0]
		h.pending = h.pending[1:]
		h.inflight++
		c.running++
		c.markReady(h)
		go c.run(h, id, c.urls[id])
	}
}

func (c *extChecker) run(h *extHost, id int32, u string) {
	defer c.wg.Done()
	res := c.check(u)
	if res.done {
		c.checked.Add(1)
	}
	c.mu.Lock()
	c.res[id] = res
	c.settle(res.done)
	c.running--
	h.inflight--
	if h.note(&res) {
		// Given up: what is still queued for h is not tried.
		for _, p := range h.pending {
			c.res[p].skip = h.skip
			c.settle(false)
			c.wg.Done()
		}
		h.pending = nil
		if len(c.failing) < maxFailingHosts {
			c.failing = append(c.failing, h.name)
		}
	}
	c.markReady(h)
	c.schedule()
	c.mu.Unlock()
}

// check requests u: HEAD, then GET when HEAD fails or is refused.
func (c *extChecker) check(u string) extResult {
	if c.ctx.Err() != nil {
		return extResult{}
	}
	fetch := func(method string) (*seo.Response, error) {
		if c.acquire != nil {
			host := ""
			if pu, err := url.Parse(u); err == nil {
				host = pu.Host
			}
			release, err := c.acquire(c.ctx, host)
			if err != nil {
				return nil, err
			}
			defer release()
		}
		ctx, cancel := context.WithTimeout(c.ctx, c.timeout)
		defer cancel()
		return c.fetcher.Fetch(ctx, &seo.Request{URL: u, Method: method, UserAgent: c.ua, NoFollow: true, DiscardBody: true, MaxBodyBytes: extBodyLimit})
	}
	resp, err := fetch(http.MethodHead)
	answered := resp != nil
	refused := err != nil || resp == nil
	if !refused {
		switch resp.Status {
		case http.StatusMethodNotAllowed, http.StatusNotImplemented, http.StatusForbidden, http.StatusBadRequest:
			refused = true
		}
	}
	// A host that did not answer at all (hostDown) gets no GET: it would
	// not fare better and would double the wait.
	if refused && !errors.Is(err, seo.ErrForbiddenAddress) && !hostDown(err) {
		resp, err = fetch(http.MethodGet)
	}
	if c.ctx.Err() != nil {
		// Cancelled: the failure says nothing about the target.
		return extResult{}
	}
	if errors.Is(err, errHostAbandoned) {
		// The crawl gave the host up: nothing is known of the target.
		return extResult{skip: UncheckedHostFailing}
	}
	if resp == nil && c.external && analyzer.TargetNotChecked(err, false) != "" {
		// The host is not in the DNS: nothing is known of the target.
		return extResult{skip: UncheckedHostUnresolvable}
	}
	r := extResult{done: true}
	if resp != nil {
		r.status = resp.Status
		if r.status/100 == 2 {
			r.ctype = resp.Header.Get("Content-Type")
		}
		if loc := resp.Header.Get("Location"); loc != "" && r.status/100 == 3 {
			r.loc = loc
			if base, err1 := seo.ParseHref(u); err1 == nil {
				if lu, err2 := seo.ResolveReference(base, loc); err2 == nil {
					r.loc = lu.String()
				}
			}
		}
	}
	if err != nil && r.status == 0 {
		r.err = err.Error()
		r.forbidden = errors.Is(err, seo.ErrForbiddenAddress)
		r.down = !r.forbidden && !answered && resp == nil
	}
	return r
}

// hostDown reports whether err says the host did not answer at all: a
// timeout, or a connection that could not be made (refused, unreachable,
// name not resolved).
func hostDown(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Op == "dial" {
		return true
	}
	var de *net.DNSError
	return errors.As(err, &de)
}

// finish waits for the queued checks, at most budget (none when budget is
// not positive): the checks still queued or running then are cancelled
// and counted as unchecked (UncheckedTimeBudget).
func (c *extChecker) finish(budget time.Duration) {
	if budget > 0 {
		t := time.AfterFunc(budget, func() { c.cancel(errExternalBudget) })
		defer t.Stop()
	}
	c.wg.Wait()
}

// progress returns the checks settled and queued so far.
func (c *extChecker) progress() *ExternalProgress {
	c.mu.Lock()
	total := len(c.urls)
	c.mu.Unlock()
	return &ExternalProgress{Done: int(c.settled.Load()), Total: total, Unchecked: int(c.skipped.Load())}
}

// results returns the results and URLs by id; call it after finish.
func (c *extChecker) results() ([]extResult, []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.res, c.urls
}

// extStats are the external check counts of a report.
type extStats struct {
	checked, unchecked int
	reasons            map[string]int
	failing            []string
}

// stats counts the URLs checked to the end and those left unchecked (over
// the cap, on a failing host, cancelled), by reason; call it after finish.
func (c *extChecker) stats() extStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := extStats{checked: int(c.checked.Load()), failing: slices.Clone(c.failing)}
	add := func(reason string, n int) {
		if n == 0 {
			return
		}
		if st.reasons == nil {
			st.reasons = map[string]int{}
		}
		st.reasons[reason] += n
		st.unchecked += n
	}
	stopped := UncheckedCanceled
	if cause := context.Cause(c.ctx); errors.Is(cause, errExternalBudget) || errors.Is(cause, context.DeadlineExceeded) {
		stopped = UncheckedTimeBudget
	}
	for i := range c.res {
		switch r := &c.res[i]; {
		case r.done:
		case r.skip != "":
			add(r.skip, 1)
		default:
			add(stopped, 1)
		}
	}
	add(UncheckedMaxChecks, c.over.count()+c.overShared)
	add(UncheckedCanceled, c.lostShared)
	return st
}
