package analyzer

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"image"
	_ "image/gif"  // registers GIF for image.DecodeConfig (og:image size)
	_ "image/jpeg" // registers JPEG
	_ "image/png"  // registers PNG
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/seokit/seokit/seo"
)

func init() {
	link := func(id string, sev seo.Severity, summary, source, differs string) seo.CheckInfo {
		return seo.CheckInfo{ID: id, Severity: sev, Scope: seo.ScopeLink, Summary: summary, Source: source, Differs: differs}
	}
	declare(
		link("links.broken_internal", seo.Error, "An internal link target answers 4xx/5xx or cannot be fetched.",
			"Google Search Central, HTTP status codes and network errors (https://developers.google.com/search/docs/crawling-indexing/http-network-errors); Screaming Frog SEO Spider, SEOnaut", ""),
		link("links.broken_external", seo.Warning, "An external link target answers 4xx/5xx or cannot be fetched.",
			"Screaming Frog SEO Spider, SEOnaut (external 4xx/5xx)", ""),
		link("links.redirect_internal", seo.Warning, "An internal link target answers with a redirect.",
			"Google Search Central, Redirects and Google Search (https://developers.google.com/search/docs/crawling-indexing/301-redirects) (link to the final URL); Screaming Frog SEO Spider", ""),
		link("links.redirect_external", seo.Notice, "An external link target answers with a redirect.",
			"Google Search Central, Redirects and Google Search (https://developers.google.com/search/docs/crawling-indexing/301-redirects); Screaming Frog SEO Spider, SEOnaut", ""),
		link("images.too_large", seo.Warning, "An image is larger than the byte limit (500 KB by default).",
			"SEOnaut (500 KB); Google Search Central, Image SEO best practices (https://developers.google.com/search/docs/appearance/google-images)", "Screaming Frog flags images over 100 KB; seokit uses SEOnaut's 500 KB, so that ordinary photos do not all fire."),
		link("images.broken", seo.Warning, "An image source answers 4xx/5xx, cannot be fetched, or is not served as an image.",
			"Google Search Central, Image SEO best practices (https://developers.google.com/search/docs/appearance/google-images); Screaming Frog SEO Spider, SEOnaut",
			"An image on another host whose name does not resolve is not checked (images.list[].notChecked host_unresolvable), not broken: the lookup failing says nothing of the image, as the crawl's external checks give up such hosts rather than call their targets broken."),
		link("resources.broken_script", seo.Warning, "A <script src> answers 4xx/5xx or cannot be fetched.",
			"Screaming Frog SEO Spider (JavaScript response codes); Google Search Central, Understand the JavaScript SEO basics (https://developers.google.com/search/docs/crawling-indexing/javascript/javascript-seo-basics): Google renders pages with their scripts",
			"A script on another host whose name does not resolve is not checked, not broken, as for images."),
		link("resources.broken_stylesheet", seo.Warning, "A <link rel=stylesheet> answers 4xx/5xx or cannot be fetched.",
			"Screaming Frog SEO Spider (CSS response codes); Google Search Central, Understand the JavaScript SEO basics (https://developers.google.com/search/docs/crawling-indexing/javascript/javascript-seo-basics): Google renders pages with their CSS",
			"A stylesheet on another host whose name does not resolve is not checked, not broken, as for images."),
		link("canonical.target_error", seo.Error, "The canonical URL answers 4xx/5xx or cannot be fetched.",
			"Google Search Central, Consolidate duplicate URLs (https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls); Screaming Frog SEO Spider, SEOnaut", ""),
		link("canonical.target_redirect", seo.Warning, "The canonical URL answers with a redirect.",
			"Google Search Central, Consolidate duplicate URLs (https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls); Screaming Frog SEO Spider, SEOnaut", ""),
		link("canonical.target_noindex", seo.Error, "The canonical URL is noindex or disallowed by robots.txt.",
			"Google Search Central, Consolidate duplicate URLs (https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls); Screaming Frog SEO Spider, SEOnaut", ""),
		link("hreflang.target_error", seo.Warning, "An hreflang alternate answers 4xx/5xx or cannot be fetched.",
			"Google Search Central, Localized versions of your page (https://developers.google.com/search/docs/specialty/international/localized-versions); Screaming Frog SEO Spider, SEOnaut", ""),
		link("hreflang.target_redirect", seo.Warning, "An hreflang alternate answers with a redirect.",
			"Google Search Central, Localized versions of your page (https://developers.google.com/search/docs/specialty/international/localized-versions); Screaming Frog SEO Spider, SEOnaut", ""),
		link("hreflang.target_noindex", seo.Warning, "An hreflang alternate is noindex or disallowed by robots.txt.",
			"Google Search Central, Localized versions of your page (https://developers.google.com/search/docs/specialty/international/localized-versions); Screaming Frog SEO Spider, SEOnaut", ""),
		link("hreflang.target_non_canonical", seo.Warning, "An hreflang alternate declares another URL as its canonical.",
			"Google Search Central, Localized versions of your page (https://developers.google.com/search/docs/specialty/international/localized-versions); Screaming Frog SEO Spider, SEOnaut", ""),
		link("hreflang.return_missing", seo.Warning, "An hreflang alternate does not list this page back.",
			"Google Search Central, Localized versions of your page (https://developers.google.com/search/docs/specialty/international/localized-versions) (return links); Screaming Frog SEO Spider, SEOnaut", ""),
		link("social.og_image_broken", seo.Warning, "The og:image URL does not answer 200 with an image.",
			"seokit's own rule, after The Open Graph protocol (https://ogp.me/)", ""),
		link("social.og_image_small", seo.Notice, "The og:image is smaller than the minimum size (200x200 px by default).",
			"seokit's own rule, after The Open Graph protocol (https://ogp.me/): small images get no large preview card", ""),
	)
}

