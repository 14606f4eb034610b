package analyzer

import (
	"math/bits"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/seo"
)

func init() {
	registerExtractor(extractLinks)
	register(Check{
		Area:  "links",
		Depth: Standard,
		IDs: []seo.CheckInfo{
			{ID: "links.uncrawlable", Severity: seo.Warning, Scope: seo.ScopePage,
				Summary: "A link has a javascript: or file: href, an href that does not parse as a URL, or no href while it has a click handler or link attributes (target, rel ...), so crawlers cannot follow it.",
				Source:  "Lighthouse crawlable-anchors (https://developer.chrome.com/docs/lighthouse/seo/crawlable-anchors); Google Search Central, Make your links crawlable (https://developers.google.com/search/docs/crawling-indexing/links-crawlable)",
				Differs: "Lighthouse fails only javascript:void(0) among javascript: hrefs; seokit fails every javascript: href (javascript:;, javascript:history.back() ...), as Google's guidance says it cannot follow any of them. " +
					"Lighthouse reads the DOM after scripts ran, seokit the HTML as served: links that scripts add, remove or rewrite are judged as served. " +
					"An <a> without href fails with an event listener of its own (a listener on an ancestor does not count, as in Lighthouse since 13.0): Lighthouse counts a listener of any type, a mouseover one too, seokit only those that activate it (click, auxclick, mousedown, mouseup, pointerdown, pointerup, touchstart, touchend), read from the DOM on rendered pages (scripts' listeners included; the first 20,000 such anchors of a page, as the render report's listeners say) and from its inline handler attributes (onclick, onmousedown ...) in the HTML as served; a bare <a> without href, a placeholder in HTML, passes in both. " +
					"Empty and bare # hrefs, which Lighthouse passes, are reported apart as links.placeholder_href, a notice."},
			{ID: "links.placeholder_href", Severity: seo.Notice, Scope: seo.ScopePage,
				Summary: "A link's href is empty or a bare #: it leads back to the page itself, so a script that navigates from it hides its target from crawlers (an action wants a <button>).",
				Source:  "Google Search Central, Make your links crawlable (https://developers.google.com/search/docs/crawling-indexing/links-crawlable)",
				Differs: "Lighthouse crawlable-anchors passes these links (the href resolves to the page); seokit notes them apart, with a lower severity than links.uncrawlable."},
			{ID: "links.non_descriptive_text", Severity: seo.Warning, Scope: seo.ScopePage,
				Summary: "A followed link to another page uses generic text such as \"click here\" or \"read more\".",
				Source:  "Lighthouse link-text (https://developer.chrome.com/docs/lighthouse/seo/link-text); Google Search Central, anchor text (https://developers.google.com/search/docs/crawling-indexing/links-crawlable#anchor-text-placement)",
				Differs: "Like Lighthouse, seokit skips nofollow links, javascript: and mailto: links and links to the page itself (#fragments included), and matches the whole text; it also skips rel=ugc and rel=sponsored links and non-http(s) links such as tel:. " +
					"It ignores case and surrounding punctuation (\"Read more »\", \"Mehr…\"), which Lighthouse compares verbatim, and knows more phrases in more languages " +
					"(\"link\", \"leia mais\", \"meer informatie\" ...). It reads the served HTML, so text hidden by CSS counts, where Lighthouse reads the rendered text."},
			{ID: "links.empty_text", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "A link has no text, aria-label, title or image alt text.",
				Source: "Google Search Central, Make your links crawlable (https://developers.google.com/search/docs/crawling-indexing/links-crawlable) (anchor text); Screaming Frog SEO Spider"},
			{ID: "links.internal_nofollow", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "A link to another page of the site is marked rel=\"nofollow\".",
				Source: "Google Search Central, Qualify your outbound links (https://developers.google.com/search/docs/crawling-indexing/qualify-outbound-links); Screaming Frog SEO Spider, SEOnaut"},
			{ID: "links.to_http", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "An https page links to an http:// URL.",
				Source: "Google Search Central, Page experience, HTTPS (https://developers.google.com/search/docs/appearance/page-experience); Screaming Frog SEO Spider, SEOnaut"},
			{ID: "links.to_private_host", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "A link points to localhost, a loopback, private or link-local address, or a .local/.internal name.",
				Source:  "seokit's own rule; Screaming Frog SEO Spider and SEOnaut flag localhost links",
				Differs: "Screaming Frog and SEOnaut flag localhost only; seokit also flags loopback, private and link-local addresses and .local/.internal names."},
			{ID: "links.unsafe_target_blank", Severity: seo.Notice, Scope: seo.ScopePage, Minor: true, Summary: "A cross-origin link opens a new tab with rel=\"opener\", handing the new page window.opener.",
				Source: "HTML Standard, rel=noopener (https://html.spec.whatwg.org/multipage/links.html#link-type-noopener), target=_blank implies noopener since whatwg/html#4078 (https://github.com/whatwg/html/pull/4078): Chrome 88, Firefox 79, Safari 12.1; " +
					"Lighthouse removed external-anchors-use-rel-noopener in v10 (https://github.com/GoogleChrome/lighthouse/releases/tag/v10.0.0); Screaming Frog SEO Spider",
				Differs: "Browsers imply noopener for target=_blank since 2021 and Lighthouse retired its audit, so a target=_blank link without rel=\"noopener\" is no longer reported (Screaming Frog still flags it); " +
					"seokit keeps the ID for the one case that still opens the hole, an explicit rel=\"opener\" on a cross-origin link, as a minor notice."},
			{ID: "links.too_many", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "The page has more links than the limit (100 by default).",
				Source:  "SEOnaut (100 links)",
				Differs: "Google names no link limit; seokit keeps SEOnaut's 100 as a notice, which callers can raise."},
			{ID: "links.dead_end", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "A 200 HTML page has no followable outgoing link.",
				Source:  "Google Search Central, Make your links crawlable (https://developers.google.com/search/docs/crawling-indexing/links-crawlable); Screaming Frog SEO Spider, SEOnaut",
				Differs: "A page whose refresh (meta or Refresh header) leads to another http(s) URL is no dead end: search engines follow the refresh as a redirect (Google Search Central, Redirects and Google Search)."},
			{ID: "links.broken_fragment", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "A same-page #fragment link matches no element id or anchor name.",
				Source: "HTML Standard, navigating to a fragment (https://html.spec.whatwg.org/multipage/browsing-the-web.html#scroll-to-fragid); Screaming Frog SEO Spider"},
		},
		Run: checkLinks,
	})
}

