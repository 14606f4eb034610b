package robotstxt

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/seokit/seokit/seo"
)

// MaxSize is the number of bytes of a robots.txt file that are parsed:
// 500 KiB, the limit Google applies. Rules past it are ignored.
const MaxSize = 500 << 10

// maxLineLen is the longest line kept, in bytes; longer lines are cut, as
// Google's parser cuts them (its buffer is 2083*8 bytes with a terminator).
const maxLineLen = 2083*8 - 1

// maxIssues bounds the issues kept; InvalidLines still counts them all.
const maxIssues = 1000

// Reasons an [Issue] gives for a line.
const (
	// ReasonUnknownDirective: the field name is not one robots.txt defines
	// (or the line has no "field: value" shape at all).
	ReasonUnknownDirective = "unknown directive"
	// ReasonOutsideGroup: an allow, disallow or crawl-delay line comes before
	// any user-agent line, so it belongs to no group and is ignored.
	ReasonOutsideGroup = "rule before any user-agent"
	// ReasonPathStart: a rule path does not start with "/" or "*", so it
	// matches nothing.
	ReasonPathStart = "path does not start with / or *"
	// ReasonDollarNotAtEnd: "$" appears inside a rule path, where it is a
	// literal character rather than an end anchor.
	ReasonDollarNotAtEnd = "$ not at the end of the path"
	// ReasonBadCrawlDelay: a crawl-delay value is not a non-negative number.
	ReasonBadCrawlDelay = "crawl-delay is not a number"
)

// Issue is one line of a robots.txt file that crawlers ignore or read
// differently from what its author probably meant.
type Issue struct {
	// Line is the 1-based line number.
	Line int `json:"line"`
	// Text is the line as written, clipped.
	Text string `json:"text"`
	// Reason is one of the Reason constants.
	Reason string `json:"reason"`
}

type mode uint8

const (
	modeRules mode = iota
	modeAllowAll
	modeDisallowAll
)

// rule is one allow or disallow line, its pattern percent-normalised and
// pre-split at "*".
type rule struct {
	allow    bool
	length   int      // bytes of the normalised pattern, "*" and "$" included
	segs     []string // literal pieces between "*"
	anchored bool     // pattern ended with "$"
	line     int      // line number in the file (see [Robots.Decide])
	text     string   // the line as written, clipped
}

// group is the rules of one or more user-agent lines.
type group struct {
	agents   []string
	rules    []rule
	delay    time.Duration
	hasDelay bool
}

// merged is everything robots.txt says to one agent name, across groups.
type merged struct {
	rules    []rule
	delay    time.Duration
	hasDelay bool
}

// Robots is a parsed robots.txt file, or the verdict that stands for one when
// the file could not be had (see [FromStatus] and [Unreachable]). A Robots is
// read-only after construction and safe for concurrent use.
type Robots struct {
	mode      mode
	agents    map[string]*merged // lowercased product token -> rules
	sitemaps  []string
	issues    []Issue
	invalid   int
	size      int
	sum       string // hex SHA-256 of the body, "" without one
	truncated bool
	status    int
	err       error
}

// Parse parses a robots.txt body following RFC 9309 and Google's parser. It
// reads at most [MaxSize] bytes (a line cut by the limit is dropped too) and
// never fails: lines it cannot use are reported by [Robots.Issues].
func Parse(body []byte) *Robots {
	sum := sha256.Sum256(body)
	r := &Robots{agents: map[string]*merged{}, size: len(body), sum: hex.EncodeToString(sum[:])}
	data := body
	if len(data) > MaxSize {
		r.truncated = true
		data = data[:MaxSize]
		if i := lastEOL(data); i >= 0 {
			data = data[:i+1]
		} else {
			data = nil
		}
	}
	r.parse(data)
	return r
}

