package crawler

import (
	"bufio"
	"compress/gzip"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/seokit/seokit/crawler/sitemap"
	"github.com/seokit/seokit/seo"
	"github.com/seokit/seokit/seo/robotstxt"
)

// crawlFacts are what the crawl itself learnt about the site, handed to the
// site checks.
type crawlFacts struct {
	Domain, StartURL string
	StartedAt        time.Time
	Stats            CrawlStats
	Robots           RobotsSummary
	Sitemaps         []SitemapSummary
	// Findings are the crawl-level site findings (crawlChecks).
	Findings []seo.Finding
	// SitemapExists is true when at least one sitemap could be read.
	SitemapExists bool
	// Partial is true when the crawl stopped before it ran out of URLs or
	// left URLs out at a cap, so URLs not reached may be linked from pages
	// not crawled.
	Partial bool
	// Trapped are the URLs the trap guards left out (at most maxTrapURLs),
	// TrappedMore the number past them.
	Trapped     []NotFetchedURL
	TrappedMore int
	// Render holds what the rendering summary needs beyond the pages: the
	// mode and device, and the screenshots the sink refused; nil when the
	// crawl did not render.
	Render *RenderSummary
	// AI holds the AI readiness fetches (Options.AICrawlers); nil when off.
	AI *aiFacts
}

