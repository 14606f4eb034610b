package analyzer

import (
	"net/url"
	"path"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/seokit/seokit/seo"
)

func init() {
	register(Check{
		Area:  "images",
		Depth: Standard,
		IDs: []seo.CheckInfo{
			{ID: "images.alt_missing", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "An <img> has no alt attribute, and is neither marked decorative (role none or presentation) nor hidden (aria-hidden, hidden, an inline display:none or visibility:hidden).",
				Source:  "Lighthouse image-alt (axe); W3C ACT rule Image has non-empty accessible name (https://www.w3.org/WAI/standards-guidelines/act/rules/23a2a8/); Google Search Central, Image SEO best practices (https://developers.google.com/search/docs/appearance/google-images); Screaming Frog SEO Spider, SEOnaut, PSA",
				Differs: "Like Lighthouse's image-alt, seokit leaves out images marked decorative or hidden, which a list of every <img> without alt includes; unlike it, seokit sees only hiding written in the markup (attributes and inline styles), not by a stylesheet."},
			{ID: "images.alt_empty", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "A content image (a link's only content, or at least 100x100 px) has alt=\"\".",
				Source:  "Google Search Central, Image SEO best practices (https://developers.google.com/search/docs/appearance/google-images); Screaming Frog SEO Spider",
				Differs: "Empty alt is correct for decorative images (HTML Standard), so seokit keeps it a notice."},
			{ID: "images.alt_too_long", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "An alt text is longer than 100 characters.",
				Source: "Screaming Frog SEO Spider and SEOnaut (over 100 characters); Google Search Central, Image SEO best practices (https://developers.google.com/search/docs/appearance/google-images) (avoid keyword-stuffed alt text)"},
			{ID: "images.alt_is_filename", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "An alt text is, or looks like, the image's file name.",
				Source: "seokit's own rule, after Google Search Central, Image SEO best practices (https://developers.google.com/search/docs/appearance/google-images) (alt text that describes the image)"},
			{ID: "images.alt_duplicate", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "One alt text describes several different images.",
				Source: "seokit's own rule, after Google Search Central, Image SEO best practices (https://developers.google.com/search/docs/appearance/google-images) (descriptive, specific alt text); Yoast SEO duplicate alt text"},
			{ID: "images.size_attrs_missing", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "An <img> lacks width or height (and an inline aspect-ratio), so the layout may shift.",
				Source: "HTML Standard, dimension attributes (https://html.spec.whatwg.org/multipage/embedded-content-other.html#dimension-attributes), which prevent layout shift; Screaming Frog SEO Spider, SEOnaut"},
			{ID: "images.picture_without_img", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "A <picture> has no <img> child, so nothing renders.",
				Source: "HTML Standard, the picture element needs an img child (https://html.spec.whatwg.org/multipage/embedded-content.html#the-picture-element); SEOnaut"},
		},
		Run: checkImages,
	})
	registerExtractor(extractImages)
}

// imageSrc returns an image's source: src, else data-src (lazy loading),
// else the first srcset candidate.
func imageSrc(n *html.Node) string {
	if s, ok := Attr(n, "src"); ok && strings.TrimSpace(s) != "" {
		return strings.TrimSpace(s)
	}
	if s, ok := Attr(n, "data-src"); ok && strings.TrimSpace(s) != "" {
		return strings.TrimSpace(s)
	}
	if s, ok := Attr(n, "srcset"); ok {
		for u := range SrcsetCandidates(s) {
			return u
		}
	}
	return ""
}

// extractImages fills Report.Images: all images are counted (those past
// MaxElements too), the first MaxListItems listed.
func extractImages(p *Page) {
	imgs := p.ByTag(atom.Img)
	sum := &p.Report.Images
	sum.Total = len(imgs)
	if t := p.tail; t != nil {
		sum.Total += t.images
		sum.WithoutAlt += t.imagesWithoutAlt
	}
	if len(imgs) == 0 {
		p.Report.Truncated.Note("images", sum.Total, 0)
		return
	}
	listed := min(len(imgs), p.cfg.MaxListItems)
	sum.List = make([]ImageInfo, 0, listed)
	// The <img> elements with a src are, in the same order, the "image"
	// resources, which index resolved already: res walks them alongside.
	res := p.Resources
	for i, n := range imgs {
		if _, ok := Attr(n, "alt"); !ok {
			sum.WithoutAlt++
		}
		if i >= listed {
			continue
		}
		var r *Resource
		for len(res) > 0 && res[0].Kind != "image" {
			res = res[1:]
		}
		if len(res) > 0 && res[0].Node == n {
			r, res = &res[0], res[1:]
		}
		info := ImageInfo{Src: imageSrc(n)}
		if info.Src != "" && !strings.HasPrefix(info.Src, "data:") {
			// The resource's URL is the same when its src trims to the
			// same reference: TrimSpace (imageSrc's) also trims Unicode
			// white space, which resolving keeps.
			var u *url.URL
			if r != nil && seo.TrimC0Space(r.Raw) == info.Src {
				u = r.URL
			} else {
				u = p.Resolve(info.Src)
			}
			if u != nil {
				info.Src = urlString(u, info.Src)
			}
		}
		if a, ok := Attr(n, "alt"); ok {
			info.Alt = &a
		}
		info.Width, _ = Attr(n, "width")
		info.Height, _ = Attr(n, "height")
		sum.List = append(sum.List, info)
	}
	p.Report.Truncated.Note("images", sum.Total, listed)
}