// extractLinks fills Report.Links from the page's <a href> links that
// resolve to http(s) URLs: all are counted (those past MaxElements too),
// the first MaxListItems listed.
func extractLinks(p *Page) {
	s := &p.Report.Links
	max := p.cfg.MaxListItems
	for _, l := range p.Links {
		if l.URL == nil {
			continue
		}
		if l.Internal {
			s.Internal++
		} else {
			s.External++
		}
		if l.Nofollow {
			s.Nofollow++
		}
		if len(s.List) < max {
			if s.List == nil {
				// Sized once for the page's links.
				s.List = make([]LinkInfo, 0, min(len(p.Links), max))
			}
			s.List = append(s.List, LinkInfo{URL: urlString(l.URL, l.Href), Text: l.Text, Rel: l.Rel, Internal: l.Internal})
		}
	}
	if t := p.tail; t != nil {
		s.Internal += t.internal
		s.External += t.external
		s.Nofollow += t.nofollow
	}
	p.Report.Truncated.Note("links", s.Internal+s.External, len(s.List))
}

// lkGenericTexts are link texts that say nothing about the target, in the
// languages seokit knows (en, de, es, fr, it, nl, pt, ru) and those of
// Lighthouse's link-text audit (sv, ja, ko). Compared after lowercasing,
// collapsing space and trimming punctuation.
var lkGenericTexts = map[string]bool{
	// English
	"click here": true, "click": true, "here": true, "read more": true, "more": true, "learn more": true,
	"more info": true, "more information": true, "this": true, "this page": true, "link": true, "this link": true,
	"go": true, "start": true, "continue": true, "details": true, "continue reading": true, "see more": true,
	"click this": true, "right here": true, "information": true,
	// German
	"klicke hier": true, "klicken sie hier": true, "hier klicken": true, "hier": true, "mehr": true,
	"weiterlesen": true, "mehr erfahren": true, "mehr lesen": true, "mehr infos": true, "weiter": true,
	"siehe": true, "dies": true,
	// Spanish
	"haga clic aquí": true, "haz clic aquí": true, "clic aquí": true, "aquí": true, "leer más": true,
	"más": true, "más información": true, "saber más": true, "ver más": true, "enlace": true,
	"click aquí": true, "click aqui": true, "clicka aquí": true, "clicka aqui": true, "pincha aquí": true, "pincha aqui": true,
	"mas": true, "más informacion": true, "mas información": true, "mas informacion": true,
	"este": true, "este enlace": true, "empezar": true,
	// French
	"cliquez ici": true, "cliquez": true, "ici": true, "en savoir plus": true, "lire la suite": true,
	"plus": true, "plus d'informations": true, "lien": true, "voir plus": true,
	// Italian
	"clicca qui": true, "clicca": true, "qui": true, "leggi di più": true, "leggi tutto": true,
	"di più": true, "scopri di più": true, "altro": true, "maggiori informazioni": true,
	// Dutch
	"klik hier": true, "klik": true, "lees meer": true, "meer": true, "meer informatie": true, "verder lezen": true,
	// Portuguese
	"clique aqui": true, "clique": true, "aqui": true, "leia mais": true, "saiba mais": true, "mais": true,
	"ler mais": true, "veja mais": true, "mais informações": true, "mais informação": true, "ir": true,
	// Russian
	"нажмите здесь": true, "здесь": true, "тут": true, "подробнее": true, "читать далее": true,
	"читать дальше": true, "далее": true, "ещё": true, "еще": true, "больше": true, "ссылка": true,
	// Swedish
	"här": true, "klicka här": true, "läs mer": true, "mer": true, "mer info": true, "mer information": true,
	// Japanese
	"ここをクリック": true, "こちらをクリック": true, "こちら": true, "リンク": true, "続きを読む": true, "もっと見る": true,
	// Korean
	"여기": true, "여기를 클릭": true, "클릭": true, "링크": true, "자세히": true, "자세히 보기": true, "더보기": true,
}