// crawlChecks are the site checks the crawl computes itself.
var crawlChecks = []seo.CheckInfo{
	{ID: "site.sitemap_missing", Severity: seo.Notice, Scope: seo.ScopeSite, Summary: "robots.txt names no sitemap and /sitemap.xml does not answer 200.",
		Source: "seokit's own notice, after Google Search Central, Build and submit a sitemap (https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap); sitemaps.org protocol (https://www.sitemaps.org/protocol.html)"},
	{ID: "site.sitemap_invalid_xml", Severity: seo.Error, Scope: seo.ScopeSite, Summary: "A sitemap (XML, RSS or Atom feed, or text) is malformed, has the wrong root or namespace, or an entry without an absolute URL.",
		Source: "seokit's own rule, after sitemaps.org protocol (https://www.sitemaps.org/protocol.html) and Google Search Central, Build and submit a sitemap (https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap) (XML, RSS 2.0, Atom 0.3/1.0 and text formats)"},
	{ID: "site.sitemap_too_large", Severity: seo.Error, Scope: seo.ScopeSite, Summary: "A sitemap has more than 50,000 URLs or more than 50 MB uncompressed.",
		Source: "sitemaps.org protocol (https://www.sitemaps.org/protocol.html) (50,000 URLs or 50 MB uncompressed); Screaming Frog SEO Spider"},
	{ID: "site.sitemap_unreachable", Severity: seo.Warning, Scope: seo.ScopeSite, Summary: "A sitemap listed by a sitemap index cannot be fetched or answers non-200.",
		Source: "seokit's own rule, after Google Search Central, Build and submit a sitemap (https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap); sitemaps.org protocol (https://www.sitemaps.org/protocol.html)"},
	{ID: "site.sitemap_lastmod_invalid", Severity: seo.Notice, Scope: seo.ScopeSite, Summary: "A <lastmod> is not a W3C Datetime (in feeds: a <pubDate> not an RFC 822 date, an <updated> not an RFC 3339 date).",
		Source: "seokit's own rule, after sitemaps.org protocol (https://www.sitemaps.org/protocol.html) (W3C Datetime), RSS 2.0 (https://www.rssboard.org/rss-specification) and Atom (RFC 4287)"},
	{ID: "site.sitemap_lastmod_future", Severity: seo.Notice, Scope: seo.ScopeSite, Summary: "A <lastmod> is more than a day in the future.",
		Source: "seokit's own rule, after Google Search Central, Build and submit a sitemap (https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap); sitemaps.org protocol (https://www.sitemaps.org/protocol.html) (lastmod must be accurate)"},
	{ID: "site.sitemap_foreign_url", Severity: seo.Warning, Scope: seo.ScopeSite, Summary: "A sitemap lists a URL on another host or scheme than its own.",
		Source: "seokit's own rule, after sitemaps.org protocol (https://www.sitemaps.org/protocol.html) (URLs on the sitemap's own host)"},
	{ID: "site.robots_txt_missing", Severity: seo.Notice, Scope: seo.ScopeSite, Summary: "/robots.txt answers 404 or 410.",
		Source: "seokit's own notice, after RFC 9309, Robots Exclusion Protocol (https://www.rfc-editor.org/rfc/rfc9309) (a missing robots.txt allows everything)"},
	{ID: "site.robots_txt_server_error", Severity: seo.Error, Scope: seo.ScopeSite, Summary: "/robots.txt answers 5xx or cannot be fetched, so search engines treat the site as disallowed.",
		Source: "Lighthouse robots-txt (https://developer.chrome.com/docs/lighthouse/seo/invalid-robots-txt); Google Search Central, How Google interprets robots.txt (https://developers.google.com/search/docs/crawling-indexing/robots/robots_txt); RFC 9309, Robots Exclusion Protocol (https://www.rfc-editor.org/rfc/rfc9309) (a 5xx robots.txt stops crawling)"},
	{ID: "site.robots_txt_too_large", Severity: seo.Warning, Scope: seo.ScopeSite, Summary: "robots.txt is over 500 KiB and its later rules are ignored.",
		Source: "seokit's own rule, after Google Search Central, How Google interprets robots.txt (https://developers.google.com/search/docs/crawling-indexing/robots/robots_txt); RFC 9309, Robots Exclusion Protocol (https://www.rfc-editor.org/rfc/rfc9309) (Google reads the first 500 KiB)"},
	{ID: "site.robots_txt_invalid_line", Severity: seo.Notice, Scope: seo.ScopeSite, Summary: "robots.txt has lines crawlers ignore or misread.",
		Source:  "Lighthouse robots-txt (https://developer.chrome.com/docs/lighthouse/seo/invalid-robots-txt); RFC 9309, Robots Exclusion Protocol (https://www.rfc-editor.org/rfc/rfc9309)",
		Differs: "Lighthouse fails the audit on a bad line; seokit reports it as a notice, as crawlers skip lines they cannot parse."},
	{ID: "site.robots_txt_sitemap_dead", Severity: seo.Warning, Scope: seo.ScopeSite, Summary: "A Sitemap line of robots.txt is not absolute or its URL answers non-200.",
		Source: "seokit's own rule, after Google Search Central, How Google interprets robots.txt (https://developers.google.com/search/docs/crawling-indexing/robots/robots_txt); RFC 9309, Robots Exclusion Protocol (https://www.rfc-editor.org/rfc/rfc9309) (Sitemap lines)"},
	{ID: "site.robots_txt_blocks_resources", Severity: seo.Warning, Scope: seo.ScopeSite, Summary: "robots.txt disallows scripts or stylesheets that crawled pages load.",
		Source: "Google Search Central, How Google interprets robots.txt (https://developers.google.com/search/docs/crawling-indexing/robots/robots_txt); RFC 9309, Robots Exclusion Protocol (https://www.rfc-editor.org/rfc/rfc9309); Google Search Central, JavaScript SEO basics (https://developers.google.com/search/docs/crawling-indexing/javascript/javascript-seo-basics) (let Google fetch CSS and JavaScript); Screaming Frog SEO Spider"},
	{ID: "site.ai_crawlers_blocked", Severity: seo.Notice, Scope: seo.ScopeSite, Summary: "robots.txt shuts AI search and retrieval crawlers out of the whole site.",
		Source: "Google Search Central, How Google interprets robots.txt (https://developers.google.com/search/docs/crawling-indexing/robots/robots_txt); RFC 9309, Robots Exclusion Protocol (https://www.rfc-editor.org/rfc/rfc9309) (per-crawler groups); PSA"},
	{ID: "site.host_variants_not_consolidated", Severity: seo.Warning, Scope: seo.ScopeSite, Summary: "The http/https and www/non-www forms of the start URL do not each reach one origin with one 301/308.",
		Source: "seokit's own rule, after Google Search Central, Consolidate duplicate URLs (https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls) (redirect www/non-www and http/https variants)"},
	{ID: "site.custom_404_missing", Severity: seo.Warning, Scope: seo.ScopeSite, Summary: "A random nonexistent path answers 200 instead of 404 or 410.",
		Source: "seokit's own rule, after Google Search Central, HTTP status codes and network errors (https://developers.google.com/search/docs/crawling-indexing/http-network-errors) (missing pages answer 404)"},
	{ID: "site.favicon_missing", Severity: seo.Notice, Scope: seo.ScopeSite, Summary: "Neither a rel=icon link nor /favicon.ico answers 200 with an image.",
		Source: "seokit's own rule, after Google Search Central, Favicon in search results (https://developers.google.com/search/docs/appearance/favicon-in-search)"},
	{ID: "site.crawl_trap", Severity: seo.Warning, Scope: seo.ScopeSite, Summary: "A URL pattern kept yielding new URLs (ever more parameter values or combinations, a repeating path, a calendar running past its dates or below zero) and was cut off.",
		Source: "seokit's own rule, after Google Search Central, URL structure (https://developers.google.com/search/docs/crawling-indexing/url-structure) (infinite URL spaces)"},
	{ID: "site.crawl_limit_reached", Severity: seo.Notice, Scope: seo.ScopeSite, Summary: "The crawl stopped at maxPages with URLs still queued, so site findings are partial.",
		Source: "seokit's own notice: the crawl stopped at its page limit, so site findings cover only the pages reached"},
}