// FromStatus builds the Robots for a fetch of /robots.txt that answered
// status with body, as RFC 9309 section 2.3.1 says: 2xx is parsed; 3xx (a
// redirect that could not be followed) and 4xx, 401 and 403 included, mean
// no robots.txt, so everything is allowed; 5xx and 429 (which Google treats
// as a server error) mean everything is disallowed, as does any other status.
func FromStatus(status int, body []byte) *Robots {
	var r *Robots
	switch {
	case status >= 200 && status <= 299:
		r = Parse(body)
	case status == 429:
		r = &Robots{mode: modeDisallowAll, size: len(body)}
	case status >= 300 && status <= 499:
		r = &Robots{mode: modeAllowAll, size: len(body)}
	default:
		r = &Robots{mode: modeDisallowAll, size: len(body)}
	}
	r.status = status
	return r
}

// Unreachable is the Robots for a robots.txt that could not be fetched
// (network error, timeout): everything is disallowed.
func Unreachable() *Robots { return &Robots{mode: modeDisallowAll} }

// unreachableErr is Unreachable carrying the fetch error.
func unreachableErr(err error) *Robots {
	r := Unreachable()
	r.err = err
	return r
}

// Refused reports that robots.txt could not be fetched because the address
// policy refuses its host (seo.ErrForbiddenAddress): such a host's URLs are
// refused by that policy, not by robots.txt, and callers say so.
func (r *Robots) Refused() bool { return errors.Is(r.err, seo.ErrForbiddenAddress) }

// Err returns the fetch error behind an unreachable Robots built by a
// [Cache], or nil.
func (r *Robots) Err() error { return r.err }

// Sitemaps returns the URLs of the Sitemap lines, in file order, as written.
func (r *Robots) Sitemaps() []string { return r.sitemaps }

// Issues returns the lines crawlers ignore or misread, at most 1000 of them;
// [Robots.InvalidLines] counts them all.
func (r *Robots) Issues() []Issue { return r.issues }

// InvalidLines counts the lines with an issue.
func (r *Robots) InvalidLines() int { return r.invalid }

// Truncated reports whether the body exceeded [MaxSize], so rules past it
// were ignored.
func (r *Robots) Truncated() bool { return r.truncated }

// SHA256 returns the hex SHA-256 of the body given (the whole body, also
// when it was cut at MaxSize), so that two fetches can be compared; "" when there was no body
// to parse (see FromStatus and Unreachable).
func (r *Robots) SHA256() string { return r.sum }

// Size returns the length in bytes of the body given (which a fetch capped at
// MaxSize+1 bytes keeps small).
func (r *Robots) Size() int { return r.size }

// Status returns the HTTP status given to [FromStatus]; 0 for [Parse] and
// [Unreachable].
func (r *Robots) Status() int { return r.status }

// AllowsAll reports whether the file was unavailable (3xx, 4xx), so every
// URL is allowed whatever the agent.
func (r *Robots) AllowsAll() bool { return r.mode == modeAllowAll }

// Unavailable reports whether the file was unreachable (5xx, 429, network
// error), so every URL is disallowed whatever the agent.
func (r *Robots) Unavailable() bool { return r.mode == modeDisallowAll }

// Allowed reports whether userAgent may crawl pathAndQuery ("/a/b?c=d"; an
// absolute URL is accepted too and reduced to its path and query). userAgent
// is a product token ("seokit") or a full user-agent string from which the
// token is taken (see [Token]). The group whose name matches the token most
// specifically is used, else the "*" group, else everything is allowed. The
// longest matching rule wins and Allow wins a tie; /robots.txt is always
// allowed.
func (r *Robots) Allowed(userAgent, pathAndQuery string) bool {
	path := normalize(requestPath(pathAndQuery))
	if path == "/robots.txt" {
		return true
	}
	switch r.mode {
	case modeAllowAll:
		return true
	case modeDisallowAll:
		return false
	}
	m := r.lookup(userAgent)
	if m == nil {
		return true
	}
	return m.allowed(path)
}

// CrawlDelay returns the Crawl-delay of the group that applies to userAgent.
// Crawl-delay is not part of RFC 9309 (Google ignores it; Bing and Yandex
// honour it); callers should cap it.
func (r *Robots) CrawlDelay(userAgent string) (time.Duration, bool) {
	if m := r.lookup(userAgent); m != nil && m.hasDelay {
		return m.delay, true
	}
	return 0, false
}

