package crawler

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler/sitemap"
	"github.com/seokit/seokit/seo"
)

// Scope restricts the URLs a crawl fetches, turns the crawl into a list
// crawl, and gives it access to a site behind a login. It is embedded in
// Options; its zero value crawls every in-scope URL found by links and
// sitemaps, anonymously.
type Scope struct {
	// Include, when non-empty, admits only the URLs that match at least
	// one of these regular expressions (Go RE2 syntax, so matching time is
	// linear); Exclude leaves out the URLs that match any of them. Both
	// are matched against the normalised absolute URL before it is
	// queued, so a URL left out is never requested; the links to it are
	// still recorded. The start URL must pass them. At most
	// MaxScopePatterns of each, each at most MaxScopePatternLength bytes.
	Include []string
	Exclude []string
	// KeepParams, when non-empty, keeps only these query parameters when
	// normalising URLs (a trailing "*" matches a prefix) and drops every
	// other one; it replaces StripParams, which must then be nil or empty.
	// Session identifiers are removed whatever it says.
	KeepParams []string
	// MaxFolderDepth, when positive, leaves out URLs whose path has more
	// non-empty segments ("/a/b/c" has 3, "/" none).
	MaxFolderDepth int

	// URLs, when non-empty, makes the crawl a list crawl: exactly these
	// URLs are fetched (duplicates once, after normalisation), as far as
	// they are in the crawl's scope (the start host, or its registrable
	// domain with IncludeSubdomains) and pass Include, Exclude and
	// MaxFolderDepth; no link, redirect or sitemap URL is queued, but the
	// links of the pages are recorded and checked as in a crawl, and
	// robots.txt is honoured. An entry that is not an absolute http(s) URL
	// is an *seo.InputError naming "urls[i]". At most MaxListURLs.
	URLs []string
	// ListSitemap, when set, adds the URLs of this sitemap (an index is
	// followed, MaxSitemaps files and MaxListURLs URLs at most) to URLs.
	ListSitemap string

	// Header holds request headers sent with every request to the crawl's
	// own hosts (pages, robots.txt, sitemaps, probes), never to external
	// links or other hosts; see seo.ValidateRequestHeader for what is
	// refused. BasicAuth and Cookies are sent to the same hosts only.
	// Credentials never appear in reports or errors.
	Header    http.Header
	BasicAuth *BasicAuth
	Cookies   []*http.Cookie
}

// Validate checks s as Run does, without StripParams: the errors are
// *seo.InputError naming "include[i]", "exclude[i]", "keepParams",
// "maxFolderDepth", "urls[i]", "listSitemap", "header.Name", "basicAuth"
// or "cookies[i]".
func (s *Scope) Validate() error {
	_, err := validateScope(s, nil)
	return err
}

// BasicAuth is an HTTP basic authentication credential (RFC 7617).
type BasicAuth struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

// String redacts the password, so that printing options does not leak it.
func (b *BasicAuth) String() string {
	if b == nil {
		return "<nil>"
	}
	return b.Username + ":" + seo.Redacted
}

// GoString redacts the password for %#v too.
func (b *BasicAuth) GoString() string { return b.String() }

// Limits of Scope.
const (
	MaxScopePatterns      = 100
	MaxScopePatternLength = 1024
	MaxListURLs           = 100_000
	MaxCookies            = 50
)

// SourceList marks the URLs of a list crawl (Scope.URLs).
const SourceList = "list"

// Reasons of CrawlStats.ScopeSkipped: the scope's (Options.Scope) and the
// crawl's limits'. URLs a trap guard left out are in SiteReport.NotFetched.
const (
	SkipExcluded    = "excluded"
	SkipNotIncluded = "not_included"
	SkipFolderDepth = "folder_depth"
	SkipNotInScope  = "list_out_of_scope"
	SkipURLTooLong  = "url_too_long" // longer than Options.MaxURLLength
	SkipTooDeep     = "too_deep"     // more clicks from the start than Options.MaxDepth
	SkipQueueFull   = "queue_full"   // Options.MaxQueuedURLs distinct URLs were admitted
)

// scopeExamples is how many example URLs a ScopeSkip keeps.
const scopeExamples = 5

// ScopeSkip counts the distinct URLs Scope left out for one reason.
type ScopeSkip struct {
	Reason   string   `json:"reason"`
	Count    int      `json:"count"`
	Examples []string `json:"examples"`
}

// scopeFilter applies Include, Exclude, MaxFolderDepth and list mode.
type scopeFilter struct {
	include, exclude []*regexp.Regexp
	maxFolder        int
	list             bool

	mu    sync.Mutex
	skips map[string]*ScopeSkip
}