var crawlSeverity = func() map[string]seo.Severity {
	m := make(map[string]seo.Severity, len(crawlChecks))
	for _, c := range crawlChecks {
		m[c.ID] = c.Severity
	}
	return m
}()

// finding builds a crawl-level finding with its catalogue severity.
func finding(id, pageURL, msg string, ev seo.Evidence) seo.Finding {
	sev, ok := crawlSeverity[id]
	if !ok {
		panic("crawler: undeclared check " + id)
	}
	return seo.Finding{ID: id, Severity: sev, Message: msg, Evidence: ev, URL: pageURL}
}

// acquireFor waits for a politeness slot of u's host: every request seokit
// sends to a site (pages, resources, probes, sitemaps) stays within the
// host's concurrency and rate.
func (cr *crawl) acquireFor(ctx context.Context, u string) (release func(), err error) {
	pu, err := seo.ParseHref(u)
	if err != nil {
		return nil, err
	}
	return cr.pol.acquire(ctx, pu.Host)
}

// probeFollow fetches u once, following redirects, without the body,
// within u's host politeness.
func (cr *crawl) probeFollow(ctx context.Context, u string) (*seo.Response, error) {
	release, err := cr.acquireFor(ctx, u)
	if err != nil {
		return nil, err
	}
	defer release()
	ctx, cancel := context.WithTimeout(ctx, min(probeTimeout, cr.o.RequestTimeout))
	defer cancel()
	return cr.fetcher.Fetch(ctx, &seo.Request{URL: u, DiscardBody: true, UserAgent: cr.o.UserAgent, Header: cr.header(u)})
}

// probeResult holds the site probes run alongside the crawl.
type probeResult struct {
	findings []seo.Finding
}

// probeTimeout bounds each probe fetch.
const probeTimeout = 10 * time.Second

// probe fetches u once without following redirects and without the body.
func (cr *crawl) probe(ctx context.Context, u string) (*seo.Response, error) {
	release, err := cr.acquireFor(ctx, u)
	if err != nil {
		return nil, err
	}
	defer release()
	ctx, cancel := context.WithTimeout(ctx, min(probeTimeout, cr.o.RequestTimeout))
	defer cancel()
	return cr.fetcher.Fetch(ctx, &seo.Request{URL: u, NoFollow: true, DiscardBody: true, UserAgent: cr.o.UserAgent, Header: cr.header(u)})
}

// runProbes checks host variants and the custom 404 page.
func (cr *crawl) runProbes(ctx context.Context) probeResult {
	var out probeResult
	if f, ok := cr.hostVariants(ctx); ok {
		out.findings = append(out.findings, f)
	}
	rnd := make([]byte, 8)
	rand.Read(rnd)
	u := *cr.root
	u.Path, u.RawPath, u.RawQuery, u.Opaque = "/seokit-404-check-"+hex.EncodeToString(rnd), "", "", ""
	if resp, err := cr.probe(ctx, u.String()); err == nil && resp.Status == http.StatusOK {
		out.findings = append(out.findings, finding("site.custom_404_missing", cr.root.String(),
			"a nonexistent path answers 200, so missing pages look like real ones (site-wide soft 404)",
			seo.Evidence{Value: u.String(), Detail: "status 200"}))
	}
	return out
}

