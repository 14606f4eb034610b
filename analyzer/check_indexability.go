package analyzer

import (
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/seokit/seokit/seo"
)

// Robots directive sources recorded in Report.Robots.Directives.
const (
	robotsSrcMeta   = "meta:robots"
	robotsSrcHeader = "header"
	// robotsGoogle is the crawler name whose directives join the generic
	// ones for the Google verdicts (Indexable, Follow and the checks).
	robotsGoogle = "googlebot"
)

// robotsCrawlerNames are the meta names, besides "robots", that address one
// crawler. Directives of any of them are recorded; only googlebot's take part
// in the verdicts.
var robotsCrawlerNames = map[string]bool{
	"googlebot": true, "googlebot-news": true, "googlebot-image": true, "googlebot-video": true,
	"google-extended": true, "adsbot-google": true, "bingbot": true, "msnbot": true,
	"slurp": true, "yandex": true, "yandexbot": true, "duckduckbot": true, "baiduspider": true,
	"applebot": true, "naverbot": true, "yeti": true, "seznambot": true, "petalbot": true,
}

// robotsPlainTokens are the directives that take no value.
var robotsPlainTokens = map[string]bool{
	"all": true, "index": true, "follow": true, "noindex": true, "nofollow": true, "none": true,
	"noarchive": true, "nocache": true, "nosnippet": true, "noimageindex": true,
	"notranslate": true, "indexifembedded": true, "noodp": true, "noydir": true,
}

// robotsValueTokens are the directives written name:value.
var robotsValueTokens = map[string]bool{
	"max-snippet": true, "max-image-preview": true, "max-video-preview": true, "unavailable_after": true,
}

// noindexDiffers says why a noindex page is a warning, not an error.
const noindexDiffers = "Lighthouse fails is-crawlable on a noindex page; seokit, like Ahrefs (warning) and Sitebulb (hint), reads noindex as a deliberate choice and warns. " +
	"Where other signals contradict it the conflict is an error: a noindex URL a sitemap lists (site.sitemap_noindex) or another page names as canonical (canonical.target_noindex)."