// DisallowsAll reports whether the group that applies to userAgent shuts it
// out of the whole site: "/" is disallowed and no Allow rule reopens any
// path. It is also true when the file was unreachable.
func (r *Robots) DisallowsAll(userAgent string) bool {
	switch r.mode {
	case modeAllowAll:
		return false
	case modeDisallowAll:
		return true
	}
	m := r.lookup(userAgent)
	if m == nil || m.allowed("/") {
		return false
	}
	for _, ru := range m.rules {
		if ru.allow {
			return false
		}
	}
	return true
}

// Groups returns the lowercased user-agent names that have a group, "*"
// included, in no particular order.
func (r *Robots) Groups() []string {
	out := make([]string, 0, len(r.agents))
	for name := range r.agents {
		out = append(out, name)
	}
	return out
}

// lookup finds the rules for an agent: the longest group name equal to the
// token or to a prefix of it ending before a "-" ("googlebot" for
// "googlebot-news"), else "*".
func (r *Robots) lookup(userAgent string) *merged {
	_, m := r.lookupName(userAgent)
	return m
}

func (m *merged) allowed(path string) bool {
	ru := m.decisive(path)
	return ru == nil || ru.allow
}

// match reports whether path matches the rule: "*" matches any run of bytes,
// and a final "$" anchors the end; otherwise the rule is a prefix.
func (ru *rule) match(path string) bool {
	segs := ru.segs
	first := segs[0]
	if len(segs) == 1 {
		if ru.anchored {
			return path == first
		}
		return strings.HasPrefix(path, first)
	}
	if !strings.HasPrefix(path, first) {
		return false
	}
	pos := len(first)
	last := len(segs) - 1
	for i := 1; i < last; i++ {
		s := segs[i]
		if s == "" {
			continue
		}
		j := strings.Index(path[pos:], s)
		if j < 0 {
			return false
		}
		pos += j + len(s)
	}
	tail := segs[last]
	if ru.anchored {
		return len(path)-pos >= len(tail) && strings.HasSuffix(path, tail)
	}
	return tail == "" || strings.Contains(path[pos:], tail)
}

func newRule(allow bool, pattern string) rule {
	ru := rule{allow: allow, length: len(pattern)}
	if strings.HasSuffix(pattern, "$") {
		ru.anchored = true
		pattern = pattern[:len(pattern)-1]
	}
	ru.segs = strings.Split(pattern, "*")
	return ru
}

// parser state.
type parser struct {
	r        *Robots
	cur      *group
	groups   []*group
	sawRule  bool // an allow/disallow line ended the current agent list
	lineNum  int
	lineText string
}

func (r *Robots) parse(data []byte) {
	p := &parser{r: r}
	data = skipBOM(data)
	for len(data) > 0 {
		line, rest := nextLine(data)
		data = rest
		p.lineNum++
		if len(line) > maxLineLen {
			line = line[:maxLineLen]
		}
		p.line(string(line))
	}
	for _, g := range p.groups {
		for _, a := range g.agents {
			m := r.agents[a]
			if m == nil {
				m = &merged{}
				r.agents[a] = m
			}
			m.rules = append(m.rules, g.rules...)
			if g.hasDelay && (!m.hasDelay || g.delay > m.delay) {
				m.delay, m.hasDelay = g.delay, true
			}
		}
	}
}

func (p *parser) issue(reason string) {
	p.r.invalid++
	if len(p.r.issues) < maxIssues {
		p.r.issues = append(p.r.issues, Issue{Line: p.lineNum, Text: clip(p.lineText), Reason: reason})
	}
}