// hostVariants fetches the http/https × www/non-www forms of the start URL.
// Each that answers must either be the one origin that serves pages or
// redirect there in a single 301/308 hop.
func (cr *crawl) hostVariants(ctx context.Context) (seo.Finding, bool) {
	host := cr.rootHost
	hosts := []string{host}
	if net.ParseIP(host) == nil && host != "localhost" && strings.Contains(host, ".") {
		if bare, ok := strings.CutPrefix(host, "www."); ok {
			hosts = append(hosts, bare)
		} else if seo.RegistrableDomain(host) == host {
			hosts = append(hosts, "www."+host)
		}
	}
	var answers []variantAnswer
	for _, scheme := range []string{"https", "http"} {
		for _, h := range hosts {
			hp := h
			if cr.rootPort != "" {
				if scheme != cr.root.Scheme {
					continue // the other scheme cannot share an explicit port
				}
				hp = net.JoinHostPort(h, cr.rootPort)
			}
			u := scheme + "://" + hp + "/"
			resp, err := cr.probe(ctx, u)
			if err != nil || resp == nil || resp.Status == 0 {
				continue
			}
			answers = append(answers, variantAnswer{url: u, status: resp.Status, location: resp.Header.Get("Location")})
		}
	}
	if ctx.Err() != nil || len(answers) < 2 {
		return seo.Finding{}, false
	}
	problems := variantProblems(answers)
	if len(problems) == 0 {
		return seo.Finding{}, false
	}
	var urls []string
	for _, a := range answers {
		urls = append(urls, a.url)
	}
	return finding("site.host_variants_not_consolidated", cr.root.String(),
		"the http/https and www/non-www forms of the site are not all sent to one origin with a single permanent redirect",
		seo.Evidence{URLs: urls, Detail: seo.Clip(strings.Join(problems, "; "))}), true
}

// variantAnswer is how one host variant answered, without following
// redirects.
type variantAnswer struct {
	url, location string
	status        int
}

// variantProblems says why the answering variants are not consolidated:
// exactly one origin must answer 2xx and every other variant must reach it
// with one 301 or 308.
func variantProblems(answers []variantAnswer) []string {
	var origins []string
	for _, a := range answers {
		if a.status >= 200 && a.status < 300 {
			origins = append(origins, origin(a.url))
		}
	}
	var problems []string
	switch len(origins) {
	case 0:
		problems = append(problems, "no variant answers 200")
	case 1:
		for _, a := range answers {
			if origin(a.url) == origins[0] {
				continue
			}
			base, _ := seo.ParseHref(a.url)
			t, err := seo.ResolveReference(base, a.location)
			switch {
			case a.status != http.StatusMovedPermanently && a.status != http.StatusPermanentRedirect:
				problems = append(problems, fmt.Sprintf("%s answers %d", a.url, a.status))
			case err != nil || origin(t.String()) != origins[0]:
				problems = append(problems, fmt.Sprintf("%s redirects to %s, not to %s", a.url, a.location, origins[0]))
			}
		}
	default:
		problems = append(problems, "several variants answer 200: "+strings.Join(origins, ", "))
	}
	return problems
}

// origin returns the scheme and host of raw in one form: lowercase, without
// a trailing dot or the scheme's default port, so that a Location of
// "https://Example.com:443/" names the same origin as "https://example.com/".
func origin(raw string) string {
	u, err := seo.ParseHref(raw)
	if err != nil {
		return raw
	}
	scheme := strings.ToLower(u.Scheme)
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if p := u.Port(); p != "" && !(scheme == "http" && p == "80") && !(scheme == "https" && p == "443") {
		host += ":" + p
	}
	return scheme + "://" + host
}

// favicon reports site.favicon_missing when neither the start page's
// rel=icon targets nor /favicon.ico answer 200 with an image type.
func (cr *crawl) favicon(ctx context.Context) (seo.Finding, bool) {
	cr.mu.Lock()
	cands := append([]string(nil), cr.icons...)
	cr.mu.Unlock()
	if len(cands) > 3 {
		cands = cands[:3]
	}
	fav := *cr.root
	fav.Path, fav.RawPath, fav.RawQuery, fav.Opaque = "/favicon.ico", "", "", ""
	cands = append(cands, fav.String())
	for _, c := range cands {
		if strings.HasPrefix(c, "data:image/") {
			return seo.Finding{}, false
		}
		resp, err := cr.probeFollow(ctx, c)
		if err == nil && resp.Status == http.StatusOK && isImageType(resp.Header.Get("Content-Type")) {
			return seo.Finding{}, false
		}
	}
	if ctx.Err() != nil {
		return seo.Finding{}, false
	}
	return finding("site.favicon_missing", cr.root.String(),
		"no favicon was found: neither a rel=icon link nor /favicon.ico serves an image",
		seo.Evidence{URLs: cands}), true
}

func isImageType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	return strings.HasPrefix(mt, "image/")
}

// sitemapFacts are the results of reading the start host's sitemaps.
type sitemapFacts struct {
	summaries []SitemapSummary
	findings  []seo.Finding
	exists    bool
	// dead are robots.txt Sitemap lines that are not absolute or answer non-200.
	dead []string
}

