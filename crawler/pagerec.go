package crawler

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/seokit/seokit/analyzer"
)

// pageRec is a PageSummary as the builder keeps it during a crawl: 112
// bytes and one string of its texts instead of 640 bytes, the difference
// times the pages of a large site. Summaries it cannot hold exactly
// (redirects, errors, hreflang, numbers out of range ...) are kept whole
// in more.
type pageRec struct {
	// texts holds the title, then the description and the H1 where they
	// differ from the title (recDescIsTitle, recH1IsTitle), in one
	// allocation; descAt and h1At are where the last two start.
	texts     string
	canonical string
	more      *PageSummary
	textHash  uint64
	simHash   uint64
	template  uint64 // templateBits of PageSummary.Template

	node, depth, wordCount, bytes, response int32 // depth is -1 for nil
	findings                                int32 // idList index + 1, 0 for none
	counts                                  int32 // cntList index + 1, 0 for none
	descAt, h1At                            uint16
	status                                  uint16
	score                                   int16  // -1 for nil
	errors, warnings, notices               uint16 // PageSummary's counts
	contentType                             uint16 // ctypes index + 1, 0 for ""
	flags                                   uint8
	reason                                  uint8 // scoreReasons index
	fpVersion                               uint8 // PageSummary.FingerprintVersion
}

// Flags of pageRec.
const (
	recHTML = 1 << iota
	recIndexable
	recNoindex
	recNofollow
	recRobotsBlocked
	recDescIsTitle
	recH1IsTitle
)

// fitsInt32 reports whether every value fits an int32.
func fitsInt32(vs ...int64) bool {
	for _, v := range vs {
		if v != int64(int32(v)) {
			return false
		}
	}
	return true
}

// fitsUint16 reports whether every value fits a uint16.
func fitsUint16(vs ...int) bool {
	for _, v := range vs {
		if v != int(uint16(v)) {
			return false
		}
	}
	return true
}