func init() {
	register(
		Check{
			Area:         "indexability",
			Depth:        Basic,
			AllDocuments: true,
			IDs: []seo.CheckInfo{
				{ID: "indexability.noindex_header", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "An X-Robots-Tag header (generic or for googlebot) says noindex or none.",
					Source:  "Lighthouse is-crawlable (https://developer.chrome.com/docs/lighthouse/seo/is-crawlable); Google Search Central, Robots meta tag and X-Robots-Tag (https://developers.google.com/search/docs/crawling-indexing/robots-meta-tag); Ahrefs Site Audit (noindex page: warning); Sitebulb (noindex: hint); Screaming Frog SEO Spider, SEOnaut",
					Differs: noindexDiffers},
				{ID: "indexability.robots_txt_blocked", Severity: seo.Error, Scope: seo.ScopePage, Summary: "robots.txt disallows crawling the URL.",
					Source:  "Lighthouse is-crawlable (https://developer.chrome.com/docs/lighthouse/seo/is-crawlable); Google Search Central, How Google interprets robots.txt (https://developers.google.com/search/docs/crawling-indexing/robots/robots_txt); RFC 9309, Robots Exclusion Protocol (https://www.rfc-editor.org/rfc/rfc9309); Screaming Frog SEO Spider, SEOnaut",
					Differs: "Lighthouse fails is-crawlable only when every major crawler is blocked; seokit reads the Googlebot group, else *."},
				{ID: "indexability.noindex_unseen", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "The URL is noindex but robots.txt keeps crawlers from reading that directive.",
					Source: "seokit's own rule, after Google Search Central, Block indexing with noindex (https://developers.google.com/search/docs/crawling-indexing/block-indexing), which says noindex is unseen on a URL blocked by robots.txt"},
				{ID: "indexability.robots_meta_invalid", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "A robots meta or X-Robots-Tag value holds a token search engines do not know and ignore.",
					Source: "seokit's own rule, after Google Search Central, Robots meta tag and X-Robots-Tag (https://developers.google.com/search/docs/crawling-indexing/robots-meta-tag) (unknown values are ignored)"},
				{ID: "indexability.nosnippet", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "nosnippet or max-snippet:0 keeps a text snippet out of search results.",
					Source: "Google Search Central, Robots meta tag and X-Robots-Tag (https://developers.google.com/search/docs/crawling-indexing/robots-meta-tag); Screaming Frog SEO Spider, SEOnaut"},
				{ID: "indexability.noimageindex", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "noimageindex keeps the page's images out of image search.",
					Source: "Google Search Central, Robots meta tag and X-Robots-Tag (https://developers.google.com/search/docs/crawling-indexing/robots-meta-tag); Screaming Frog SEO Spider, SEOnaut"},
				{ID: "indexability.nofollow_page", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "nofollow or none in meta robots or X-Robots-Tag: no link of the page passes signals.",
					Source: "Google Search Central, Robots meta tag and X-Robots-Tag (https://developers.google.com/search/docs/crawling-indexing/robots-meta-tag); Screaming Frog SEO Spider, SEOnaut"},
				{ID: "indexability.unavailable_after_past", Severity: seo.Error, Scope: seo.ScopePage, Summary: "An unavailable_after date in the robots directives has passed.",
					Source: "Lighthouse is-crawlable (https://developer.chrome.com/docs/lighthouse/seo/is-crawlable); Google Search Central, Robots meta tag and X-Robots-Tag (https://developers.google.com/search/docs/crawling-indexing/robots-meta-tag); Screaming Frog SEO Spider"},
			},
			Run: checkIndexabilityDirectives,
		},
		Check{
			Area:  "indexability",
			Depth: Basic,
			IDs: []seo.CheckInfo{
				{ID: "indexability.noindex_meta", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "A robots or googlebot meta tag says noindex or none.",
					Source:  "Lighthouse is-crawlable (https://developer.chrome.com/docs/lighthouse/seo/is-crawlable); Google Search Central, Robots meta tag and X-Robots-Tag (https://developers.google.com/search/docs/crawling-indexing/robots-meta-tag); Ahrefs Site Audit (noindex page: warning); Sitebulb (noindex: hint); Screaming Frog SEO Spider, SEOnaut",
					Differs: noindexDiffers},
				{ID: "indexability.directives_conflict", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "Meta robots and X-Robots-Tag contradict each other on index or follow.",
					Source: "seokit's own rule, after Google Search Central, Robots meta tag and X-Robots-Tag (https://developers.google.com/search/docs/crawling-indexing/robots-meta-tag) (the most restrictive directive applies)"},
				{ID: "indexability.robots_meta_multiple", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "Several robots meta tags address the same crawler name.",
					Source: "seokit's own rule, after Google Search Central, Robots meta tag and X-Robots-Tag (https://developers.google.com/search/docs/crawling-indexing/robots-meta-tag) (several directives combine; the most restrictive wins)"},
				{ID: "indexability.directives_outside_head", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "A robots meta or other meta directive sits outside <head>, where crawlers may ignore it.",
					Source: "Google Search Central, Robots meta tag and X-Robots-Tag (https://developers.google.com/search/docs/crawling-indexing/robots-meta-tag); HTML Standard, the head element (https://html.spec.whatwg.org/multipage/semantics.html#the-head-element); Screaming Frog SEO Spider, SEOnaut"},
			},
			Run: checkIndexabilityMeta,
		},
	)
	registerExtractor(extractRobots)
}

// robotsMetaName returns the lowercased crawler name a meta element
// addresses ("robots", "googlebot", ...) or "" when it is no robots meta.
func robotsMetaName(n *html.Node) string {
	name, ok := Attr(n, "name")
	if !ok {
		return ""
	}
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "robots" || robotsCrawlerNames[name] {
		return name
	}
	return ""
}

// extractRobots fills Report.Robots from the robots metas (wherever they
// sit), the X-Robots-Tag headers and the robots.txt verdict. Directives
// lists every token as served, lowercased, including unknown ones that
// search engines ignore. Indexable and Follow are the Google verdicts: the
// generic directives and googlebot's are combined and the most restrictive
// wins, as Google documents; a googlebot meta is named first in evidence.
// robots.txt and unavailable_after do not change them.
func extractRobots(p *Page) {
	rb := &p.Report.Robots
	rb.Directives = rb.Directives[:0]
	if p.IsHTML {
		for _, m := range p.ByTag(atom.Meta) {
			name := robotsMetaName(m)
			if name == "" {
				continue
			}
			content, _ := Attr(m, "content")
			for _, tok := range splitRobotsValue(content) {
				rb.Directives = append(rb.Directives, Directive{Value: tok, Source: "meta:" + name})
			}
		}
	}
	for _, hv := range p.Header.Values("X-Robots-Tag") {
		rb.Directives = append(rb.Directives, parseRobotsHeader(hv)...)
	}
	rb.Indexable, rb.Follow = true, true
	for _, d := range rb.Directives {
		if !robotsForGoogle(d.Source) {
			continue
		}
		switch d.Value {
		case "noindex":
			rb.Indexable = false
		case "nofollow":
			rb.Follow = false
		case "none":
			rb.Indexable, rb.Follow = false, false
		}
	}
	if p.RobotsTxt != nil {
		v := *p.RobotsTxt
		rb.RobotsTxtAllowed = &v
	}
}