// sitemapRef is a sitemap to read: where it was named, and how deep in
// sitemap indexes.
type sitemapRef struct {
	url    string
	from   string // "robots", "default" or the index URL
	depth  int
	parent string
}

// Sitemap limits from sitemaps.org.
const (
	sitemapMaxURLs  = 50000
	sitemapMaxBytes = 50 << 20
)

// readSitemaps reads the sitemaps named in robots.txt, or /sitemap.xml,
// following sitemap indexes, streaming each. Their URLs are recorded for the
// site checks and, when in scope, queued after the links.
func (cr *crawl) readSitemaps(ctx context.Context, rb *robotstxt.Robots) sitemapFacts {
	var sf sitemapFacts
	var queue []sitemapRef
	seen := map[string]bool{}
	for _, s := range rb.Sitemaps() {
		// robots.txt values come trimmed of ASCII whitespace; anything left
		// (a U+00A0) makes the URL unusable, for Google as for seokit.
		u, err := seo.ParseHref(s)
		if err != nil || !seo.IsAbsoluteRef(s) || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			sf.dead = append(sf.dead, s)
			continue
		}
		if !seen[u.String()] {
			seen[u.String()] = true
			queue = append(queue, sitemapRef{url: u.String(), from: "robots"})
		}
	}
	def := *cr.root
	def.Path, def.RawPath, def.RawQuery, def.Opaque = "/sitemap.xml", "", "", ""
	if !seen[def.String()] {
		seen[def.String()] = true
		queue = append(queue, sitemapRef{url: def.String(), from: "default"})
	}
	issues := map[string]*seo.Finding{}
	addIssue := func(id, smURL, msg string, ev seo.Evidence) {
		key := id + " " + smURL
		if f := issues[key]; f != nil {
			if len(f.Evidence.URLs) < 5 && ev.Value != "" {
				f.Evidence.URLs = append(f.Evidence.URLs, ev.Value)
			}
			return
		}
		f := finding(id, smURL, msg, ev)
		if ev.Value != "" {
			f.Evidence.URLs = []string{ev.Value}
		}
		issues[key] = &f
		sf.findings = append(sf.findings, f)
	}
	read := 0
	for len(queue) > 0 && read < MaxSitemaps && ctx.Err() == nil {
		ref := queue[0]
		queue = queue[1:]
		read++
		sum, children := cr.readSitemap(ctx, ref, addIssue)
		if ref.from == "default" && sum.Status != http.StatusOK && len(sf.summaries) > 0 {
			// /sitemap.xml was only a guess next to sitemaps robots.txt named.
			continue
		}
		sf.summaries = append(sf.summaries, sum)
		if sum.Status == http.StatusOK && sum.Error == "" {
			sf.exists = true
		}
		// A 200 whose body cannot be read (a broken gzip stream, a dropped
		// connection) is no more use than an error status.
		switch {
		case sum.Status == http.StatusOK && sum.Error == "":
		case ref.from == "robots":
			sf.dead = append(sf.dead, ref.url)
		case ref.from != "default":
			addIssue("site.sitemap_unreachable", ref.url, "a sitemap listed in a sitemap index cannot be read", seo.Evidence{Value: ref.parent, Detail: describeFailure(sum)})
		}
		for _, c := range children {
			if ref.depth+1 >= MaxSitemapDepth || seen[c] {
				continue
			}
			seen[c] = true
			queue = append(queue, sitemapRef{url: c, from: ref.url, depth: ref.depth + 1, parent: ref.url})
		}
	}
	for i := range sf.findings {
		if f := issues[sf.findings[i].ID+" "+sf.findings[i].URL]; f != nil {
			sf.findings[i] = *f
		}
	}
	if !sf.exists && len(rb.Sitemaps()) == 0 {
		sf.findings = append(sf.findings, finding("site.sitemap_missing", def.String(),
			"no sitemap was found: robots.txt names none and /sitemap.xml does not answer 200", seo.Evidence{}))
	}
	if len(sf.dead) > 0 {
		sf.findings = append(sf.findings, finding("site.robots_txt_sitemap_dead", robotsURL(cr.root),
			"robots.txt names sitemaps that are not absolute URLs or cannot be read",
			seo.Evidence{Element: "Sitemap:", URLs: sf.dead}))
	}
	return sf
}

func describeFailure(s SitemapSummary) string {
	if s.Error != "" {
		return s.Error
	}
	return fmt.Sprintf("status %d", s.Status)
}