// lcKind says why a URL is checked; one URL may be several kinds at once.
type lcKind uint8

const (
	lcLink lcKind = 1 << iota
	lcImage
	lcCanonical
	lcHreflang
	lcOGImage
	lcScript
	lcStylesheet
)

// lcHeadLimit is the number of bytes read of an og:image to find its size.
const lcHeadLimit = 64 << 10

// lcTarget is one distinct URL to check and, once fetched, what it answered.
type lcTarget struct {
	key      string // normalised URL, the identity of the target
	url      *url.URL
	kinds    lcKind
	internal bool
	// Evidence elements of the first reference of each kind.
	linkEl, imageEl, canonEl, hreflangEl, ogEl, scriptEl, cssEl string
	// pageHost: the target is on the analysed page's host.
	pageHost bool

	checked  bool
	status   int
	location string
	errMsg   string
	ctype    string
	size     int64 // -1 when unknown
	width    int   // og:image dimensions, 0 when unknown
	height   int
	blocked  bool     // robots.txt disallows the URL
	facts    *lcFacts // robots, canonical and hreflang of an HTML target
	// notChecked says why the target is not checked rather than judged:
	// its host, another than the page's, does not resolve
	// (TargetNotChecked), or the link check's time budget ran out
	// (NotCheckedTimeBudget); "" when it was checked.
	notChecked string
}

// lcAlt is one hreflang alternate.
type lcAlt struct{ code, url string }

// lcFacts are the indexing signals of a document: noindex, canonical URLs,
// hreflang alternates and rel="alternate" media links.
type lcFacts struct {
	noindex    bool
	noindexSrc string
	canonicals []string
	alternates []lcAlt
	media      []string
}

// runLinkChecks fetches every link, image, canonical, hreflang and og:image
// target of the page (and its refresh's target, as a link) once, with
// bounded global and per-host parallelism, within Options.LinkCheckBudget,
// and reports the link-scope findings.
func runLinkChecks(ctx context.Context, p *Page, env *fetchEnv, r *Reporter) {
	if !p.IsHTML || env == nil || env.Fetcher == nil {
		return
	}
	cfg := p.cfg
	targets, unchecked := lcCollect(p, r)
	checked := targets
	// The checks run under the budget's context, so that its end cancels
	// those queued and in flight at once; ctx still tells a cancelled
	// analysis from a spent budget.
	bctx := ctx
	if cfg.LinkCheckBudget > 0 {
		var cancel context.CancelFunc
		bctx, cancel = context.WithTimeout(ctx, cfg.LinkCheckBudget)
		defer cancel()
	}

	global := make(chan struct{}, cfg.LinkConcurrency)
	perHost := map[string]chan struct{}{}
	for _, t := range checked {
		if perHost[t.url.Host] == nil {
			perHost[t.url.Host] = make(chan struct{}, cfg.LinkConcurrencyPerHost)
		}
	}
	wantSize := r.Enabled("images.too_large")
	var wg sync.WaitGroup
	for _, t := range checked {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if t.kinds&(lcCanonical|lcHreflang) != 0 && env.Robots != nil {
				if allowed, known := env.Robots.Allowed(bctx, t.url.String(), env.UserAgent); known && !allowed {
					t.blocked = true
				}
			}
			hs := perHost[t.url.Host]
			select {
			case hs <- struct{}{}:
			case <-bctx.Done():
				return
			}
			defer func() { <-hs }()
			select {
			case global <- struct{}{}:
			case <-bctx.Done():
				return
			}
			defer func() { <-global }()
			lcFetch(bctx, env, cfg, t, wantSize)
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		// The analysis was cancelled: failures say nothing about the targets.
		return
	}
	if bctx.Err() != nil {
		// The budget ran out: the targets whose check did not end are
		// not checked, neither broken nor fine.
		for _, t := range checked {
			if !t.checked {
				t.checked, t.notChecked = true, NotCheckedTimeBudget
			}
		}
	}

	lcFill(p, targets, unchecked)
	pageKeys := lcPageKeys(p)
	for _, t := range checked {
		lcReport(p, r, t, pageKeys)
	}
}

