package crawler

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/seo"
)

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
	// recs are the pages added, in compact form (pageRec); the site
	// checks read them expanded one at a time (siteRun.page).
	recs recChunks
	// edges[i] locates the edges added with recs.at(i) in arena.
	edges   []edgeList
	arena   []byte
	runs    edgeRuns        // the runs of edges pages share, see edgeList
	sitemap map[int32]int32 // loc -> the first sitemap listing it
	// idSets shares one Findings slice between pages with the same finding
	// IDs: template-built pages mostly repeat the same set.
	idSets  map[string][]string
	idList  [][]string // idSets by pageRec.findings-1
	idIndex map[string]int32

	// cntIndex and cntList share the FindingCounts maps the same way.
	cntIndex map[string]int32
	cntList  []map[string]int // by pageRec.counts-1

	// ctypes are the distinct content types (at most maxSharedStrings),
	// shared by the pages and indexed by pageRec.contentType-1.
	ctypes   []string
	ctypeIdx map[string]uint16
	tpls     map[uint64]string // shared template strings, see template
	scratch  []edge
	link     linkScope         // link-scope checks, see linkscope.go
	ana      *analyzer.Options // for the extraction and search stats
	checks   SiteCheckOptions

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
	maxDepth      int // Options.MaxDepth: the deepest link the crawl follows
}

// newSiteBuilder returns a builder for a crawl from start.
func newSiteBuilder(start *url.URL, opts *Options) *siteBuilder {
	b := &siteBuilder{ids: make(map[string]int32, 1024), sitemap: map[int32]int32{}, now: time.Now,
		maxTargets: math.MaxInt, maxSitemap: math.MaxInt, checks: SiteCheckOptions{}.resolved(), maxDepth: DefaultMaxDepth}
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
		if opts.MaxDepth > 0 {
			b.maxDepth = opts.MaxDepth
		}
		b.maxReportPages = opts.MaxReportPages
		b.maxSiteFindings = opts.MaxSiteFindingsPerID
		b.maxReportBytes = opts.MaxReportBytes
		b.segments, _ = compileSegments(opts.Segments) // Run refused bad ones
		// Size the per-page arrays for the page limit once (capped), so a
		// large crawl does not double and copy them as it grows.
		if n := min(opts.MaxPages, maxPreallocPages); n > 0 {
			b.edges = make([]edgeList, 0, n)
		}
	}
	return b
}

// maxPreallocPages caps the pages newSiteBuilder sizes its arrays for.
const maxPreallocPages = 200_000

// addPage records a crawled page and its outgoing internal edges. The
// redirect hops of sum are added as redirect edges whether or not edges
// repeats them; repeated edges from one page are stored once (followed when
// any copy is).
func (b *siteBuilder) addPage(sum PageSummary, edges []Edge) {
	b.addPageIDs(sum, edges, nil)
}

// addPageIDs is addPage with the node ids of the first edges' targets
// where the crawl knows them (see addEdges).
func (b *siteBuilder) addPageIDs(sum PageSummary, edges []Edge, ids []int32) {
	b.mu.Lock()
	defer b.mu.Unlock()
	from := b.intern(sum.URL)
	b.markCrawled(from)
	b.addEdges(from, &sum, edges, ids)
	sum.Findings = b.shareIDs(sum.Findings)
	sum.FindingCounts = b.shareCounts(sum.FindingCounts)
	b.link.addMuted(sum.Muted)
	sum.Muted = nil
	b.compact(&sum, from)
	b.recs.add(b.record(&sum))
}