// validateScope checks s and compiles its patterns.
func validateScope(s *Scope, stripParams []string) (*scopeFilter, error) {
	f := &scopeFilter{maxFolder: s.MaxFolderDepth, list: len(s.URLs) > 0 || s.ListSitemap != ""}
	var err error
	if f.include, err = compilePatterns("include", s.Include); err != nil {
		return nil, err
	}
	if f.exclude, err = compilePatterns("exclude", s.Exclude); err != nil {
		return nil, err
	}
	switch {
	case len(s.KeepParams) > 0 && len(stripParams) > 0:
		return nil, &seo.InputError{Field: "keepParams", Reason: "cannot be combined with stripParams"}
	case len(s.KeepParams) > MaxScopePatterns:
		return nil, &seo.InputError{Field: "keepParams", Reason: fmt.Sprintf("more than %d names", MaxScopePatterns)}
	case s.MaxFolderDepth < 0:
		return nil, &seo.InputError{Field: "maxFolderDepth", Value: fmt.Sprint(s.MaxFolderDepth), Reason: "must not be negative"}
	case len(s.URLs) > MaxListURLs:
		return nil, &seo.InputError{Field: "urls", Reason: fmt.Sprintf("more than %d URLs", MaxListURLs)}
	case len(s.Cookies) > MaxCookies:
		return nil, &seo.InputError{Field: "cookies", Reason: fmt.Sprintf("more than %d cookies", MaxCookies)}
	}
	for i, u := range s.URLs {
		if _, err := parseListURL(u); err != nil {
			return nil, &seo.InputError{Field: fmt.Sprintf("urls[%d]", i), Value: u, Reason: err.Error()}
		}
	}
	if s.ListSitemap != "" {
		if _, err := parseListURL(s.ListSitemap); err != nil {
			return nil, &seo.InputError{Field: "listSitemap", Value: s.ListSitemap, Reason: err.Error()}
		}
	}
	if err := seo.ValidateRequestHeader("header", s.Header); err != nil {
		return nil, err
	}
	if b := s.BasicAuth; b != nil && (b.Username == "" || strings.Contains(b.Username, ":") || strings.ContainsAny(b.Username+b.Password, "\r\n\x00")) {
		return nil, &seo.InputError{Field: "basicAuth", Reason: "needs a username without ':' and no control characters"}
	}
	if b := s.BasicAuth; b != nil && len(b.Username)+len(b.Password) > seo.MaxRequestHeaderBytes {
		return nil, &seo.InputError{Field: "basicAuth", Reason: fmt.Sprintf("username and password longer than %d bytes together", seo.MaxRequestHeaderBytes)}
	}
	cookieBytes := 0
	for i, c := range s.Cookies {
		if c == nil || c.Valid() != nil {
			return nil, &seo.InputError{Field: fmt.Sprintf("cookies[%d]", i), Reason: "not a valid cookie name and value"}
		}
		if cookieBytes += len(c.Name) + len(c.Value) + 2; cookieBytes > seo.MaxRequestHeaderBytes {
			return nil, &seo.InputError{Field: fmt.Sprintf("cookies[%d]", i), Reason: fmt.Sprintf("the cookies are longer than %d bytes together", seo.MaxRequestHeaderBytes)}
		}
	}
	return f, nil
}

func compilePatterns(field string, pats []string) ([]*regexp.Regexp, error) {
	if len(pats) > MaxScopePatterns {
		return nil, &seo.InputError{Field: field, Reason: fmt.Sprintf("more than %d patterns", MaxScopePatterns)}
	}
	out := make([]*regexp.Regexp, 0, len(pats))
	for i, p := range pats {
		f := fmt.Sprintf("%s[%d]", field, i)
		if len(p) > MaxScopePatternLength {
			return nil, &seo.InputError{Field: f, Reason: fmt.Sprintf("longer than %d bytes", MaxScopePatternLength)}
		}
		// Tested on every URL the crawl finds: the program is capped
		// (analyzer.MaxRegexInsts), so one test stays short and the
		// crawl's context is seen between URLs.
		re, _, err := analyzer.CompileRegexp(p)
		if err != nil {
			return nil, &seo.InputError{Field: f, Value: p, Reason: err.Error()}
		}
		out = append(out, re)
	}
	return out, nil
}

// parseListURL accepts an absolute http(s) URL.
func parseListURL(s string) (*url.URL, error) {
	u, err := seo.ParseHref(s)
	if err != nil || !seo.IsAbsoluteRef(s) || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("not an absolute http(s) URL")
	}
	return u, nil
}