// lkGenericMaxBytes bounds the byte length of texts worth comparing with
// lkGenericTexts (the longest entry plus surrounding punctuation).
const lkGenericMaxBytes = 64

// lkNormText lowercases, collapses space and trims surrounding punctuation.
func lkNormText(s string) string {
	s = strings.ToLower(Collapse(s))
	return strings.Trim(s, " .,:;!?…»«\"'()[]<>→›-–—")
}

// lkGenericText reports whether lkGenericTexts holds lkNormText(s). An
// ASCII text of at most lkGenericMaxBytes, the common case, is normalised
// into a buffer on the stack, without allocating
// (TestLkGenericTextMatchesNormText).
func lkGenericText(s string) bool {
	if len(s) > lkGenericMaxBytes {
		return lkFewRunes(s) && lkGenericTexts[lkNormText(s)]
	}
	if asciiAlnumCount(s) > lkGenericMaxAlnum {
		// lkNormText keeps every ASCII letter and digit: too many for
		// any generic text (most link texts, ruled out eight bytes at a
		// time).
		return false
	}
	var buf [lkGenericMaxBytes]byte
	b := buf[:0]
	space := false // a space is due before the next character
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= utf8.RuneSelf:
			return lkFewRunes(s) && lkGenericTexts[lkNormText(s)]
		case c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r':
			space = len(b) > 0
			continue
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		if space {
			b = append(b, ' ')
			space = false
		}
		b = append(b, c)
	}
	// The ASCII characters of lkNormText's cut set.
	const cut = " .,:;!?\"'()[]<>-"
	for len(b) > 0 && strings.IndexByte(cut, b[0]) >= 0 {
		b = b[1:]
	}
	for len(b) > 0 && strings.IndexByte(cut, b[len(b)-1]) >= 0 {
		b = b[:len(b)-1]
	}
	if len(b) == 0 || lkGenericFilter[b[0]]&langFilterBit(b) == 0 {
		return false // no generic text is empty or has this first byte, length and last byte
	}
	return lkGenericTexts[string(b)]
}