// siteRun holds the indexes the site checks share during build.
type siteRun struct {
	b     *siteBuilder
	facts *crawlFacts
	muted map[string]analyzer.MutedFinding // by ID, see mute
	// npages counts the pages: the records distinct by URL, in the order
	// added; recOf maps a page to its record, nil when they are the same
	// (no URL added twice). See page and pages.
	npages   int
	recOf    []int32
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
	srcBuf     pageBuf       // expands the pages the siteCheck.Sources functions read
	link       *linkAcc      // link-scope findings, see linkscope.go

	orphans     int    // GraphStats.Orphans, see sitemapChecks
	orphanCheck string // GraphStats.OrphanCheck

	fpOther        int // SiteReport.DuplicatesUnchecked, see fpComparable
	fpOtherCounted bool

	ai *AICrawlerReport // SiteReport.AICrawlers, see aiChecks

	// segOf is the segment of each page when the crawl has segments (see
	// segments): its index in b.segments plus one, len(b.segments)+1 for
	// none, 0 for a page not matched (not fetched, or over the budget).
	segOf []int32

	// clusters are the groups of pages reported as one finding (duplicate
	// titles, near-duplicate text ...), by finding ID and first member URL:
	// their size and their members as listed in the evidence. See
	// reportGroup and FindingGroup.Groups.
	clusters map[clusterKey]cluster
}

// build runs the site checks and assembles the report. It may be called
// once the crawl is over.
func (b *siteBuilder) build(facts *crawlFacts) *SiteReport {
	b.mu.Lock()
	defer b.mu.Unlock()
	if facts == nil {
		facts = &crawlFacts{}
	}
	r := b.runChecks(facts)
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
	pageScores, fetched := r.pageStats(rep)
	r.siteFindings(rep, pageScores, fetched)
	r.listPages(rep, scores)
	fitReport(rep, b.maxReportBytes)
	return rep
}

// runChecks indexes the crawled pages and the link graph and runs the site
// checks over them; their findings are in the returned run.
func (b *siteBuilder) runChecks(facts *crawlFacts) *siteRun {
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
	r.shortestDepths()
	r.findings = make([]seo.Finding, 0, r.perPageFindings(facts)+len(facts.Findings)+64)
	r.links()
	r.checkSources()
	for _, c := range builtinSiteChecks {
		c.Run(r)
	}
	return r
}