// imgDecorativeOrHidden reports whether an <img> is marked decorative
// (role none or presentation, which ARIA in HTML allows on an img without
// alt, https://www.w3.org/TR/html-aria/#el-img-no-alt) or hidden: kept out
// of the accessibility tree by aria-hidden="true" or the hidden attribute
// on it or an ancestor, or not rendered by an inline display:none on it or
// an ancestor or an inline visibility:hidden (or collapse) that reaches it.
// Lighthouse's image-alt (axe-core) and the W3C ACT rule "Image has
// non-empty accessible name"
// (https://www.w3.org/WAI/standards-guidelines/act/rules/23a2a8/) do not
// ask such an image for alt text: axe's image-alt rule
// (https://github.com/dequelabs/axe-core/blob/develop/lib/rules/image-alt.json)
// leaves excludeHidden at its default, true
// (https://github.com/dequelabs/axe-core/blob/develop/lib/core/base/rule.js),
// so axe never tests an element that is hidden.
//
// Only inline styles count: page analysis applies no stylesheet, so an
// image hidden by a class or a selector is still reported.
func imgDecorativeOrHidden(n *html.Node) bool {
	if role, _ := Attr(n, "role"); role != "" {
		if f := strings.Fields(strings.ToLower(role)); len(f) > 0 && (f[0] == "none" || f[0] == "presentation") {
			return true
		}
	}
	// visibility is inherited and a descendant can set it back to
	// visible, so the nearest element that declares it decides;
	// display:none on any ancestor removes the whole subtree.
	visibilitySeen := false
	for e := n; e != nil && e.Type == html.ElementNode; e = e.Parent {
		if v, ok := Attr(e, "aria-hidden"); ok && strings.EqualFold(strings.TrimSpace(v), "true") {
			return true
		}
		if _, ok := Attr(e, "hidden"); ok {
			return true
		}
		style, ok := Attr(e, "style")
		if !ok {
			continue
		}
		if inlineStyleValue(style, "display") == "none" {
			return true
		}
		if vis := inlineStyleValue(style, "visibility"); vis != "" && !visibilitySeen {
			if vis == "hidden" || vis == "collapse" {
				return true
			}
			visibilitySeen = true
		}
	}
	return false
}

// inlineStyleValue returns the value a style attribute gives a property,
// lowercased and without "!important", as the cascade picks it within one
// declaration block: the last declaration, an important one over normal
// ones. It splits declarations at every ";", which is enough for keyword
// properties such as display and visibility (a ";" inside a string or
// url() only garbles the declaration that holds it), and decodes no
// comment or escape.
func inlineStyleValue(style, prop string) string {
	val, important := "", false
	for d := range strings.SplitSeq(style, ";") {
		name, v, ok := strings.Cut(d, ":")
		if !ok || !strings.EqualFold(strings.TrimSpace(name), prop) {
			continue
		}
		v = strings.ToLower(strings.TrimSpace(v))
		imp := false
		if i := strings.LastIndexByte(v, '!'); i >= 0 && strings.TrimSpace(v[i+1:]) == "important" {
			v, imp = strings.TrimSpace(v[:i]), true
		}
		if important && !imp {
			continue
		}
		val, important = v, imp
	}
	return val
}