// lkFewRunes reports whether s has no more characters that lkNormText
// keeps whatever their place (neither white space nor of its cut set) than
// the longest generic text has characters: a non-ASCII link text with more
// (most of them) is no generic text, and is not normalised to find out.
func lkFewRunes(s string) bool {
	n := 0
	for _, r := range s {
		if r < utf8.RuneSelf {
			if strings.IndexByte(" \t\n\v\f\r.,:;!?\"'()[]<>-", byte(r)) >= 0 {
				continue
			}
		} else if unicode.IsSpace(r) || strings.ContainsRune("…»«→›–—", r) {
			continue
		}
		if n++; n > lkGenericMaxRunes {
			return false
		}
	}
	return true
}

// lkGenericMaxRunes is the largest number of characters in a generic text.
var lkGenericMaxRunes = func() int {
	n := 0
	for t := range lkGenericTexts {
		n = max(n, utf8.RuneCountInString(t))
	}
	return n
}()

// lkGenericMaxAlnum is the largest number of ASCII letters and digits in
// a generic text.
var lkGenericMaxAlnum = func() int {
	n := 0
	for t := range lkGenericTexts {
		n = max(n, asciiAlnumCount(t))
	}
	return n
}()

// asciiAlnumCount returns the number of ASCII letters and digits in s,
// counted eight bytes at a time.
func asciiAlnumCount(s string) int {
	n, i := 0, 0
	for ; len(s)-i >= 8; i += 8 {
		n += bits.OnesCount64(alnumMask(le64(s[i:])))
	}
	// The zero bytes loadTail pads with are not letters.
	return n + bits.OnesCount64(alnumMask(loadTail(s, i)))
}

// lkGenericFilter has, for each first byte of a generic text, the
// langFilterBit of each such text, so most link texts are ruled out
// without a map lookup.
var lkGenericFilter = func() (f [256]uint64) {
	for t := range lkGenericTexts {
		if t != "" {
			f[t[0]] |= langFilterBit(t)
		}
	}
	return f
}()

// lkPrivateHost reports whether host is localhost, a .local/.internal name
// or a literal loopback, private, link-local or unspecified address.
func lkPrivateHost(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") || strings.HasSuffix(h, ".local") ||
		strings.HasSuffix(h, ".internal") || h == "local" || h == "internal" {
		return true
	}
	if h == "" || (h[0] < '0' || h[0] > '9') && !strings.ContainsRune(h, ':') {
		return false // a name, not an address literal
	}
	if i := strings.IndexByte(h, '%'); i >= 0 { // IPv6 zone
		h = h[:i]
	}
	a, err := netip.ParseAddr(h)
	if err != nil {
		return false
	}
	a = a.Unmap()
	return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() || a.IsUnspecified()
}

// lkOrigin is scheme://host:port with default ports made explicit.
func lkOrigin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		if strings.EqualFold(u.Scheme, "https") {
			port = "443"
		} else {
			port = "80"
		}
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// lkHasLabel reports whether an <a> has an accessible name other than its
// text: aria-label, aria-labelledby, title, or an image with non-empty alt.
func lkHasLabel(a *html.Node) bool {
	for _, k := range []string{"aria-label", "title", "aria-labelledby"} {
		if v, _ := Attr(a, k); strings.TrimSpace(v) != "" {
			return true
		}
	}
	var found bool
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil && !found; c = c.NextSibling {
			if c.Type != html.ElementNode || inertTemplate(c) {
				continue
			}
			switch c.DataAtom {
			case atom.Img, atom.Area:
				if v, _ := Attr(c, "alt"); strings.TrimSpace(v) != "" {
					found = true
				}
			case atom.Input:
				if v, _ := Attr(c, "alt"); strings.TrimSpace(v) != "" {
					found = true
				}
			}
			if v, _ := Attr(c, "aria-label"); strings.TrimSpace(v) != "" {
				found = true
			}
			walk(c)
		}
	}
	walk(a)
	return found
}