func robotsURL(root *url.URL) string {
	u := *root
	u.Path, u.RawPath, u.RawQuery, u.Opaque = "/robots.txt", "", "", ""
	return u.String()
}

// readSitemap streams one sitemap; it returns its summary and, for an
// index, the sitemaps it lists.
func (cr *crawl) readSitemap(ctx context.Context, ref sitemapRef, addIssue func(id, smURL, msg string, ev seo.Evidence)) (SitemapSummary, []string) {
	sum := SitemapSummary{URL: ref.url}
	release, err := cr.acquireFor(ctx, ref.url)
	if err != nil {
		sum.Error = err.Error()
		return sum, nil
	}
	defer release()
	ctx, cancel := context.WithTimeout(ctx, 2*cr.o.RequestTimeout)
	defer cancel()
	resp, body, err := cr.fetcher.Open(ctx, &seo.Request{URL: ref.url, UserAgent: cr.o.UserAgent, Header: cr.header(ref.url), MaxBodyBytes: sitemapMaxBytes + 1})
	if resp != nil {
		sum.Status = resp.Status
	}
	if err != nil {
		sum.Error = err.Error()
		return sum, nil
	}
	defer body.Close()
	if resp.Status != http.StatusOK {
		return sum, nil
	}
	br := bufio.NewReader(body)
	var r io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			sum.Error = "gzip: " + err.Error()
			return sum, nil
		}
		defer zr.Close()
		r = zr
	}
	// Whether entries are pages or child sitemaps is decided by the parsed
	// root element (Entry.Child), so a prefixed <sm:sitemapindex> is an
	// index too.
	var children []string
	var locs []string
	var hosts []string
	if ref.from == "robots" {
		// robots.txt vouches for its host name; cr.root.Host would carry
		// an explicit port, which sitemap.Options.AllowedHosts never matches.
		hosts = []string{cr.rootHost}
	}
	info, err := sitemap.Read(ctx, r, &sitemap.Options{
		MaxURLs: sitemapMaxURLs, MaxBytes: sitemapMaxBytes, Now: cr.o.Now,
		SitemapURL: ref.url, AllowedHosts: hosts,
	}, func(e sitemap.Entry) error {
		if e.Child {
			if len(children) < MaxSitemaps {
				children = append(children, e.Loc)
			}
			return nil
		}
		locs = append(locs, e.Loc)
		if len(locs) >= 1024 {
			cr.addSitemapURLs(ctx, ref.url, locs)
			locs = locs[:0]
		}
		return nil
	})
	cr.addSitemapURLs(ctx, ref.url, locs)
	if info != nil {
		sum.Kind = info.Kind
		sum.URLs = info.URLs
		if info.TooManyURLs || info.TooLarge {
			detail := fmt.Sprintf("%d URLs, %d bytes", info.URLs, info.Bytes)
			if info.TooManyURLs {
				// Reading stopped at the limit: info.URLs is not the total.
				detail = fmt.Sprintf("more than %d URLs", sitemapMaxURLs)
			} else if info.TooLarge {
				detail = fmt.Sprintf("more than %d bytes uncompressed", sitemapMaxBytes)
			}
			addIssue("site.sitemap_too_large", ref.url, "a sitemap exceeds 50,000 URLs or 50 MB uncompressed", seo.Evidence{Detail: detail})
		}
		for _, is := range info.Issues {
			switch is.Kind {
			case "invalid_xml", "wrong_root", "wrong_namespace", "loc_not_absolute":
				addIssue("site.sitemap_invalid_xml", ref.url, "a sitemap is not valid: "+strings.ReplaceAll(is.Kind, "_", " "), seo.Evidence{Value: is.Loc, Detail: is.Detail})
			case "lastmod_invalid":
				addIssue("site.sitemap_lastmod_invalid", ref.url, "a sitemap has <lastmod> values that are not W3C Datetime", seo.Evidence{Value: is.Loc, Detail: is.Detail})
			case "lastmod_future":
				addIssue("site.sitemap_lastmod_future", ref.url, "a sitemap has <lastmod> values in the future", seo.Evidence{Value: is.Loc, Detail: is.Detail})
			case "foreign_url":
				addIssue("site.sitemap_foreign_url", ref.url, "a sitemap lists URLs on another host or scheme", seo.Evidence{Value: is.Loc, Detail: is.Detail})
			}
		}
	}
	if err != nil && ctx.Err() == nil && (info == nil || len(info.Issues) == 0) {
		sum.Error = err.Error()
	}
	return sum, children
}

