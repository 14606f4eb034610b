package searchconsole

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/seokit/seokit/indexstatus"
	"github.com/seokit/seokit/internal/google"
	"github.com/seokit/seokit/seo"
)

// Name is the driver name.
const Name = "searchconsole"

// Scope is the OAuth 2.0 scope the inspections need (read only).
const Scope = "https://www.googleapis.com/auth/webmasters.readonly"

// inspectPath is the documented method path.
const inspectPath = "/v1/urlInspection/index:inspect"

// Options configures an Inspector. Credentials (HTTPClient or TokenSource)
// are required; every other zero value is a default.
type Options struct {
	// HTTPClient sends requests with OAuth 2.0 credentials for Scope (a
	// service account added as a user of the property).
	HTTPClient *http.Client
	// TokenSource supplies access tokens when HTTPClient is nil.
	TokenSource oauth2.TokenSource
	// BaseURL replaces https://searchconsole.googleapis.com (tests,
	// proxies).
	BaseURL string
	// Timeout bounds each request; zero means 30 seconds.
	Timeout time.Duration
	// Language is the BCP 47 language of Search Console's messages; ""
	// means en-US.
	Language string
}

// Inspector inspects URLs through the Search Console URL Inspection API.
// It is safe for concurrent use.
type Inspector struct {
	c    *google.Client
	lang string
}

var _ indexstatus.Inspector = (*Inspector)(nil)

// New returns an Inspector. Missing credentials or a bad BaseURL is an
// *seo.InputError naming "credentials" or "baseURL".
func New(opts *Options) (*Inspector, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	c, err := google.New(google.Config{Name: Name, BaseURL: o.BaseURL, HTTPClient: o.HTTPClient, TokenSource: o.TokenSource, Timeout: o.Timeout}, google.SearchConsoleBase)
	if err != nil {
		return nil, err
	}
	lang := o.Language
	if lang == "" {
		lang = "en-US"
	}
	return &Inspector{c: c, lang: lang}, nil
}

// Name returns "searchconsole".
func (s *Inspector) Name() string { return Name }

type wireAnswer struct {
	InspectionResult *struct {
		InspectionResultLink string `json:"inspectionResultLink"`
		IndexStatusResult    *struct {
			Verdict         string   `json:"verdict"`
			CoverageState   string   `json:"coverageState"`
			RobotsTxtState  string   `json:"robotsTxtState"`
			IndexingState   string   `json:"indexingState"`
			LastCrawlTime   string   `json:"lastCrawlTime"`
			PageFetchState  string   `json:"pageFetchState"`
			GoogleCanonical string   `json:"googleCanonical"`
			UserCanonical   string   `json:"userCanonical"`
			Sitemap         []string `json:"sitemap"`
			ReferringUrls   []string `json:"referringUrls"`
			CrawledAs       string   `json:"crawledAs"`
		} `json:"indexStatusResult"`
	} `json:"inspectionResult"`
}

// Under reports whether u (parsed) belongs to property: a URL-prefix
// property's prefix, or a Domain property's host or one of its
// subdomains.
func Under(property string, u *url.URL) bool {
	if d, ok := strings.CutPrefix(property, "sc-domain:"); ok {
		h := strings.ToLower(u.Hostname())
		return h == d || strings.HasSuffix(h, "."+d)
	}
	return strings.HasPrefix(u.String(), property)
}

// Inspect returns the index status of url in property. The url must be an
// absolute http(s) URL under the property ("url"); the property is
// "sc-domain:example.com" or a URL prefix ("property").
func (s *Inspector) Inspect(ctx context.Context, property, rawURL string) (*indexstatus.Inspection, error) {
	site, err := google.ParseSite("property", property)
	if err != nil {
		return nil, err
	}
	u, err := seo.ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	if !Under(site, u) {
		return nil, &seo.InputError{Field: "url", Value: rawURL, Reason: "is not under the property " + site}
	}
	req := map[string]string{"inspectionUrl": u.String(), "siteUrl": site, "languageCode": s.lang}
	var ans wireAnswer
	if err := s.c.Post(ctx, inspectPath, req, &ans); err != nil {
		return nil, err
	}
	if ans.InspectionResult == nil || ans.InspectionResult.IndexStatusResult == nil {
		return nil, fmt.Errorf("%s: %w: the answer has no inspectionResult.indexStatusResult", Name, seo.ErrUnavailable)
	}
	w := ans.InspectionResult.IndexStatusResult
	in := &indexstatus.Inspection{
		URL: u.String(), Verdict: clean(w.Verdict), Coverage: clean(w.CoverageState),
		IndexingState: clean(w.IndexingState), RobotsTxtState: clean(w.RobotsTxtState),
		PageFetchState: clean(w.PageFetchState), CrawledAs: clean(w.CrawledAs),
		GoogleCanonical: cleanURL(w.GoogleCanonical), UserCanonical: cleanURL(w.UserCanonical),
		Sitemaps: cleanURLs(w.Sitemap), ReferringURLs: cleanURLs(w.ReferringUrls),
		Link: cleanURL(ans.InspectionResult.InspectionResultLink),
	}
	if in.Verdict == "VERDICT_UNSPECIFIED" {
		in.Verdict = ""
	}
	if w.LastCrawlTime != "" {
		t, err := time.Parse(time.RFC3339Nano, w.LastCrawlTime)
		if err != nil {
			return nil, fmt.Errorf("%s: %w: lastCrawlTime %q is not an RFC 3339 time", Name, seo.ErrUnavailable, seo.Clip(w.LastCrawlTime))
		}
		if t.Year() > 1970 { // the zero Timestamp means never crawled
			t = t.UTC()
			in.LastCrawl = &t
		}
	}
	return in, nil
}

// clean bounds a provider string.
func clean(s string) string { return seo.ClipTo(strings.TrimSpace(s), 200) }

// cleanURL keeps an absolute http(s) URL, "" otherwise.
func cleanURL(s string) string {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(s) > 2048 {
		return ""
	}
	return u.String()
}

func cleanURLs(in []string) []string {
	var out []string
	for _, s := range in {
		if len(out) == indexstatus.MaxListed {
			break
		}
		if c := cleanURL(s); c != "" {
			out = append(out, c)
		}
	}
	return out
}