// record returns the compact form of sum, whose Findings come from shareIDs
// and FindingCounts from shareCounts.
func (b *siteBuilder) record(sum *PageSummary) pageRec {
	node := b.intern(sum.URL)
	whole := func() pageRec {
		c := *sum
		return pageRec{node: node, more: &c}
	}
	if sum.FinalURL != "" || sum.Redirects != nil || sum.Hreflang != nil || sum.BlockedResources != nil || sum.Rendered != nil ||
		sum.Error != "" || sum.FingerprintVersion != int(uint8(sum.FingerprintVersion)) || sum.InSitemap || sum.Extracted != nil || sum.Search != nil || sum.Inlinks != 0 || sum.LinkScore != 0 ||
		!fitsInt32(int64(sum.depth()), int64(sum.WordCount), sum.Bytes, sum.ResponseMs) ||
		!fitsUint16(sum.Status, sum.Errors, sum.Warnings, sum.Notices) || sum.score() != int(int16(sum.score())) ||
		reasonCode(sum.ScoreReason) < 0 {
		return whole()
	}
	tpl, ok := templateBits(sum.Template)
	if !ok {
		return whole()
	}
	r := pageRec{
		node: node, canonical: sum.Canonical,
		textHash: sum.TextHash, simHash: sum.SimHash, template: tpl, bytes: int32(sum.Bytes), response: int32(sum.ResponseMs),
		status: uint16(sum.Status), depth: int32(sum.depth()), wordCount: int32(sum.WordCount),
		score: int16(sum.score()), errors: uint16(sum.Errors), warnings: uint16(sum.Warnings), notices: uint16(sum.Notices),
		reason: uint8(reasonCode(sum.ScoreReason)), fpVersion: uint8(sum.FingerprintVersion),
	}
	if sum.ContentType != "" {
		k, ok := b.ctype(sum.ContentType)
		if !ok {
			return whole()
		}
		r.contentType = k + 1
	}
	texts := sum.Title
	r.descAt = uint16(len(texts))
	if sum.Description == sum.Title {
		r.flags |= recDescIsTitle
	} else {
		texts += sum.Description
	}
	r.h1At = uint16(len(texts))
	if sum.H1 == sum.Title {
		r.flags |= recH1IsTitle
	} else {
		texts += sum.H1
	}
	if len(texts) > maxRecTexts {
		return whole()
	}
	r.texts = texts
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

// maxRecTexts is the longest pageRec.texts, so descAt and h1At fit a
// uint16; the crawl clips each text to 300 characters, so only a summary
// from elsewhere (a SummaryStore) may go over.
const maxRecTexts = 1<<16 - 1

// summary expands r into a PageSummary of its own.
func (b *siteBuilder) summary(r *pageRec) PageSummary {
	var buf pageBuf
	s := *b.view(r, &buf)
	if r.more == nil {
		// Point Depth and Score out of buf, which s must not hold.
		s.Depth, s.Score = depthPtr(int(r.depth)), nil
		if r.score >= 0 {
			v := int(r.score)
			s.Score = &v
		}
	}
	return s
}

// hash, simhash and fingerprintVersion read r's main-text fingerprint
// (PageSummary.TextHash, SimHash, fingerprintVersion) without expanding
// r, for the duplicate checks, which compare them many times a page.
func (r *pageRec) hash() uint64 {
	if r.more != nil {
		return r.more.TextHash
	}
	return r.textHash
}

func (r *pageRec) simhash() uint64 {
	if r.more != nil {
		return r.more.SimHash
	}
	return r.simHash
}

func (r *pageRec) fingerprintVersion() int {
	if r.more != nil {
		return r.more.fingerprintVersion()
	}
	if r.fpVersion == 0 {
		return analyzer.FingerprintVersion
	}
	return int(r.fpVersion)
}

// pageBuf holds a page expanded from its record by view, with the ints
// its Depth and Score point to, so that expanding allocates nothing.
type pageBuf struct {
	PageSummary
	depth, score int
}

// view returns r as a PageSummary, expanded into buf (or the summary r
// keeps whole): read-only, and valid until buf is reused. The site checks
// read the pages this way, one at a time, so the build never holds every
// page expanded (640 bytes each) beside the records (184).
func (b *siteBuilder) view(r *pageRec, buf *pageBuf) *PageSummary {
	if r.more != nil {
		return r.more
	}
	title := r.texts[:r.descAt]
	desc, h1 := title, title
	if r.flags&recDescIsTitle == 0 {
		desc = r.texts[r.descAt:r.h1At]
	}
	if r.flags&recH1IsTitle == 0 {
		h1 = r.texts[r.h1At:]
	}
	buf.PageSummary = PageSummary{
		URL: b.urls[r.node], Title: title, Description: desc, H1: h1, Canonical: r.canonical,
		TextHash: r.textHash, SimHash: r.simHash, FingerprintVersion: int(r.fpVersion), Template: b.template(r.template), Bytes: int64(r.bytes), ResponseMs: int64(r.response),
		Status: int(r.status), WordCount: int(r.wordCount),
		Errors: int(r.errors), Warnings: int(r.warnings), Notices: int(r.notices),
		ScoreReason: scoreReasons[r.reason],
		IsHTML:      r.flags&recHTML != 0, Indexable: r.flags&recIndexable != 0, Noindex: r.flags&recNoindex != 0,
		Nofollow: r.flags&recNofollow != 0, RobotsBlocked: r.flags&recRobotsBlocked != 0,
	}
	s := &buf.PageSummary
	if r.contentType > 0 {
		s.ContentType = b.ctypes[r.contentType-1]
	}
	if r.depth >= 0 {
		buf.depth = int(r.depth)
		s.Depth = &buf.depth
	}
	if r.score >= 0 {
		buf.score = int(r.score)
		s.Score = &buf.score
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

// recChunks holds the pageRecs of a crawl in chunks of recChunk: growing
// never copies them and nothing is sized for MaxPages up front.
type recChunks struct {
	chunks [][]pageRec
	n      int
}

// recChunk is the records of one chunk of recChunks (about 700 KB).
const recChunk = 4096

// add appends r.
func (c *recChunks) add(r pageRec) {
	if k := len(c.chunks); k == 0 || len(c.chunks[k-1]) == recChunk {
		c.chunks = append(c.chunks, make([]pageRec, 0, recChunk))
	}
	last := &c.chunks[len(c.chunks)-1]
	*last = append(*last, r)
	c.n++
}

// at returns record i, in the order added.
func (c *recChunks) at(i int) *pageRec { return &c.chunks[i/recChunk][i%recChunk] }

// template returns the string of a template fingerprint packed by
// templateBits, one string per distinct template (at most
// maxSharedStrings of them kept), so the pages of one template share it.
func (b *siteBuilder) template(v uint64) string {
	if v == 0 {
		return ""
	}
	if s, ok := b.tpls[v]; ok {
		return s
	}
	s := templateString(v)
	if b.tpls == nil {
		b.tpls = map[uint64]string{}
	}
	if len(b.tpls) < maxSharedStrings {
		b.tpls[v] = s
	}
	return s
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
		if k, ok := b.ctype(sum.ContentType); ok {
			sum.ContentType = b.ctypes[k]
		}
	}
	if sum.Canonical != "" {
		// Most pages are their own canonical, or name one the crawl knows.
		if id, ok := b.ids[sum.Canonical]; ok {
			sum.Canonical = b.urls[id]
		}
	}
	if sum.H1 == sum.Title {
		sum.H1 = sum.Title
	}
	if sum.Description == sum.Title {
		sum.Description = sum.Title
	}
}

// ctype returns the index of the content type s in b.ctypes, adding it
// while they are fewer than maxSharedStrings; ok is false past that.
func (b *siteBuilder) ctype(s string) (k uint16, ok bool) {
	if k, ok := b.ctypeIdx[s]; ok {
		return k, true
	}
	if len(b.ctypes) >= maxSharedStrings {
		return 0, false
	}
	if b.ctypeIdx == nil {
		b.ctypeIdx = map[string]uint16{}
	}
	k = uint16(len(b.ctypes))
	b.ctypeIdx[s] = k
	b.ctypes = append(b.ctypes, s)
	return k, true
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
