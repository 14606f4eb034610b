package crawler

import (
	"cmp"
	"fmt"
	"iter"
	"maps"
	"math"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/seo"
)

// summarize keeps what the site checks need of a page report.
func summarize(rep *analyzer.Report, depth int) PageSummary {
	s := PageSummary{
		URL:         rep.URL,
		Status:      rep.Status,
		Depth:       depthPtr(depth),
		Redirects:   rep.Redirects,
		ContentType: rep.Sizes.ContentType,
		IsHTML:      rep.IsHTML,
		WordCount:   rep.WordCount,
		TextHash:    rep.Fingerprint.TextHash,
		SimHash:     rep.Fingerprint.SimHash,
		Template:    rep.Template,
		ScoreReason: rep.ScoreReason,
		Error:       rep.Error,
		ResponseMs:  rep.Timings.Total.Milliseconds(),
		Bytes:       rep.Sizes.Transferred,
		Hreflang:    rep.Hreflang,
	}
	sc := rep.Score
	if sc != nil {
		v := sc.Value
		s.Score = &v
	} else {
		c := seo.PageScore(rep.Findings)
		sc = &c
	}
	s.Errors, s.Warnings, s.Notices = sc.Counts.Errors, sc.Counts.Warnings, sc.Counts.Notices
	if s.URL == "" {
		s.URL = rep.FinalURL
	}
	if rep.FinalURL != "" && rep.FinalURL != s.URL {
		s.FinalURL = rep.FinalURL
	}
	if rep.Robots.RobotsTxtAllowed != nil && !*rep.Robots.RobotsTxtAllowed {
		s.RobotsBlocked = true
	}
	for _, d := range rep.Robots.Directives {
		for _, tok := range strings.Split(strings.ToLower(d.Value), ",") {
			switch strings.TrimSpace(tok) {
			case "noindex":
				s.Noindex = true
			case "nofollow":
				s.Nofollow = true
			case "none":
				s.Noindex, s.Nofollow = true, true
			}
		}
	}
	s.Indexable = rep.Robots.Indexable && rep.Status == 200 && rep.IsHTML && !s.RobotsBlocked && !s.Noindex
	if rep.Title != nil {
		s.Title = rep.Title.Text
	}
	if rep.Description != nil {
		s.Description = rep.Description.Text
	}
	for _, h := range rep.Headings {
		if h.Level == 1 {
			s.H1 = h.Text
			break
		}
	}
	s.Canonical = singleCanonical(rep)
	seen := map[string]int{}
	for _, f := range rep.Findings {
		if seen[f.ID] == 0 {
			s.Findings = append(s.Findings, f.ID)
		}
		seen[f.ID] += f.Occurrences()
	}
	sort.Strings(s.Findings)
	for id, n := range seen {
		if n > 1 {
			if s.FindingCounts == nil {
				s.FindingCounts = map[string]int{}
			}
			s.FindingCounts[id] = n
		}
	}
	s.Muted = rep.Muted
	return s
}

// noScoreReason says why a crawl that scored no page has no site score,
// given its statistics and the number of URLs that answered.
func noScoreReason(st *CrawlStats, answered int) string {
	switch {
	case st.StopReason == StopUnreachable:
		return SiteUnreachable
	case answered > 0:
		return SiteNoScoredPages
	case st.RobotsUnavailable > 0:
		return SiteRobotsUnavailable
	case st.Blocked > 0:
		return SiteRobotsBlocked
	}
	return SiteNoScoredPages
}

// singleCanonical returns the one canonical URL the page declares, resolved
// against the page and normalised, or "" when it declares none, several
// different ones, or one that is not an http(s) URL.
func singleCanonical(rep *analyzer.Report) string {
	base, err := seo.ParseHref(rep.FinalURL)
	if err != nil || rep.FinalURL == "" {
		base, _ = seo.ParseHref(rep.URL)
	}
	found := ""
	for _, c := range rep.Canonical {
		if strings.TrimSpace(c.URL) == "" {
			return ""
		}
		u, err := seo.ResolveReference(base, c.URL)
		if err != nil {
			return ""
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return ""
		}
		s := seo.NormalizeURL(u, nil).String()
		if found != "" && found != s {
			return ""
		}
		found = s
	}
	return found
}