// pageStats fills the report's page statistics: status codes, depths,
// extraction and render summaries, graph figures. It returns the scores of
// the scored pages and the number of pages fetched.
func (r *siteRun) pageStats(rep *SiteReport) (pageScores []int, fetched int) {
	b, facts := r.b, r.facts
	pageScores = make([]int, 0, r.npages)
	inlinkSum := 0
	// The histogram counts the pages' depths as shortestDepths left them.
	rep.Crawl.DepthHistogram = []int{}
	for i, p := range r.pages() {
		if !p.fetched() {
			continue
		}
		fetched++
		inlinkSum += int(r.inlinks[r.nodeOf[i]])
		if p.Score != nil {
			pageScores = append(pageScores, *p.Score)
		}
		rep.StatusCodes[p.Status]++
		if d := p.depth(); d >= 0 {
			rep.Graph.MaxDepth = max(rep.Graph.MaxDepth, d)
			for len(rep.Crawl.DepthHistogram) <= d {
				rep.Crawl.DepthHistogram = append(rep.Crawl.DepthHistogram, 0)
			}
			rep.Crawl.DepthHistogram[d]++
		}
	}
	rep.Extraction, rep.SearchRules = extractionStats(r.pages(), b.ana)
	rep.Graph.Nodes = fetched
	if f := facts.Render; f != nil {
		rep.Render = renderSummary(r.pages(), f.Mode, f.Device)
		if rep.Render != nil {
			rep.Render.ScreenshotsOmitted, rep.Render.ScreenshotDir = f.ScreenshotsOmitted, f.ScreenshotDir
		}
		rep.A11y = a11ySummary(r.pages())
	}
	for i := range r.npages {
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
	if r.fpOther > 0 {
		rep.DuplicatesUnchecked = r.fpOther
		rep.DuplicatesUncheckedReasons = map[string]int{DuplicatesFingerprintVersion: r.fpOther}
	}
	if b.droppedEdges > 0 {
		rep.Truncated.Note("graph.edges", rep.Graph.Edges+b.droppedEdges, rep.Graph.Edges)
		rep.Graph.Edges += b.droppedEdges
	}
	if b.smDropped > 0 {
		rep.Truncated.Note("sitemapUrls", len(b.smHashes)+b.smDropped, len(b.smHashes))
	}

	return pageScores, fetched
}

// siteFindings fills rep's findings: the site findings (the checks' and
// the crawl's own, mutes applied), segments and templates, the site score
// over pageScores (or why there is none), the finding groups and counts,
// the link findings and the external and resource check figures.
func (r *siteRun) siteFindings(rep *SiteReport, pageScores []int, fetched int) {
	b, facts := r.b, r.facts
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
	rep.Templates = templates(r.pages(), &rep.Truncated)
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
}

// listPages fills rep's page lists: the pages fetched sorted by URL, each
// completed with what the graph says (inlinks, link score from scores,
// sitemap listing, segment), and the URLs not fetched, each list capped at
// MaxReportPages. Only the pages listed are expanded.
func (r *siteRun) listPages(rep *SiteReport, scores []float64) {
	b, facts := r.b, r.facts
	rep.NotFetched = r.notFetched()
	notFetchedTotal := len(rep.NotFetched) + len(facts.Trapped) + facts.TrappedMore
	if len(facts.Trapped) > 0 {
		rep.NotFetched = append(rep.NotFetched, facts.Trapped...)
		slices.SortFunc(rep.NotFetched, func(a, b NotFetchedURL) int { return strings.Compare(a.URL, b.URL) })
	}
	var order []int32
	for i, p := range r.pages() {
		if p.fetched() {
			order = append(order, int32(i))
		}
	}
	slices.SortFunc(order, func(i, j int32) int { return strings.Compare(r.b.urls[r.nodeOf[i]], r.b.urls[r.nodeOf[j]]) })
	n := len(order)
	if b.maxReportPages > 0 && n > b.maxReportPages {
		rep.Truncated.Note("pages", n, b.maxReportPages)
		n = b.maxReportPages
	}
	if r.npages > 0 { // JSON null for a crawl of no page, [] for none fetched
		rep.Pages = make([]PageSummary, n)
	}
	for k, i := range order[:n] {
		p := &rep.Pages[k]
		*p = b.summary(r.rec(int(i)))
		p.Inlinks = int(r.inlinks[r.nodeOf[i]])
		p.LinkScore = scores[i]
		p.InSitemap = r.inSitemap(p)
		if r.segOf != nil && r.segOf[i] > 0 && int(r.segOf[i]) <= len(b.segments) {
			p.Segment = b.segments[r.segOf[i]-1].Name
		}
	}
	if n := b.maxReportPages; n > 0 && len(rep.NotFetched) > n {
		rep.NotFetched = rep.NotFetched[:n:n]
	}
	if notFetchedTotal > len(rep.NotFetched) {
		rep.Truncated.Note("notFetched", notFetchedTotal, len(rep.NotFetched))
	}
}

// notFetched lists the URLs that got no response, sorted by URL, with
// their reason and a page linking to them (else the sitemap listing them).
// They stay among the pages for the site checks.
func (r *siteRun) notFetched() []NotFetchedURL {
	var out []NotFetchedURL
	var missing map[int32]int // node -> index in out
	for i, p := range r.pages() {
		if p.fetched() {
			continue
		}
		nf := NotFetchedURL{URL: p.URL, Reason: NotFetchedFailed, Error: p.Error, Depth: depthPtr(p.depth())}
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
	for i := range r.npages {
		for e := range r.edgesOf(i) {
			if k, ok := missing[e.target()]; ok && !e.redirect() && e.target() != r.nodeOf[i] && out[k].FoundOn == "" {
				out[k].FoundOn = r.b.urls[r.nodeOf[i]]
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

// perPageFindings counts the site findings of the checks that may report
// every page (site.deep_page, site.not_in_sitemap), so the findings are
// allocated once at about their final size on a large site.
func (r *siteRun) perPageFindings(facts *crawlFacts) int {
	n := 0
	for _, p := range r.pages() {
		if p.IsHTML && p.Status == 200 && p.depth() > r.b.checks.DeepPageDepth {
			n++
		}
		if facts.SitemapExists && r.b.smDropped == 0 && r.notInSitemap(p) {
			n++
		}
	}
	return n
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