// lkPlaceholder is the check ID of empty and bare # hrefs.
const lkPlaceholder = "links.placeholder_href"

// lkUncrawlable says which check an <a> fails, links.uncrawlable or
// links.placeholder_href, and why; id is "" for a link crawlers can follow.
// The rules follow Lighthouse's crawlable-anchors audit, except that every
// javascript: href fails (as Google's guidance has it) and empty and bare #
// hrefs get the milder links.placeholder_href.
func lkUncrawlable(l Link) (id, why string) {
	a := l.Node
	if l.attrs&linkHasRole != 0 {
		return "", "" // a widget, not a link
	}
	// Browsers ignore white space inside URLs.
	h := withoutSpace(l.Href)
	if hasPrefixFold(h, "mailto:") {
		return "", ""
	}
	if h == "" && l.attrs&linkHasID != 0 {
		return "", "" // an <a id> fragment target
	}
	if hasPrefixFold(h, "file:") {
		return "links.uncrawlable", "file: href"
	}
	if l.attrs&linkHasName != 0 {
		return "", "" // an <a name> fragment target
	}
	if !l.HasHref {
		// HTML: an <a> without href "represents a placeholder for where a
		// link might otherwise have been placed", and must then omit the
		// attributes that only make sense with an href. Like Lighthouse's
		// crawlable-anchors, seokit fails it when it still carries one of
		// those, or a click handler (something meant to navigate); a bare
		// one is a placeholder, not a link.
		if attr := lkHrefOnlyAttr(a); attr != "" {
			return "links.uncrawlable", "no href, but a " + attr + " attribute"
		}
		if _, click := Attr(a, "onclick"); click {
			return "links.uncrawlable", "no href, only a click handler"
		}
		if attr := lkClickAttr(a); attr != "" {
			return "links.uncrawlable", "no href, only a click handler (" + attr + ")"
		}
		if l.ClickListener {
			return "links.uncrawlable", "no href, only a click-type event listener"
		}
		return "", "" // a placeholder
	}
	switch {
	case h == "":
		return lkPlaceholder, "empty href"
	case h == "#":
		return lkPlaceholder, "bare # href"
	case hasPrefixFold(h, "javascript:"):
		return "links.uncrawlable", "javascript: href"
	}
	if l.Unparseable {
		return "links.uncrawlable", "href does not parse as a URL"
	}
	return "", ""
}

// lkClickAttr returns the first inline handler attribute of a for one of
// render.ClickEvents other than click (onmousedown, ontouchstart ...), or "".
func lkClickAttr(a *html.Node) string {
	for _, at := range a.Attr {
		if at.Namespace != "" || !strings.HasPrefix(at.Key, "on") || at.Key == "onclick" {
			continue
		}
		if slices.Contains(render.ClickEvents(), at.Key[2:]) {
			return at.Key
		}
	}
	return ""
}

// lkHrefOnlyAttrs are the <a> attributes HTML allows only with an href.
var lkHrefOnlyAttrs = [...]string{"target", "download", "ping", "rel", "hreflang", "type", "referrerpolicy"}

// lkHrefOnlyAttr returns the first attribute of a that HTML allows only
// with an href, or "".
func lkHrefOnlyAttr(a *html.Node) string {
	for _, k := range lkHrefOnlyAttrs {
		if _, ok := Attr(a, k); ok {
			return k
		}
	}
	return ""
}

