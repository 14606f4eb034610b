package analyzer

import (
	"fmt"
	"strconv"

	"github.com/seokit/seokit/seo"
)

// TargetKind says how a page refers to the target of a link-scope check.
type TargetKind uint8

// Target kinds.
const (
	InternalLink     TargetKind = iota + 1 // an <a href> on the page's site
	ExternalLink                           // an <a href> to another site
	CanonicalTarget                        // the page's canonical URL
	HreflangTarget                         // an hreflang alternate of the page
	ImageTarget                            // an image source of the page (<img>, srcset, <picture>)
	ScriptTarget                           // a <script src> of the page
	StylesheetTarget                       // a <link rel=stylesheet href> of the page
)

// Target is a link, canonical or hreflang target of a page and what it
// answered, as far as the caller knows it: a page analysis with
// Options.CheckLinks fetches its targets, a crawl answers them from the
// pages it crawled. TargetFindings turns it into the page's link-scope
// findings, the same verdicts for both.
type Target struct {
	Kind TargetKind
	// URL is the target as the page names it (absolute).
	URL string
	// Element is the referring element, for Evidence.Element.
	Element string

	// Fetched says the target was requested: Status and Error are its
	// answer. A crawl does not fetch a URL robots.txt disallows.
	Fetched bool
	// Status is the HTTP status; zero when no answer came.
	Status int
	// Error says why the fetch failed, if it did.
	Error string
	// Location is where a 3xx answer leads.
	Location string
	// Blocked says robots.txt disallows the target.
	Blocked bool
	// Noindex says the target, answering 2xx, is noindex; NoindexSource
	// says where ("meta robots", "X-Robots-Tag header"), when known.
	Noindex       bool
	NoindexSource string
	// Canonical is another URL an hreflang target that answered 2xx names
	// as its canonical; "" when none.
	Canonical string
	// ContentType is the Content-Type of an image target that answered
	// 2xx; "" when unknown.
	ContentType string

	// SiteWording words the messages as site reports always have ("the
	// internal link to ...", "cannot be indexed (noindex)") instead of as
	// page reports ("the internal link target ...", "is noindex").
	SiteWording bool
}

// TargetFinding is one link-scope finding of the referring page.
type TargetFinding struct {
	ID       string
	Message  string
	Evidence seo.Evidence
}

// TargetFindings appends to dst the link-scope findings t makes on the
// referring page: links.broken_* and links.redirect_* for links;
// <area>.target_error, .target_redirect and .target_noindex for canonical
// and hreflang targets, and hreflang.target_non_canonical; images.broken
// for an image that cannot be loaded or is not served as an image;
// resources.broken_script and resources.broken_stylesheet for a script or
// stylesheet that cannot be loaded.
func TargetFindings(dst []TargetFinding, t *Target) []TargetFinding {
	failed := t.Fetched && (t.Error != "" || t.Status == 0)
	bad := failed || (t.Fetched && t.Status >= 400)
	redirect := t.Fetched && !failed && t.Status/100 == 3
	ok := t.Fetched && !failed && t.Status/100 == 2
	what := t.answer()
	ev := func() seo.Evidence {
		e := seo.Evidence{Element: t.Element, Value: seo.Clip(t.URL), URLs: []string{t.URL}, Detail: what}
		if t.Status/100 == 3 && t.Location != "" && (t.Error == "" || !t.Fetched) {
			e.URLs = append(e.URLs, t.Location)
		}
		return e
	}
	add := func(id, msg string, e seo.Evidence) {
		dst = append(dst, TargetFinding{ID: id, Message: msg, Evidence: e})
	}
	to := lcOr(t.Location, "an unnamed location")

	switch t.Kind {
	case InternalLink, ExternalLink:
		scope := "internal"
		if t.Kind == ExternalLink {
			scope = "external"
		}
		ref := fmt.Sprintf("the %s link target %s", scope, t.URL)
		if t.SiteWording {
			ref = fmt.Sprintf("the %s link to %s", scope, t.URL)
		}
		switch {
		case bad:
			add("links.broken_"+scope, fmt.Sprintf("%s is broken (%s)", ref, what), ev())
		case redirect:
			add("links.redirect_"+scope, fmt.Sprintf("%s redirects to %s", ref, to), ev())
		}
		return dst
	case ImageTarget:
		switch {
		case bad:
			add("images.broken", fmt.Sprintf("the image %s cannot be loaded (%s)", t.URL, what), ev())
		case ok && t.ContentType != "" && !lcIsImageType(t.ContentType):
			e := ev()
			e.Detail = what + ", Content-Type " + t.ContentType
			add("images.broken", fmt.Sprintf("the image %s is served as %s, not as an image", t.URL, lcMediaType(t.ContentType)), e)
		}
		return dst
	case ScriptTarget, StylesheetTarget:
		id, label := "resources.broken_script", "script"
		if t.Kind == StylesheetTarget {
			id, label = "resources.broken_stylesheet", "stylesheet"
		}
		if bad {
			add(id, fmt.Sprintf("the %s %s cannot be loaded (%s)", label, t.URL, what), ev())
		}
		return dst
	}

	area, label := "canonical", "canonical URL"
	if t.Kind == HreflangTarget {
		area, label = "hreflang", "hreflang alternate"
	}
	switch {
	case bad:
		add(area+".target_error", fmt.Sprintf("the %s %s cannot be used (%s)", label, t.URL, what), ev())
	case redirect:
		add(area+".target_redirect", fmt.Sprintf("the %s %s redirects to %s", label, t.URL, to), ev())
	}
	why, verdict := "", ""
	switch {
	case t.Blocked:
		why, verdict = "disallowed by robots.txt", "is disallowed by robots.txt"
	case t.Noindex && t.Status/100 == 2 && (ok || !t.Fetched):
		why, verdict = "noindex", "is noindex"
		if t.NoindexSource != "" {
			why += " in " + t.NoindexSource
		}
	}
	if why != "" {
		e := ev()
		e.Detail = why
		msg := fmt.Sprintf("the %s %s %s", label, t.URL, verdict)
		if t.SiteWording {
			msg = fmt.Sprintf("the %s %s cannot be indexed (%s)", label, t.URL, why)
		}
		add(area+".target_noindex", msg, e)
	}
	if t.Kind == HreflangTarget && t.Canonical != "" {
		e := ev()
		e.URLs = append(e.URLs, t.Canonical)
		e.Detail = "its canonical is " + t.Canonical
		add("hreflang.target_non_canonical", fmt.Sprintf("the hreflang alternate %s names %s as its canonical", t.URL, t.Canonical), e)
	}
	return dst
}

// answer describes what the target answered, for messages and evidence.
func (t *Target) answer() string {
	if t.Error != "" {
		return "fetch failed: " + t.Error
	}
	if t.Status == 0 {
		return "no response"
	}
	s := "status " + strconv.Itoa(t.Status)
	if t.Location != "" && t.Status/100 == 3 {
		s += ", Location " + t.Location
	}
	return s
}

// TargetNotChecked returns why a target whose fetch failed with err is
// not checked rather than judged: NotCheckedHostUnresolvable when err says
// the name of the target's host, another than the referring page's, does
// not resolve (a typo, a retired domain, a resolver that is down), which
// says nothing of the target itself; "" otherwise. Page analyses and
// crawls both ask it, for links, images, scripts, stylesheets, canonical
// URLs and hreflang alternates alike.
func TargetNotChecked(err error, pageHost bool) string {
	if err != nil && !pageHost && seo.UnreachableKind(err) == seo.UnreachableDNS {
		return NotCheckedHostUnresolvable
	}
	return ""
}
