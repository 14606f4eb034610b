package crawler

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/seo"
)

// MaxMutes caps Config.Mute.
const MaxMutes = 200

// MaxConfigBytes caps the size of a configuration document read by
// DecodeConfig.
const MaxConfigBytes = 1 << 20

// Config is a saved crawl configuration: one JSON document holding the
// settings of a site analysis that do not depend on where it runs (the CLI's
// -config FILE, the options of the API's POST /v1/analyze/site, the
// dashboard's configuration field). Its zero value is the default crawl.
// Projects, once seokit has them, store one with each project.
//
// The JSON Schema of the document is ConfigSchema. Run-time settings
// (concurrency, rate, time budget, renderer, screenshots, frontiers) and
// the API's plan-capped rendering options (render, screenshot,
// renderPages) are not part of it: they belong to the machine that runs
// the crawl, not to the site.
type Config struct {
	// MaxPages caps the pages crawled; 0 means DefaultMaxPages (the API
	// also caps it by the account's plan).
	MaxPages          int  `json:"maxPages,omitempty"`
	IncludeSubdomains bool `json:"includeSubdomains,omitempty"`
	// SkipExternalLinks turns off the checks of external targets: links,
	// images, canonical URLs and hreflang alternates
	// (Options.SkipExternalLinks).
	SkipExternalLinks bool `json:"skipExternalLinks,omitempty"`
	// NoCrawlCanonicals, NoCrawlHreflang and SkipResourceChecks are those
	// of Options: do not crawl the in-scope canonical URLs or hreflang
	// alternates, do not check the in-scope images.
	NoCrawlCanonicals  bool `json:"noCrawlCanonicals,omitempty"`
	NoCrawlHreflang    bool `json:"noCrawlHreflang,omitempty"`
	SkipResourceChecks bool `json:"skipResourceChecks,omitempty"`
	// AICrawlers adds the AI crawler readiness report
	// (Options.AICrawlers); SkipAICrawlerProbe leaves out its firewall
	// probe.
	AICrawlers         bool `json:"aiCrawlers,omitempty"`
	SkipAICrawlerProbe bool `json:"skipAiCrawlerProbe,omitempty"`
	// Segments group the pages of the report (Options.Segments).
	Segments []Segment `json:"segments,omitempty"`
	// Mute lists check IDs or areas (of the page and site catalogues)
	// whose findings are left out of the findings and scores
	// (analyzer.Options.Mute); at most MaxMutes.
	Mute []string `json:"mute,omitempty"`

	// Include, Exclude, KeepParams, MaxFolderDepth and URLs are those of
	// Scope: regular expressions on the normalised URL, the query
	// parameters kept, the most path segments, and the URLs of a list
	// crawl.
	Include        []string `json:"include,omitempty"`
	Exclude        []string `json:"exclude,omitempty"`
	KeepParams     []string `json:"keepParams,omitempty"`
	MaxFolderDepth int      `json:"maxFolderDepth,omitempty"`
	URLs           []string `json:"urls,omitempty"`
	// Headers, BasicAuth and Cookies are sent to the site's own hosts
	// only (Scope.Header, BasicAuth, Cookies). A configuration holding
	// them is a secret: keep the file private.
	Headers   map[string]string `json:"headers,omitempty"`
	BasicAuth *BasicAuth        `json:"basicAuth,omitempty"`
	Cookies   map[string]string `json:"cookies,omitempty"`
	// UserAgent is a preset name (seo.UserAgentPresets, which also picks
	// the robots.txt group) or a user agent string.
	UserAgent string `json:"userAgent,omitempty"`
	// Extract and Search are custom extractors and search rules run on
	// every page (analyzer.Options.Extract, Search).
	Extract []analyzer.Extractor  `json:"extract,omitempty"`
	Search  []analyzer.SearchRule `json:"search,omitempty"`
}