// lcReportMu guards the link and image lists of reports while link checks
// write their statuses.
var lcReportMu sync.Mutex

// lcFill writes the statuses of checked targets into the report's link and
// image lists, matching them by normalised URL.
func lcFill(p *Page, targets []*lcTarget, unchecked int) {
	byKey := make(map[string]*lcTarget, len(targets))
	for _, t := range targets {
		byKey[t.key] = t
	}
	lookup := func(raw string) *lcTarget {
		u := p.Resolve(raw)
		if u == nil {
			return nil
		}
		t := byKey[lcKey(u)]
		if t == nil || !t.checked {
			return nil
		}
		return t
	}
	lcReportMu.Lock()
	defer lcReportMu.Unlock()
	rep := p.Report
	rep.Links.Unchecked = unchecked
	outOfTime := 0
	for _, t := range targets {
		if t.checked && t.notChecked != "" && t.kinds&lcLink != 0 {
			rep.Links.Unchecked++
		}
		if t.notChecked == NotCheckedTimeBudget {
			outOfTime++
		}
	}
	rep.Truncated.Note("linkChecks", len(targets), len(targets)-outOfTime)
	for i := range rep.Links.List {
		if t := lookup(rep.Links.List[i].URL); t != nil && t.kinds&lcLink != 0 {
			if t.notChecked != "" {
				rep.Links.List[i].NotChecked = t.notChecked
				continue
			}
			rep.Links.List[i].Status = t.status
			rep.Links.List[i].Error = t.errMsg
		}
	}
	for i := range rep.Images.List {
		if t := lookup(rep.Images.List[i].Src); t != nil && t.kinds&lcImage != 0 {
			if t.notChecked != "" {
				rep.Images.List[i].NotChecked = t.notChecked
				rep.Images.Unchecked++
				continue
			}
			rep.Images.List[i].Status = t.status
			if t.size >= 0 {
				rep.Images.List[i].Bytes = t.size
			}
		}
	}
}

// lcKey is the identity of a URL for de-duplication.
func lcKey(u *url.URL) string { return seo.NormalizeURL(u, nil).String() }

// lcCollect lists the distinct targets in check order: canonical, hreflang
// and og:image first (few and important), then links and images in
// document order. Kinds whose IDs are all disabled are left out. It keeps
// at most MaxLinkChecks targets and counts the distinct others (unchecked).
func lcCollect(p *Page, r *Reporter) (list []*lcTarget, unchecked int) {
	enabled := func(ids ...string) bool {
		for _, id := range ids {
			if r.Enabled(id) {
				return true
			}
		}
		return false
	}
	wantInternal := enabled("links.broken_internal", "links.redirect_internal")
	wantExternal := enabled("links.broken_external", "links.redirect_external")
	c := newLCCollector(p)
	if enabled("canonical.target_error", "canonical.target_redirect", "canonical.target_noindex") {
		c.canonicals()
	}
	if enabled("hreflang.target_error", "hreflang.target_redirect", "hreflang.target_noindex",
		"hreflang.target_non_canonical", "hreflang.return_missing") {
		c.hreflangs()
	}
	if enabled("social.og_image_broken", "social.og_image_small") {
		c.ogImages()
	}
	if wantInternal || wantExternal {
		c.links(wantInternal, wantExternal)
	}
	if enabled("images.too_large", "images.broken") {
		c.images()
	}
	if wantScripts, wantStylesheets := enabled("resources.broken_script"), enabled("resources.broken_stylesheet"); wantScripts || wantStylesheets {
		c.scriptsAndStylesheets(wantScripts, wantStylesheets)
	}
	return c.list, len(c.over)
}

// lcCollector gathers a page's distinct targets for lcCollect.
type lcCollector struct {
	p    *Page
	list []*lcTarget
	idx  map[string]*lcTarget
	// Targets past MaxLinkChecks are only counted, by a hash of their key,
	// so that a page of a million links keeps a small index.
	over   map[uint64]struct{}
	self   string // the page's own key
	selfOK bool   // the page itself answered 200 (or was given as bytes)
	own    *lcFacts
}

func newLCCollector(p *Page) *lcCollector {
	return &lcCollector{
		p: p, idx: map[string]*lcTarget{}, over: map[uint64]struct{}{},
		self: lcKey(p.URL), selfOK: p.Response == nil || p.Response.Status == http.StatusOK,
	}
}

// facts returns the page's own canonical and hreflang facts, read once.
func (c *lcCollector) facts() *lcFacts {
	if c.own == nil {
		c.own = lcFactsOfPage(c.p)
	}
	return c.own
}