func checkImages(p *Page, r *Reporter) {
	th := p.Thresholds()
	type altUse struct {
		first string
		srcs  []string // the first MaxEvidenceURLs distinct sources
		more  int      // further uses, not deduplicated
	}
	maxSrcs := p.cfg.MaxEvidenceURLs
	alts := map[string]*altUse{}
	var altOrder []string
	seenPair := map[string]bool{}

	imgs := p.ByTag(atom.Img)
	list := p.Report.Images.List
	for i, n := range imgs {
		src := imageSrc(n)
		// The resolved source, from the list when extractImages has it,
		// else resolved only when a finding or the alt index needs it.
		abs, resolved := "", false
		if i < len(list) {
			abs, resolved = list[i].Src, true
		}
		absSrc := func() string {
			if !resolved {
				abs, resolved = src, true
				if src != "" && !strings.HasPrefix(src, "data:") {
					if u := p.Resolve(src); u != nil {
						abs = u.String()
					}
				}
			}
			return abs
		}
		elem := outerLazy{n: n}
		urls := func() []string {
			if a := absSrc(); a != "" && !strings.HasPrefix(a, "data:") {
				return []string{a}
			}
			return nil
		}
		alt, hasAlt := Attr(n, "alt")
		calt := Collapse(alt)
		switch {
		case !hasAlt:
			if !imgDecorativeOrHidden(n) {
				r.addLazy("images.alt_missing", "an image has no alt attribute", func() seo.Evidence {
					return seo.Evidence{Element: elem.String(), Value: src, URLs: urls()}
				})
			}
		case calt == "":
			if why := contentImage(n, th.AltEmptyMinPixels); why != "" {
				r.addLazy("images.alt_empty", "a content image has an empty alt text", func() seo.Evidence {
					return seo.Evidence{Element: elem.String(), Value: src, URLs: urls(), Detail: why}
				})
			}
		default:
			if l := Length(calt); l > th.AltMaxChars {
				r.addLazy("images.alt_too_long", "an alt text is too long", func() seo.Evidence {
					ev := seo.Measure(elem.String(), float64(l), float64(th.AltMaxChars))
					ev.Value, ev.URLs = calt, urls()
					return ev
				})
			}
			if why := altLooksLikeFilename(calt, src); why != "" {
				r.addLazy("images.alt_is_filename", "an alt text is a file name, not a description", func() seo.Evidence {
					return seo.Evidence{Element: elem.String(), Value: calt, URLs: urls(), Detail: why}
				})
			}
			key := strings.ToLower(calt)
			u := alts[key]
			if u == nil {
				u = &altUse{first: calt}
				alts[key] = u
				altOrder = append(altOrder, key)
			}
			if a := absSrc(); a != "" {
				// Past the evidence cap, uses are counted, not compared,
				// so the index stays small.
				if pair := key + "\x00" + a; len(u.srcs) < maxSrcs && !seenPair[pair] {
					seenPair[pair] = true
					u.srcs = append(u.srcs, a)
				} else if len(u.srcs) >= maxSrcs {
					u.more++
				}
			}
		}
		if !hasSizeAttrs(n) {
			w, _ := Attr(n, "width")
			h, _ := Attr(n, "height")
			r.addLazy("images.size_attrs_missing", "an image has no width and height, so the layout shifts when it loads", func() seo.Evidence {
				return seo.Evidence{Element: elem.String(), Value: src, URLs: urls(), Detail: "width=" + strconv.Quote(w) + " height=" + strconv.Quote(h)}
			})
		}
	}
	for _, key := range altOrder {
		if u := alts[key]; len(u.srcs) > 1 {
			ev := seo.Measure("<img alt>", float64(len(u.srcs)+u.more), 1)
			ev.Value, ev.URLs = u.first, u.srcs
			r.Add("images.alt_duplicate", "one alt text is used for different images", ev)
		}
	}
	for _, pic := range p.ByTag(atom.Picture) {
		has := false
		for c := pic.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && c.DataAtom == atom.Img {
				has = true
				break
			}
		}
		if !has {
			r.addLazy("images.picture_without_img", "a <picture> element has no <img>, so nothing is shown", func() seo.Evidence {
				return seo.Evidence{Element: Outer(pic)}
			})
		}
	}
}

// outerLazy renders an element's start tag for evidence only when needed.
type outerLazy struct {
	n *html.Node
	s string
}

func (o *outerLazy) String() string {
	if o.s == "" {
		o.s = Outer(o.n)
	}
	return o.s
}

// hasSizeAttrs reports whether an image reserves its space: both width and
// height attributes, or an inline CSS aspect-ratio.
func hasSizeAttrs(n *html.Node) bool {
	w, wok := Attr(n, "width")
	h, hok := Attr(n, "height")
	if wok && hok && strings.TrimSpace(w) != "" && strings.TrimSpace(h) != "" {
		return true
	}
	st, _ := Attr(n, "style")
	return foldIndex(st, "aspect-ratio") >= 0
}