// Validate checks c as a crawl would, without fetching anything. Errors
// are *seo.InputError whose Field is the JSON path of the value at fault:
// "maxPages", "mute[1]", "segments[1].url", "include[0]", "urls[3]",
// "headers.Host", "cookies.NAME", "userAgent", "extract[2].expr",
// "search[0].regex".
func (c *Config) Validate() error {
	if c.MaxPages < 0 {
		return &seo.InputError{Field: "maxPages", Value: strconv.Itoa(c.MaxPages), Reason: "must not be negative (0 means " + strconv.Itoa(DefaultMaxPages) + ")"}
	}
	if len(c.Mute) > MaxMutes {
		return &seo.InputError{Field: "mute", Value: strconv.Itoa(len(c.Mute)) + " entries", Reason: "must hold at most " + strconv.Itoa(MaxMutes) + " check IDs or areas"}
	}
	if err := analyzer.ValidateIDs("mute", c.Mute, Catalog()); err != nil {
		return err
	}
	if c.UserAgent != "" {
		if _, _, err := seo.ResolveUserAgent(c.UserAgent); err != nil {
			return err
		}
	}
	h := http.Header{}
	for k, v := range c.Headers {
		h[k] = []string{v}
	}
	if err := seo.ValidateRequestHeader("headers", h); err != nil {
		return err
	}
	if len(c.Cookies) > MaxCookies {
		return &seo.InputError{Field: "cookies", Value: strconv.Itoa(len(c.Cookies)), Reason: "at most " + strconv.Itoa(MaxCookies) + " cookies"}
	}
	cookieBytes := 0
	for _, name := range slices.Sorted(maps.Keys(c.Cookies)) {
		if (&http.Cookie{Name: name, Value: c.Cookies[name]}).Valid() != nil {
			return &seo.InputError{Field: "cookies." + name, Reason: "not a valid cookie name and value"}
		}
		if cookieBytes += len(name) + len(c.Cookies[name]) + 2; cookieBytes > seo.MaxRequestHeaderBytes {
			return &seo.InputError{Field: "cookies." + name, Reason: fmt.Sprintf("the cookies are longer than %d bytes together", seo.MaxRequestHeaderBytes)}
		}
	}
	sc := c.scope()
	if err := sc.Validate(); err != nil {
		return err
	}
	if err := ValidateSegmentsFor(c.Segments, c.Extract); err != nil {
		return err
	}
	if _, err := analyzer.CompileExtractors(c.Extract); err != nil {
		return err
	}
	if _, err := analyzer.CompileSearchRules(c.Search); err != nil {
		return err
	}
	return nil
}

// ValidateFor checks c as Validate does, and that its scope admits the
// start URL of a crawl of domain (ValidateStart): a start URL left out
// is a *seo.InputError on "include", "exclude" or "maxFolderDepth",
// reported before the crawl instead of when it starts.
func (c *Config) ValidateFor(domain string) error {
	if err := c.Validate(); err != nil {
		return err
	}
	sc := c.scope()
	return ValidateStart(domain, &sc)
}

// scope is the Scope of c.
func (c *Config) scope() Scope {
	sc := Scope{
		Include: c.Include, Exclude: c.Exclude, KeepParams: c.KeepParams,
		MaxFolderDepth: c.MaxFolderDepth, URLs: c.URLs,
	}
	if len(c.Headers) > 0 {
		sc.Header = http.Header{}
		for _, k := range slices.Sorted(maps.Keys(c.Headers)) {
			sc.Header.Set(k, c.Headers[k])
		}
	}
	if b := c.BasicAuth; b != nil {
		sc.BasicAuth = &BasicAuth{Username: b.Username, Password: b.Password}
	}
	for _, name := range slices.Sorted(maps.Keys(c.Cookies)) {
		sc.Cookies = append(sc.Cookies, &http.Cookie{Name: name, Value: c.Cookies[name]})
	}
	return sc
}

// Apply sets c on o after validating it: MaxPages when positive, the
// scope, list and access settings (replacing o.Scope), the user agent and
// its robots.txt token, segments, and on o.Analyzer (a copy of it, or new
// options when nil) the extractors, search rules and mutes (added to
// those of o.Analyzer). The switches of c turn settings on; a false one
// leaves o's as it is. The error is Validate's.
func (c *Config) Apply(o *Options) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if c.MaxPages > 0 {
		o.MaxPages = c.MaxPages
	}
	o.IncludeSubdomains = o.IncludeSubdomains || c.IncludeSubdomains
	o.SkipExternalLinks = o.SkipExternalLinks || c.SkipExternalLinks
	o.NoCrawlCanonicals = o.NoCrawlCanonicals || c.NoCrawlCanonicals
	o.NoCrawlHreflang = o.NoCrawlHreflang || c.NoCrawlHreflang
	o.SkipResourceChecks = o.SkipResourceChecks || c.SkipResourceChecks
	o.AICrawlers = o.AICrawlers || c.AICrawlers
	o.SkipAICrawlerProbe = o.SkipAICrawlerProbe || c.SkipAICrawlerProbe
	if len(c.Segments) > 0 {
		o.Segments = c.Segments
	}
	listSitemap := o.ListSitemap
	o.Scope = c.scope()
	o.ListSitemap = listSitemap
	if c.UserAgent != "" {
		ua, token, _ := seo.ResolveUserAgent(c.UserAgent) // validated
		o.UserAgent, o.RobotsToken = ua, token
	}
	var ao analyzer.Options
	if o.Analyzer != nil {
		ao = *o.Analyzer
	}
	ao.Mute = unionStrings(ao.Mute, c.Mute)
	if len(c.Extract) > 0 {
		ao.Extract = c.Extract
	}
	if len(c.Search) > 0 {
		ao.Search = c.Search
	}
	o.Analyzer = &ao
	return nil
}