// check returns why the normalised URL s is left out, "" when it is not.
func (f *scopeFilter) check(u *url.URL, s string) string {
	if f == nil {
		return ""
	}
	for _, re := range f.exclude {
		if re.MatchString(s) {
			return SkipExcluded
		}
	}
	if len(f.include) > 0 {
		ok := false
		for _, re := range f.include {
			if re.MatchString(s) {
				ok = true
				break
			}
		}
		if !ok {
			return SkipNotIncluded
		}
	}
	if f.maxFolder > 0 && folderDepth(u.Path) > f.maxFolder {
		return SkipFolderDepth
	}
	return ""
}

// folderDepth counts the non-empty segments of a path.
func folderDepth(p string) int {
	n := 0
	for _, s := range strings.Split(p, "/") {
		if s != "" {
			n++
		}
	}
	return n
}

// note counts a distinct URL left out for reason.
func (f *scopeFilter) note(reason, s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.skips == nil {
		f.skips = map[string]*ScopeSkip{}
	}
	k := f.skips[reason]
	if k == nil {
		k = &ScopeSkip{Reason: reason, Examples: []string{}}
		f.skips[reason] = k
	}
	k.Count++
	if len(k.Examples) < scopeExamples {
		k.Examples = append(k.Examples, s)
	}
}

// skipped returns the counts by reason, in a fixed order.
func (f *scopeFilter) skipped() []ScopeSkip {
	if f == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []ScopeSkip
	for _, r := range []string{SkipExcluded, SkipNotIncluded, SkipFolderDepth, SkipNotInScope, SkipURLTooLong, SkipTooDeep, SkipQueueFull} {
		if k := f.skips[r]; k != nil {
			c := *k
			c.Examples = append([]string(nil), k.Examples...)
			out = append(out, c)
		}
	}
	return out
}

// scopeAdmit applies the scope filter to a URL about to be queued: it
// reports whether the URL may go on, counting it when it may not. List
// crawls queue only their list.
func (cr *crawl) scopeAdmit(n *url.URL, s, source string) bool {
	if cr.scope.list && source != SourceList {
		return false
	}
	if reason := cr.scope.check(n, s); reason != "" {
		if cr.skipped.add(s) {
			cr.scope.note(reason, s)
		}
		return false
	}
	return true
}

// startScope checks the start URL against the scope, for Run: a start
// URL left out is the caller's error.
func (cr *crawl) startScope() error { return cr.scope.startError(cr.root) }

// startError returns why f leaves out the normalised start URL root, as
// an *seo.InputError naming the member at fault; nil when f admits it.
func (f *scopeFilter) startError(root *url.URL) error {
	switch f.check(root, root.String()) {
	case SkipExcluded:
		return &seo.InputError{Field: "exclude", Value: root.String(), Reason: "excludes the start URL"}
	case SkipNotIncluded:
		return &seo.InputError{Field: "include", Value: root.String(), Reason: "does not include the start URL"}
	case SkipFolderDepth:
		return &seo.InputError{Field: "maxFolderDepth", Value: root.String(), Reason: "leaves out the start URL"}
	}
	return nil
}

// ValidateStart checks, before a crawl of domain (a domain or a start
// URL, as Run takes it) starts, that scope admits its start URL, as Run
// does when the crawl starts: a start URL that Include, Exclude or
// MaxFolderDepth leaves out is a *seo.InputError naming "include",
// "exclude" or "maxFolderDepth". A domain without a scheme passes when
// its https or its http home page does, since Run falls back to http. A
// list crawl (URLs or ListSitemap set) does not crawl its start URL and
// passes. A bad domain or scope is the error of seo.ParseDomain or
// Scope.Validate. Nothing is fetched.
func ValidateStart(domain string, scope *Scope) error {
	root, err := seo.ParseDomain(domain)
	if err != nil {
		return err
	}
	f, err := validateScope(scope, nil)
	if err != nil || f.list {
		return err
	}
	first := f.startError(seo.NormalizeURL(root, nil))
	if first == nil || strings.Contains(domain, "://") || root.Scheme != "https" {
		return first
	}
	plain := *root
	plain.Scheme = "http"
	if f.startError(seo.NormalizeURL(&plain, nil)) == nil {
		return nil
	}
	return first
}