// robotsForGoogle reports whether directives from src apply to Google.
func robotsForGoogle(src string) bool {
	switch src {
	case robotsSrcMeta, robotsSrcHeader, "meta:" + robotsGoogle, "header:" + robotsGoogle:
		return true
	}
	return false
}

// robotsFromHeader reports whether src is an X-Robots-Tag source.
func robotsFromHeader(src string) bool { return strings.HasPrefix(src, robotsSrcHeader) }

// parseRobotsHeader parses one X-Robots-Tag value. A token "name: rest"
// whose name is not a directive switches the user agent for the tokens that
// follow ("googlebot: noindex, nofollow").
func parseRobotsHeader(v string) []Directive {
	src := robotsSrcHeader
	var out []Directive
	for _, tok := range splitRobotsValue(v) {
		if i := strings.IndexByte(tok, ':'); i > 0 {
			name := strings.TrimSpace(tok[:i])
			if robotsAgentPrefix(name, tok[i+1:]) {
				src = robotsSrcHeader + ":" + name
				tok = strings.TrimSpace(tok[i+1:])
				if tok == "" {
					continue
				}
			}
		}
		out = append(out, Directive{Value: tok, Source: src})
	}
	return out
}

// robotsAgentPrefix reports whether "name:rest" is a user-agent prefix and
// a directive rather than one directive: name is a known crawler, or a
// product token (not a directive) followed by a known directive name. A typo
// such as "max_snippet:0" thus stays one (invalid) token.
func robotsAgentPrefix(name, rest string) bool {
	if robotsValueTokens[name] || robotsPlainTokens[name] || !robotsAgentName(name) {
		return false
	}
	if robotsCrawlerNames[name] {
		return true
	}
	first, _, _ := strings.Cut(strings.TrimSpace(rest), ":")
	return robotsPlainTokens[first] || robotsValueTokens[first]
}

// robotsAgentName reports whether s looks like a user-agent product token.
func robotsAgentName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// splitRobotsValue splits a comma-separated directive list into
// normalised tokens. The date of unavailable_after may hold a comma
// ("Monday, 25-Jun-29 15:00:00 GMT"): a lone weekday name after it is
// joined with the next piece.
func splitRobotsValue(v string) []string {
	var out []string
	rest := v
	for rest != "" {
		var piece string
		if i := strings.IndexByte(rest, ','); i >= 0 {
			piece, rest = rest[:i], rest[i+1:]
		} else {
			piece, rest = rest, ""
		}
		piece = strings.TrimSpace(piece)
		if piece == "" {
			continue
		}
		if date, ok := robotsDatePart(piece); ok && robotsWeekdays[strings.ToLower(date)] && rest != "" {
			k := strings.IndexByte(rest, ',')
			if k < 0 {
				k = len(rest)
			}
			piece += "," + rest[:k]
			rest = rest[k:]
			if rest != "" {
				rest = rest[1:]
			}
		}
		out = append(out, normalizeRobotsToken(piece))
	}
	return out
}

// robotsDatePart returns the text after "unavailable_after:" in tok.
func robotsDatePart(tok string) (string, bool) {
	i := robotsIndexFold(tok, "unavailable_after")
	if i < 0 {
		return "", false
	}
	rest := strings.TrimSpace(tok[i+len("unavailable_after"):])
	if !strings.HasPrefix(rest, ":") {
		return "", false
	}
	return strings.TrimSpace(rest[1:]), true
}

// robotsIndexFold is strings.Index with ASCII case folding; sub must be
// lowercase. Byte offsets stay those of s (strings.ToLower may change them).
func robotsIndexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		j := 0
		for j < len(sub) {
			c := s[i+j]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != sub[j] {
				break
			}
			j++
		}
		if j == len(sub) {
			return i
		}
	}
	return -1
}

var robotsWeekdays = map[string]bool{
	"mon": true, "tue": true, "wed": true, "thu": true, "fri": true, "sat": true, "sun": true,
	"monday": true, "tuesday": true, "wednesday": true, "thursday": true, "friday": true, "saturday": true, "sunday": true,
}

