package crawler

import (
	"hash/fnv"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Trap guard thresholds.
const (
	// trapParamValues is the number of distinct values of one query
	// parameter, all else equal, beyond which the pattern is a trap.
	trapParamValues = 200
	// trapQueryCombos is the number of distinct query strings on one path
	// beyond which the path is a trap (endless facet combinations).
	trapQueryCombos = 1000
	// trapPathSegments is the path depth beyond which a repeated segment
	// makes a trap.
	trapPathSegments = 10
	// trapRepeats is how often one segment may appear in a path of any
	// depth before it is a trap (/a/b/a/b/a/b/a).
	trapRepeats = 4
	// trapDepthSpan is the spread of click depths at which URLs of one
	// date pattern (/calendar/{n}/{n} first seen with a year, a year-month
	// or a date) may be found before it is a calendar trap: a "next" link
	// chain through dates that never ends.
	trapDepthSpan = 25
	// trapPageSpan is the same spread for other numeric patterns, such as
	// numbered pagination (/p{n}.html, /page/{n}, ?page={n}): a chain of
	// page numbers is crawled, as Screaming Frog and Sitebulb do, up to
	// this many clicks; MaxPages and MaxQueuedURLs bound it too. It is
	// also the number of distinct integer values of one query parameter
	// (?page={n}) beyond which the parameter is a trap.
	trapPageSpan = 5000
	// maxTrapURLs bounds the dropped URLs a crawl remembers for
	// SiteReport.NotFetched; further ones are only counted.
	maxTrapURLs = 10_000
	// trapExamples is how many example URLs a trap keeps.
	trapExamples = 3
	// maxParamsChecked bounds the per-URL work of the parameter rule.
	maxParamsChecked = 8
	// maxTrapKeys bounds the patterns the rules track (values, combos and
	// spans together); URLs of further patterns are admitted untracked.
	maxTrapKeys = 20_000
	// maxTraps bounds the traps reported; further patterns count against
	// otherTraps.
	maxTraps = 500
	// otherTraps is the pattern that counts the traps past maxTraps.
	otherTraps = "(other patterns)"
)

// Trap reasons.
const (
	TrapParameterValues = "parameter_values"
	TrapFacets          = "parameter_combinations"
	TrapRepeatingPath   = "repeating_path"
	TrapCalendar        = "calendar"
	// TrapPageSequence is a numeric sequence (numbered pagination) longer
	// than trapPageSpan clicks.
	TrapPageSequence = "page_sequence"
	TrapSessionID    = "session_id"
	TrapLinkFlood    = "link_flood"
)

// trapGuard recognises URL patterns that keep yielding new URLs. Its rules
// are idempotent: seeing a URL twice changes nothing, so it can run on
// every link before the frontier de-duplicates.
type trapGuard struct {
	mu     sync.Mutex
	values map[string]map[uint64]struct{} // param pattern -> value hashes
	combos map[string]map[uint64]struct{} // path -> query hashes
	spans  map[string][3]int              // numeric pattern -> min, max depth, span limit
	traps  map[string]*Trap
	// seen holds the dropped URLs' hashes, so a URL found twice counts
	// once; urls the first maxTrapURLs of them, more counts the rest.
	seen map[uint64]struct{}
	urls []NotFetchedURL
	more int
}

func newTrapGuard() *trapGuard {
	return &trapGuard{
		values: map[string]map[uint64]struct{}{},
		combos: map[string]map[uint64]struct{}{},
		spans:  map[string][3]int{},
		traps:  map[string]*Trap{},
		seen:   map[uint64]struct{}{},
	}
}

func hash64(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// admit reports whether the normalised URL u, found at depth (-1 for a
// sitemap URL) on page ref, may be queued. A URL that falls in a trap is
// counted against it, once however often it is found, and remembered
// with reason NotFetchedTrap.
func (g *trapGuard) admit(u *url.URL, raw string, depth int, ref string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	pat, reason := g.match(u, depth)
	if pat == "" {
		return true
	}
	h := hash64(raw)
	if _, ok := g.seen[h]; ok {
		return false
	}
	t := g.drop(pat, reason, raw)
	if len(g.urls) >= maxTrapURLs {
		g.more++
		return false
	}
	g.seen[h] = struct{}{}
	nf := NotFetchedURL{URL: raw, Reason: NotFetchedTrap, Error: "trap " + t.Reason + ": " + t.Pattern, FoundOn: ref}
	if depth >= 0 {
		nf.Depth = &depth
	}
	g.urls = append(g.urls, nf)
	return false
}

// dropped returns the URLs the guard dropped, sorted by URL, and the
// number past maxTrapURLs it did not keep.
func (g *trapGuard) dropped() ([]NotFetchedURL, int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := slices.Clone(g.urls)
	slices.SortFunc(out, func(a, b NotFetchedURL) int { return strings.Compare(a.URL, b.URL) })
	return out, g.more
}

// match returns the trap pattern u falls in and its reason, "" when none.
func (g *trapGuard) match(u *url.URL, depth int) (pattern, reason string) {
	if pat, reason := repeatingPath(u); pat != "" {
		return pat, reason
	}
	if u.RawQuery != "" {
		if pat, reason := g.matchQuery(u); pat != "" {
			return pat, reason
		}
	}
	if depth >= 0 && (hasDigit(u.Path) || hasDigit(u.RawQuery)) {
		key := u.Host + digitPattern(u.EscapedPath())
		if u.RawQuery != "" {
			key += "?" + digitPattern(u.RawQuery)
		}
		if t := g.traps[key]; t != nil {
			return key, t.Reason
		}
		s, ok := g.spans[key]
		if !ok {
			if g.full() {
				return "", ""
			}
			s = [3]int{depth, depth, trapPageSpan}
			if dateLike(u.EscapedPath()) || dateLike(u.RawQuery) {
				s[2] = trapDepthSpan
			}
		}
		s[0], s[1] = min(s[0], depth), max(s[1], depth)
		g.spans[key] = s
		if s[1]-s[0] > s[2] {
			if s[2] == trapDepthSpan {
				return key, TrapCalendar
			}
			return key, TrapPageSequence
		}
	}
	return "", ""
}

func (g *trapGuard) matchQuery(u *url.URL) (pattern, reason string) {
	base := u.Host + u.EscapedPath()
	if t := g.traps[base+"?*"]; t != nil {
		return base + "?*", TrapFacets
	}
	parts := strings.Split(u.RawQuery, "&")
	if len(parts) > maxParamsChecked {
		parts = parts[:maxParamsChecked]
	}
	for i, p := range parts {
		name, value, _ := strings.Cut(p, "=")
		// Integer values (page numbers) are allowed more of them.
		wild, limit := "=*", trapParamValues
		if integer(value) {
			wild, limit = "={n}", trapPageSpan
		}
		var sb strings.Builder
		sb.WriteString(base)
		for j, q := range parts {
			if j == 0 {
				sb.WriteByte('?')
			} else {
				sb.WriteByte('&')
			}
			if j == i {
				sb.WriteString(name)
				sb.WriteString(wild)
			} else {
				sb.WriteString(q)
			}
		}
		key := sb.String()
		if g.traps[key] != nil {
			return key, TrapParameterValues
		}
		set := g.values[key]
		if set == nil {
			if g.full() {
				continue
			}
			set = map[uint64]struct{}{}
			g.values[key] = set
		}
		set[hash64(value)] = struct{}{}
		if len(set) > limit {
			delete(g.values, key)
			return key, TrapParameterValues
		}
	}
	set := g.combos[base]
	if set == nil {
		if g.full() {
			return "", ""
		}
		set = map[uint64]struct{}{}
		g.combos[base] = set
	}
	set[hash64(u.RawQuery)] = struct{}{}
	if len(set) > trapQueryCombos {
		delete(g.combos, base)
		return base + "?*", TrapFacets
	}
	return "", ""
}

// full reports whether the rules track maxTrapKeys patterns.
func (g *trapGuard) full() bool {
	return len(g.values)+len(g.combos)+len(g.spans) >= maxTrapKeys
}

// drop counts raw against the trap pattern, creating it if needed, and
// returns the trap it counted against.
func (g *trapGuard) drop(pattern, reason, raw string) *Trap {
	t := g.traps[pattern]
	if t == nil && len(g.traps) >= maxTraps {
		pattern, reason = otherTraps, "various"
		t = g.traps[pattern]
	}
	if t == nil {
		t = &Trap{Pattern: pattern, Reason: reason}
		g.traps[pattern] = t
	}
	t.Dropped++
	if len(t.Example) < trapExamples {
		t.Example = append(t.Example, raw)
	}
	return t
}

// note records an event that is not a dropped URL (session identifiers
// removed, links cut from a page).
func (g *trapGuard) note(pattern, reason, raw string, n int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.drop(pattern, reason, raw).Dropped += n - 1
}

// list returns the traps found, by pattern.
func (g *trapGuard) list() []Trap {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]Trap, 0, len(g.traps))
	for _, t := range g.traps {
		c := *t
		c.Example = append([]string(nil), t.Example...)
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pattern < out[j].Pattern })
	return out
}