// add records u as a target of kind found in element el, and returns its
// target (nil when u is not checked: not a web URL, the page itself, or
// past MaxLinkChecks).
func (c *lcCollector) add(u *url.URL, kind lcKind, el string) *lcTarget {
	if !isWebURL(u) {
		return nil
	}
	cu := *u
	cu.Fragment, cu.RawFragment = "", ""
	key := lcKey(&cu)
	if kind&(lcCanonical|lcHreflang) != 0 && key == c.self && c.selfOK {
		// The page itself was just fetched and analysed.
		return nil
	}
	t := c.idx[key]
	if t == nil {
		if len(c.list) >= c.p.cfg.MaxLinkChecks {
			h := fnv.New64a()
			h.Write([]byte(key))
			c.over[h.Sum64()] = struct{}{}
			return nil
		}
		t = &lcTarget{key: key, url: &cu, size: -1, pageHost: c.p.URL != nil && cu.Host == c.p.URL.Host}
		c.idx[key] = t
		c.list = append(c.list, t)
	}
	t.kinds |= kind
	switch kind {
	case lcLink:
		if t.linkEl == "" {
			t.linkEl = el
		}
	case lcImage:
		if t.imageEl == "" {
			t.imageEl = el
		}
	case lcCanonical:
		if t.canonEl == "" {
			t.canonEl = el
		}
	case lcHreflang:
		if t.hreflangEl == "" {
			t.hreflangEl = el
		}
	case lcOGImage:
		if t.ogEl == "" {
			t.ogEl = el
		}
	case lcScript:
		if t.scriptEl == "" {
			t.scriptEl = el
		}
	case lcStylesheet:
		if t.cssEl == "" {
			t.cssEl = el
		}
	}
	return t
}

// canonicals adds the canonical targets: the report's, or the page's own
// when the report has none.
func (c *lcCollector) canonicals() {
	p := c.p
	if len(p.Report.Canonical) > 0 {
		for _, cn := range p.Report.Canonical {
			el := `<link rel="canonical">`
			if cn.Source == "header" {
				el = "Link header"
			}
			c.add(p.Resolve(cn.URL), lcCanonical, el)
		}
		return
	}
	for _, cn := range c.facts().canonicals {
		c.add(p.Resolve(cn), lcCanonical, `<link rel="canonical">`)
	}
}

// hreflangs adds the hreflang alternates (not those from sitemaps): the
// report's, or the page's own when the report has none.
func (c *lcCollector) hreflangs() {
	p := c.p
	if len(p.Report.Hreflang) > 0 {
		for _, a := range p.Report.Hreflang {
			if a.Source == "sitemap" {
				continue
			}
			c.add(p.Resolve(a.URL), lcHreflang, `<link rel="alternate" hreflang="`+a.Code+`">`)
		}
		return
	}
	for _, a := range c.facts().alternates {
		c.add(p.Resolve(a.url), lcHreflang, `<link rel="alternate" hreflang="`+a.code+`">`)
	}
}

// ogImages adds the og:image URLs of the meta tags.
func (c *lcCollector) ogImages() {
	p := c.p
	for _, m := range p.ByTag(atom.Meta) {
		prop, _ := Attr(m, "property")
		if prop == "" {
			prop, _ = Attr(m, "name")
		}
		switch strings.ToLower(strings.TrimSpace(prop)) {
		case "og:image", "og:image:url", "og:image:secure_url":
			if v, ok := Attr(m, "content"); ok && strings.TrimSpace(v) != "" {
				c.add(p.Resolve(v), lcOGImage, Outer(m))
			}
		}
	}
}

// links adds the links and the refresh target, internal and external as
// wanted: a disabled check costs no request.
func (c *lcCollector) links(wantInternal, wantExternal bool) {
	add := func(u *url.URL, internal bool, el func() string) {
		if (internal && !wantInternal) || (!internal && !wantExternal) {
			return
		}
		if t := c.add(u, lcLink, ""); t != nil {
			t.internal = t.internal || internal
			if t.linkEl == "" {
				t.linkEl = el()
			}
		}
	}
	for _, l := range c.p.Links {
		if l.URL != nil {
			add(l.URL, l.Internal, func() string { return Outer(l.Node) })
		}
	}
	// A refresh sends visitors on as a link would (crawlers list it with
	// the page's outlinks, and Google follows it as a redirect): its
	// target is checked as a link's.
	if u, el, v := c.p.refresh(); isWebURL(u) {
		if el == "Refresh" {
			el += ": " + v
		}
		add(u, seo.HostInScope(u.Hostname(), c.p.URL.Hostname(), false), func() string { return el })
	}
}

// scriptsAndStylesheets adds the page's <script src> and stylesheet
// targets.
func (c *lcCollector) scriptsAndStylesheets(wantScripts, wantStylesheets bool) {
	for _, res := range c.p.Resources {
		switch {
		case res.Kind == "script" && wantScripts:
			c.add(res.URL, lcScript, Outer(res.Node))
		case res.Kind == "stylesheet" && wantStylesheets:
			c.add(res.URL, lcStylesheet, Outer(res.Node))
		}
	}
}

