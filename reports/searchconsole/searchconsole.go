package searchconsole

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"time"

	"golang.org/x/oauth2"

	"github.com/seokit/seokit/internal/google"
	"github.com/seokit/seokit/reports"
	"github.com/seokit/seokit/seo"
)

// Name is the driver name reported in Traffic.Source.
const Name = "searchconsole"

// MaxDays is the longest range Traffic accepts: Search Console keeps 16
// months of data.
const MaxDays = 16 * 31

// Options configures a Source. Credentials (HTTPClient or TokenSource) are
// required; every other zero value is a default.
type Options struct {
	// HTTPClient sends requests with OAuth 2.0 credentials for the scope
	// https://www.googleapis.com/auth/webmasters.readonly.
	HTTPClient *http.Client
	// TokenSource supplies access tokens when HTTPClient is nil.
	TokenSource oauth2.TokenSource
	// BaseURL replaces https://searchconsole.googleapis.com (tests, proxies).
	BaseURL string
	// Timeout bounds each request; zero means 30 seconds.
	Timeout time.Duration
	// Properties maps a domain ("example.com") to its Search Console
	// property ("https://www.example.com/" or "sc-domain:example.com").
	// A domain not listed uses the Domain property "sc-domain:" + domain.
	Properties map[string]string
	// Fresh asks for fresh, not yet final data (dataState "all").
	Fresh bool
	// Type is the search type: web (the default), image, video, news,
	// discover or googleNews.
	Type string
	// RowLimit is the page size of a query; zero means 25,000, the maximum.
	RowLimit int
}

// Source reads clicks, impressions and CTR per day from Search Console. It
// implements reports.TrafficSource.
type Source struct {
	c     *google.Client
	props map[string]string
	o     Options
}

var _ reports.TrafficSource = (*Source)(nil)

// New returns a Source. A bad Properties entry is an *seo.InputError for
// "properties"; missing credentials one for "credentials".
func New(opts *Options) (*Source, error) {
	s := &Source{props: map[string]string{}}
	if opts != nil {
		s.o = *opts
	}
	for d, p := range s.o.Properties {
		host, err := seo.ParseHost(d, nil)
		if err != nil {
			if ie, ok := seo.AsInputError(err); ok {
				return nil, ie.WithField("properties")
			}
			return nil, err
		}
		site, err := google.ParseSite("properties", p)
		if err != nil {
			return nil, err
		}
		s.props[host] = site
	}
	switch s.o.Type {
	case "":
		s.o.Type = "web"
	case "web", "image", "video", "news", "discover", "googleNews":
	default:
		return nil, &seo.InputError{Field: "type", Value: s.o.Type, Reason: "must be web, image, video, news, discover or googleNews"}
	}
	c, err := google.New(google.Config{
		Name: Name, BaseURL: s.o.BaseURL, HTTPClient: s.o.HTTPClient,
		TokenSource: s.o.TokenSource, Timeout: s.o.Timeout,
	}, google.SearchConsoleBase)
	if err != nil {
		return nil, err
	}
	s.c = c
	return s, nil
}

// Name returns "searchconsole".
func (s *Source) Name() string { return Name }

// Property returns the Search Console property read for domain.
func (s *Source) Property(domain string) (string, error) {
	host, err := seo.ParseHost(domain, nil)
	if err != nil {
		return "", err
	}
	if p, ok := s.props[host]; ok {
		return p, nil
	}
	return "sc-domain:" + host, nil
}

// Traffic returns the clicks, impressions and CTR Search Console recorded
// for domain's property on the UTC days start..end inclusive, with a daily
// series. Days Search Console has no data for are left out of Daily, not
// filled with zeros; when it has no data for the whole range, Clicks,
// Impressions and CTR are nil. Totals are the sums of the days; CTR is
// clicks / impressions.
func (s *Source) Traffic(ctx context.Context, domain string, start, end time.Time) (*reports.Traffic, error) {
	site, err := s.Property(domain)
	if err != nil {
		return nil, err
	}
	if err := google.CheckRange(start, end, MaxDays); err != nil {
		return nil, err
	}
	req := google.SearchAnalyticsRequest{
		StartDate:  google.Day(start),
		EndDate:    google.Day(end),
		Dimensions: []string{"date"},
		Type:       s.o.Type,
		RowLimit:   s.o.RowLimit,
	}
	if s.o.Fresh {
		req.DataState = "all"
	}
	rows, _, err := google.SearchAnalytics(ctx, s.c, site, req, 0)
	if err != nil {
		return nil, err
	}
	t := &reports.Traffic{Source: Name}
	if len(rows) == 0 {
		return t, nil
	}
	seen := make(map[string]bool, len(rows))
	var clicks, impr int
	for _, r := range rows {
		day, err := time.Parse(google.DateLayout, r.Keys[0])
		if err != nil {
			return nil, fmt.Errorf("%s: %w: date key %q is not YYYY-MM-DD", Name, seo.ErrUnavailable, seo.Clip(r.Keys[0]))
		}
		d := day.Format(google.DateLayout)
		if d < req.StartDate || d > req.EndDate {
			return nil, fmt.Errorf("%s: %w: date %s is outside the requested range", Name, seo.ErrUnavailable, d)
		}
		if seen[d] {
			return nil, fmt.Errorf("%s: %w: date %s appears twice", Name, seo.ErrUnavailable, d)
		}
		seen[d] = true
		c, i := r.Clicks, r.Impressions
		clicks += c
		impr += i
		t.Daily = append(t.Daily, reports.DailyTraffic{Date: d, Clicks: &c, Impressions: &i})
	}
	sort.Slice(t.Daily, func(i, j int) bool { return t.Daily[i].Date < t.Daily[j].Date })
	t.Clicks, t.Impressions = &clicks, &impr
	if impr > 0 {
		ctr := float64(clicks) / float64(impr)
		t.CTR = &ctr
	}
	return t, nil
}
