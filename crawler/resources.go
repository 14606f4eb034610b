package crawler

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"

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
// Images, scripts and stylesheets are checked, never crawled. Each
// distinct in-scope image source (<img src>, the first candidate of an
// <img> or <picture><source> srcset), <script src> and <link
// rel=stylesheet href> that robots.txt allows is requested once per crawl
// by a resource checker (HEAD, GET when HEAD is refused, the body
// discarded past a small cap) that takes the crawl's per-host politeness
// slots, at most Options.MaxResourceChecks of them;
// SiteReport.ResourceUnchecked counts the others and why. External ones,
// and external canonical URLs and hreflang alternates, go to the external
// checker with the external links. Either way each page referring to a
// target costs one 8-byte edge (page node, target id and kind), and
// images.broken, resources.broken_script, resources.broken_stylesheet,
// canonical.target_* and hreflang.target_* are reported on it through
// analyzer.TargetFindings.
//
// A shared crawl (SharedFrontier) checks each of them once per crawl
// too, and reports the same findings as a crawl by one Run. Each worker
// stores the targets of its pages with the page's edges (Edge.Target).
// With SharedTargets (the Redis frontier), the worker claims each
// in-scope image, script and stylesheet in the shared store, which keeps
// what was claimed and counts MaxResourceChecks across all workers, and
// checks the ones it claimed while it crawls, through the crawl's host
// gate (Options.HostGate), storing the answers before the page is Done;
// the coordinator reads the answers. External targets, and in-scope ones
// without SharedTargets, are checked by the coordinator once every worker
// is done: reading every worker's summaries, it hands them to its own
// checkers, which keep each distinct target once.

// Sources of the frontier items found through a page's head.
const (
	// SourceCanonical marks a URL found as a page's canonical URL.
	SourceCanonical = "canonical"
	// SourceHreflang marks a URL found as a page's hreflang alternate.
	SourceHreflang = "hreflang"
)

// Edge.Target values: how a page refers to a target the crawl checks.
const (
	TargetCanonical  = "canonical"
	TargetHreflang   = "hreflang"
	TargetImage      = "image"
	TargetScript     = "script"
	TargetStylesheet = "stylesheet"
	// TargetRefresh marks the target of a page's meta refresh or Refresh
	// header, judged as a link is: an external one checked, an in-scope
	// one (not External) answered by its crawled page. It is no link:
	// no inlink, no PageRank, no click depth.
	TargetRefresh = "refresh"
	// TargetRedirect marks the external Location of a redirect, From
	// being the redirecting URL.
	TargetRedirect = "redirect"
)

// targetKind says how a page refers to a checked target; it is kept in the
// top bits of a target edge's id.
type targetKind uint8

const (
	targetLink targetKind = iota
	targetCanonical
	targetHreflang
	targetImage
	targetScript
	targetStylesheet
	targetRefresh
	targetRedirect
	numTargetKinds
)

// targetNames are the Edge.Target values of the kinds.
var targetNames = [numTargetKinds]string{"", TargetCanonical, TargetHreflang, TargetImage, TargetScript, TargetStylesheet, TargetRefresh, TargetRedirect}

// targetKindOf returns the kind of an Edge.Target value, and false for an
// unknown one.
func targetKindOf(s string) (targetKind, bool) {
	for k, n := range targetNames {
		if n == s {
			return targetKind(k), true
		}
	}
	return 0, false
}

// targetIDs are the IDs a target kind reports: a kind whose IDs are all
// disabled costs no request.
var targetIDs = [numTargetKinds][]string{
	targetLink:       {"links.broken_external", "links.redirect_external"},
	targetCanonical:  {"canonical.target_error", "canonical.target_redirect"},
	targetHreflang:   {"hreflang.target_error", "hreflang.target_redirect"},
	targetImage:      {"images.broken"},
	targetScript:     {"resources.broken_script"},
	targetStylesheet: {"resources.broken_stylesheet"},
	// A refresh target is judged as a link (analyzer's link check does
	// the same).
	targetRefresh:  {"links.broken_external", "links.redirect_external"},
	targetRedirect: {redirectBrokenExternal},
}

const (
	targetKindShift = 29
	targetIDMask    = 1<<targetKindShift - 1
)

// The kinds fit in the bits above targetKindShift: this constant would
// be negative, and not compile, with one kind too many.
const _ = uint(1<<(32-targetKindShift) - numTargetKinds)