// siteBuilder collects page summaries, the internal link graph and the
// sitemap URLs during a crawl, then runs the site checks. URLs are interned
// to int32 ids and edges delta-encoded in one arena (see edgeList), so large
// crawls stay small.
// Its methods are safe for concurrent use.
type siteBuilder struct {
	mu         sync.Mutex
	start      string
	startHost  string
	subdomains bool
	now        func() time.Time

	ids  map[string]int32
	urls []string
	// pages are the summaries expanded by build; recs those added since,
	// in compact form (pageRec). edges runs parallel to pages, then recs.
	pages []PageSummary
	recs  []pageRec
	// edges[i] locates the edges added with pages[i] in arena.
	edges   []edgeList
	arena   []byte
	sitemap map[int32]int32 // loc -> the first sitemap listing it
	// idSets shares one Findings slice between pages with the same finding
	// IDs: template-built pages mostly repeat the same set.
	idSets  map[string][]string
	idList  [][]string // idSets by pageRec.findings-1
	idIndex map[string]int32

	// cntIndex and cntList share the FindingCounts maps the same way.
	cntIndex map[string]int32
	cntList  []map[string]int // by pageRec.counts-1

	strs    map[string]string // shared content types
	scratch []edge
	link    linkScope         // link-scope checks, see linkscope.go
	ana     *analyzer.Options // for the extraction and search stats
	checks  SiteCheckOptions

	// Report caps (Options); zero means no cap.
	maxReportPages  int
	segments        []segmentMatcher // Options.Segments, see siteRun.segments
	maxSiteFindings int
	maxReportBytes  int64

	// crawled is a bitset of the node ids added as pages; ncrawled counts
	// them. Nodes that are not pages are capped at maxTargets (internTarget).
	crawled    []uint64
	ncrawled   int
	maxTargets int
	// droppedEdges counts the links not kept because their target was new
	// and maxTargets was reached.
	droppedEdges int
	// smHashes are the hashes of every sitemap URL recorded (at most
	// maxSitemap; smDropped counts the rest), for InSitemap; smLocsDropped
	// counts sitemap URLs not kept by name (maxTargets reached).
	smHashes      []uint64
	maxSitemap    int
	smDropped     int
	smLocsDropped int
	smCompacted   int // len(smHashes) after the last compaction
}

// newSiteBuilder returns a builder for a crawl from start.
func newSiteBuilder(start *url.URL, opts *Options) *siteBuilder {
	b := &siteBuilder{ids: make(map[string]int32, 1024), sitemap: map[int32]int32{}, now: time.Now,
		maxTargets: math.MaxInt, maxSitemap: math.MaxInt, checks: SiteCheckOptions{}.resolved()}
	if start != nil {
		b.start = start.String()
		b.startHost = start.Host
	}
	if opts != nil {
		b.subdomains = opts.IncludeSubdomains
		b.checks = opts.SiteChecks.resolved()
		b.link.init(opts)
		b.ana = opts.Analyzer
		if opts.Now != nil {
			b.now = opts.Now
		}
		if opts.MaxLinkTargets > 0 {
			b.maxTargets = opts.MaxLinkTargets
		}
		if opts.MaxSitemapURLs > 0 {
			b.maxSitemap = opts.MaxSitemapURLs
		}
		b.maxReportPages = opts.MaxReportPages
		b.maxSiteFindings = opts.MaxSiteFindingsPerID
		b.maxReportBytes = opts.MaxReportBytes
		b.segments, _ = compileSegments(opts.Segments) // Run refused bad ones
		// Size the per-page arrays for the page limit once (capped), so a
		// large crawl does not double and copy them as it grows.
		if n := min(opts.MaxPages, maxPreallocPages); n > 0 {
			b.recs = make([]pageRec, 0, n)
			b.edges = make([]edgeList, 0, n)
		}
	}
	return b
}

// maxPreallocPages caps the pages newSiteBuilder sizes its arrays for.
const maxPreallocPages = 200_000

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