func (p *parser) line(raw string) {
	p.lineText = trimASCII(raw)
	line := raw
	if i := strings.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	line = trimASCII(line)
	if line == "" {
		return
	}
	key, value, ok := splitLine(line)
	if !ok {
		p.issue(ReasonUnknownDirective)
		return
	}
	switch kind := classify(key); kind {
	case kindUserAgent:
		if p.cur == nil || p.sawRule {
			p.cur = &group{}
			p.groups = append(p.groups, p.cur)
			p.sawRule = false
		}
		if name := agentName(value); name != "" {
			p.cur.agents = append(p.cur.agents, name)
		}
	case kindAllow, kindDisallow:
		if p.cur == nil {
			p.issue(ReasonOutsideGroup)
			return
		}
		p.sawRule = true
		if value == "" {
			return // an empty rule allows everything, which is the default
		}
		if value[0] != '/' && value[0] != '*' {
			p.issue(ReasonPathStart)
		} else if i := strings.IndexByte(value, '$'); i >= 0 && i != len(value)-1 {
			p.issue(ReasonDollarNotAtEnd)
		}
		pat := normalize(value)
		p.cur.rules = append(p.cur.rules, p.at(newRule(kind == kindAllow, pat)))
		if kind == kindAllow {
			// Google: an allowed ".../index.htm[l]" allows its directory too.
			if i := strings.LastIndexByte(pat, '/'); i >= 0 && strings.HasPrefix(pat[i:], "/index.htm") {
				p.cur.rules = append(p.cur.rules, p.at(newRule(true, pat[:i+1]+"$")))
			}
		}
	case kindCrawlDelay:
		if p.cur == nil {
			p.issue(ReasonOutsideGroup)
			return
		}
		f, err := strconv.ParseFloat(value, 64)
		if err != nil || f < 0 || math.IsNaN(f) {
			p.issue(ReasonBadCrawlDelay)
			return
		}
		if f > 365*24*3600 {
			f = 365 * 24 * 3600
		}
		p.cur.delay = time.Duration(f * float64(time.Second))
		p.cur.hasDelay = true
	case kindSitemap:
		if value != "" {
			p.r.sitemaps = append(p.r.sitemaps, value)
		}
	case kindOther:
		// Known to some crawlers (host, clean-param ...); not used here.
	default:
		p.issue(ReasonUnknownDirective)
	}
}

// asciiSpace is the whitespace Google's parser trims around lines, keys and
// values (absl's ascii_isspace): ASCII only. A U+00A0 NO-BREAK SPACE or any
// other Unicode space stays part of the value, so "Disallow:\u00a0/private"
// is a rule that does not start with "/" and matches nothing, for Google as
// for seokit.
const asciiSpace = " \t\n\v\f\r"

// trimASCII trims ASCII whitespace only, as Google's parser does.
func trimASCII(s string) string { return strings.Trim(s, asciiSpace) }

// splitLine splits "key: value". Like Google it accepts whitespace for a
// missing colon when the line has exactly two words ("disallow /x").
func splitLine(line string) (key, value string, ok bool) {
	if i := strings.IndexByte(line, ':'); i >= 0 {
		return trimASCII(line[:i]), trimASCII(line[i+1:]), true
	}
	i := strings.IndexAny(line, " \t")
	if i < 0 {
		return "", "", false
	}
	value = trimASCII(line[i:])
	if strings.ContainsAny(value, " \t") {
		return "", "", false
	}
	return line[:i], value, true
}

type kind uint8

const (
	kindUnknown kind = iota
	kindUserAgent
	kindAllow
	kindDisallow
	kindSitemap
	kindCrawlDelay
	kindOther
)

// classify names a field the way Google's parser does: by case-insensitive
// prefix, accepting the misspellings Google accepts.
func classify(key string) kind {
	k := strings.ToLower(key)
	has := func(prefixes ...string) bool {
		for _, p := range prefixes {
			if strings.HasPrefix(k, p) {
				return true
			}
		}
		return false
	}
	switch {
	case has("user-agent", "useragent", "user agent"):
		return kindUserAgent
	case has("allow"):
		return kindAllow
	case has("disallow", "dissallow", "dissalow", "disalow", "diasllow", "disallaw"):
		return kindDisallow
	case has("sitemap", "site-map"):
		return kindSitemap
	case k == "crawl-delay" || k == "crawldelay" || k == "crawl delay":
		return kindCrawlDelay
	}
	switch k {
	case "host", "clean-param", "noindex", "request-rate", "visit-time", "content-signal", "content-usage":
		return kindOther
	}
	return kindUnknown
}

