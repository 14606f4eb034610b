package crawler

import (
	"cmp"
	"encoding/binary"
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
	"unicode"
	"unicode/utf8"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/seo"
)

// Site check parameters (CHECKS.md defaults).
const (
	// deepPageDepth is the greatest click depth not reported by site.deep_page.
	deepPageDepth = 4
	// nearDuplicateBits is the greatest simhash distance of site.near_duplicate.
	nearDuplicateBits = 3
	// maxEvidenceURLs caps Evidence.URLs of a site finding; Detail gives the total.
	maxEvidenceURLs = 20
	// maxGroupExamples caps FindingGroup.Examples.
	maxGroupExamples = 5
)

// siteChecks are the site-scope checks run over the link graph and the page
// summaries after a crawl. The build also reports hreflang.return_missing
// across crawled pages; that ID is a link-scope check declared by the
// analyzer, so it is not repeated here.
var siteChecks = []seo.CheckInfo{
	{ID: "site.duplicate_title", Severity: seo.Warning, Scope: seo.ScopeSite, Summary: "Several indexable pages have the same title.",
		Source: "Google Search Central, Title links (https://developers.google.com/search/docs/appearance/title-link); Screaming Frog SEO Spider, SEOnaut"},
	{ID: "site.duplicate_description", Severity: seo.Notice, Scope: seo.ScopeSite, Summary: "Several indexable pages have the same meta description.",
		Source: "Google Search Central, Meta descriptions and snippets (https://developers.google.com/search/docs/appearance/snippet); Screaming Frog SEO Spider, SEOnaut"},
	{ID: "site.duplicate_h1", Severity: seo.Notice, Scope: seo.ScopeSite, Summary: "Several indexable pages have the same first H1.",
		Source: "Screaming Frog SEO Spider (duplicate H1)"},
	{ID: "site.duplicate_content", Severity: seo.Warning, Scope: seo.ScopeSite, Summary: "Several indexable pages have identical main text.",
		Source: "Google Search Central, Consolidate duplicate URLs (https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls); Screaming Frog SEO Spider, SEOnaut, PSA"},
	{ID: "site.near_duplicate", Severity: seo.Notice, Scope: seo.ScopeSite, Summary: "Indexable pages whose main-text simhashes differ in at most 3 bits.",
		Source:  "Google Search Central, Consolidate duplicate URLs (https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls); Screaming Frog SEO Spider (near duplicates)",
		Differs: "Screaming Frog compares text at 90% similarity; seokit compares main-text simhashes within 3 bits, which scales to large crawls."},
	{ID: "site.trailing_slash_duplicate", Severity: seo.Warning, Scope: seo.ScopeSite, Summary: "A URL answers 200 with and without a trailing slash, neither canonicalised to the other.",
		Source: "seokit's own rule, after Google Search Central, Consolidate duplicate URLs (https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls)"},
	{ID: "site.orphan", Severity: seo.Warning, Scope: seo.ScopeSite, Summary: "A sitemap URL that is a real page (2xx, HTML, no redirect) and that no crawled page links to.",
		Source:  "Google Search Central, Make your links crawlable (https://developers.google.com/search/docs/crawling-indexing/links-crawlable) (pages need links to be found); Screaming Frog SEO Spider, SEOnaut",
		Differs: "Like Screaming Frog, seokit needs the sitemap to find orphans; when the crawl stops at its page limit it does not call unreached sitemap URLs orphans. A sitemap URL that fails, redirects or is not HTML is not an orphan: site.sitemap_broken_url or site.sitemap_redirect reports it."},
	{ID: "site.deep_page", Severity: seo.Notice, Scope: seo.ScopeSite, Summary: "The page is more than 4 clicks away from the start URL.",
		Source: "SEOnaut (more than 4 clicks); Screaming Frog SEO Spider (crawl depth)"},
	{ID: "site.noindex_inlinks_only", Severity: seo.Warning, Scope: seo.ScopeSite, Summary: "An indexable page is linked to only from noindex pages.",
		Source: "Google Search Central, Robots meta tag and X-Robots-Tag (https://developers.google.com/search/docs/crawling-indexing/robots-meta-tag); Screaming Frog SEO Spider"},
	{ID: "site.nofollow_inlinks_only", Severity: seo.Warning, Scope: seo.ScopeSite, Summary: "Every internal link to an indexable page is nofollow.",
		Source: "Google Search Central, Qualify your outbound links (https://developers.google.com/search/docs/crawling-indexing/qualify-outbound-links); Screaming Frog SEO Spider"},
	{ID: "site.nofollow_to_indexable", Severity: seo.Notice, Scope: seo.ScopeSite, Summary: "Internal nofollow links point to an indexable page.",
		Source: "Google Search Central, Qualify your outbound links (https://developers.google.com/search/docs/crawling-indexing/qualify-outbound-links); Screaming Frog SEO Spider, SEOnaut"},
	{ID: "site.redirect_chain", Severity: seo.Warning, Scope: seo.ScopeSite, Summary: "Internal links lead into a chain of more than one redirect.",
		Source: "Google Search Central, Redirects and Google Search (https://developers.google.com/search/docs/crawling-indexing/301-redirects); Screaming Frog SEO Spider, SEOnaut"},
	{ID: "site.redirect_loop", Severity: seo.Error, Scope: seo.ScopeSite, Summary: "Internal links lead into a redirect loop.",
		Source:  "Google Search Central, Redirects and Google Search (https://developers.google.com/search/docs/crawling-indexing/301-redirects); Screaming Frog SEO Spider, SEOnaut",
		Differs: "SEOnaut detects loops of two URLs only; seokit detects loops of any length."},
	{ID: "site.sitemap_noindex", Severity: seo.Warning, Scope: seo.ScopeSite, Summary: "A sitemap lists a noindex URL.",
		Source: "Google Search Central, Build and submit a sitemap (https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap); sitemaps.org protocol (https://www.sitemaps.org/protocol.html); Screaming Frog SEO Spider, SEOnaut"},
	{ID: "site.sitemap_non_canonical", Severity: seo.Warning, Scope: seo.ScopeSite, Summary: "A sitemap lists a URL that names another URL as canonical.",
		Source: "Google Search Central, Build and submit a sitemap (https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap); sitemaps.org protocol (https://www.sitemaps.org/protocol.html) (list canonical URLs); Screaming Frog SEO Spider, SEOnaut"},
	{ID: "site.sitemap_redirect", Severity: seo.Warning, Scope: seo.ScopeSite, Summary: "A sitemap lists a URL that redirects.",
		Source: "Google Search Central, Build and submit a sitemap (https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap); sitemaps.org protocol (https://www.sitemaps.org/protocol.html); Screaming Frog SEO Spider"},
	{ID: "site.sitemap_broken_url", Severity: seo.Warning, Scope: seo.ScopeSite, Summary: "A sitemap lists a URL that fails (4xx, 5xx or no response).",
		Source: "Google Search Central, Build and submit a sitemap (https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap); sitemaps.org protocol (https://www.sitemaps.org/protocol.html) (list only URLs that work); Screaming Frog SEO Spider"},
	{ID: "site.sitemap_blocked", Severity: seo.Warning, Scope: seo.ScopeSite, Summary: "A sitemap lists a URL that robots.txt disallows.",
		Source: "Google Search Central, Build and submit a sitemap (https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap); sitemaps.org protocol (https://www.sitemaps.org/protocol.html); SEOnaut"},
	{ID: "site.not_in_sitemap", Severity: seo.Notice, Scope: seo.ScopeSite, Summary: "An indexable page found through links is missing from every sitemap.",
		Source: "Google Search Central, Build and submit a sitemap (https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap); sitemaps.org protocol (https://www.sitemaps.org/protocol.html); Screaming Frog SEO Spider"},
	{ID: "canonical.chain", Severity: seo.Warning, Scope: seo.ScopeSite, Summary: "The canonical target names yet another URL as its canonical.",
		Source: "Google Search Central, Consolidate duplicate URLs (https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls); Screaming Frog SEO Spider, SEOnaut"},
	{ID: "hreflang.cluster_inconsistent", Severity: seo.Notice, Scope: seo.ScopeSite, Summary: "Pages of one hreflang cluster list different alternates.",
		Source: "Google Search Central, Localized versions of your page (https://developers.google.com/search/docs/specialty/international/localized-versions); Screaming Frog SEO Spider"},
}