// normalizeRobotsToken lowercases a token and removes the spaces around its
// colons ("Max-Snippet : 0" becomes "max-snippet:0"); the date of
// unavailable_after keeps its case.
func normalizeRobotsToken(tok string) string {
	tok = strings.TrimSpace(tok)
	date, hasDate := robotsDatePart(tok)
	low := tok
	if hasDate {
		low = tok[:robotsIndexFold(tok, "unavailable_after")+len("unavailable_after")]
	}
	low = strings.ToLower(low)
	if strings.IndexByte(low, ':') >= 0 || strings.IndexByte(low, ' ') >= 0 {
		parts := strings.Split(low, ":")
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
		}
		low = strings.Join(parts, ":")
	}
	if hasDate {
		return low + ":" + date
	}
	return low
}

// robotsTokenValid reports whether tok (normalised) is a directive search
// engines understand, and why not.
func robotsTokenValid(tok string) (bool, string) {
	if robotsPlainTokens[tok] {
		return true, ""
	}
	name, val, ok := strings.Cut(tok, ":")
	if !ok || !robotsValueTokens[name] {
		return false, "unknown directive"
	}
	switch name {
	case "max-snippet", "max-video-preview":
		if n, err := strconv.Atoi(val); err != nil || n < -1 {
			return false, name + " needs an integer of -1 or more"
		}
	case "max-image-preview":
		if val != "none" && val != "standard" && val != "large" {
			return false, "max-image-preview must be none, standard or large"
		}
	case "unavailable_after":
		if _, ok := parseRobotsDate(val); !ok {
			return false, "unavailable_after date does not parse"
		}
	}
	return true, ""
}

// robotsDateLayouts are the date forms accepted for unavailable_after
// (RFC 822/850/1123 and ISO 8601 variants).
var robotsDateLayouts = []string{
	time.RFC3339, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02",
	time.RFC1123, time.RFC1123Z, time.RFC850, "Monday, 02-Jan-2006 15:04:05 MST",
	time.RFC822, time.RFC822Z, time.ANSIC,
	"02 Jan 2006 15:04:05 MST", "2 Jan 2006 15:04:05 MST", "02-Jan-2006 15:04:05 MST",
	"02 Jan 2006", "2 Jan 2006", "Jan 2, 2006", "January 2, 2006",
}

// parseRobotsDate parses an unavailable_after date.
func parseRobotsDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, l := range robotsDateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// robotsHas returns the first Google-relevant directive among values whose
// source passes keep, and whether there is one.
func robotsHas(ds []Directive, keep func(src string) bool, values ...string) (Directive, bool) {
	for _, d := range ds {
		if !robotsForGoogle(d.Source) || (keep != nil && !keep(d.Source)) {
			continue
		}
		for _, v := range values {
			if d.Value == v {
				return d, true
			}
		}
	}
	return Directive{}, false
}

func robotsElement(src string) string {
	if robotsFromHeader(src) {
		return "X-Robots-Tag"
	}
	return `<meta name="` + strings.TrimPrefix(src, "meta:") + `">`
}

// checkIndexabilityDirectives runs the checks that headers alone can fire.
func checkIndexabilityDirectives(p *Page, r *Reporter) {
	ds := p.Report.Robots.Directives
	if d, ok := robotsHas(ds, robotsFromHeader, "noindex", "none"); ok {
		r.Add("indexability.noindex_header", "an X-Robots-Tag header keeps the page out of the index",
			seo.Evidence{Element: "X-Robots-Tag", Value: d.Value, Detail: "source " + d.Source})
	}
	blocked := p.RobotsTxt != nil && !*p.RobotsTxt
	if blocked {
		r.Add("indexability.robots_txt_blocked", "robots.txt disallows crawling this URL",
			seo.Evidence{Element: "robots.txt", Value: p.Report.FinalURL})
		if d, ok := robotsHas(ds, nil, "noindex", "none"); ok {
			r.Add("indexability.noindex_unseen", "the page is noindex but robots.txt stops crawlers from reading it, so the bare URL may still be indexed",
				seo.Evidence{Element: robotsElement(d.Source), Value: d.Value, Detail: "disallowed by robots.txt"})
		}
	}
	seen := map[string]bool{}
	for _, d := range ds {
		if ok, why := robotsTokenValid(d.Value); !ok {
			key := d.Source + "\x00" + d.Value
			if seen[key] {
				continue
			}
			seen[key] = true
			r.Add("indexability.robots_meta_invalid", "robots directive "+strconv.Quote(d.Value)+" is not understood and is ignored",
				seo.Evidence{Element: robotsElement(d.Source), Value: d.Value, Detail: why})
		}
	}
	if d, ok := robotsHas(ds, nil, "nosnippet", "max-snippet:0"); ok {
		r.Add("indexability.nosnippet", "search results show no text snippet for this page",
			seo.Evidence{Element: robotsElement(d.Source), Value: d.Value})
	}
	if d, ok := robotsHas(ds, nil, "noimageindex"); ok {
		r.Add("indexability.noimageindex", "the page's images are kept out of image search",
			seo.Evidence{Element: robotsElement(d.Source), Value: d.Value})
	}
	if d, ok := robotsHas(ds, nil, "nofollow", "none"); ok {
		r.Add("indexability.nofollow_page", "no link on this page passes signals",
			seo.Evidence{Element: robotsElement(d.Source), Value: d.Value})
	}
	now := p.cfg.now()
	for _, d := range ds {
		val, ok := strings.CutPrefix(d.Value, "unavailable_after:")
		if !ok || !robotsForGoogle(d.Source) {
			continue
		}
		if t, ok := parseRobotsDate(val); ok && t.Before(now) {
			r.Add("indexability.unavailable_after_past", "the unavailable_after date has passed, so the page drops out of the index",
				seo.Evidence{Element: robotsElement(d.Source), Value: d.Value, Detail: "date " + t.UTC().Format(time.RFC3339)})
			break
		}
	}
}