// agentName turns a user-agent value into the lowercased name it stands for:
// "*" (alone or followed by a space), else its leading product token
// ("Googlebot/2.1" and "Foo Bar" name "googlebot" and "foo").
func agentName(v string) string {
	if v == "*" || strings.HasPrefix(v, "* ") || strings.HasPrefix(v, "*\t") {
		return "*"
	}
	return strings.ToLower(leadingToken(v))
}

func leadingToken(v string) string {
	i := 0
	for i < len(v) && isTokenByte(v[i]) {
		i++
	}
	return v[:i]
}

func isTokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

// Token returns the robots.txt product token of a user agent. A bare token
// ("seokit") is returned as is; "seokit/1.0" gives "seokit"; a browser-style
// string "Mozilla/5.0 (compatible; Googlebot/2.1; +http://...)" gives the
// token after "compatible;". Anything else is returned unchanged and then
// matches only the "*" group.
func Token(userAgent string) string {
	ua := strings.TrimSpace(userAgent)
	if ua == "" {
		return ""
	}
	if i := strings.Index(strings.ToLower(ua), "compatible;"); i >= 0 {
		if t := leadingToken(strings.TrimSpace(ua[i+len("compatible;"):])); t != "" {
			return t
		}
	}
	t := leadingToken(ua)
	if t == ua || (t != "" && ua[len(t)] == '/') {
		return t
	}
	return ua
}

// requestPath reduces an absolute URL to its path and query and drops a
// fragment; an empty path is "/".
func requestPath(s string) string {
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s = s[:i]
	}
	if s != "" && s[0] != '/' {
		if i := strings.Index(s, "://"); i > 0 && isScheme(s[:i]) {
			rest := s[i+3:]
			j := strings.IndexAny(rest, "/?")
			if j < 0 {
				return "/"
			}
			s = rest[j:]
		}
	}
	if s == "" || s[0] == '?' {
		return "/" + s
	}
	return s
}

func isScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return s != ""
}

// normalize puts a path (or rule pattern) into the one spelling both sides
// are compared in (RFC 9309 section 2.2.2): bytes outside ASCII are
// percent-encoded, escapes of unreserved characters are decoded ("%7E" is
// "~"), and other escapes use uppercase hex.
func normalize(s string) string {
	i := 0
	for i < len(s) && s[i] != '%' && s[i] < 0x80 {
		i++
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			if isUnreserved(v) {
				b.WriteByte(v)
			} else {
				b.WriteByte('%')
				b.WriteByte(upper(s[i+1]))
				b.WriteByte(upper(s[i+2]))
			}
			i += 2
		case c >= 0x80:
			const hex = "0123456789ABCDEF"
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

func upper(c byte) byte {
	if c >= 'a' && c <= 'f' {
		return c - 'a' + 'A'
	}
	return c
}

func isUnreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

// skipBOM drops a UTF-8 byte order mark, or the first bytes of one.
func skipBOM(b []byte) []byte {
	const bom = "\xEF\xBB\xBF"
	i := 0
	for i < len(bom) && i < len(b) && b[i] == bom[i] {
		i++
	}
	return b[i:]
}

// nextLine splits off one line ended by LF, CR or CRLF.
func nextLine(b []byte) (line, rest []byte) {
	for i, c := range b {
		switch c {
		case '\n':
			return b[:i], b[i+1:]
		case '\r':
			if i+1 < len(b) && b[i+1] == '\n' {
				return b[:i], b[i+2:]
			}
			return b[:i], b[i+1:]
		}
	}
	return b, nil
}

func lastEOL(b []byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '\n' || b[i] == '\r' {
			return i
		}
	}
	return -1
}

func clip(s string) string {
	const max = 200
	if len(s) <= max {
		return s
	}
	i := max
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i] + "…"
}
