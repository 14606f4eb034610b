package crawler

import (
	"hash/fnv"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
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
	// trapYearsBack and trapYearsAhead bound the years a date-named
	// parameter (year=, date=) may hold around the crawl's year before the
	// calendar that links to it is a trap: archives reach decades back,
	// schedules a few years ahead, and a calendar's "next year" link never
	// stops.
	trapYearsBack  = 60
	trapYearsAhead = 10
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
	mu sync.Mutex
	// year is the crawl's current year, which date-named parameters are
	// judged against.
	year   int
	values map[string]map[uint64]struct{} // param pattern -> value hashes
	// signs records, per integer parameter pattern, whether values >= 0
	// (bit 1) and < 0 (bit 2) were seen: a number that goes negative is a
	// "previous" link counting down without end.
	signs  map[string]uint8
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
		year:   time.Now().Year(),
		signs:  map[string]uint8{},
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

// allows reports whether the normalised URL u, found at depth (-1 for a
// sitemap URL) on page ref, may be queued. A URL that falls in a trap is
// counted against it, once however often it is found, and remembered
// with reason NotFetchedTrap.
func (g *trapGuard) allows(u *url.URL, raw string, depth int, ref string) bool {
	return g.allowsShaped(u, raw, depth, ref, nil)
}

// allowsShaped is allows with u's shape (pathShape) when the caller has
// it, nil when not.
func (g *trapGuard) allowsShaped(u *url.URL, raw string, depth int, ref string, sh *trapShape) bool {
	if sh == nil {
		s := pathShape(u)
		sh = &s
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	pat, reason := g.match(u, depth, sh)
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
		d := depth // a copy: the parameter itself would be moved to the heap on every call
		nf.Depth = &d
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

// trapShape is what the trap rules read of a URL's host and path, which
// depends on nothing else: worked out once per URL (a link target the
// crawl meets again keeps its shape, see linkTarget).
type trapShape struct {
	// repeat and repeatReason: the repeating path pattern, "" for none.
	repeat, repeatReason string
	// digits: the path holds a digit; digitKey is then the host and the
	// escaped path with each run of digits made "{n}".
	digits   bool
	digitKey string
}

// pathShape returns the trapShape of u.
func pathShape(u *url.URL) trapShape {
	var sh trapShape
	sh.repeat, sh.repeatReason = repeatingPath(u)
	if sh.digits = hasDigit(u.Path); sh.digits {
		sh.digitKey = u.Host + digitPattern(u.EscapedPath())
	}
	return sh
}

// match returns the trap pattern u (of shape sh) falls in and its
// reason, "" when none.
func (g *trapGuard) match(u *url.URL, depth int, sh *trapShape) (pattern, reason string) {
	if sh.repeat != "" {
		return sh.repeat, sh.repeatReason
	}
	if u.RawQuery != "" {
		if pat, reason := g.matchQuery(u); pat != "" {
			return pat, reason
		}
	}
	if depth >= 0 && (sh.digits || hasDigit(u.RawQuery)) {
		key := sh.digitKey
		if !sh.digits {
			key = u.Host + digitPattern(u.EscapedPath())
		}
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
		if !ok || depth < s[0] || depth > s[1] {
			// Most links fall within their pattern's span: the map is
			// written only when it widens.
			s[0], s[1] = min(s[0], depth), max(s[1], depth)
			g.spans[key] = s
		}
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
		// Integer values (page numbers) are allowed more of them; a minus
		// sign keeps them in the same pattern, so a count going below zero
		// is seen as the same parameter.
		wild, limit := "=*", trapParamValues
		n, isInt := signedInteger(value)
		if isInt {
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
		if t := g.traps[key]; t != nil {
			return key, t.Reason
		}
		if calendarOutOfRange(name, value, n, isInt, g.year) {
			return key, TrapCalendar
		}
		if isInt {
			bit := uint8(1)
			if n < 0 {
				bit = 2
			}
			if s, ok := g.signs[key]; ok || !g.full() {
				if s|bit == 3 {
					delete(g.signs, key)
					return key, TrapCalendar
				}
				g.signs[key] = s | bit
			}
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
	return len(g.values)+len(g.combos)+len(g.spans)+len(g.signs) >= maxTrapKeys
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

// signedInteger parses s as an integer of one to nine digits with an
// optional minus sign (plain or percent-encoded).
func signedInteger(s string) (int, bool) {
	neg := false
	switch {
	case strings.HasPrefix(s, "-"):
		neg, s = true, s[1:]
	case strings.HasPrefix(s, "%2D"), strings.HasPrefix(s, "%2d"):
		neg, s = true, s[3:]
	}
	if !integer(s) {
		return 0, false
	}
	n, _ := strconv.Atoi(s)
	if neg {
		n = -n
	}
	return n, true
}

// calendarField names the calendar field a parameter name stands for:
// "month", "day", "year", "week", "quarter", "hour" or "date", from its
// last word ("month", "calMonth", "cal_month", "start-date"), or "".
func calendarField(name string) string {
	if u, err := url.QueryUnescape(name); err == nil {
		name = u
	}
	// The last word: after the last non-letter, or the last capital of a
	// camelCase name.
	end := len(name)
	for end > 0 && !unicode.IsLetter(rune(name[end-1])) {
		end--
	}
	start := end
	for start > 0 && unicode.IsLetter(rune(name[start-1])) {
		start--
		if unicode.IsUpper(rune(name[start])) && start > 0 && unicode.IsLower(rune(name[start-1])) {
			break
		}
	}
	switch w := strings.ToLower(name[start:end]); w {
	case "month", "day", "year", "week", "quarter", "hour", "date":
		return w
	}
	return ""
}

// calendarOutOfRange reports whether a date-named parameter holds a value
// no calendar has: a month outside 1-12, a day outside 1-31, a week outside
// 1-53, a quarter outside 1-4, an hour outside 0-23, a year (or the year of
// a date) more than trapYearsBack before or trapYearsAhead after year, or a
// date whose month or day is out of range. Such values come from "next" and
// "previous" links that never stop. Values that are not numbers or dates
// are left to the other rules.
func calendarOutOfRange(name, value string, n int, isInt bool, year int) bool {
	field := calendarField(name)
	if field == "" {
		return false
	}
	if field == "date" {
		y, m, d, ok := parseDateValue(value)
		return ok && (y < year-trapYearsBack || y > year+trapYearsAhead || m < 1 || m > 12 || d > 31 || (d >= 0 && d < 1))
	}
	if !isInt {
		return false
	}
	switch field {
	case "month":
		return n < 1 || n > 12
	case "day":
		return n < 1 || n > 31
	case "week":
		return n < 1 || n > 53
	case "quarter":
		return n < 1 || n > 4
	case "hour":
		return n < 0 || n > 23
	case "year":
		return n < year-trapYearsBack || n > year+trapYearsAhead
	}
	return false
}

// parseDateValue reads a date parameter's value: YYYY-MM-DD, YYYY-MM,
// YYYYMMDD or YYYYMM (day -1 when absent); ok is false for anything else.
func parseDateValue(v string) (y, m, d int, ok bool) {
	digits := strings.ReplaceAll(v, "-", "")
	if len(v) != len(digits) && len(v) != len(digits)+1 && len(v) != len(digits)+2 {
		return 0, 0, 0, false
	}
	if (len(digits) != 6 && len(digits) != 8) || !integer(digits) {
		return 0, 0, 0, false
	}
	if len(v) != len(digits) && (v[4] != '-' || (len(digits) == 8 && v[7] != '-')) {
		return 0, 0, 0, false
	}
	y, _ = strconv.Atoi(digits[:4])
	m, _ = strconv.Atoi(digits[4:6])
	d = -1
	if len(digits) == 8 {
		d, _ = strconv.Atoi(digits[6:8])
	}
	return y, m, d, true
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