// images adds the image resources and every srcset candidate of an
// <img> or a <picture>'s <source>.
func (c *lcCollector) images() {
	p := c.p
	for _, res := range p.Resources {
		if res.Kind == "image" {
			if t := c.add(res.URL, lcImage, ""); t != nil && t.imageEl == "" {
				t.imageEl = Outer(res.Node)
			}
		}
	}
	srcset := func(n *html.Node) {
		ss, ok := Attr(n, "srcset")
		if !ok {
			return
		}
		for cand := range SrcsetCandidates(ss) {
			if strings.HasPrefix(cand, "data:") {
				continue
			}
			if t := c.add(p.Resolve(cand), lcImage, ""); t != nil && t.imageEl == "" {
				t.imageEl = Outer(n)
			}
		}
	}
	for _, img := range p.ByTag(atom.Img) {
		srcset(img)
	}
	// A <picture>'s <source> elements offer the image's other sources,
	// which browsers pick from by media and type.
	for _, n := range p.ByTag(atom.Source) {
		if n.Parent != nil && n.Parent.DataAtom == atom.Picture {
			srcset(n)
		}
	}
}

func isHTMLSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f'
}

// lcFetch fetches one target: HEAD first, GET when HEAD is refused or the
// body is needed. Redirects are never followed; a 3xx is the answer.
func lcFetch(ctx context.Context, env *fetchEnv, cfg *config, t *lcTarget, wantSize bool) {
	fetch := func(req *seo.Request) (*seo.Response, error) {
		c, cancel := context.WithTimeout(ctx, cfg.LinkTimeout)
		defer cancel()
		req.URL = t.url.String()
		req.UserAgent = env.UserAgent
		req.NoFollow = true
		return env.Fetcher.Fetch(c, req)
	}
	needHTML := t.kinds&(lcCanonical|lcHreflang) != 0
	needHead := t.kinds&lcOGImage != 0
	isImage := t.kinds&lcImage != 0
	sizeCap := cfg.th.ImageMaxBytes + 1

	var resp *seo.Response
	var err error
	switch {
	case needHTML:
		resp, err = fetch(&seo.Request{Method: http.MethodGet})
	case needHead:
		resp, err = fetch(&seo.Request{Method: http.MethodGet, MaxBodyBytes: lcHeadLimit})
	default:
		resp, err = fetch(&seo.Request{Method: http.MethodHead, DiscardBody: true})
		refused := err != nil || resp == nil
		if !refused {
			switch resp.Status {
			case http.StatusMethodNotAllowed, http.StatusNotImplemented, http.StatusForbidden, http.StatusBadRequest:
				refused = true
			}
		}
		countBody := !refused && isImage && wantSize && resp.Status >= 200 && resp.Status < 300 &&
			lcContentLength(resp.Header) < 0
		if refused || countBody {
			limit := int64(lcHeadLimit)
			if isImage {
				limit = sizeCap
			}
			resp, err = fetch(&seo.Request{Method: http.MethodGet, DiscardBody: true, MaxBodyBytes: limit})
		}
	}
	t.checked = true
	if err != nil || resp == nil || resp.Status == 0 {
		if err == nil {
			err = fmt.Errorf("analyzer: no response from %s", t.url)
		}
		t.errMsg = err.Error()
		if resp != nil {
			t.status = resp.Status
		}
		switch {
		case ctx.Err() != nil:
			// The budget ran out (runLinkChecks reports nothing when the
			// analysis itself was cancelled): the failure is the cut's.
			t.notChecked = NotCheckedTimeBudget
		case t.status == 0:
			t.notChecked = TargetNotChecked(err, t.internal || t.pageHost)
		}
		return
	}
	t.status = resp.Status
	h := resp.Header
	if h == nil {
		h = http.Header{}
	}
	t.ctype = resp.ContentType
	if t.ctype == "" {
		t.ctype = h.Get("Content-Type")
	}
	if loc := h.Get("Location"); loc != "" {
		t.location = loc
		if lu, err := seo.ResolveReference(t.url, loc); err == nil {
			t.location = lu.String()
		}
	}
	if n := lcContentLength(h); n >= 0 {
		t.size = n
	} else if resp.BodyBytes > 0 && (!resp.Truncated || resp.BodyBytes > cfg.th.ImageMaxBytes) {
		t.size = resp.BodyBytes
	}
	if resp.Status < 200 || resp.Status >= 300 {
		return
	}
	if needHead && len(resp.Body) > 0 {
		t.width, t.height = lcImageSize(resp.Body)
	}
	if needHTML {
		t.facts = lcFactsOfDoc(resp, t.url)
	}
}