// contentImage says why an image with empty alt looks like content ("" when
// it looks decorative): it is the only content of a link, or it declares a
// width and height of at least minPx.
func contentImage(n *html.Node, minPx int) string {
	for a := n.Parent; a != nil; a = a.Parent {
		if a.Type == html.ElementNode && a.DataAtom == atom.A {
			if _, ok := Attr(a, "aria-label"); !ok && Collapse(TextContent(a)) == "" && !otherLabelledImage(a, n) {
				return "only content of a link"
			}
			break
		}
	}
	w, _ := Attr(n, "width")
	h, _ := Attr(n, "height")
	if wv, hv := leadingInt(w), leadingInt(h); wv >= minPx && hv >= minPx {
		return "declared " + strconv.Itoa(wv) + "x" + strconv.Itoa(hv) + " px"
	}
	return ""
}

// otherLabelledImage reports whether the link holds an image other than
// self with a non-empty alt (which then names the link).
func otherLabelledImage(a, self *html.Node) bool {
	found := false
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil && !found; c = c.NextSibling {
			if c.Type != html.ElementNode || inertTemplate(c) {
				continue
			}
			if c != self && c.DataAtom == atom.Img {
				if alt, _ := Attr(c, "alt"); strings.TrimSpace(alt) != "" {
					found = true
				}
			}
			walk(c)
		}
	}
	walk(a)
	return found
}

// leadingInt parses the leading decimal digits of s ("300", "300px");
// -1 when there are none.
func leadingInt(s string) int {
	s = strings.TrimSpace(s)
	v, n := 0, 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' && n < 9 {
		v = v*10 + int(s[n]-'0')
		n++
	}
	if n == 0 {
		return -1
	}
	return v
}

// imageExts are file extensions that give an alt text away as a file name.
var imageExts = []string{".jpg", ".jpeg", ".png", ".webp", ".gif", ".svg", ".avif", ".bmp", ".tif", ".tiff", ".heic", ".ico"}

// cameraPrefixes start the default file names of cameras, phones and
// screenshot tools (IMG_1234, DSC0001, PXL_20240101_...).
var cameraPrefixes = []string{"img", "dsc", "dscn", "dscf", "pxl", "pict", "image", "photo", "screenshot", "screen shot", "capture", "dji", "gopr", "mvimg", "wp"}

// altLooksLikeFilename says why alt looks like a file name ("" when it
// does not).
func altLooksLikeFilename(alt, src string) string {
	low := strings.ToLower(alt)
	for _, ext := range imageExts {
		if strings.HasSuffix(low, ext) && !strings.Contains(strings.TrimSpace(low), " ") {
			return "ends in " + ext
		}
	}
	if name := imageFileName(src); name != "" {
		base := strings.TrimSuffix(name, path.Ext(name))
		if low == name || (len(base) > 2 && low == base) {
			return "equals the file name " + name
		}
	}
	for _, pre := range cameraPrefixes {
		if !strings.HasPrefix(low, pre) {
			continue
		}
		rest := low[len(pre):]
		if strings.HasPrefix(pre, "screen") { // "Screenshot 2024-05-01 at 10.10.10 PM"
			rest = strings.ReplaceAll(rest, " at ", " ")
			rest = strings.TrimSuffix(strings.TrimSuffix(rest, " am"), " pm")
		}
		digits := 0
		ok := true
		for i := 0; i < len(rest); i++ {
			switch c := rest[i]; {
			case c >= '0' && c <= '9':
				digits++
			case c == '_' || c == '-' || c == ' ' || c == '.':
			default:
				ok = false
			}
			if !ok {
				break
			}
		}
		if ok && digits >= 3 {
			return "looks like a camera or tool file name"
		}
	}
	return ""
}

// anyBase resolves references whose path alone matters.
var anyBase, _ = seo.NewBaseURL(&url.URL{Scheme: "http", Host: "example.invalid", Path: "/"})

// imageFileName returns the lowercase, unescaped last path segment of src.
func imageFileName(src string) string {
	if src == "" || strings.HasPrefix(src, "data:") {
		return ""
	}
	u, err := anyBase.Resolve(src)
	if err != nil {
		return ""
	}
	name := path.Base(u.Path)
	if name == "." || name == "/" {
		return ""
	}
	return strings.ToLower(name)
}