// targetRef packs a checker id and the kind of reference into one edge end.
func targetRef(id int32, kind targetKind) uint32 {
	return uint32(id)&targetIDMask | uint32(kind)<<targetKindShift
}

// splitTargetRef undoes targetRef.
func splitTargetRef(v uint32) (int32, targetKind) {
	return int32(v & targetIDMask), targetKind(v >> targetKindShift)
}

// maxResourcesPerPage caps the images, scripts and stylesheets taken from
// one page.
const maxResourcesPerPage = 1000

// pageResource is one image, script or stylesheet a page uses.
type pageResource struct {
	url  *url.URL
	kind targetKind
}

// pageResources returns the distinct resources of p the crawl checks:
// images (<img src>, and the first candidate of each srcset of an <img>
// or a <picture>'s <source>), <script src> and <link rel=stylesheet
// href>, those of the kinds in want.
func pageResources(p *analyzer.Page, want [numTargetKinds]bool) []pageResource {
	var out []pageResource
	seen := map[string]bool{}
	add := func(u *url.URL, kind targetKind) {
		if u == nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(out) >= maxResourcesPerPage {
			return
		}
		v := *u
		v.Fragment, v.RawFragment = "", ""
		if k := targetNames[kind] + " " + v.String(); !seen[k] {
			seen[k] = true
			out = append(out, pageResource{&v, kind})
		}
	}
	for _, r := range p.Resources {
		switch {
		case r.Kind == "image" && want[targetImage]:
			add(r.URL, targetImage)
		case r.Kind == "script" && want[targetScript]:
			add(r.URL, targetScript)
		case r.Kind == "stylesheet" && want[targetStylesheet]:
			add(r.URL, targetStylesheet)
		}
	}
	if !want[targetImage] {
		return out
	}
	srcset := func(n *html.Node) {
		if v, ok := analyzer.Attr(n, "srcset"); ok {
			for c := range analyzer.SrcsetCandidates(v) {
				add(p.Resolve(c), targetImage)
				break // the first candidate only
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

// resourceKinds says which resource kinds the crawl checks: those whose
// findings are enabled, when in-scope or external resources are checked.
func (cr *crawl) resourceKinds() [numTargetKinds]bool {
	var want [numTargetKinds]bool
	if cr.o.SkipResourceChecks && cr.o.SkipExternalLinks {
		return want
	}
	for _, k := range []targetKind{targetImage, targetScript, targetStylesheet} {
		want[k] = cr.wants(targetIDs[k]...)
	}
	return want
}

// headTargets admits the in-scope canonical URL and hreflang alternates of
// the page sum (fetched as it) to the frontier, and queues the external
// ones for the external checker (in a shared crawl: returns them as edges
// for the coordinator); sum answered 200 with HTML.
func (cr *crawl) headTargets(it Item, sum *PageSummary) ([]Item, []Edge) {
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
	checkExt := cr.ext != nil || cr.sharedExt
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
		if checkExt && len(*ext) < MaxLinksPerPage {
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
	var edges []Edge
	for _, t := range []struct {
		us   []*url.URL
		kind targetKind
	}{{extCanon, targetCanonical}, {extHreflang, targetHreflang}} {
		if len(t.us) == 0 || !cr.wants(targetIDs[t.kind]...) {
			continue
		}
		edges = cr.addTargets(edges, it.URL, t.us, t.kind, true)
	}
	return items, edges
}

// addTargets queues the targets us the page at from refers to as kind for
// a checker: the external checker when external, else the resource
// checker. In a shared crawl it appends them to edges instead, for the
// coordinator (replayTargets), and returns edges.
func (cr *crawl) addTargets(edges []Edge, from string, us []*url.URL, kind targetKind, external bool) []Edge {
	if cr.shared != nil {
		for _, u := range us {
			edges = append(edges, Edge{From: from, To: u.String(), External: external, Target: targetNames[kind]})
		}
		return edges
	}
	if external {
		if ids := cr.ext.add(us); len(ids) > 0 {
			cr.builder.addExternal(from, ids, kind)
		}
	} else if ids := cr.res.add(us); len(ids) > 0 {
		cr.builder.addResource(from, ids, kind)
	}
	return edges
}

// checkResources queues the images, scripts and stylesheets of the page
// at from: in-scope ones robots.txt allows for the resource checker,
// external ones for the external checker. In a shared crawl it returns
// them as edges for the coordinator, and with SharedTargets checks the
// in-scope ones this worker claims (checkClaimed); the error is that of
// the shared store.
func (cr *crawl) checkResources(ctx context.Context, from string, rs []pageResource) ([]Edge, error) {
	if len(rs) == 0 {
		return nil, nil
	}
	var own, ext [numTargetKinds][]*url.URL
	checkRes := !cr.o.SkipResourceChecks && (cr.res != nil || cr.shared != nil)
	checkExt := cr.ext != nil || cr.sharedExt
	for _, r := range rs {
		if n, _, ok := cr.inScope(r.url); ok {
			if checkRes && (cr.o.IgnoreRobots || cr.robots.Get(ctx, n).Allowed(cr.o.RobotsToken, n.RequestURI())) {
				own[r.kind] = append(own[r.kind], n)
			}
			continue
		}
		if checkExt {
			ext[r.kind] = append(ext[r.kind], r.url)
		}
	}
	var edges []Edge
	var claim []*url.URL
	for k := range numTargetKinds {
		if len(own[k]) > 0 {
			edges = cr.addTargets(edges, from, own[k], k, false)
			if cr.targets != nil {
				claim = append(claim, own[k]...)
			}
		}
		if len(ext[k]) > 0 {
			edges = cr.addTargets(edges, from, ext[k], k, true)
		}
	}
	if len(claim) > 0 {
		if err := cr.checkClaimed(ctx, claim); err != nil {
			return edges, err
		}
	}
	return edges, nil
}

// replayTargets hands the targets stored among a shared crawl's edges
// (external links, and the Edge.Target ones) to the crawl's checkers and
// returns the other edges: the links and in-scope refresh targets.
func (cr *crawl) replayTargets(from string, edges []Edge) []Edge {
	var own, ext [numTargetKinds][]*url.URL
	out := edges[:0:0]
	for _, e := range edges {
		kind, known := targetKindOf(e.Target)
		if !e.External && (e.Target == "" || kind == targetRefresh) {
			// Links, and in-scope refresh targets, which the builder
			// keeps (addEdges).
			out = append(out, e)
			continue
		}
		if !known {
			continue
		}
		u, err := seo.ParseHref(e.To)
		if err != nil {
			continue
		}
		switch {
		case e.External && cr.ext != nil && len(ext[kind]) < MaxLinksPerPage:
			ext[kind] = append(ext[kind], u)
		case !e.External && cr.res != nil && len(own[kind]) < maxResourcesPerPage:
			own[kind] = append(own[kind], u)
		}
	}
	if len(out) == len(edges) {
		return edges
	}
	for k := range numTargetKinds {
		if len(ext[k]) > 0 {
			if ids := cr.ext.add(ext[k]); len(ids) > 0 {
				cr.builder.addExternal(from, ids, k)
			}
		}
		if len(own[k]) > 0 {
			add := cr.res.add
			if cr.targets != nil {
				// Checked by the workers that claimed them (loadClaimed).
				add = cr.res.known
			}
			if ids := add(own[k]); len(ids) > 0 {
				cr.builder.addResource(from, ids, k)
			}
		}
	}
	return out
}

// SharedTargets is an optional capability of a SharedFrontier (the Redis
// frontier has it): the in-scope images, scripts and stylesheets of a
// shared crawl, each claimed by the one worker that checks it while it
// crawls, under one Options.MaxResourceChecks cap for all workers, and the
// answers the coordinator reports. Without it a shared crawl's
// coordinator checks them itself once every worker is done.
type SharedTargets interface {
	// ClaimTargets claims the target keys (normalised URLs) for the
	// calling worker and returns, for each, TargetClaimed when that worker
	// is now to check it, TargetTaken when a worker claimed it before, or
	// TargetOverCap when max targets were claimed already (the key is then
	// counted once among those over the cap).
	ClaimTargets(ctx context.Context, keys []string, max int) ([]TargetClaim, error)
	// PutTargetResult stores what a claimed target answered.
	PutTargetResult(ctx context.Context, key string, r TargetResult) error
	// TargetResults calls fn for every stored answer and returns the
	// counts of targets claimed and refused over the cap.
	TargetResults(ctx context.Context, fn func(key string, r TargetResult) error) (TargetCounts, error)
}

// TargetClaim is the outcome of claiming a target (SharedTargets).
type TargetClaim uint8

// Claim outcomes.
const (
	TargetTaken   TargetClaim = iota // claimed by a worker before
	TargetClaimed                    // claimed now: the caller checks it
	TargetOverCap                    // not claimed: MaxResourceChecks targets are
)

// TargetCounts counts the targets of a shared crawl claimed and refused
// over the cap, across workers.
type TargetCounts struct {
	Claimed, Over int
}

// TargetResult is what a target a worker claimed answered, as stored for
// the coordinator.
type TargetResult struct {
	// Checked says the check ran to the end; Skip, when it did not, why
	// (UncheckedHostFailing).
	Checked bool   `json:"c,omitempty"`
	Skip    string `json:"k,omitempty"`
	// Forbidden: the fetcher refused the address; Down: no HTTP answer.
	Forbidden bool `json:"f,omitempty"`
	Down      bool `json:"d,omitempty"`
	// Status, Location, Error and ContentType are the answer.
	Status      int    `json:"s,omitempty"`
	Location    string `json:"l,omitempty"`
	Error       string `json:"e,omitempty"`
	ContentType string `json:"t,omitempty"`
}

func (r *extResult) shared() TargetResult {
	return TargetResult{Checked: r.done, Skip: r.skip, Forbidden: r.forbidden, Down: r.down,
		Status: r.status, Location: r.loc, Error: r.err, ContentType: r.ctype}
}

func fromShared(r *TargetResult) extResult {
	return extResult{done: r.Checked, skip: r.Skip, forbidden: r.Forbidden, down: r.Down,
		status: r.Status, loc: r.Location, err: r.Error, ctype: r.ContentType}
}

// targetKey is the identity of a target URL for a checker.
func targetKey(u *url.URL) string {
	v := *u
	v.Fragment, v.RawFragment = "", ""
	return seo.NormalizeURL(&v, nil).String()
}

// maxClaimsAsked bounds the target keys a worker remembers having
// claimed or seen taken; past it, it asks SharedTargets again.
const maxClaimsAsked = 1 << 16

// checkClaimed claims the in-scope targets us of a page of a shared crawl
// (SharedTargets) and checks the ones this worker claimed, within the
// crawl's politeness, storing each answer. It returns once they are
// stored, before the page is Done, so that the coordinator, which reads
// the answers when no page is in flight, finds every one. A check cut by
// the crawl's end stores nothing: the coordinator counts the target as
// not checked.
func (cr *crawl) checkClaimed(ctx context.Context, us []*url.URL) error {
	keys := make([]string, 0, len(us))
	cr.mu.Lock()
	if cr.asked == nil {
		cr.asked = map[string]bool{}
	}
	for _, u := range us {
		k := targetKey(u)
		if cr.asked[k] {
			continue
		}
		if len(cr.asked) < maxClaimsAsked {
			cr.asked[k] = true
		}
		keys = append(keys, k)
	}
	cr.mu.Unlock()
	if len(keys) == 0 {
		return nil
	}
	claims, err := cr.targets.ClaimTargets(ctx, keys, cr.o.MaxResourceChecks)
	if err != nil {
		return fmt.Errorf("crawler: claim targets: %w", err)
	}
	var mine []string
	for i, k := range keys {
		if i < len(claims) && claims[i] == TargetClaimed {
			mine = append(mine, k)
		}
	}
	// PerHostConcurrency checks at once; the politeness slots of the
	// host decide when each starts.
	res := make([]extResult, len(mine))
	sem := make(chan struct{}, max(1, cr.o.PerHostConcurrency))
	var wg sync.WaitGroup
	for i, k := range mine {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			res[i] = cr.res.check(k)
		}()
	}
	wg.Wait()
	for i, k := range mine {
		if r := &res[i]; r.done || r.skip != "" {
			if err := cr.targets.PutTargetResult(ctx, k, r.shared()); err != nil {
				return fmt.Errorf("crawler: store target result: %w", err)
			}
		}
	}
	return nil
}

// loadClaimed gives the coordinator's resource checker the answers every
// worker stored for the targets it claimed (SharedTargets), and the
// counts of those over the cap and of those claimed but not answered.
func (cr *crawl) loadClaimed(ctx context.Context) error {
	n := 0
	counts, err := cr.targets.TargetResults(ctx, func(key string, r TargetResult) error {
		n++
		cr.res.preset(key, fromShared(&r))
		return nil
	})
	if err != nil {
		return fmt.Errorf("crawler: target results: %w", err)
	}
	cr.res.sharedUnchecked(counts.Over, max(0, counts.Claimed-n))
	return nil
}