// listItems returns the frontier items of a list crawl: the URLs of
// Scope.URLs and of Scope.ListSitemap, normalised, once each, those out
// of the crawl's scope counted.
func (cr *crawl) listItems(ctx context.Context) ([]Item, error) {
	raw := cr.o.URLs
	if cr.o.ListSitemap != "" {
		more, err := cr.listSitemap(ctx, MaxListURLs-len(raw))
		if err != nil {
			return nil, err
		}
		raw = append(raw[:len(raw):len(raw)], more...)
	}
	seen := make(map[string]bool, len(raw))
	var items []Item
	for _, r := range raw {
		u, err := parseListURL(r)
		if err != nil {
			continue
		}
		n, s, ok := cr.inScope(u)
		if !ok {
			s = seo.NormalizeURL(u, &cr.norm).String()
			if cr.skipped.add(s) {
				cr.scope.note(SkipNotInScope, s)
			}
			continue
		}
		if seen[s] {
			continue
		}
		seen[s] = true
		if it, ok := cr.allowItem(n, s, -1, SourceList, ""); ok {
			items = append(items, it)
		}
	}
	return items, nil
}

// listSitemap reads the URLs of Scope.ListSitemap, following an index to
// MaxSitemapDepth, at most MaxSitemaps files and max URLs.
func (cr *crawl) listSitemap(ctx context.Context, max int) ([]string, error) {
	var out []string
	queue := []string{cr.o.ListSitemap}
	read := 0
	for depth := 0; len(queue) > 0 && depth <= MaxSitemapDepth; depth++ {
		var next []string
		for _, sm := range queue {
			if read >= MaxSitemaps || len(out) >= max {
				return out, nil
			}
			read++
			locs, children, err := cr.readListSitemap(ctx, sm, max-len(out))
			if err != nil {
				if depth == 0 {
					return nil, err
				}
				continue
			}
			out = append(out, locs...)
			next = append(next, children...)
		}
		queue = next
	}
	return out, nil
}

// readListSitemap fetches and reads one sitemap of a list crawl.
func (cr *crawl) readListSitemap(ctx context.Context, smURL string, max int) (locs, children []string, err error) {
	ctx, cancel := context.WithTimeout(ctx, 2*cr.o.RequestTimeout)
	defer cancel()
	resp, body, err := cr.fetcher.Open(ctx, &seo.Request{URL: smURL, UserAgent: cr.o.UserAgent, Header: cr.header(smURL), MaxBodyBytes: sitemapMaxBytes + 1})
	if err != nil {
		return nil, nil, fmt.Errorf("crawler: list sitemap: %w", err)
	}
	defer body.Close()
	if resp.Status != http.StatusOK {
		return nil, nil, &seo.InputError{Field: "listSitemap", Value: smURL, Reason: fmt.Sprintf("answered status %d", resp.Status)}
	}
	br := bufio.NewReader(body)
	var r io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, fmt.Errorf("crawler: list sitemap: gzip: %w", err)
		}
		defer zr.Close()
		r = zr
	}
	_, err = sitemap.Read(ctx, r, &sitemap.Options{MaxURLs: min(max, sitemapMaxURLs), MaxBytes: sitemapMaxBytes, Now: cr.o.Now}, func(e sitemap.Entry) error {
		if e.Child {
			if len(children) < MaxSitemaps {
				children = append(children, e.Loc)
			}
		} else if len(locs) < max {
			locs = append(locs, e.Loc)
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("crawler: list sitemap: %w", err)
	}
	return locs, children, nil
}

// accessHeader builds the header of Header, BasicAuth and Cookies; nil
// when there is none.
func accessHeader(s *Scope) http.Header {
	if len(s.Header) == 0 && s.BasicAuth == nil && len(s.Cookies) == 0 {
		return nil
	}
	h := s.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	if b := s.BasicAuth; b != nil {
		h.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(b.Username+":"+b.Password)))
	}
	if len(s.Cookies) > 0 {
		parts := make([]string, 0, len(s.Cookies)+1)
		if c := h.Get("Cookie"); c != "" {
			parts = append(parts, c)
		}
		for _, c := range s.Cookies {
			parts = append(parts, (&http.Cookie{Name: c.Name, Value: c.Value}).String())
		}
		h.Set("Cookie", strings.Join(parts, "; "))
	}
	return h
}

// header returns the access header for a request to raw: set only for the
// crawl's own hosts (the scope of inScope), nil for any other.
func (cr *crawl) header(raw string) http.Header {
	if cr.access == nil {
		return nil
	}
	u, err := seo.ParseHref(raw)
	if err != nil {
		return nil
	}
	if !cr.ownHost(u) {
		return nil
	}
	return cr.access
}

// ownHost reports whether u is on one of the crawl's hosts, by the same
// scheme's port as the start URL (credentials are not sent over http to
// a site crawled over https).
func (cr *crawl) ownHost(u *url.URL) bool {
	if u.Scheme != "http" && u.Scheme != "https" {
		return false
	}
	if !seo.HostInScope(u.Hostname(), cr.rootHost, cr.o.IncludeSubdomains) {
		return false
	}
	return portOf(u) == portOf(cr.root)
}

// portOf returns u's port, the scheme's default when it names none.
func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}