// Catalog returns every check ID a crawl reports beyond the page checks of
// [analyzer.Catalog]: the site checks and the crawl's own checks (robots.txt,
// sitemaps, host variants ...), sorted by ID.
func Catalog() []seo.CheckInfo {
	out := make([]seo.CheckInfo, 0, len(siteChecks)+len(crawlChecks))
	out = append(out, siteChecks...)
	out = append(out, crawlChecks...)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

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

// singleCanonical returns the one canonical URL the page declares, resolved
// against the page and normalised, or "" when it declares none, several
// different ones, or one that is not an http(s) URL.
func singleCanonical(rep *analyzer.Report) string {
	base, err := url.Parse(rep.FinalURL)
	if err != nil || rep.FinalURL == "" {
		base, _ = url.Parse(rep.URL)
	}
	found := ""
	for _, c := range rep.Canonical {
		u, err := url.Parse(strings.TrimSpace(c.URL))
		if err != nil || strings.TrimSpace(c.URL) == "" {
			return ""
		}
		if base != nil {
			u = base.ResolveReference(u)
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

// Edge flags, kept in the high bits of edge.to.
const (
	edgeNofollow uint32 = 1 << 31
	edgeRedirect uint32 = 1 << 30
	edgeIDMask          = edgeRedirect - 1
)

// edge is one edge: interned node ids, flags in the high bits of to.
type edge struct{ from, to uint32 }

func (e edge) target() int32  { return int32(e.to & edgeIDMask) }
func (e edge) nofollow() bool { return e.to&edgeNofollow != 0 }
func (e edge) redirect() bool { return e.to&edgeRedirect != 0 }

// edgeList locates the edges of one page in the builder's edge arena:
// arena[off:end].
//
// Edges are stored sorted by (from, target) as one uvarint each: the
// zigzag-encoded difference to the previous target, shifted left by three
// for the flags (nofollow, redirect, and "another varint with the from node
// follows"). Nearly every edge starts at its page's node, which is implied;
// the targets of a page are close ids (menus, neighbours), so most edges
// cost one or two bytes instead of eight.
type edgeList struct{ off, end uint32 }

// Flags of an encoded edge.
const (
	encNofollow = 1 << iota
	encRedirect
	encFrom
	encShift = 3
)

// appendEdges encodes sorted edges of the page at node onto dst.
func appendEdges(dst []byte, node uint32, es []edge) []byte {
	prev := int64(0)
	for _, e := range es {
		t := int64(e.target())
		d := t - prev
		prev = t
		v := uint64(d<<1) ^ uint64(d>>63) // zigzag
		v <<= encShift
		if e.nofollow() {
			v |= encNofollow
		}
		if e.redirect() {
			v |= encRedirect
		}
		if e.from != node {
			v |= encFrom
		}
		dst = binary.AppendUvarint(dst, v)
		if e.from != node {
			dst = binary.AppendUvarint(dst, uint64(e.from))
		}
	}
	return dst
}

// edgesIn yields the edges encoded in data for the page at node.
func edgesIn(data []byte, node int32) iter.Seq[edge] {
	return func(yield func(edge) bool) {
		prev := int64(0)
		for len(data) > 0 {
			v, n := binary.Uvarint(data)
			data = data[n:]
			z := v >> encShift
			prev += int64(z>>1) ^ -int64(z&1)
			e := edge{from: uint32(node), to: uint32(prev)}
			if v&encNofollow != 0 {
				e.to |= edgeNofollow
			}
			if v&encRedirect != 0 {
				e.to |= edgeRedirect
			}
			if v&encFrom != 0 {
				f, n := binary.Uvarint(data)
				data = data[n:]
				e.from = uint32(f)
			}
			if !yield(e) {
				return
			}
		}
	}
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
	link    linkScope // link-scope checks, see linkscope.go

	// Report caps (Options); zero means no cap.
	maxReportPages  int
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
		maxTargets: math.MaxInt, maxSitemap: math.MaxInt}
	if start != nil {
		b.start = start.String()
		b.startHost = start.Host
	}
	if opts != nil {
		b.subdomains = opts.IncludeSubdomains
		b.link.init(opts)
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
	if sum.FinalURL != "" || sum.Redirects != nil || sum.Hreflang != nil || sum.BlockedResources != nil ||
		sum.Error != "" || sum.InSitemap || sum.Inlinks != 0 || sum.LinkScore != 0 ||
		!fitsInt32(sum.Status, sum.depth(), sum.WordCount, sum.score(), sum.Errors, sum.Warnings, sum.Notices) ||
		reasonCode(sum.ScoreReason) < 0 {
		c := *sum
		return pageRec{url: sum.URL, more: &c}
	}
	r := pageRec{
		url: sum.URL, title: sum.Title, description: sum.Description, h1: sum.H1,
		canonical: sum.Canonical, contentType: sum.ContentType,
		textHash: sum.TextHash, simHash: sum.SimHash, bytes: sum.Bytes, response: sum.ResponseMs,
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
		TextHash: r.textHash, SimHash: r.simHash, Bytes: r.bytes, ResponseMs: r.response,
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
	pu, err := url.Parse(u)
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
	nofollowIn []int32
	fromIndex  []int32       // links from pages that are not noindex
	sources    []*sourceList // by node, for the nodes collectSources was asked for
	link       *linkAcc      // link-scope findings, see linkscope.go
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
	r := &siteRun{b: b, byFinal: map[string]int32{}, sev: map[string]seo.CheckInfo{}}
	for _, in := range analyzer.Catalog() {
		r.sev[in.ID] = in
	}
	for _, in := range Catalog() {
		r.sev[in.ID] = in
	}
	r.index()
	r.findings = make([]seo.Finding, 0, r.perPageFindings(facts)+len(facts.Findings)+64)
	r.links()
	r.duplicates()
	r.nearDuplicates()
	r.trailingSlash()
	orphans, orphanCheck := r.sitemapChecks(facts.SitemapExists, facts.Partial)
	r.linkChecks()
	r.redirects()
	r.canonicalChains()
	r.hreflang()
	r.linkScope()

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
	rep.Graph.Orphans = orphans
	rep.Graph.OrphanCheck = orphanCheck
	if b.droppedEdges > 0 {
		rep.Truncated.Note("graph.edges", rep.Graph.Edges+b.droppedEdges, rep.Graph.Edges)
		rep.Graph.Edges += b.droppedEdges
	}
	if b.smDropped > 0 {
		rep.Truncated.Note("sitemapUrls", len(b.smHashes)+b.smDropped, len(b.smHashes))
	}

	site := append(r.findings, facts.Findings...)
	site = r.dropMuted(site)
	sortFindings(site)
	rep.Score = seo.SiteScore(pageScores, site)
	rep.Findings = r.groups(site)
	rep.SiteFindings = capPerID(site, b.maxSiteFindings, "siteFindings.", &rep.Truncated)
	r.link.adjustGroups(rep.Findings)
	rep.Muted = r.mutedList()
	rep.FindingCounts = CountFindings(rep.Findings)
	rep.Score.Counts = rep.FindingCounts.Checks
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

func (s pagesByURL) Len() int           { return len(s.pages) }
func (s pagesByURL) Less(i, j int) bool { return s.pages[i].URL < s.pages[j].URL }
func (s pagesByURL) Swap(i, j int) {
	s.pages[i], s.pages[j] = s.pages[j], s.pages[i]
	s.edges[i], s.edges[j] = s.edges[j], s.edges[i]
}

func sortFindings(fs []seo.Finding) {
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
		if p.IsHTML && p.Status == 200 && p.depth() > deepPageDepth {
			n++
		}
		if facts.SitemapExists && r.b.smDropped == 0 && r.notInSitemap(p) {
			n++
		}
	}
	return n
}

// notInSitemap reports whether p is an indexable page, found through
// links, that no sitemap lists (site.not_in_sitemap).
func (r *siteRun) notInSitemap(p *PageSummary) bool {
	return p.Indexable && p.Status == 200 && p.depth() >= 0 && !canonicalisedElsewhere(p) && !r.inSitemap(p)
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
			if e.nofollow() {
				r.nofollowIn[t]++
			} else {
				r.followedIn[t]++
			}
			if !p.Noindex {
				r.fromIndex[t]++
			}
		}
	}
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
			if e.nofollow() && len(s.nofollow) < maxEvidenceURLs {
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

// dupCandidates returns the pages the duplicate checks compare: indexable
// 200 HTML pages, one per content URL.
func (r *siteRun) dupCandidates() []int {
	cand := func(p *PageSummary) bool { return p.Indexable && p.Status == 200 && p.IsHTML }
	// Requested URLs are distinct, so a page without a final URL can only
	// repeat a content URL that is another candidate's final URL: only
	// those URLs and the final URLs go through the set.
	var finals map[string]bool
	for i := range r.pages {
		if p := &r.pages[i]; p.FinalURL != "" && cand(p) {
			if finals == nil {
				finals = map[string]bool{}
			}
			finals[p.FinalURL] = true
		}
	}
	seen := map[string]bool{}
	var out []int
	for i := range r.pages {
		p := &r.pages[i]
		if !cand(p) {
			continue
		}
		u := effURL(p)
		if p.FinalURL != "" || finals[u] {
			if seen[u] {
				continue
			}
			seen[u] = true
		}
		out = append(out, i)
	}
	return out
}

// hashGroups calls fn for every group of at least two positions in [0, n)
// sharing a non-zero key, with the positions of a group ascending and the
// groups in the order of their first position. It sorts one compact array
// instead of building a map of slices. g is reused between calls.
func hashGroups(n int, key func(int) uint64, fn func(h uint64, g []int)) {
	type kv struct {
		h uint64
		i int32
	}
	kvs := make([]kv, 0, n)
	for i := range n {
		if h := key(i); h != 0 {
			kvs = append(kvs, kv{h, int32(i)})
		}
	}
	slices.SortFunc(kvs, func(a, b kv) int {
		if c := cmp.Compare(a.h, b.h); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
	type span struct{ lo, hi int32 }
	var spans []span
	for lo := 0; lo < len(kvs); {
		hi := lo + 1
		for hi < len(kvs) && kvs[hi].h == kvs[lo].h {
			hi++
		}
		if hi-lo >= 2 {
			spans = append(spans, span{int32(lo), int32(hi)})
		}
		lo = hi
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(kvs[a.lo].i, kvs[b.lo].i) })
	var g []int
	for _, sp := range spans {
		g = g[:0]
		for _, e := range kvs[sp.lo:sp.hi] {
			g = append(g, int(e.i))
		}
		fn(kvs[sp.lo].h, g)
	}
}

// reportGroup reports a group of duplicate pages unless they all
// canonicalise to one URL.
func (r *siteRun) reportGroup(id string, members []int, msg string, ev seo.Evidence) {
	if len(members) < 2 {
		return
	}
	one := true
	c0 := canonicalOf(&r.pages[members[0]])
	urls := make([]string, len(members))
	for k, m := range members {
		urls[k] = effURL(&r.pages[m])
		if canonicalOf(&r.pages[m]) != c0 {
			one = false
		}
	}
	if one {
		return
	}
	sort.Strings(urls)
	r.add(id, urls[0], msg, ev, urls, len(urls))
}

func normText(s string) string { return strings.ToLower(analyzer.Collapse(s)) }

// normHash is a 64-bit FNV-1a hash of normText(s), computed without
// allocating; 0 for blank text.
func normHash(s string) uint64 {
	const (
		offset = 14695981039346656037
		prime  = 1099511628211
	)
	h := uint64(offset)
	space, seen := false, false
	for _, c := range s {
		if unicode.IsSpace(c) {
			space = seen
			continue
		}
		if space {
			h = (h ^ ' ') * prime
			space = false
		}
		seen = true
		c = unicode.ToLower(c)
		var buf [utf8.UTFMax]byte
		for _, b := range buf[:utf8.EncodeRune(buf[:], c)] {
			h = (h ^ uint64(b)) * prime
		}
	}
	if !seen {
		return 0
	}
	return h
}

func (r *siteRun) duplicates() {
	cands := r.dupCandidates()
	fields := []struct {
		id, what string
		get      func(*PageSummary) string
	}{
		{"site.duplicate_title", "title", func(p *PageSummary) string { return p.Title }},
		{"site.duplicate_description", "meta description", func(p *PageSummary) string { return p.Description }},
		{"site.duplicate_h1", "first H1", func(p *PageSummary) string { return p.H1 }},
	}
	// Group by a hash of the normalised text (no string per page), then
	// split each group by the text itself, so a collision never joins
	// different texts.
	for _, f := range fields {
		hashGroups(len(cands), func(k int) uint64 { return normHash(f.get(&r.pages[cands[k]])) }, func(_ uint64, g []int) {
			byText := map[string][]int{}
			var texts []string
			for _, k := range g {
				i := cands[k]
				t := normText(f.get(&r.pages[i]))
				if _, ok := byText[t]; !ok {
					texts = append(texts, t)
				}
				byText[t] = append(byText[t], i)
			}
			for _, t := range texts {
				if sub := byText[t]; len(sub) >= 2 {
					r.reportGroup(f.id, sub, fmt.Sprintf("%d pages share the same %s", len(sub), f.what),
						seo.Evidence{Element: f.what, Value: f.get(&r.pages[sub[0]])})
				}
			}
		})
	}
	var members []int
	hashGroups(len(cands), func(k int) uint64 { return r.pages[cands[k]].TextHash }, func(h uint64, g []int) {
		members = members[:0]
		for _, k := range g {
			members = append(members, cands[k])
		}
		r.reportGroup("site.duplicate_content", members, fmt.Sprintf("%d pages have identical main text", len(members)),
			seo.Evidence{Element: "main text", Detail: fmt.Sprintf("text hash %016x", h)})
	})
}

// nearDuplicates clusters pages whose simhashes differ in at most 3 bits.
// Exact duplicates are represented once. Two simhashes within 3 bits agree
// on at least one of their four 16-bit blocks, so only pages sharing a block
// value are compared (banding), which keeps the check near-linear.
func (r *siteRun) nearDuplicates() {
	// One representative per text hash, the first candidate with it.
	var reps []int
	{
		cands := r.dupCandidates()
		type hi struct {
			h uint64
			i int32
		}
		byHash := make([]hi, 0, len(cands))
		for _, i := range cands {
			if h := r.pages[i].TextHash; h != 0 {
				byHash = append(byHash, hi{h, int32(i)})
			}
		}
		slices.SortFunc(byHash, func(a, b hi) int {
			if c := cmp.Compare(a.h, b.h); c != 0 {
				return c
			}
			return cmp.Compare(a.i, b.i)
		})
		for k, e := range byHash {
			if k == 0 || byHash[k-1].h != e.h {
				reps = append(reps, int(e.i))
			}
		}
		slices.Sort(reps)
	}
	if len(reps) < 2 {
		return
	}
	parent := make([]int32, len(reps))
	for i := range parent {
		parent[i] = int32(i)
	}
	find := func(x int32) int32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	maxDist := make([]int, len(reps))
	sim := func(k int32) uint64 { return r.pages[reps[k]].SimHash }
	compare := func(a, b int32) {
		d := analyzer.HammingDistance(sim(a), sim(b))
		if d > nearDuplicateBits {
			return
		}
		ra, rb := find(a), find(b)
		if ra != rb {
			parent[ra] = rb
			maxDist[rb] = max(maxDist[rb], maxDist[ra])
		}
		maxDist[rb] = max(maxDist[rb], d)
	}
	const window = 64
	// Bands: for each 16-bit block, sort the representatives by the
	// block's value and compare within each run of equal values.
	type bk struct {
		key uint16
		k   int32
	}
	band := make([]bk, len(reps))
	var bucket []int32
	for b := range 4 {
		for k := range reps {
			band[k] = bk{uint16(sim(int32(k)) >> (16 * b)), int32(k)}
		}
		slices.SortFunc(band, func(x, y bk) int {
			if c := cmp.Compare(x.key, y.key); c != 0 {
				return c
			}
			return cmp.Compare(x.k, y.k)
		})
		for lo := 0; lo < len(band); {
			hi := lo + 1
			for hi < len(band) && band[hi].key == band[lo].key {
				hi++
			}
			bucket = bucket[:0]
			for _, e := range band[lo:hi] {
				bucket = append(bucket, e.k)
			}
			lo = hi
			if len(bucket) < 2 {
				continue
			}
			if len(bucket) > 512 {
				// Huge bucket (many similar templates): compare neighbours in
				// simhash order only, to bound the work.
				slices.SortFunc(bucket, func(x, y int32) int {
					if c := cmp.Compare(sim(x), sim(y)); c != 0 {
						return c
					}
					return cmp.Compare(x, y)
				})
				for a := range bucket {
					for b := a + 1; b < len(bucket) && b <= a+window; b++ {
						compare(bucket[a], bucket[b])
					}
				}
				continue
			}
			for a := range bucket {
				for b := a + 1; b < len(bucket); b++ {
					compare(bucket[a], bucket[b])
				}
			}
		}
	}
	var g []int
	hashGroups(len(reps), func(k int) uint64 { return uint64(find(int32(k))) + 1 }, func(root uint64, ks []int) {
		g = g[:0]
		for _, k := range ks {
			g = append(g, reps[k])
		}
		d := float64(maxDist[root-1])
		ev := seo.Measure("main text", d, nearDuplicateBits)
		ev.Detail = "simhash distance in bits"
		r.reportGroup("site.near_duplicate", g, fmt.Sprintf("%d pages have nearly the same main text", len(g)), ev)
	})
}

// stripTrailingSlash returns u without the slash ending its path, and false
// when the path does not end in a slash or is the root.
func stripTrailingSlash(u string) (string, bool) {
	end := len(u)
	if q := strings.IndexAny(u, "?#"); q >= 0 {
		end = q
	}
	base := u[:end]
	if !strings.HasSuffix(base, "/") {
		return "", false
	}
	rest := base
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
	}
	slash := strings.IndexByte(rest, '/')
	if slash < 0 || slash == len(rest)-1 {
		return "", false
	}
	return base[:len(base)-1] + u[end:], true
}

func (r *siteRun) trailingSlash() {
	ok200 := func(i int) bool {
		return i >= 0 && r.pages[i].Status == 200 && len(r.pages[i].Redirects) == 0 && r.pages[i].FinalURL == ""
	}
	for i := range r.pages {
		if !ok200(i) {
			continue
		}
		p := &r.pages[i]
		bare, ok := stripTrailingSlash(p.URL)
		if !ok {
			continue
		}
		j := -1
		if n, found := r.b.ids[bare]; found {
			j = int(r.pageOf[n])
		}
		if !ok200(j) {
			continue
		}
		q := &r.pages[j]
		if canonicalOf(p) == canonicalOf(q) {
			continue
		}
		r.add("site.trailing_slash_duplicate", p.URL,
			"the URL answers 200 both with and without a trailing slash",
			seo.Evidence{Element: "URL", Value: p.URL}, []string{p.URL, q.URL}, 2)
	}
}

// sitemapChecks runs the checks on sitemap URLs and returns the number of
// orphans and the GraphStats.OrphanCheck state. A partial crawl reports no
// orphans: a sitemap URL it did not reach may be linked from a page it did
// not crawl.
func (r *siteRun) sitemapChecks(sitemapExists, partial bool) (int, string) {
	b := r.b
	check := OrphanCheckDone
	switch {
	case len(b.sitemap) == 0 && b.smLocsDropped == 0:
		check = OrphanCheckNoSitemap
	case partial || b.smLocsDropped > 0:
		check = OrphanCheckNotDone
	}
	locs := make([]int32, 0, len(b.sitemap))
	for n := range b.sitemap {
		locs = append(locs, n)
	}
	slices.Sort(locs)
	orphans := 0
	for _, n := range locs {
		loc, sm := b.urls[n], b.urls[b.sitemap[n]]
		ev := func(element string) seo.Evidence {
			return seo.Evidence{Element: element, Value: loc, Detail: "listed in " + sm}
		}
		i := int(r.pageOf[n])
		if i < 0 {
			continue
		}
		p := &r.pages[i]
		// Only a real page is an orphan: a sitemap URL that fails,
		// redirects or is not HTML is reported by its own check.
		if check == OrphanCheckDone && loc != b.start && r.inlinks[n] == 0 && b.inScope(loc) && realPage(p) {
			orphans++
			r.add("site.orphan", loc, "the sitemap lists this URL but no crawled page links to it", ev("sitemap"), []string{sm}, 1)
		}
		switch {
		case p.RobotsBlocked:
			r.add("site.sitemap_blocked", loc, "the sitemap lists a URL that robots.txt disallows", ev("robots.txt"), []string{sm}, 1)
		case p.Status >= 400 || (p.Status == 0 && p.Error != ""):
			e := ev("status")
			if p.Status == 0 {
				e.Value = p.Error
			} else {
				st := float64(p.Status)
				e.Measured = &st
			}
			r.add("site.sitemap_broken_url", loc, "the sitemap lists a URL that fails", e, []string{sm}, 1)
		}
		if len(p.Redirects) > 0 || (p.Status >= 300 && p.Status < 400) {
			e := ev("status")
			e.Value = effURL(p)
			r.add("site.sitemap_redirect", loc, "the sitemap lists a URL that redirects", e, []string{sm}, 1)
		}
		if p.Noindex {
			r.add("site.sitemap_noindex", loc, "the sitemap lists a noindex URL", ev("robots"), []string{sm}, 1)
		}
		if canonicalisedElsewhere(p) {
			e := ev("canonical")
			e.Value = p.Canonical
			r.add("site.sitemap_non_canonical", loc, "the sitemap lists a URL whose canonical is another URL", e, []string{sm}, 1)
		}
	}
	// Pages are checked against every sitemap URL, so not when some were
	// not remembered (MaxSitemapURLs).
	if sitemapExists && b.smDropped == 0 {
		for i := range r.pages {
			p := &r.pages[i]
			if !r.notInSitemap(p) {
				continue
			}
			r.add("site.not_in_sitemap", effURL(p), "the page is indexable but no sitemap lists it",
				seo.Evidence{Element: "sitemap", Value: effURL(p)}, nil, 0)
		}
	}
	return orphans, check
}

// realPage reports whether p answered 2xx with HTML, without redirecting.
func realPage(p *PageSummary) bool {
	return p.Status/100 == 2 && len(p.Redirects) == 0 && p.IsHTML
}

// linkChecks runs the depth and inlink checks.
func (r *siteRun) linkChecks() {
	want := make([]bool, len(r.b.urls))
	wanted := 0
	mark := func(n int32) {
		if !want[n] {
			want[n] = true
			wanted++
		}
	}
	type hit struct {
		i  int
		id string
	}
	var hits []hit
	// Deep pages share one message and one evidence per depth: a large
	// site has many of them.
	type deep struct {
		msg string
		ev  seo.Evidence
	}
	deeps := map[int]deep{}
	for i := range r.pages {
		p := &r.pages[i]
		n := r.nodeOf[i]
		if depth := p.depth(); p.IsHTML && p.Status == 200 && depth > deepPageDepth {
			d, ok := deeps[depth]
			if !ok {
				d = deep{fmt.Sprintf("the page is %d clicks from the start URL", depth),
					seo.Measure("click depth", float64(depth), deepPageDepth)}
				deeps[depth] = d
			}
			r.add("site.deep_page", effURL(p), d.msg, d.ev, nil, 0)
		}
		if !p.Indexable || r.inlinks[n] == 0 {
			continue
		}
		if r.fromIndex[n] == 0 {
			hits = append(hits, hit{i, "site.noindex_inlinks_only"})
			mark(n)
		}
		if r.followedIn[n] == 0 {
			hits = append(hits, hit{i, "site.nofollow_inlinks_only"})
			mark(n)
		}
		if r.nofollowIn[n] > 0 {
			hits = append(hits, hit{i, "site.nofollow_to_indexable"})
			mark(n)
		}
	}
	for i := range r.pages {
		p := &r.pages[i]
		if (len(p.Redirects) > 0 || p.Status/100 == 3) && r.inlinks[r.nodeOf[i]] > 0 {
			mark(r.nodeOf[i])
		}
	}
	r.collectSources(want, wanted)
	for _, h := range hits {
		p := &r.pages[h.i]
		n := r.nodeOf[h.i]
		src := r.sourcesOf(n)
		if src == nil {
			src = &sourceList{}
		}
		switch h.id {
		case "site.noindex_inlinks_only":
			r.add(h.id, p.URL, "the page is linked to only from noindex pages",
				seo.Evidence{Element: "inlinks"}, src.all, int(r.inlinks[n]))
		case "site.nofollow_inlinks_only":
			r.add(h.id, p.URL, "every internal link to the page is nofollow",
				seo.Evidence{Element: "inlinks"}, src.all, int(r.inlinks[n]))
		case "site.nofollow_to_indexable":
			r.add(h.id, p.URL, fmt.Sprintf("%d internal nofollow links point to this indexable page", r.nofollowIn[n]),
				seo.Evidence{Element: `<a rel="nofollow">`}, src.nofollow, int(r.nofollowIn[n]))
		}
	}
}

// redirects reports linked redirect chains and loops. A chain is followed
// through the redirect edges of the crawl, so it may span several crawled
// URLs (one hop each, when the crawl does not follow redirects itself) or
// sit in one summary's Redirects.
func (r *siteRun) redirects() {
	next := map[int32]int32{}
	for i := range r.pages {
		for e := range r.edgesOf(i) {
			if e.redirect() {
				if _, ok := next[int32(e.from)]; !ok {
					next[int32(e.from)] = e.target()
				}
			}
		}
	}
	for i := range r.pages {
		p := &r.pages[i]
		n := r.nodeOf[i]
		if _, redirects := next[n]; !redirects && p.Status/100 != 3 {
			continue
		}
		if r.inlinks[n] == 0 && p.depth() != 0 && p.URL != r.b.start {
			continue
		}
		chain, hops, loop := r.chainOf(p, n, next)
		var srcs []string
		if s := r.sourcesOf(n); s != nil {
			srcs = s.all
		}
		ev := seo.Measure("redirects", float64(hops), 1)
		ev.Value = strings.Join(chain, " -> ")
		switch {
		case loop:
			r.add("site.redirect_loop", p.URL, "internal links lead into a redirect loop", ev, srcs, int(r.inlinks[n]))
		case hops > 1:
			r.add("site.redirect_chain", p.URL, fmt.Sprintf("internal links lead into a chain of %d redirects", hops),
				ev, srcs, int(r.inlinks[n]))
		}
	}
}

// chainOf follows the redirect edges from node n and returns the URLs of the
// chain, its number of hops, and whether it loops: it comes back to a URL
// already in the chain, exceeds the redirect cap, or the fetch failed with
// seo.ErrRedirectLoop or seo.ErrTooManyRedirects.
func (r *siteRun) chainOf(p *PageSummary, n int32, next map[int32]int32) ([]string, int, bool) {
	chain := []string{r.b.urls[n]}
	visited := map[int32]bool{n: true}
	hops, loop := 0, false
	for cur := n; ; {
		t, ok := next[cur]
		if !ok {
			break
		}
		hops++
		chain = append(chain, r.b.urls[t])
		if visited[t] || hops > seo.DefaultMaxRedirects {
			loop = true
			break
		}
		visited[t] = true
		cur = t
	}
	if strings.Contains(p.Error, seo.ErrRedirectLoop.Error()) || strings.Contains(p.Error, seo.ErrTooManyRedirects.Error()) {
		loop = true
	}
	return chain, hops, loop
}

func (r *siteRun) canonicalChains() {
	for i := range r.pages {
		p := &r.pages[i]
		if !p.IsHTML || p.Status != 200 || !canonicalisedElsewhere(p) {
			continue
		}
		j := r.pageFor(p.Canonical)
		if j < 0 || j == i {
			continue
		}
		q := &r.pages[j]
		if !canonicalisedElsewhere(q) || q.Canonical == p.Canonical {
			continue
		}
		r.add("canonical.chain", effURL(p), "the canonical target names yet another URL as its canonical",
			seo.Evidence{Element: `<link rel="canonical">`, Value: p.Canonical, Detail: p.Canonical + " -> " + q.Canonical},
			[]string{p.Canonical, q.Canonical}, 2)
	}
}

// hreflang checks return links and cluster consistency across crawled pages.
func (r *siteRun) hreflang() {
	selfURLs := func(p *PageSummary) []string {
		out := []string{p.URL}
		if p.FinalURL != "" {
			out = append(out, p.FinalURL)
		}
		if p.Canonical != "" {
			out = append(out, p.Canonical)
		}
		return out
	}
	lists := func(q *PageSummary, urls []string) bool {
		for _, a := range q.Hreflang {
			if slices.Contains(urls, a.URL) {
				return true
			}
		}
		return false
	}
	usable := func(j int) bool {
		return j >= 0 && r.pages[j].Status == 200 && r.pages[j].IsHTML && len(r.pages[j].Redirects) == 0
	}
	parent := map[int]int{}
	var find func(x int) int
	find = func(x int) int {
		p, ok := parent[x]
		if !ok || p == x {
			parent[x] = x
			return x
		}
		root := find(p)
		parent[x] = root
		return root
	}
	for i := range r.pages {
		p := &r.pages[i]
		if len(p.Hreflang) == 0 || !usable(i) {
			continue
		}
		find(i)
		self := selfURLs(p)
		var missing []string
		for _, a := range p.Hreflang {
			if slices.Contains(self, a.URL) {
				continue
			}
			j := r.pageFor(a.URL)
			if !usable(j) || j == i {
				continue
			}
			if ri, rj := find(i), find(j); ri != rj {
				parent[ri] = rj
			}
			if !lists(&r.pages[j], self) && !slices.Contains(missing, a.URL) {
				missing = append(missing, a.URL)
			}
		}
		if len(missing) > 0 {
			r.add("hreflang.return_missing", effURL(p),
				fmt.Sprintf("%d alternates do not list this page back", len(missing)),
				seo.Evidence{Element: `<link rel="alternate" hreflang>`, Value: missing[0]}, missing, len(missing))
		}
	}
	clusters := map[int][]int{}
	var roots []int
	for i := range r.pages {
		if _, ok := parent[i]; !ok {
			continue
		}
		root := find(i)
		if _, ok := clusters[root]; !ok {
			roots = append(roots, root)
		}
		clusters[root] = append(clusters[root], i)
	}
	sort.Ints(roots)
	for _, root := range roots {
		members := clusters[root]
		if len(members) < 2 {
			continue
		}
		sigs := map[string]bool{}
		var urls []string
		for _, m := range members {
			p := &r.pages[m]
			urls = append(urls, effURL(p))
			pairs := make([]string, 0, len(p.Hreflang))
			for _, a := range p.Hreflang {
				pairs = append(pairs, strings.ToLower(a.Code)+" "+a.URL)
			}
			sort.Strings(pairs)
			pairs = slices.Compact(pairs)
			sigs[strings.Join(pairs, "\n")] = true
		}
		if len(sigs) < 2 {
			continue
		}
		sort.Strings(urls)
		r.add("hreflang.cluster_inconsistent", urls[0],
			fmt.Sprintf("%d pages of one hreflang cluster list %d different sets of alternates", len(members), len(sigs)),
			seo.Evidence{Element: `<link rel="alternate" hreflang>`}, urls, len(urls))
	}
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
	// sortFindings), where a repeated URL follows itself; only an ID whose
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
