package crawler

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/seo"
)

func init() {
	registerSite(
		siteCheck{
			Area: "duplicates",
			IDs: []seo.CheckInfo{
				{ID: "site.duplicate_title", Severity: seo.Warning, Scope: seo.ScopeSite, Summary: "Several indexable pages have the same title.",
					Source: "Google Search Central, Title links (https://developers.google.com/search/docs/appearance/title-link); Screaming Frog SEO Spider, SEOnaut"},
				{ID: "site.duplicate_description", Severity: seo.Notice, Scope: seo.ScopeSite, Summary: "Several indexable pages have the same meta description.",
					Source: "Google Search Central, Meta descriptions and snippets (https://developers.google.com/search/docs/appearance/snippet); Screaming Frog SEO Spider, SEOnaut"},
				{ID: "site.duplicate_h1", Severity: seo.Notice, Scope: seo.ScopeSite, Summary: "Several indexable pages have the same first H1.",
					Source: "Screaming Frog SEO Spider (duplicate H1)"},
				{ID: "site.duplicate_content", Severity: seo.Warning, Scope: seo.ScopeSite, Summary: "Several indexable pages have identical main text.",
					Source: "Google Search Central, Consolidate duplicate URLs (https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls); Screaming Frog SEO Spider, SEOnaut, PSA"},
			},
			Run: (*siteRun).duplicates,
		},
		siteCheck{
			Area: "duplicates",
			IDs: []seo.CheckInfo{
				{ID: "site.near_duplicate", Severity: seo.Notice, Scope: seo.ScopeSite, Summary: "Indexable pages whose main-text simhashes differ in at most 3 bits.",
					Source:  "Google Search Central, Consolidate duplicate URLs (https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls); Screaming Frog SEO Spider (near duplicates)",
					Differs: "Screaming Frog compares text at 90% similarity; seokit compares main-text simhashes within 3 bits, which scales to large crawls."},
			},
			Run: (*siteRun).nearDuplicates,
		},
		siteCheck{
			Area: "duplicates",
			IDs: []seo.CheckInfo{
				{ID: "site.trailing_slash_duplicate", Severity: seo.Warning, Scope: seo.ScopeSite, Summary: "A URL answers 200 with and without a trailing slash, neither canonicalised to the other.",
					Source: "seokit's own rule, after Google Search Central, Consolidate duplicate URLs (https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls)"},
			},
			Run: (*siteRun).trailingSlash,
		},
	)
}

// dupCandidates returns the pages the duplicate checks compare: indexable
// 200 HTML pages, one per content URL.
func (r *siteRun) dupCandidates() []int {
	cand := func(p *PageSummary) bool { return p.Indexable && p.Status == 200 && p.IsHTML }
	// Requested URLs are distinct, so a page without a final URL can only
	// repeat a content URL that is another candidate's final URL: only
	// those URLs and the final URLs go through the set.
	var finals map[string]bool
	for _, p := range r.pages() {
		if p.FinalURL != "" && cand(p) {
			if finals == nil {
				finals = map[string]bool{}
			}
			finals[p.FinalURL] = true
		}
	}
	seen := map[string]bool{}
	var out []int
	for i, p := range r.pages() {
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
	var buf pageBuf
	c0 := canonicalOf(r.page(members[0], &buf))
	urls := make([]string, len(members))
	for k, m := range members {
		p := r.page(m, &buf)
		urls[k] = effURL(p)
		if canonicalOf(p) != c0 {
			one = false
		}
	}
	if one {
		return
	}
	sort.Strings(urls)
	r.add(id, urls[0], msg, ev, urls, len(urls))
	if r.clusters == nil {
		r.clusters = map[clusterKey]cluster{}
	}
	r.clusters[clusterKey{id, urls[0]}] = cluster{total: len(urls), members: r.findings[len(r.findings)-1].Evidence.URLs}
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

// DuplicatesFingerprintVersion is the reason in
// SiteReport.DuplicatesUncheckedReasons for pages whose main-text
// fingerprint is of another version than analyzer.FingerprintVersion.
const DuplicatesFingerprintVersion = "fingerprint_version"

// fpComparable reports whether the main-text fingerprint of page i can be
// compared with the others: of the current version (a crawl resumed across
// an upgrade holds pages fingerprinted by the older algorithm, whose
// hashes mean nothing to the current one). The first call counts the
// candidates with text that are not, for SiteReport.DuplicatesUnchecked.
func (r *siteRun) fpComparable(cands []int, i int) bool {
	if !r.fpOtherCounted {
		r.fpOtherCounted = true
		for _, c := range cands {
			if p := r.rec(c); p.hash() != 0 && p.fingerprintVersion() != analyzer.FingerprintVersion {
				r.fpOther++
			}
		}
	}
	return r.rec(i).fingerprintVersion() == analyzer.FingerprintVersion
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
	var buf pageBuf
	for _, f := range fields {
		hashGroups(len(cands), func(k int) uint64 { return normHash(f.get(r.page(cands[k], &buf))) }, func(_ uint64, g []int) {
			byText := map[string][]int{}
			var texts []string
			for _, k := range g {
				i := cands[k]
				t := normText(f.get(r.page(i, &buf)))
				if _, ok := byText[t]; !ok {
					texts = append(texts, t)
				}
				byText[t] = append(byText[t], i)
			}
			for _, t := range texts {
				if sub := byText[t]; len(sub) >= 2 {
					r.reportGroup(f.id, sub, fmt.Sprintf("%d pages share the same %s", len(sub), f.what),
						seo.Evidence{Element: f.what, Value: f.get(r.page(sub[0], &buf))})
				}
			}
		})
	}
	var members []int
	hashGroups(len(cands), func(k int) uint64 {
		if !r.fpComparable(cands, cands[k]) {
			return 0
		}
		return r.rec(cands[k]).hash()
	}, func(h uint64, g []int) {
		members = members[:0]
		for _, k := range g {
			members = append(members, cands[k])
		}
		r.reportGroup("site.duplicate_content", members, fmt.Sprintf("%d pages have identical main text", len(members)),
			seo.Evidence{Element: "main text", Detail: fmt.Sprintf("text hash %016x", h)})
	})
}

// nearDuplicates clusters pages whose simhashes differ in at most
// SiteCheckOptions.NearDuplicateBits (3) bits.
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
			if h := r.rec(i).hash(); h != 0 && r.fpComparable(cands, i) {
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
	sim := func(k int32) uint64 { return r.rec(reps[k]).simhash() }
	compare := func(a, b int32) {
		d := analyzer.HammingDistance(sim(a), sim(b))
		if d > r.b.checks.NearDuplicateBits {
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
		ev := seo.Measure("main text", d, float64(r.b.checks.NearDuplicateBits))
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
	var pbuf, qbuf pageBuf
	ok200 := func(i int) bool {
		if i < 0 {
			return false
		}
		p := r.page(i, &qbuf)
		return p.Status == 200 && len(p.Redirects) == 0 && p.FinalURL == ""
	}
	for i := range r.npages {
		if !ok200(i) {
			continue
		}
		p := r.page(i, &pbuf)
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
		q := r.page(j, &qbuf)
		if canonicalOf(p) == canonicalOf(q) {
			continue
		}
		r.add("site.trailing_slash_duplicate", p.URL,
			"the URL answers 200 both with and without a trailing slash",
			seo.Evidence{Element: "URL", Value: p.URL}, []string{p.URL, q.URL}, 2)
	}
}