// lcContentLength returns the Content-Length header, or -1.
func lcContentLength(h http.Header) int64 {
	v := strings.TrimSpace(h.Get("Content-Length"))
	if v == "" {
		return -1
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// lcPageKeys are the keys by which an alternate may name this page: its
// final URL, the URL asked for, and its canonical URLs.
func lcPageKeys(p *Page) map[string]bool {
	keys := map[string]bool{lcKey(p.URL): true}
	if p.Response != nil && p.Response.RequestedURL != "" {
		if u, err := seo.ParseHref(p.Response.RequestedURL); err == nil && u.Host != "" {
			keys[lcKey(u)] = true
		}
	}
	for _, c := range p.Report.Canonical {
		if u := p.Resolve(c.URL); u != nil {
			keys[lcKey(u)] = true
		}
	}
	return keys
}

// lcReport reports the findings of one checked target.
func lcReport(p *Page, r *Reporter, t *lcTarget, pageKeys map[string]bool) {
	if !t.checked {
		return
	}
	u := t.url.String()
	failed := t.errMsg != "" || t.status == 0
	redirect := !failed && t.status >= 300 && t.status < 400
	ok := !failed && t.status >= 200 && t.status < 300
	// Link, image, canonical and hreflang verdicts are TargetFindings',
	// shared with the crawl.
	tg := Target{URL: u, Fetched: true, Status: t.status, Error: t.errMsg, Location: t.location, Blocked: t.blocked}
	what := tg.answer()
	ev := func(el string) seo.Evidence {
		e := seo.Evidence{Element: el, Value: u, URLs: []string{u}, Detail: what}
		if redirect && t.location != "" {
			e.URLs = append(e.URLs, t.location)
		}
		return e
	}

	verdicts := func(kind TargetKind, el string) {
		tg.Kind, tg.Element = kind, el
		for _, f := range TargetFindings(nil, &tg) {
			r.Add(f.ID, f.Message, f.Evidence)
		}
	}
	if t.notChecked != "" {
		// Its host is not in the DNS, or the budget ran out: nothing is
		// known of the target (LinkInfo.NotChecked and
		// ImageInfo.NotChecked say so).
		return
	}
	if t.kinds&lcLink != 0 {
		kind := ExternalLink
		if t.internal {
			kind = InternalLink
		}
		verdicts(kind, t.linkEl)
	}
	if t.kinds&lcImage != 0 {
		tg.ContentType = t.ctype
		verdicts(ImageTarget, t.imageEl)
		tg.ContentType = ""
		if ok && t.size > p.cfg.th.ImageMaxBytes {
			e := seo.Measure(t.imageEl, float64(t.size), float64(p.cfg.th.ImageMaxBytes))
			e.Value, e.URLs = u, []string{u}
			r.Add("images.too_large", fmt.Sprintf("the image %s weighs %d bytes, over the %d byte limit", u, t.size, p.cfg.th.ImageMaxBytes), e)
		}
	}
	if t.kinds&lcScript != 0 {
		verdicts(ScriptTarget, t.scriptEl)
	}
	if t.kinds&lcStylesheet != 0 {
		verdicts(StylesheetTarget, t.cssEl)
	}
	if t.facts != nil && ok {
		tg.Noindex, tg.NoindexSource = t.facts.noindex, t.facts.noindexSrc
	}
	if t.kinds&lcCanonical != 0 {
		verdicts(CanonicalTarget, t.canonEl)
	}
	if t.kinds&lcHreflang != 0 {
		if ok && t.facts != nil {
			if c := t.facts.canonicals; len(c) > 0 && !lcContainsKey(c, t.url, t.key) {
				tg.Canonical = c[0]
			}
		}
		verdicts(HreflangTarget, t.hreflangEl)
		if ok && t.facts != nil {
			back := false
			for _, a := range t.facts.alternates {
				if au, err := seo.ResolveReference(t.url, a.url); err == nil && pageKeys[lcKey(au)] {
					back = true
					break
				}
			}
			if !back {
				e := ev(t.hreflangEl)
				e.Detail = fmt.Sprintf("it lists %d alternates, none of them this page", len(t.facts.alternates))
				r.Add("hreflang.return_missing", fmt.Sprintf("the hreflang alternate %s does not link back to this page", u), e)
			}
		}
	}
	if t.kinds&lcOGImage != 0 {
		switch {
		case failed || t.status != http.StatusOK:
			r.Add("social.og_image_broken", fmt.Sprintf("the og:image %s does not answer 200 (%s)", u, what), ev(t.ogEl))
		case t.ctype != "" && !lcIsImageType(t.ctype):
			e := ev(t.ogEl)
			e.Detail = what + ", Content-Type " + t.ctype
			r.Add("social.og_image_broken", fmt.Sprintf("the og:image %s is served as %s, not as an image", u, lcMediaType(t.ctype)), e)
		case t.width > 0 && t.height > 0:
			minPx := p.cfg.th.OGImageMinPixels
			if t.width < minPx || t.height < minPx {
				small := t.width
				if t.height < small {
					small = t.height
				}
				e := seo.Measure(t.ogEl, float64(small), float64(minPx))
				e.Value, e.URLs = u, []string{u}
				e.Detail = fmt.Sprintf("%dx%d px", t.width, t.height)
				r.Add("social.og_image_small", fmt.Sprintf("the og:image %s is %dx%d px, under %dx%d", u, t.width, t.height, minPx, minPx), e)
			}
		}
	}
}

func lcOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func lcMediaType(ct string) string {
	return strings.ToLower(strings.TrimSpace(strings.SplitN(ct, ";", 2)[0]))
}

func lcIsImageType(ct string) bool { return strings.HasPrefix(lcMediaType(ct), "image/") }

// lcContainsKey reports whether list (absolute or relative URLs) names the
// target u, whose key is key.
func lcContainsKey(list []string, u *url.URL, key string) bool {
	for _, s := range list {
		if v, err := seo.ResolveReference(u, s); err == nil && lcKey(v) == key {
			return true
		}
	}
	return false
}

// lcFactsOfPage reads the analysed page's own signals from its tree.
func lcFactsOfPage(p *Page) *lcFacts {
	if !p.IsHTML {
		return lcReadFacts(nil, nil, p.Header, p.Base)
	}
	return lcReadFacts(p.ByTag(atom.Link), p.ByTag(atom.Meta), p.Header, p.Base)
}

// lcFactsOfDoc parses a target's HTML once and reads its signals; for a
// non-HTML body only the headers count.
func lcFactsOfDoc(resp *seo.Response, base *url.URL) *lcFacts {
	if resp.URL != "" {
		if u, err := seo.ParseHref(resp.URL); err == nil && u.Host != "" {
			base = u
		}
	}
	if !isHTML(resp) || len(resp.Body) == 0 {
		return lcReadFacts(nil, nil, resp.Header, base)
	}
	doc, err := html.Parse(bytes.NewReader(resp.Body))
	if err != nil {
		// Nested deeper than MaxNesting: read the facts before the cut.
		if doc, _ = parseNested(resp.Body); doc == nil {
			return lcReadFacts(nil, nil, resp.Header, base)
		}
	}
	var links, metas []*html.Node
	baseFound := false
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || c.Namespace != "" || inertTemplate(c) {
				continue
			}
			switch c.DataAtom {
			case atom.Link:
				links = append(links, c)
			case atom.Meta:
				metas = append(metas, c)
			case atom.Base:
				// The first <base href> outside any <template> sets
				// the base, as for the analysed page (Page.index).
				if h, ok := Attr(c, "href"); ok && !baseFound && !inTemplate(c) {
					baseFound = true
					if b, err := seo.ResolveReference(base, h); err == nil {
						base = b
					}
				}
			case atom.Body:
				continue // signals that count live in the head
			}
			walk(c)
		}
	}
	walk(doc)
	return lcReadFacts(links, metas, resp.Header, base)
}