// addSitemapURLs records sitemap URLs for the site checks and keeps the
// in-scope ones to queue once the links run out.
func (cr *crawl) addSitemapURLs(ctx context.Context, smURL string, locs []string) {
	if len(locs) == 0 {
		return
	}
	items := make([]Item, 0, len(locs))
	norm := make([]string, 0, len(locs))
	for _, l := range locs {
		u, err := seo.ParseHref(l)
		if err != nil || !seo.IsAbsoluteRef(l) {
			continue
		}
		n, s, ok := cr.inScope(u)
		if !ok {
			norm = append(norm, seo.NormalizeURL(u, &cr.norm).String())
			continue
		}
		norm = append(norm, s)
		if it, ok := cr.allowItem(n, s, -1, SourceSitemap, smURL); ok {
			items = append(items, it)
		}
	}
	for _, s := range norm {
		if !cr.builder.addSitemapURL(s, smURL) {
			cr.overflow.Store(true)
		}
	}
	cr.mu.Lock()
	defer cr.mu.Unlock()
	sm := cr.builder.id(smURL)
	for _, it := range items {
		if int64(len(cr.aside)) >= cr.admitCap {
			cr.overflow.Store(true)
			break
		}
		id, ok := cr.builder.targetID(it.URL)
		if !ok {
			cr.overflow.Store(true)
			continue
		}
		w, bit := int(id/64), uint64(1)<<(id%64)
		for len(cr.asideSeen) <= w {
			cr.asideSeen = append(cr.asideSeen, 0)
		}
		if cr.asideSeen[w]&bit != 0 {
			continue
		}
		cr.asideSeen[w] |= bit
		cr.aside = append(cr.aside, asideItem{id, sm})
	}
}

// robotsFacts summarises the start host's robots.txt and its findings.
func (cr *crawl) robotsFacts(rb *robotstxt.Robots) (RobotsSummary, []seo.Finding) {
	ru := robotsURL(cr.root)
	rs := RobotsSummary{URL: ru, Status: rb.Status(), Bytes: rb.Size(), SHA256: rb.SHA256(), Truncated: rb.Truncated(),
		Sitemaps: rb.Sitemaps(), InvalidLines: rb.InvalidLines()}
	if err := rb.Err(); err != nil {
		rs.Error = err.Error()
	}
	var fs []seo.Finding
	switch st := rb.Status(); {
	case st == http.StatusNotFound || st == http.StatusGone:
		fs = append(fs, finding("site.robots_txt_missing", ru, "the site has no robots.txt, so everything may be crawled", seo.Evidence{Detail: fmt.Sprintf("status %d", st)}))
	case st >= 500 || (st == 0 && rb.Err() != nil) || st == http.StatusTooManyRequests:
		detail := fmt.Sprintf("status %d", st)
		if rb.Err() != nil {
			detail = rb.Err().Error()
		}
		fs = append(fs, finding("site.robots_txt_server_error", ru, "robots.txt cannot be fetched; search engines then treat the whole site as disallowed", seo.Evidence{Detail: seo.Clip(detail)}))
	}
	if rb.Truncated() {
		fs = append(fs, finding("site.robots_txt_too_large", ru, "robots.txt is larger than 500 KiB; rules past that point are ignored",
			seo.Measure("robots.txt", float64(rb.Size()), float64(robotstxt.MaxSize))))
	}
	if n := rb.InvalidLines(); n > 0 {
		ev := seo.Evidence{Detail: fmt.Sprintf("%d invalid lines", n)}
		for i, is := range rb.Issues() {
			if i == 5 {
				break
			}
			ev.URLs = append(ev.URLs, fmt.Sprintf("line %d: %s (%s)", is.Line, is.Text, is.Reason))
		}
		fs = append(fs, finding("site.robots_txt_invalid_line", ru, "robots.txt has lines that crawlers ignore or misread", ev))
	}
	if !rb.Unavailable() {
		if bl := rb.BlockedAICrawlers(); len(bl) > 0 {
			fs = append(fs, finding("site.ai_crawlers_blocked", ru, "robots.txt shuts AI crawlers out of the whole site: "+strings.Join(bl, ", "),
				seo.Evidence{Value: strings.Join(bl, ", ")}))
		}
	}
	return rs, fs
}