// unionStrings is a followed by the entries of b it lacks.
func unionStrings(a, b []string) []string {
	for _, s := range b {
		if !slices.Contains(a, s) {
			a = append(a, s)
		}
	}
	return a
}

// DecodeConfig reads one configuration document from r: a single JSON
// object of at most MaxConfigBytes with no unknown field, then validated.
// Errors are *seo.InputError naming the field ("extract[0].typo" for an
// unknown field, "maxPages" for a string where a number belongs, or
// Validate's).
func DecodeConfig(r io.Reader) (*Config, error) {
	body, err := io.ReadAll(io.LimitReader(r, MaxConfigBytes+1))
	if err != nil {
		return nil, err
	}
	if len(body) > MaxConfigBytes {
		return nil, &seo.InputError{Field: "config", Reason: "larger than " + strconv.Itoa(MaxConfigBytes>>10) + " KiB"}
	}
	var c Config
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, configDecodeError(body, err)
	}
	if dec.More() {
		return nil, &seo.InputError{Field: "config", Reason: "must hold a single JSON object; found data after it"}
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// configDecodeError maps a decoding error of body to an *seo.InputError
// naming the field.
func configDecodeError(body []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return &seo.InputError{Field: "config", Reason: fmt.Sprintf("not valid JSON at byte %d", se.Offset)}
	case errors.As(err, &te) && te.Field != "":
		return &seo.InputError{Field: te.Field, Value: te.Value, Reason: "must be of JSON type " + jsonType(te.Type)}
	case errors.As(err, &te):
		return &seo.InputError{Field: "config", Reason: "must be a JSON object, not " + te.Value}
	}
	if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		name, _ := strconv.Unquote(f)
		if name == "" {
			name = f
		}
		if p := unknownPath(body, name); p != "" {
			name = p
		}
		return &seo.InputError{Field: name, Reason: "unknown field"}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &seo.InputError{Field: "config", Reason: "not valid JSON (empty or cut short)"}
	}
	return &seo.InputError{Field: "config", Reason: "not valid JSON"}
}

// unknownPath finds the JSON path of the first member named name that
// Config does not declare at its place in body.
func unknownPath(body []byte, name string) string {
	var doc any
	if json.Unmarshal(body, &doc) != nil {
		return ""
	}
	s := configSchema()
	return findUnknown(doc, &s, s.Defs, name, "")
}

func findUnknown(doc any, s *schema, defs map[string]*schema, name, prefix string) string {
	if s.Ref != "" {
		s = defs[strings.TrimPrefix(s.Ref, "#/$defs/")]
	}
	switch d := doc.(type) {
	case map[string]any:
		if s.Properties == nil {
			return ""
		}
		for _, k := range slices.Sorted(maps.Keys(d)) {
			ps, ok := s.Properties[k]
			if !ok {
				if k == name {
					return prefix + k
				}
				continue
			}
			if p := findUnknown(d[k], ps, defs, name, prefix+k+"."); p != "" {
				return p
			}
		}
	case []any:
		if s.Items == nil {
			return ""
		}
		for i, v := range d {
			if p := findUnknown(v, s.Items, defs, name, strings.TrimSuffix(prefix, ".")+"["+strconv.Itoa(i)+"]."); p != "" {
				return p
			}
		}
	}
	return ""
}

// jsonType names the JSON type of a Go type.
func jsonType(t reflect.Type) string {
	s := typeSchema(t, map[string]*schema{})
	if s.Ref != "" {
		return "object"
	}
	return s.Type
}