// lcReadFacts reads robots, canonical and alternate signals from head
// <link> and <meta> elements and the Link and X-Robots-Tag headers. URLs
// are resolved against base.
func lcReadFacts(links, metas []*html.Node, h http.Header, base *url.URL) *lcFacts {
	f := &lcFacts{}
	resolve := func(s string) string {
		s = strings.TrimSpace(s)
		if base == nil {
			return s
		}
		if v, err := seo.ResolveReference(base, s); err == nil {
			return v.String()
		}
		return s
	}
	for _, m := range metas {
		if !InHead(m) {
			continue
		}
		name, _ := Attr(m, "name")
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "robots", "googlebot":
			c, _ := Attr(m, "content")
			if !f.noindex && lcHasNoindex(c) {
				f.noindex, f.noindexSrc = true, "meta "+strings.ToLower(strings.TrimSpace(name))
			}
		}
	}
	for _, l := range links {
		if !InHead(l) {
			continue
		}
		href, ok := Attr(l, "href")
		if !ok || strings.TrimSpace(href) == "" {
			continue
		}
		rel, _ := Attr(l, "rel")
		hreflang, _ := Attr(l, "hreflang")
		media, _ := Attr(l, "media")
		f.add(rel, strings.TrimSpace(hreflang), media, resolve(href))
	}
	if h != nil {
		for _, v := range h.Values("X-Robots-Tag") {
			if !f.noindex && lcHeaderNoindex(v) {
				f.noindex, f.noindexSrc = true, "X-Robots-Tag header"
			}
		}
		for _, v := range h.Values("Link") {
			for _, e := range lcParseLinkHeader(v) {
				f.add(e.rel, e.hreflang, e.media, resolve(e.url))
			}
		}
	}
	return f
}

