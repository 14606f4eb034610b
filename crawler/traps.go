package crawler

import (
	"hash/fnv"
	"net/url"
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
	// numeric pattern (/calendar/{n}/{n}) may be found before it is a trap:
	// a "next" link chain that never ends.
	trapDepthSpan = 25
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
	TrapSessionID       = "session_id"
	TrapLinkFlood       = "link_flood"
)

// trapGuard recognises URL patterns that keep yielding new URLs. Its rules
// are idempotent: seeing a URL twice changes nothing, so it can run on
// every link before the frontier de-duplicates.
type trapGuard struct {
	mu     sync.Mutex
	values map[string]map[uint64]struct{} // param pattern -> value hashes
	combos map[string]map[uint64]struct{} // path -> query hashes
	spans  map[string][2]int              // numeric pattern -> min, max depth
	traps  map[string]*Trap
}

func newTrapGuard() *trapGuard {
	return &trapGuard{
		values: map[string]map[uint64]struct{}{},
		combos: map[string]map[uint64]struct{}{},
		spans:  map[string][2]int{},
		traps:  map[string]*Trap{},
	}
}

func hash64(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// admit reports whether the normalised URL u, found at depth, may be
// queued. A URL that falls in a trap is counted against it.
func (g *trapGuard) admit(u *url.URL, raw string, depth int) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if pat, reason := repeatingPath(u); pat != "" {
		g.drop(pat, reason, raw)
		return false
	}
	if u.RawQuery != "" {
		if !g.admitQuery(u, raw) {
			return false
		}
	}
	if depth >= 0 && (hasDigit(u.Path) || hasDigit(u.RawQuery)) {
		key := u.Host + digitPattern(u.EscapedPath())
		if u.RawQuery != "" {
			key += "?" + digitPattern(u.RawQuery)
		}
		if t := g.traps[key]; t != nil {
			g.drop(key, TrapCalendar, raw)
			return false
		}
		s, ok := g.spans[key]
		if !ok {
			if g.full() {
				return true
			}
			s = [2]int{depth, depth}
		}
		s[0], s[1] = min(s[0], depth), max(s[1], depth)
		g.spans[key] = s
		if s[1]-s[0] > trapDepthSpan {
			g.drop(key, TrapCalendar, raw)
			return false
		}
	}
	return true
}

func (g *trapGuard) admitQuery(u *url.URL, raw string) bool {
	base := u.Host + u.EscapedPath()
	if t := g.traps[base+"?*"]; t != nil {
		g.drop(base+"?*", TrapFacets, raw)
		return false
	}
	parts := strings.Split(u.RawQuery, "&")
	if len(parts) > maxParamsChecked {
		parts = parts[:maxParamsChecked]
	}
	for i, p := range parts {
		name, value, _ := strings.Cut(p, "=")
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
				sb.WriteString("=*")
			} else {
				sb.WriteString(q)
			}
		}
		key := sb.String()
		if g.traps[key] != nil {
			g.drop(key, TrapParameterValues, raw)
			return false
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
		if len(set) > trapParamValues {
			delete(g.values, key)
			g.drop(key, TrapParameterValues, raw)
			return false
		}
	}
	set := g.combos[base]
	if set == nil {
		if g.full() {
			return true
		}
		set = map[uint64]struct{}{}
		g.combos[base] = set
	}
	set[hash64(u.RawQuery)] = struct{}{}
	if len(set) > trapQueryCombos {
		delete(g.combos, base)
		g.drop(base+"?*", TrapFacets, raw)
		return false
	}
	return true
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