func checkLinks(p *Page, r *Reporter) {
	th := p.Thresholds()
	pageHTTPS := strings.EqualFold(p.URL.Scheme, "https")
	pagePrivate := lkPrivateHost(p.URL.Hostname())
	pageOrigin := lkOrigin(p.URL)
	pageKey := cnURLKey(p.URL)
	total, followable := 0, 0
	var fragLinks []int
	reportedHTTP := map[string]bool{}

	for i, l := range p.Links {
		if id, why := lkUncrawlable(l); id == lkPlaceholder {
			r.addLazy(id, "the link leads back to the page itself: "+why, func() seo.Evidence {
				return seo.Evidence{Element: Outer(l.Node), Value: l.Href, Detail: why}
			})
		} else if id != "" {
			r.addLazy(id, "the link cannot be followed by crawlers: "+why, func() seo.Evidence {
				return seo.Evidence{Element: Outer(l.Node), Value: l.Href, Detail: why}
			})
		}
		if !l.HasHref {
			continue
		}
		// A fragment link scrolls this page only when its href, resolved
		// against the base URL, names the page: under a <base> elsewhere,
		// "#x" navigates to another document.
		if h := strings.TrimSpace(l.Href); lkHasFragment(h) && l.URL != nil && l.URL.Path == p.URL.Path && cnURLKey(l.URL) == pageKey {
			fragLinks = append(fragLinks, i)
		}
		if l.URL == nil {
			continue
		}
		total++
		// Outer is built only when a finding needs it.
		var elem string
		el := func() string {
			if elem == "" {
				elem = Outer(l.Node)
			}
			return elem
		}
		if l.Text == "" && !lkHasLabel(l.Node) {
			r.addLazy("links.empty_text", "the link has no text or accessible label", func() seo.Evidence {
				return seo.Evidence{Element: el(), Value: l.URL.String(), URLs: []string{l.URL.String()}}
			})
		}
		// Whether the link leads to the page itself is read only where it
		// matters (a generic text, or no followable link yet): normalising
		// every link's URL would cost more than the rest of the check.
		if generic := len(l.Text) <= lkGenericMaxBytes && lkGenericText(l.Text); !l.Nofollow && (generic || followable == 0) {
			samePage := cnURLKey(l.URL) == pageKey
			// A link to the page itself (a #fragment) needs no description
			// of its target.
			if generic && !samePage {
				r.addLazy("links.non_descriptive_text", `the link text "`+l.Text+`" does not describe its target`, func() seo.Evidence {
					return seo.Evidence{Element: el(), Value: l.Text, URLs: []string{l.URL.String()}}
				})
			}
			if followable == 0 && !samePage {
				followable++
			}
		}
		// nofollow on a link to the page itself (#comments, a skip link)
		// keeps nothing from being crawled: only other pages count.
		if l.Internal && cnRelHas(l.Rel, "nofollow") && cnURLKey(l.URL) != pageKey {
			r.addLazy("links.internal_nofollow", "an internal link is marked nofollow", func() seo.Evidence {
				return seo.Evidence{Element: el(), Value: l.Rel, URLs: []string{l.URL.String()}}
			})
		}
		if pageHTTPS && l.URL.Scheme == "http" {
			// One finding per distinct URL; past the cap the links are
			// counted without keeping their URLs.
			if r.full("links.to_http") {
				r.addLazy("links.to_http", "", nil)
			} else if u := l.URL.String(); !reportedHTTP[u] {
				reportedHTTP[u] = true
				r.Add("links.to_http", "the https page links to an insecure http:// URL", seo.Evidence{Element: el(), Value: u, URLs: []string{u}})
			}
		}
		if !pagePrivate && lkPrivateHost(l.URL.Hostname()) {
			r.addLazy("links.to_private_host", "the link points to a private or local host", func() seo.Evidence {
				return seo.Evidence{Element: el(), Value: l.URL.Host, URLs: []string{l.URL.String()}}
			})
		}
		// target=_blank implies noopener in every current browser; only an
		// explicit rel="opener" gives the new page window.opener back.
		// The origin, a string built for the link, is compared last.
		if l.attrs&linkTargetBlank != 0 && cnRelHas(l.Rel, "opener") && !cnRelHas(l.Rel, "noopener") &&
			!cnRelHas(l.Rel, "noreferrer") && lkOrigin(l.URL) != pageOrigin {
			r.addLazy("links.unsafe_target_blank", `a cross-origin link opens a new tab with rel="opener", which hands it this page's window`, func() seo.Evidence {
				return seo.Evidence{Element: el(), Value: l.URL.String(), URLs: []string{l.URL.String()}}
			})
		}
	}

	if total > th.MaxLinks {
		r.Add("links.too_many", "the page has too many links", seo.Measure("<a href>", float64(total), float64(th.MaxLinks)))
	}
	if followable == 0 && p.Response.Status == 200 && !refreshesAway(p) {
		ev := seo.Measure("<a href>", 0, 1)
		ev.Detail = "links on the page: " + strconv.Itoa(total)
		r.Add("links.dead_end", "the page has no followable outgoing links", ev)
	}
	if len(fragLinks) > 0 {
		targets := newAnchorTargets(p, len(fragLinks))
		for _, i := range fragLinks {
			l := p.Links[i]
			h := strings.TrimSpace(l.Href)
			raw := h[strings.IndexByte(h, '#')+1:]
			frag := raw
			if dec, err := url.PathUnescape(raw); err == nil {
				frag = dec
			}
			// #top scrolls to the top; hash-bang and route-like fragments
			// and text fragments are handled by scripts or the browser.
			if strings.EqualFold(frag, "top") || strings.ContainsAny(frag[:1], "!/:") || strings.Contains(frag, "=") {
				continue
			}
			// The HTML Standard's indicated element is the one whose id is
			// the fragment as written, else the fragment percent-decoded.
			if !targets.has(raw) && (frag == raw || !targets.has(frag)) {
				r.addLazy("links.broken_fragment", "no element on the page has the id or name #"+frag, func() seo.Evidence {
					return seo.Evidence{Element: Outer(l.Node), Value: "#" + frag}
				})
			}
		}
	}
}