// repeatingPath returns a pattern when u's path repeats a segment too often.
func repeatingPath(u *url.URL) (pattern, reason string) {
	p := u.EscapedPath()
	n := strings.Count(p, "/")
	if n < trapRepeats {
		return "", ""
	}
	segs := strings.Split(strings.Trim(p, "/"), "/")
	counts := make(map[string]int, len(segs))
	deep := len(segs) > trapPathSegments
	for i, s := range segs {
		if s == "" {
			continue
		}
		counts[s]++
		if (deep && counts[s] > 1) || counts[s] >= trapRepeats {
			return u.Host + "/" + strings.Join(segs[:i+1], "/") + "/…", TrapRepeatingPath
		}
	}
	return "", ""
}

// integer reports whether s is a run of one to nine digits.
func integer(s string) bool {
	if s == "" || len(s) > 9 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// dateLike reports whether a run of digits in s reads as a year (19xx,
// 20xx) or a date written without separators (yyyymm, yyyymmdd): the
// numbers a calendar grows by.
func dateLike(s string) bool {
	for i := 0; i < len(s); {
		if s[i] < '0' || s[i] > '9' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if n := j - i; (n == 4 || n == 6 || n == 8) && (s[i:i+2] == "19" || s[i:i+2] == "20") {
			return true
		}
		i = j
	}
	return false
}

func hasDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			return true
		}
	}
	return false
}

// digitPattern replaces each run of digits with "{n}".
func digitPattern(s string) string {
	var sb strings.Builder
	sb.Grow(len(s))
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' {
			if !in {
				sb.WriteString("{n}")
				in = true
			}
			continue
		}
		in = false
		sb.WriteByte(c)
	}
	return sb.String()
}