// facts gathers everything the crawl learnt for the site checks.
func (cr *crawl) facts(ctx context.Context, reason string, queued int, rb *robotstxt.Robots, sf sitemapFacts, pr probeResult) *crawlFacts {
	dur := time.Since(cr.start)
	stats := CrawlStats{
		Fetched: int(cr.fetched.Load()), Queued: queued, Skipped: cr.skipped.count(),
		Blocked: int(cr.blocked.Load()), Errors: int(cr.errs.Load()),
		StopReason: reason, Bytes: cr.bytes.Load(), Duration: dur,
		Traps: cr.traps.list(), Resumed: int(cr.resumed),
		ScopeSkipped: cr.scope.skipped(),
	}
	stats.RobotsUnavailable = int(cr.robotsDown.Load())
	if reason == StopDone && cr.answered.Load() == 0 && !cr.scope.list {
		// Nothing answered: the start URL failed, or the robots.txt
		// fetched before it did and nothing was fetched at all.
		un := cr.startErr.Load()
		if un == nil && rb != nil && rb.Status() == 0 && rb.Err() != nil && ctx.Err() == nil {
			// robots.txt got no response, so the start URL was not
			// fetched: one request tells a site that is down from one
			// whose robots.txt alone fails.
			if resp, err := cr.probe(ctx, cr.root.String()); err != nil && (resp == nil || resp.Status == 0) {
				un = seo.NewUnreachable(cr.root.String(), err)
			}
		}
		if un != nil {
			stats.StopReason, stats.Unreachable = StopUnreachable, un
		}
	}
	stats.LimitReached = (reason == StopMaxPages && queued > 0) || cr.overflow.Load()
	if dur > 0 {
		stats.PagesPerSecond = float64(stats.Fetched-stats.Resumed) / dur.Seconds()
	}

	f := &crawlFacts{Domain: cr.root.Host, StartURL: cr.root.String(), StartedAt: cr.startedAt, Stats: stats,
		Sitemaps: sf.summaries, SitemapExists: sf.exists,
		Partial: stats.LimitReached || (reason != StopDone && reason != StopMaxPages)}
	if stats.Unreachable != nil {
		// A site that answered nothing has no robots.txt, sitemap or
		// favicon to judge: its one fact is that it is down.
		f.Robots, _ = cr.robotsFacts(rb)
		return f
	}
	f.Trapped, f.TrappedMore = cr.traps.dropped()
	if rendering(&cr.ana) {
		f.Render = &RenderSummary{Mode: cr.ana.Render, Device: cr.ana.RenderRequest.Device,
			ScreenshotsOmitted: int(cr.shotsOmitted.Load())}
		if d, ok := cr.o.Screenshots.(*DirSink); ok {
			f.Render.ScreenshotDir = d.Dir()
		}
	}
	var fs []seo.Finding
	f.Robots, fs = cr.robotsFacts(rb)
	f.Findings = append(f.Findings, fs...)
	f.Findings = append(f.Findings, sf.findings...)
	f.Findings = append(f.Findings, pr.findings...)
	if res := cr.blockedList(); len(res) > 0 {
		f.Findings = append(f.Findings, finding("site.robots_txt_blocks_resources", robotsURL(cr.root),
			"robots.txt disallows scripts or stylesheets that pages load, so search engines cannot render them",
			seo.Evidence{URLs: res}))
	}
	if ctx.Err() == nil && !cr.worker && !cr.scope.list {
		if ff, ok := cr.favicon(ctx); ok {
			f.Findings = append(f.Findings, ff)
		}
	}
	if cr.o.AICrawlers && ctx.Err() == nil && !cr.worker {
		f.AI = cr.aiFacts(ctx, rb)
	}
	for _, t := range stats.Traps {
		f.Findings = append(f.Findings, finding("site.crawl_trap", cr.root.String(),
			fmt.Sprintf("the URL pattern %s kept yielding new URLs (%s); %d were left out", t.Pattern, strings.ReplaceAll(t.Reason, "_", " "), t.Dropped),
			seo.Evidence{Value: seo.Clip(t.Pattern), Detail: t.Reason, URLs: t.Example}))
	}
	if stats.LimitReached {
		f.Findings = append(f.Findings, finding("site.crawl_limit_reached", cr.root.String(),
			fmt.Sprintf("the crawl stopped at %d pages with URLs still queued; site findings are partial", cr.o.MaxPages),
			seo.Measure("maxPages", float64(stats.Fetched), float64(cr.o.MaxPages))))
	}
	return f
}

// blockedList returns up to 20 distinct scripts and stylesheets robots.txt
// disallows.
func (cr *crawl) blockedList() []string {
	var out []string
	cr.resCache.Range(func(k, v any) bool {
		if v.(bool) {
			out = append(out, k.(string))
		}
		return len(out) < 20
	})
	sort.Strings(out)
	return out
}