// addPage records a crawled page and its outgoing internal edges. The
// redirect hops of sum are added as redirect edges whether or not edges
// repeats them; repeated edges from one page are stored once (followed when
// any copy is).
func (b *siteBuilder) addPage(sum PageSummary, edges []Edge) {
	b.mu.Lock()
	defer b.mu.Unlock()
	from := b.intern(sum.URL)
	b.markCrawled(from)
	sc := b.scratch[:0]
	isHop := func(f, t string) bool {
		for i, h := range sum.Redirects {
			if h.URL == f && (h.Location == t || hopTarget(&sum, i) == t) {
				return true
			}
		}
		return false
	}
	for i, h := range sum.Redirects {
		if t := hopTarget(&sum, i); t != "" && h.URL != "" {
			f, okf := b.internTarget(h.URL)
			t, okt := b.internTarget(t)
			if !okf || !okt {
				b.droppedEdges++
				continue
			}
			sc = append(sc, edge{uint32(f), uint32(t) | edgeRedirect})
		}
	}
	for _, e := range edges {
		f := from
		if e.To == "" {
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
		id, ok := b.internTarget(e.To)
		if !ok {
			b.droppedEdges++
			continue
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
	b.arena = appendEdges(b.arena, uint32(from), kept)
	b.edges = append(b.edges, edgeList{uint32(off), uint32(len(b.arena))})
	b.scratch = sc[:0]
	sum.Findings = b.shareIDs(sum.Findings)
	sum.FindingCounts = b.shareCounts(sum.FindingCounts)
	b.link.addMuted(sum.Muted)
	sum.Muted = nil
	b.compact(&sum, from)
	b.recs = append(b.recs, b.record(&sum))
}

// pageRec is a PageSummary as the builder keeps it during a crawl: 176
// bytes instead of 344, the difference times the pages of a large site.
// Summaries it cannot hold exactly (redirects, errors, hreflang, numbers
// out of int32 range ...) are kept whole in more.
type pageRec struct {
	url, title, description, h1, canonical, contentType string

	more     *PageSummary
	textHash uint64
	simHash  uint64
	template uint64 // templateBits of PageSummary.Template
	bytes    int64
	response int64

	// depth and score are -1 for nil.
	status, depth, wordCount, score, errors, warnings, notices int32
	findings                                                   int32 // idList index + 1, 0 for none
	counts                                                     int32 // cntList index + 1, 0 for none
	flags                                                      uint8
	reason                                                     uint8 // scoreReasons index
}

// Flags of pageRec.
const (
	recHTML = 1 << iota
	recIndexable
	recNoindex
	recNofollow
	recRobotsBlocked
)

// fitsInt32 reports whether every value fits an int32.
func fitsInt32(vs ...int) bool {
	for _, v := range vs {
		if v != int(int32(v)) {
			return false
		}
	}
	return true
}

// record returns the compact form of sum, whose Findings come from shareIDs
// and FindingCounts from shareCounts.
func (b *siteBuilder) record(sum *PageSummary) pageRec {
	if sum.FinalURL != "" || sum.Redirects != nil || sum.Hreflang != nil || sum.BlockedResources != nil || sum.Rendered != nil ||
		sum.Error != "" || sum.InSitemap || sum.Extracted != nil || sum.Search != nil || sum.Inlinks != 0 || sum.LinkScore != 0 ||
		!fitsInt32(sum.Status, sum.depth(), sum.WordCount, sum.score(), sum.Errors, sum.Warnings, sum.Notices) ||
		reasonCode(sum.ScoreReason) < 0 {
		c := *sum
		return pageRec{url: sum.URL, more: &c}
	}
	tpl, ok := templateBits(sum.Template)
	if !ok {
		c := *sum
		return pageRec{url: sum.URL, more: &c}
	}
	r := pageRec{
		url: sum.URL, title: sum.Title, description: sum.Description, h1: sum.H1,
		canonical: sum.Canonical, contentType: sum.ContentType,
		textHash: sum.TextHash, simHash: sum.SimHash, template: tpl, bytes: sum.Bytes, response: sum.ResponseMs,
		status: int32(sum.Status), depth: int32(sum.depth()), wordCount: int32(sum.WordCount),
		score: int32(sum.score()), errors: int32(sum.Errors), warnings: int32(sum.Warnings), notices: int32(sum.Notices),
		reason: uint8(reasonCode(sum.ScoreReason)),
	}
	if sum.Findings != nil {
		r.findings = b.idIndex[strings.Join(sum.Findings, " ")] + 1
	}
	if sum.FindingCounts != nil {
		r.counts = b.cntIndex[countsKey(sum.FindingCounts)] + 1
	}
	for _, f := range []struct {
		on   bool
		flag uint8
	}{{sum.IsHTML, recHTML}, {sum.Indexable, recIndexable}, {sum.Noindex, recNoindex}, {sum.Nofollow, recNofollow}, {sum.RobotsBlocked, recRobotsBlocked}} {
		if f.on {
			r.flags |= f.flag
		}
	}
	return r
}

// summary expands r.
func (b *siteBuilder) summary(r *pageRec) PageSummary {
	if r.more != nil {
		return *r.more
	}
	s := PageSummary{
		URL: r.url, Title: r.title, Description: r.description, H1: r.h1,
		Canonical: r.canonical, ContentType: r.contentType,
		TextHash: r.textHash, SimHash: r.simHash, Template: templateString(r.template), Bytes: r.bytes, ResponseMs: r.response,
		Status: int(r.status), Depth: depthPtr(int(r.depth)), WordCount: int(r.wordCount),
		Errors: int(r.errors), Warnings: int(r.warnings), Notices: int(r.notices),
		ScoreReason: scoreReasons[r.reason],
		IsHTML:      r.flags&recHTML != 0, Indexable: r.flags&recIndexable != 0, Noindex: r.flags&recNoindex != 0,
		Nofollow: r.flags&recNofollow != 0, RobotsBlocked: r.flags&recRobotsBlocked != 0,
	}
	if r.score >= 0 {
		v := int(r.score)
		s.Score = &v
	}
	if r.findings > 0 {
		s.Findings = b.idList[r.findings-1]
	}
	if r.counts > 0 {
		s.FindingCounts = b.cntList[r.counts-1]
	}
	return s
}

// templateBits packs a template fingerprint of 12 hex digits into a
// pageRec: its 48 bits and a 49th that says it is set (0 for ""). ok is
// false for any other string.
func templateBits(s string) (v uint64, ok bool) {
	if s == "" {
		return 0, true
	}
	if len(s) != 12 || strings.ToLower(s) != s {
		return 0, false
	}
	v, err := strconv.ParseUint(s, 16, 64)
	if err != nil {
		return 0, false
	}
	return v | 1<<48, true
}

// templateString unpacks templateBits.
func templateString(v uint64) string {
	if v == 0 {
		return ""
	}
	return strconv.FormatUint(v, 16)[1:]
}

// scoreReasons are the values of PageSummary.ScoreReason a pageRec holds,
// by code.
var scoreReasons = [...]string{"", analyzer.ScoreNotFetched, analyzer.ScoreErrorStatus, analyzer.ScoreRedirect, analyzer.ScoreNotHTML}

// reasonCode returns the code of a score reason in scoreReasons, -1 for
// one it does not hold.
func reasonCode(reason string) int {
	for i, r := range scoreReasons {
		if r == reason {
			return i
		}
	}
	return -1
}

// score returns the page score, -1 when the page has none.
func (p *PageSummary) score() int {
	if p.Score == nil {
		return -1
	}
	return *p.Score
}

// expand moves the compact records into pages, sized exactly.
func (b *siteBuilder) expand() {
	if len(b.recs) == 0 {
		return
	}
	b.pages = slices.Grow(b.pages, len(b.recs))
	for i := range b.recs {
		b.pages = append(b.pages, b.summary(&b.recs[i]))
		b.recs[i] = pageRec{} // let the GC take strings no longer shared
	}
	b.recs = nil
}

// compact makes sum share the strings the builder already holds: its URL
// with the interned node, its final URL with an interned node, a repeated
// content type with the earlier pages, and an H1 equal to the title with
// the title. The texts stay equal; only their storage is shared.
func (b *siteBuilder) compact(sum *PageSummary, node int32) {
	sum.URL = b.urls[node]
	if sum.FinalURL != "" {
		if id, ok := b.ids[sum.FinalURL]; ok {
			sum.FinalURL = b.urls[id]
		}
	}
	if sum.ContentType != "" {
		if b.strs == nil {
			b.strs = map[string]string{}
		}
		if ct, ok := b.strs[sum.ContentType]; ok {
			sum.ContentType = ct
		} else if len(b.strs) < maxSharedStrings {
			b.strs[sum.ContentType] = sum.ContentType
		}
	}
	if sum.H1 == sum.Title {
		sum.H1 = sum.Title
	}
	if sum.Description == sum.Title {
		sum.Description = sum.Title
	}
}

// maxSharedStrings bounds the distinct content types siteBuilder shares.
const maxSharedStrings = 1024

// shareIDs returns a shared, read-only copy of a sorted set of finding IDs.
// Its capacity equals its length, so an append or insert copies it.
func (b *siteBuilder) shareIDs(ids []string) []string {
	if len(ids) == 0 {
		return nil
	}
	key := strings.Join(ids, " ")
	if shared, ok := b.idSets[key]; ok {
		return shared
	}
	if b.idSets == nil {
		b.idSets = map[string][]string{}
	}
	shared := slices.Clip(slices.Clone(ids))
	b.idSets[key] = shared
	if b.idIndex == nil {
		b.idIndex = map[string]int32{}
	}
	b.idIndex[key] = int32(len(b.idList))
	b.idList = append(b.idList, shared)
	return shared
}

// shareCounts returns a shared, read-only copy of a page's FindingCounts.
func (b *siteBuilder) shareCounts(m map[string]int) map[string]int {
	if len(m) == 0 {
		return nil
	}
	key := countsKey(m)
	if k, ok := b.cntIndex[key]; ok {
		return b.cntList[k]
	}
	if b.cntIndex == nil {
		b.cntIndex = map[string]int32{}
	}
	b.cntIndex[key] = int32(len(b.cntList))
	b.cntList = append(b.cntList, maps.Clone(m))
	return b.cntList[len(b.cntList)-1]
}

// countsKey is the sorted "id=n" form of FindingCounts.
func countsKey(m map[string]int) string {
	keys := slices.Sorted(maps.Keys(m))
	for i, id := range keys {
		keys[i] = id + "=" + strconv.Itoa(m[id])
	}
	return strings.Join(keys, " ")
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

// siteRun holds the indexes the site checks share during build.
type siteRun struct {
	b        *siteBuilder
	facts    *crawlFacts
	muted    map[string]analyzer.MutedFinding // by ID, see mute
	pages    []PageSummary                    // distinct by URL, in the order added
	edges    []edgeList
	nodeOf   []int32 // page -> node
	pageOf   []int32 // node -> page, -1 for URLs not crawled
	byFinal  map[string]int32
	findings []seo.Finding
	sev      map[string]seo.CheckInfo

	inlinks    []int32 // distinct linking pages per node (self and redirects excluded)
	followedIn []int32
	nofollowIn []int32       // links marked rel=nofollow, from pages not nofollow as a whole
	fromIndex  []int32       // links from pages that are not noindex
	sources    []*sourceList // by node, for the nodes collectSources was asked for
	link       *linkAcc      // link-scope findings, see linkscope.go

	orphans     int    // GraphStats.Orphans, see sitemapChecks
	orphanCheck string // GraphStats.OrphanCheck

	ai *AICrawlerReport // SiteReport.AICrawlers, see aiChecks

	// clusters are the groups of pages reported as one finding (duplicate
	// titles, near-duplicate text ...), by finding ID and first member URL:
	// their size and their members as listed in the evidence. See
	// reportGroup and FindingGroup.Groups.
	clusters map[clusterKey]cluster
}

// clusterKey names a group finding: its ID and its first member URL.
type clusterKey struct{ id, url string }

// cluster is one group of pages reported as one finding.
type cluster struct {
	total   int      // members, all counted
	members []string // the members listed (at most maxEvidenceURLs)
}

// sourceList collects the linking pages of one node for evidence.
type sourceList struct {
	all, nofollow []string
}

// build runs the site checks and assembles the report. It may be called
// once the crawl is over.
func (b *siteBuilder) build(facts *crawlFacts) *SiteReport {
	b.mu.Lock()
	defer b.mu.Unlock()
	if facts == nil {
		facts = &crawlFacts{}
	}
	b.expand()
	slices.Sort(b.smHashes)
	b.smHashes = slices.Compact(b.smHashes)
	r := &siteRun{b: b, facts: facts, byFinal: map[string]int32{}, sev: map[string]seo.CheckInfo{}}
	for _, in := range analyzer.Catalog() {
		r.sev[in.ID] = in
	}
	for _, in := range Catalog() {
		r.sev[in.ID] = in
	}
	// Severity overrides apply to every ID as they do on a page: the
	// findings, their group and the score weight follow.
	for id, sev := range b.link.severity {
		in, ok := r.sev[id]
		if !ok {
			in = seo.CheckInfo{ID: id, Scope: seo.ScopePage}
		}
		in.Severity = sev
		r.sev[id] = in
	}
	r.index()
	r.findings = make([]seo.Finding, 0, r.perPageFindings(facts)+len(facts.Findings)+64)
	r.links()
	r.checkSources()
	for _, c := range builtinSiteChecks {
		c.Run(r)
	}

	// PageRank over followed internal edges between crawled pages.
	scores := linkScores(pageRank(r.followedGraph()))

	rep := &SiteReport{
		Domain:      facts.Domain,
		StartURL:    facts.StartURL,
		StartedAt:   facts.StartedAt,
		FinishedAt:  b.now().UTC(),
		Crawl:       facts.Stats,
		Robots:      facts.Robots,
		Sitemaps:    facts.Sitemaps,
		StatusCodes: map[int]int{},
	}
	rep.AICrawlers = r.ai
	if rep.StartURL == "" {
		rep.StartURL = b.start
	}
	pageScores := make([]int, 0, len(r.pages))
	inlinkSum, fetched := 0, 0
	for i := range r.pages {
		p := &r.pages[i]
		n := r.nodeOf[i]
		p.Inlinks = int(r.inlinks[n])
		p.LinkScore = scores[i]
		p.InSitemap = r.inSitemap(p)
		if !p.fetched() {
			continue
		}
		fetched++
		inlinkSum += p.Inlinks
		if p.Score != nil {
			pageScores = append(pageScores, *p.Score)
		}
		rep.StatusCodes[p.Status]++
		rep.Graph.MaxDepth = max(rep.Graph.MaxDepth, p.depth())
	}
	rep.Extraction, rep.SearchRules = extractionStats(r.pages, b.ana)
	if len(rep.Crawl.DepthHistogram) == 0 {
		for i := range r.pages {
			p := &r.pages[i]
			d := p.depth()
			if d < 0 || !p.fetched() {
				continue
			}
			for len(rep.Crawl.DepthHistogram) <= d {
				rep.Crawl.DepthHistogram = append(rep.Crawl.DepthHistogram, 0)
			}
			rep.Crawl.DepthHistogram[d]++
		}
	}
	rep.Graph.Nodes = fetched
	if f := facts.Render; f != nil {
		rep.Render = renderSummary(r.pages, f.Mode, f.Device)
		if rep.Render != nil {
			rep.Render.ScreenshotsOmitted, rep.Render.ScreenshotDir = f.ScreenshotsOmitted, f.ScreenshotDir
		}
	}
	for i := range r.pages {
		for e := range r.edgesOf(i) {
			if !e.redirect() {
				rep.Graph.Edges++
			}
		}
	}
	if fetched > 0 {
		rep.Graph.MeanInlinks = float64(inlinkSum) / float64(fetched)
	}
	rep.Graph.Orphans = r.orphans
	rep.Graph.OrphanCheck = r.orphanCheck
	if b.droppedEdges > 0 {
		rep.Truncated.Note("graph.edges", rep.Graph.Edges+b.droppedEdges, rep.Graph.Edges)
		rep.Graph.Edges += b.droppedEdges
	}
	if b.smDropped > 0 {
		rep.Truncated.Note("sitemapUrls", len(b.smHashes)+b.smDropped, len(b.smHashes))
	}

	site := append(r.findings, facts.Findings...)
	for i := len(r.findings); i < len(site); i++ {
		// The crawl's own findings carry their catalogue severity.
		if sev, ok := b.link.severity[site[i].ID]; ok {
			site[i].Severity = sev
		}
	}
	site = r.dropMuted(site)
	SortFindings(site)
	rep.Segments = r.segments(site)
	rep.Templates = templates(r.pages, &rep.Truncated)
	if len(pageScores) > 0 {
		sc := seo.SiteScore(pageScores, site)
		rep.Score = &sc
	} else {
		rep.ScoreReason = noScoreReason(&facts.Stats, fetched)
	}
	rep.Findings = r.groups(site)
	rep.SiteFindings = capPerID(site, b.maxSiteFindings, "siteFindings.", &rep.Truncated)
	r.link.adjustGroups(rep.Findings)
	rep.Muted = r.mutedList()
	rep.FindingCounts = CountFindings(rep.Findings)
	if rep.Score != nil {
		rep.Score.Counts = rep.FindingCounts.Checks
	}
	rep.LinkFindings = r.link.full
	if rep.LinkFindings == nil {
		rep.LinkFindings = []seo.Finding{}
	}
	groupPriority(rep.Findings, rep.SiteFindings)
	groupPriority(rep.Findings, rep.LinkFindings)
	rep.LinkFindingsOmitted = r.link.omitted
	rep.Truncated.Note("linkFindings", len(rep.LinkFindings)+r.link.omitted, len(rep.LinkFindings))
	if b.link.ext != nil {
		st := b.link.ext.stats()
		rep.ExternalChecked, rep.ExternalUnchecked, rep.ExternalUncheckedReasons, rep.ExternalFailingHosts = st.checked, st.unchecked, st.reasons, st.failing
	}
	if b.link.res != nil {
		st := b.link.res.stats()
		rep.ResourceChecked, rep.ResourceUnchecked, rep.ResourceUncheckedReasons = st.checked, st.unchecked, st.reasons
	}
	// Sort pages by URL, their edges with them, so the builder stays
	// consistent should build run again.
	rep.NotFetched = r.notFetched()
	notFetchedTotal := len(rep.NotFetched) + len(facts.Trapped) + facts.TrappedMore
	if len(facts.Trapped) > 0 {
		rep.NotFetched = append(rep.NotFetched, facts.Trapped...)
		slices.SortFunc(rep.NotFetched, func(a, b NotFetchedURL) int { return strings.Compare(a.URL, b.URL) })
	}
	sort.Sort(pagesByURL{r.pages, r.edges})
	rep.Pages = r.pages
	if unfetched := notFetchedTotal - len(facts.Trapped) - facts.TrappedMore; unfetched > 0 {
		rep.Pages = make([]PageSummary, 0, len(r.pages)-unfetched)
		for i := range r.pages {
			if r.pages[i].fetched() {
				rep.Pages = append(rep.Pages, r.pages[i])
			}
		}
	}
	if n := b.maxReportPages; n > 0 && len(rep.Pages) > n {
		rep.Truncated.Note("pages", len(rep.Pages), n)
		rep.Pages = rep.Pages[:n:n]
	}
	if n := b.maxReportPages; n > 0 && len(rep.NotFetched) > n {
		rep.NotFetched = rep.NotFetched[:n:n]
	}
	if notFetchedTotal > len(rep.NotFetched) {
		rep.Truncated.Note("notFetched", notFetchedTotal, len(rep.NotFetched))
	}
	fitReport(rep, b.maxReportBytes)
	return rep
}

// CountFindings counts the findings of groups per severity (see
// FindingCounts).
func CountFindings(groups []FindingGroup) FindingCounts {
	var c FindingCounts
	for _, g := range groups {
		switch g.Severity {
		case seo.Error:
			c.Checks.Errors++
			c.Findings.Errors += g.Count
		case seo.Warning:
			c.Checks.Warnings++
			c.Findings.Warnings += g.Count
		case seo.Notice:
			c.Checks.Notices++
			c.Findings.Notices += g.Count
		}
	}
	return c
}

// notFetched lists the URLs that got no response, sorted by URL, with
// their reason and a page linking to them (else the sitemap listing them).
// They stay in r.pages for the site checks. It must run before the pages
// are sorted, while nodeOf matches them.
func (r *siteRun) notFetched() []NotFetchedURL {
	var out []NotFetchedURL
	var missing map[int32]int // node -> index in out
	for i := range r.pages {
		p := &r.pages[i]
		if p.fetched() {
			continue
		}
		nf := NotFetchedURL{URL: p.URL, Reason: NotFetchedFailed, Error: p.Error, Depth: p.Depth}
		switch {
		case robotsUnavailable(p):
			nf.Reason = NotFetchedRobotsUnavailable
		case p.RobotsBlocked:
			nf.Reason = NotFetchedRobots
		case strings.Contains(p.Error, errHostAbandoned.Error()):
			nf.Reason = NotFetchedAbandoned
		}
		if missing == nil {
			missing = map[int32]int{}
		}
		missing[r.nodeOf[i]] = len(out)
		out = append(out, nf)
	}
	if len(out) == 0 {
		return nil
	}
	for i := range r.pages {
		for e := range r.edgesOf(i) {
			if k, ok := missing[e.target()]; ok && !e.redirect() && e.target() != r.nodeOf[i] && out[k].FoundOn == "" {
				out[k].FoundOn = r.pages[i].URL
			}
		}
	}
	for n, k := range missing {
		if sm, ok := r.b.sitemap[n]; ok && out[k].FoundOn == "" {
			out[k].FoundOn = r.b.urls[sm]
		}
	}
	slices.SortFunc(out, func(a, b NotFetchedURL) int { return strings.Compare(a.URL, b.URL) })
	return out
}

// followedGraph returns the followed internal edges between distinct
// crawled pages as a graph over page indexes, delta-encoded from the edge
// arena, so no edge list of four or eight bytes an edge is materialised on
// the way.
func (r *siteRun) followedGraph() *packedGraph {
	each := func(i int, fn func(f, t int32)) {
		for e := range r.edgesOf(i) {
			if e.nofollow() {
				continue
			}
			f, t := r.pageOf[e.from], r.pageOf[e.target()]
			if f < 0 || t < 0 || f == t {
				continue
			}
			fn(f, t)
		}
	}
	// Edges recorded with another page than their source (redirect hops
	// of a summary's Redirects) are rare: gather them first, by source.
	var foreign [][2]int32
	for i := range r.pages {
		each(i, func(f, t int32) {
			if int(f) != i {
				foreign = append(foreign, [2]int32{f, t})
			}
		})
	}
	slices.SortStableFunc(foreign, func(a, b [2]int32) int { return cmp.Compare(a[0], b[0]) })
	g := &packedGraph{off: make([]uint32, 1, len(r.pages)+1)}
	var ts []int32
	for i := range r.pages {
		ts = ts[:0]
		each(i, func(f, t int32) {
			if int(f) == i {
				ts = append(ts, t)
			}
		})
		for len(foreign) > 0 && int(foreign[0][0]) == i {
			ts = append(ts, foreign[0][1])
			foreign = foreign[1:]
		}
		g.add(ts)
	}
	return g
}

// pagesByURL sorts pages by URL, keeping their edges parallel.
type pagesByURL struct {
	pages []PageSummary
	edges []edgeList
}

func (s pagesByURL) Len() int { return len(s.pages) }

func (s pagesByURL) Less(i, j int) bool { return s.pages[i].URL < s.pages[j].URL }

func (s pagesByURL) Swap(i, j int) {
	s.pages[i], s.pages[j] = s.pages[j], s.pages[i]
	s.edges[i], s.edges[j] = s.edges[j], s.edges[i]
}

// SortFindings orders findings as a site report lists them: most severe
// first, then by ID, then by URL (stable, so findings of one URL keep their
// order).
func SortFindings(fs []seo.Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Severity != b.Severity {
			return a.Severity > b.Severity
		}
		if a.ID != b.ID {
			return a.ID < b.ID
		}
		return a.URL < b.URL
	})
}

// index drops repeated summaries of one URL (the first wins) and maps nodes
// to pages.
func (r *siteRun) index() {
	b := r.b
	r.pageOf = make([]int32, len(b.urls))
	for i := range r.pageOf {
		r.pageOf[i] = -1
	}
	r.nodeOf = make([]int32, 0, len(b.pages))
	keep := make([]int, 0, len(b.pages))
	for i := range b.pages {
		n := b.ids[b.pages[i].URL]
		if r.pageOf[n] >= 0 {
			continue
		}
		r.pageOf[n] = int32(len(keep))
		keep = append(keep, i)
		r.nodeOf = append(r.nodeOf, n)
	}
	if len(keep) == len(b.pages) {
		// No repeated URL: share the builder's slices instead of copying.
		r.pages, r.edges = b.pages, b.edges
	} else {
		for _, i := range keep {
			r.pages = append(r.pages, b.pages[i])
			r.edges = append(r.edges, b.edges[i])
		}
	}
	for i, p := range r.pages {
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

// edgesOf yields the distinct edges recorded with page i, sorted by
// (from, target).
func (r *siteRun) edgesOf(i int) iter.Seq[edge] {
	l := r.edges[i]
	return edgesIn(r.b.arena[l.off:l.end], r.nodeOf[i])
}

// perPageFindings counts the site findings of the checks that may report
// every page (site.deep_page, site.not_in_sitemap), so the findings are
// allocated once at about their final size on a large site.
func (r *siteRun) perPageFindings(facts *crawlFacts) int {
	n := 0
	for i := range r.pages {
		p := &r.pages[i]
		if p.IsHTML && p.Status == 200 && p.depth() > r.b.checks.DeepPageDepth {
			n++
		}
		if facts.SitemapExists && r.b.smDropped == 0 && r.notInSitemap(p) {
			n++
		}
	}
	return n
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

// add records a site finding. urls are the URLs involved; they are sorted,
// capped at maxEvidenceURLs, and Detail says how many there were.
func (r *siteRun) add(id, pageURL, msg string, ev seo.Evidence, urls []string, total int) {
	if len(urls) > 0 {
		urls = slices.Clone(urls)
		sort.Strings(urls)
		if total < len(urls) {
			total = len(urls)
		}
		if len(urls) > maxEvidenceURLs {
			urls = urls[:maxEvidenceURLs]
		}
		ev.URLs = urls
		count := ""
		switch {
		case total > len(urls):
			count = fmt.Sprintf("%d URLs, first %d listed", total, len(urls))
		case total > 1:
			count = fmt.Sprintf("%d URLs", total)
		}
		switch {
		case count == "":
		case ev.Detail == "":
			ev.Detail = count
		default:
			ev.Detail += "; " + count
		}
	}
	ev.Value = seo.Clip(ev.Value)
	r.findings = append(r.findings, seo.Finding{ID: id, Severity: r.sev[id].Severity, Message: msg, Evidence: ev, URL: pageURL})
}

// links counts the inlinks of every node from the distinct edges of each page.
func (r *siteRun) links() {
	n := len(r.b.urls)
	r.inlinks = make([]int32, n)
	r.followedIn = make([]int32, n)
	r.nofollowIn = make([]int32, n)
	r.fromIndex = make([]int32, n)
	for i := range r.pages {
		p := &r.pages[i]
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
	for i := range r.pages {
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
	r.sources = make([]*sourceList, len(r.b.urls))
	if wanted == 0 {
		return
	}
	for i := range r.pages {
		src := r.pages[i].URL
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
			if e.nofollow() && !r.pages[i].Nofollow && len(s.nofollow) < maxEvidenceURLs {
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

// analysed reports whether p is a page whose content was analysed: an
// HTML document that answered 2xx. The template rule and the site reach of
// the finding groups count these pages.
func analysed(p *PageSummary) bool {
	return p.IsHTML && p.Error == "" && p.Status >= 200 && p.Status < 300
}

// groups gathers page findings (by the IDs of each summary, counting their
// FindingCounts) and site findings by ID, marks the template groups, sets
// their priority and sorts them by it (see sortGroups).
func (r *siteRun) groups(site []seo.Finding) []FindingGroup {
	type acc struct {
		g        FindingGroup
		minor    bool
		analysed int // analysed pages in g.Pages
		siteURLs map[string]bool
		// extra counts the members of the ID's groups beyond the first
		// URL of each, which g.Pages counts (FindingGroup.URLs).
		extra int
	}
	byID := map[string]*acc{}
	get := func(id string) *acc {
		a := byID[id]
		if a == nil {
			in, ok := r.sev[id]
			if !ok {
				in = seo.CheckInfo{ID: id, Severity: seo.Warning, Scope: seo.ScopePage}
			}
			a = &acc{g: FindingGroup{ID: id, Severity: in.Severity, Scope: in.Scope, Message: in.Summary, Examples: []string{}}, minor: in.Minor}
			byID[id] = a
		}
		return a
	}
	analysedPages := 0
	for i := range r.pages {
		p := &r.pages[i]
		isAnalysed := analysed(p)
		if isAnalysed {
			analysedPages++
		}
		for _, id := range p.Findings {
			a := get(id)
			a.g.Count += max(p.FindingCounts[id], 1)
			a.g.Pages++
			if isAnalysed {
				a.analysed++
			}
			if len(a.g.Examples) < maxGroupExamples {
				a.g.Examples = append(a.g.Examples, p.URL)
			}
		}
	}
	// The findings of an ID usually form one run sorted by URL (see
	// SortFindings), where a repeated URL follows itself; only an ID whose
	// findings are split or unsorted needs a set of its URLs.
	split := map[string]bool{}
	runs := map[string]bool{}
	for k, f := range site {
		switch {
		case k == 0 || site[k-1].ID != f.ID:
			if runs[f.ID] {
				split[f.ID] = true
			}
			runs[f.ID] = true
		case f.URL < site[k-1].URL:
			split[f.ID] = true
		}
	}
	for k, f := range site {
		a := get(f.ID)
		a.g.Count += f.Occurrences()
		if c, ok := r.clusters[clusterKey{f.ID, f.URL}]; ok && f.URL != "" {
			a.g.Groups++
			a.extra += c.total - 1
			if len(a.g.Members) < maxGroupExamples {
				a.g.Members = append(a.g.Members, c.members)
			}
		}
		if f.Severity > a.g.Severity {
			a.g.Severity = f.Severity
		}
		if f.URL == "" {
			continue
		}
		if split[f.ID] {
			if a.siteURLs == nil {
				a.siteURLs = map[string]bool{}
			}
			if a.siteURLs[f.URL] {
				continue
			}
			a.siteURLs[f.URL] = true
		} else if k > 0 && site[k-1].ID == f.ID && site[k-1].URL == f.URL {
			continue
		}
		j := r.pageFor(f.URL)
		if j >= 0 && slices.Contains(r.pages[j].Findings, f.ID) {
			continue // already counted as a page
		}
		a.g.Pages++
		if j >= 0 && analysed(&r.pages[j]) {
			a.analysed++
		}
		if len(a.g.Examples) < maxGroupExamples {
			a.g.Examples = append(a.g.Examples, f.URL)
		}
	}
	out := make([]FindingGroup, 0, len(byID))
	for _, a := range byID {
		g := a.g
		g.Template = analysedPages >= 2 && a.analysed >= analysedPages
		reach := seo.SiteReach(a.analysed, analysedPages)
		if g.Pages == 0 {
			reach = 1 // a finding of the site as a whole (robots.txt, a host variant)
		}
		g.Priority = seo.Priority(g.Severity, reach, a.minor)
		g.URLs = g.Pages + a.extra
		out = append(out, g)
	}
	sortGroups(out)
	return out
}

// groupPriority sets the Count of the site or link findings fs that have
// none to 1 and their Priority to their group's.
func groupPriority(groups []FindingGroup, fs []seo.Finding) {
	at := make(map[string]int, len(groups))
	for _, g := range groups {
		at[g.ID] = g.Priority
	}
	for i := range fs {
		fs[i].Count = fs[i].Occurrences()
		fs[i].Priority = at[fs[i].ID]
	}
}

// sortGroups sorts finding groups by priority, highest first, then by ID.
func sortGroups(gs []FindingGroup) {
	sort.SliceStable(gs, func(i, j int) bool {
		if gs[i].Priority != gs[j].Priority {
			return gs[i].Priority > gs[j].Priority
		}
		return gs[i].ID < gs[j].ID
	})
}