func (f *lcFacts) add(rel, hreflang, media, href string) {
	for _, r := range strings.Fields(strings.ToLower(rel)) {
		switch r {
		case "canonical":
			f.canonicals = append(f.canonicals, href)
		case "alternate":
			if hreflang != "" {
				f.alternates = append(f.alternates, lcAlt{code: strings.ToLower(hreflang), url: href})
			} else if strings.TrimSpace(media) != "" {
				f.media = append(f.media, href)
			}
		}
	}
}

// lcHasNoindex reports whether a robots directive list says noindex or none.
func lcHasNoindex(s string) bool {
	for _, d := range strings.Split(strings.ToLower(s), ",") {
		if d = strings.TrimSpace(d); d == "noindex" || d == "none" {
			return true
		}
	}
	return false
}

// lcRobotsDirectives are the directive names that may start an X-Robots-Tag
// value; any other "name:" prefix is a user agent.
var lcRobotsDirectives = map[string]bool{
	"all": true, "noindex": true, "index": true, "nofollow": true, "follow": true, "none": true,
	"noarchive": true, "nocache": true, "nosnippet": true, "max-snippet": true, "max-image-preview": true,
	"max-video-preview": true, "notranslate": true, "noimageindex": true, "unavailable_after": true,
	"indexifembedded": true,
}

// lcHeaderNoindex reports whether one X-Robots-Tag value says noindex for
// every crawler or for Googlebot.
func lcHeaderNoindex(v string) bool {
	s := strings.TrimSpace(v)
	if i := strings.IndexByte(s, ':'); i > 0 {
		ua := strings.ToLower(strings.TrimSpace(s[:i]))
		if !lcRobotsDirectives[ua] {
			if ua != "googlebot" && ua != seo.RobotsToken {
				return false
			}
			s = s[i+1:]
		}
	}
	return lcHasNoindex(s)
}

// lcLinkEntry is one entry of an HTTP Link header.
type lcLinkEntry struct{ url, rel, hreflang, media string }

// lcParseLinkHeader parses an RFC 8288 Link header value.
func lcParseLinkHeader(v string) []lcLinkEntry {
	var out []lcLinkEntry
	for {
		i := strings.IndexByte(v, '<')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(v[i:], '>')
		if j < 0 {
			return out
		}
		e := lcLinkEntry{url: strings.TrimSpace(v[i+1 : i+j])}
		v = v[i+j+1:]
		// Parameters run to the next comma outside quotes.
		end, quoted := len(v), false
		for k := 0; k < len(v); k++ {
			if v[k] == '"' {
				quoted = !quoted
			} else if v[k] == ',' && !quoted {
				end = k
				break
			}
		}
		for _, param := range strings.Split(v[:end], ";") {
			name, val, ok := strings.Cut(param, "=")
			if !ok {
				continue
			}
			val = strings.Trim(strings.TrimSpace(val), `"`)
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "rel":
				e.rel = val
			case "hreflang":
				e.hreflang = val
			case "media":
				e.media = val
			}
		}
		out = append(out, e)
		v = v[end:]
	}
}

// lcImageSize reads an image's dimensions from its first bytes: PNG, JPEG
// and GIF through image.DecodeConfig, WebP from its RIFF header. It returns
// zeros when the format is unknown or the header incomplete.
func lcImageSize(b []byte) (int, int) {
	if w, h, ok := lcWebPSize(b); ok {
		return w, h
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return 0, 0
	}
	return cfg.Width, cfg.Height
}

// lcWebPSize parses the VP8, VP8L or VP8X header of a WebP file.
func lcWebPSize(b []byte) (w, h int, ok bool) {
	if len(b) < 30 || string(b[0:4]) != "RIFF" || string(b[8:12]) != "WEBP" {
		return 0, 0, false
	}
	d := b[20:]
	switch string(b[12:16]) {
	case "VP8 ": // lossy: frame tag (3), start code 9d 01 2a, 14-bit sizes
		if d[3] != 0x9d || d[4] != 0x01 || d[5] != 0x2a {
			return 0, 0, false
		}
		w = int(binary.LittleEndian.Uint16(d[6:8]) & 0x3fff)
		h = int(binary.LittleEndian.Uint16(d[8:10]) & 0x3fff)
	case "VP8L": // lossless: signature 0x2f, then 14-bit width-1 and height-1
		if d[0] != 0x2f {
			return 0, 0, false
		}
		bits := binary.LittleEndian.Uint32(d[1:5])
		w = int(bits&0x3fff) + 1
		h = int((bits>>14)&0x3fff) + 1
	case "VP8X": // extended: flags (4), 24-bit canvas width-1 and height-1
		w = int(uint32(d[4])|uint32(d[5])<<8|uint32(d[6])<<16) + 1
		h = int(uint32(d[7])|uint32(d[8])<<8|uint32(d[9])<<16) + 1
	default:
		return 0, 0, false
	}
	return w, h, true
}