// lkHasFragment reports whether href ends in a non-empty #fragment.
func lkHasFragment(href string) bool {
	j := strings.IndexByte(href, '#')
	return j >= 0 && j < len(href)-1
}

// anchorTargets answers whether the page has an element with a given
// id, or an <a> with a given name: the targets of fragment links.
type anchorTargets struct {
	els []*html.Node // Page.idEls
	ids map[string]bool
}

// anchorScanMax bounds fragments times elements with an id for which the
// elements are searched for each fragment: most pages have a few fragment
// links (#top, #content), and a set of every id of the page, a map
// insertion for each, is built only when they are many (a table of
// contents).
const anchorScanMax = 2048

// newAnchorTargets indexes the anchor targets of p for frags lookups.
func newAnchorTargets(p *Page, frags int) anchorTargets {
	t := anchorTargets{els: p.idEls}
	if frags*len(p.idEls) <= anchorScanMax {
		return t
	}
	t.ids = make(map[string]bool, len(p.idEls))
	for _, n := range p.idEls {
		for _, a := range n.Attr {
			if isAnchorTarget(n, a) {
				t.ids[a.Val] = true
			}
		}
	}
	return t
}

// has reports whether an element has the id frag, or an <a> the name frag.
func (t anchorTargets) has(frag string) bool {
	if t.ids != nil {
		return t.ids[frag]
	}
	for _, n := range t.els {
		for _, a := range n.Attr {
			if a.Val == frag && isAnchorTarget(n, a) {
				return true
			}
		}
	}
	return false
}

// isAnchorTarget reports whether attribute a of n makes n a fragment's
// target: an id, or the name of an <a>.
func isAnchorTarget(n *html.Node, a html.Attribute) bool {
	return a.Namespace == "" && (a.Key == "id" || (a.Key == "name" && n.DataAtom == atom.A))
}

// refreshesAway reports whether the page's refresh leads to another http(s)
// URL, which search engines follow as a redirect: a way out of a page
// without links.
func refreshesAway(p *Page) bool {
	u := p.RefreshTarget()
	return u != nil && (u.Scheme == "http" || u.Scheme == "https")
}