// checkIndexabilityMeta runs the checks that need the robots metas.
func checkIndexabilityMeta(p *Page, r *Reporter) {
	ds := p.Report.Robots.Directives
	fromMeta := func(src string) bool { return !robotsFromHeader(src) }
	if d, ok := robotsHas(ds, func(src string) bool { return src == "meta:"+robotsGoogle }, "noindex", "none"); ok {
		r.Add("indexability.noindex_meta", "a googlebot meta tag keeps the page out of Google's index",
			seo.Evidence{Element: robotsElement(d.Source), Value: d.Value})
	} else if d, ok := robotsHas(ds, fromMeta, "noindex", "none"); ok {
		r.Add("indexability.noindex_meta", "a robots meta tag keeps the page out of the index",
			seo.Evidence{Element: robotsElement(d.Source), Value: d.Value})
	}

	// Conflicts: an explicit positive directive on one side, its negation on the other.
	metaIdx, _ := robotsHas(ds, fromMeta, "index", "all")
	metaNoIdx, _ := robotsHas(ds, fromMeta, "noindex", "none")
	hdrIdx, _ := robotsHas(ds, robotsFromHeader, "index", "all")
	hdrNoIdx, _ := robotsHas(ds, robotsFromHeader, "noindex", "none")
	metaFol, _ := robotsHas(ds, fromMeta, "follow", "all")
	metaNoFol, _ := robotsHas(ds, fromMeta, "nofollow", "none")
	hdrFol, _ := robotsHas(ds, robotsFromHeader, "follow", "all")
	hdrNoFol, _ := robotsHas(ds, robotsFromHeader, "nofollow", "none")
	for _, pair := range [][2]Directive{{metaIdx, hdrNoIdx}, {hdrIdx, metaNoIdx}, {metaFol, hdrNoFol}, {hdrFol, metaNoFol}} {
		a, b := pair[0], pair[1]
		if a.Value == "" || b.Value == "" {
			continue
		}
		r.Add("indexability.directives_conflict", "meta robots and X-Robots-Tag disagree; the most restrictive directive wins",
			seo.Evidence{Element: robotsElement(a.Source) + " / " + robotsElement(b.Source),
				Value:  a.Source + "=" + a.Value + "; " + b.Source + "=" + b.Value,
				Detail: "sources " + a.Source + " and " + b.Source})
		break
	}

	counts := map[string]int{}
	for _, m := range p.ByTag(atom.Meta) {
		if name := robotsMetaName(m); name != "" {
			counts[name]++
			if counts[name] == 2 {
				r.Add("indexability.robots_meta_multiple", "more than one robots meta tag for "+name+"; search engines combine them",
					seo.Evidence{Element: Outer(m), Value: name})
			}
		}
		if !InHead(m) && robotsDirectiveMeta(m) {
			r.Add("indexability.directives_outside_head", "a meta directive sits outside <head>, where crawlers may ignore it",
				seo.Evidence{Element: Outer(m), Value: idxAttr(m, "content")})
		}
	}
}

// robotsDirectiveMeta reports whether a meta element is a crawler directive:
// a robots or crawler-specific meta, or an http-equiv refresh or robots tag.
func robotsDirectiveMeta(m *html.Node) bool {
	if robotsMetaName(m) != "" {
		return true
	}
	eq, _ := Attr(m, "http-equiv")
	switch strings.ToLower(strings.TrimSpace(eq)) {
	case "refresh", "x-robots-tag":
		return true
	}
	return false
}

// idxAttr returns the attribute value, or "" when absent.
func idxAttr(n *html.Node, name string) string {
	v, _ := Attr(n, name)
	return v
}
