package ga4

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/seokit/seokit/internal/google"
	"github.com/seokit/seokit/reports"
	"github.com/seokit/seokit/seo"
)

// Name is the driver name reported in Traffic.Source.
const Name = "ga4"

// Base is the Analytics Data API host.
const Base = "https://analyticsdata.googleapis.com"

// OrganicChannel is the default channel group value counted as organic
// search traffic.
const OrganicChannel = "Organic Search"

// Limits of a runReport page.
const (
	// DefaultPageSize is the rows asked for per request (the API's default).
	DefaultPageSize = 10000
	// MaxPageSize is the most rows the API returns per request.
	MaxPageSize = 250000
	// MaxDays is the longest range Traffic accepts.
	MaxDays = 5 * 366
)

// Options configures a Source. Credentials (HTTPClient or TokenSource) are
// required; every other zero value is a default.
type Options struct {
	// HTTPClient sends requests with OAuth 2.0 credentials for the scope
	// https://www.googleapis.com/auth/analytics.readonly.
	HTTPClient *http.Client
	// TokenSource supplies access tokens when HTTPClient is nil.
	TokenSource oauth2.TokenSource
	// BaseURL replaces https://analyticsdata.googleapis.com (tests, proxies).
	BaseURL string
	// Timeout bounds each request; zero means 30 seconds.
	Timeout time.Duration
	// PageSize is the runReport limit per request; zero means
	// DefaultPageSize, at most MaxPageSize.
	PageSize int
}

// Source reads organic sessions per day from the Google Analytics 4 Data
// API. It implements reports.TrafficSource.
type Source struct {
	c     *google.Client
	props map[string]string
	limit int
}

var _ reports.TrafficSource = (*Source)(nil)

// New returns a Source reading, for each domain, the GA4 property that
// properties maps it to ("example.com" → "123456789" or
// "properties/123456789"). A bad entry is an *seo.InputError for
// "properties"; missing credentials one for "credentials".
func New(properties map[string]string, opts *Options) (*Source, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if len(properties) == 0 {
		return nil, &seo.InputError{Field: "properties", Reason: "is empty; map each domain to its GA4 property ID"}
	}
	s := &Source{props: make(map[string]string, len(properties)), limit: o.PageSize}
	for d, p := range properties {
		host, err := seo.ParseHost(d, nil)
		if err != nil {
			if ie, ok := seo.AsInputError(err); ok {
				return nil, ie.WithField("properties")
			}
			return nil, err
		}
		id := strings.TrimPrefix(strings.TrimSpace(p), "properties/")
		if _, err := strconv.ParseUint(id, 10, 63); err != nil || id == "" || id[0] == '+' {
			return nil, &seo.InputError{Field: "properties", Value: p, Reason: "a GA4 property ID is a number such as 123456789"}
		}
		s.props[host] = id
	}
	switch {
	case s.limit < 0 || s.limit > MaxPageSize:
		return nil, &seo.InputError{Field: "pageSize", Value: strconv.Itoa(s.limit), Reason: fmt.Sprintf("must be between 1 and %d", MaxPageSize)}
	case s.limit == 0:
		s.limit = DefaultPageSize
	}
	c, err := google.New(google.Config{
		Name: Name, BaseURL: o.BaseURL, HTTPClient: o.HTTPClient,
		TokenSource: o.TokenSource, Timeout: o.Timeout,
	}, Base)
	if err != nil {
		return nil, err
	}
	s.c = c
	return s, nil
}

// Name returns "ga4".
func (s *Source) Name() string { return Name }

// Day is one day of organic traffic as GA4 measured it.
type Day struct {
	Date       string // YYYY-MM-DD
	Sessions   int
	TotalUsers int // distinct users that day; not additive across days
}

type dimension struct {
	Name string `json:"name"`
}

type stringFilter struct {
	MatchType string `json:"matchType"`
	Value     string `json:"value"`
}

type filter struct {
	FieldName    string       `json:"fieldName"`
	StringFilter stringFilter `json:"stringFilter"`
}

type runReportRequest struct {
	DateRanges      []dateRange `json:"dateRanges"`
	Dimensions      []dimension `json:"dimensions"`
	Metrics         []dimension `json:"metrics"`
	DimensionFilter struct {
		Filter filter `json:"filter"`
	} `json:"dimensionFilter"`
	OrderBys []orderBy `json:"orderBys"`
	Limit    int64     `json:"limit"`
	Offset   int64     `json:"offset"`
}

type dateRange struct {
	StartDate string `json:"startDate"`
	EndDate   string `json:"endDate"`
}

type orderBy struct {
	Dimension struct {
		DimensionName string `json:"dimensionName"`
	} `json:"dimension"`
}

type value struct {
	Value *string `json:"value"`
}

type runReportResponse struct {
	DimensionHeaders []dimension `json:"dimensionHeaders"`
	MetricHeaders    []dimension `json:"metricHeaders"`
	Rows             []struct {
		DimensionValues []value `json:"dimensionValues"`
		MetricValues    []value `json:"metricValues"`
	} `json:"rows"`
	RowCount int64 `json:"rowCount"`
}

// Days returns GA4's organic sessions and users per day for domain's
// property on start..end inclusive (the property's time zone days), in date
// order. Days with no organic sessions are absent. It pages with limit and
// offset until rowCount rows are read.
func (s *Source) Days(ctx context.Context, domain string, start, end time.Time) ([]Day, error) {
	host, err := seo.ParseHost(domain, nil)
	if err != nil {
		return nil, err
	}
	id, ok := s.props[host]
	if !ok {
		return nil, fmt.Errorf("%s: no GA4 property configured for domain %s: %w", Name, host, seo.ErrNotFound)
	}
	if err := google.CheckRange(start, end, MaxDays); err != nil {
		return nil, err
	}
	req := runReportRequest{
		DateRanges: []dateRange{{StartDate: google.Day(start), EndDate: google.Day(end)}},
		Dimensions: []dimension{{Name: "date"}},
		Metrics:    []dimension{{Name: "sessions"}, {Name: "totalUsers"}},
		Limit:      int64(s.limit),
	}
	req.DimensionFilter.Filter = filter{FieldName: "sessionDefaultChannelGroup", StringFilter: stringFilter{MatchType: "EXACT", Value: OrganicChannel}}
	var ob orderBy
	ob.Dimension.DimensionName = "date"
	req.OrderBys = []orderBy{ob}
	path := "/v1beta/properties/" + id + ":runReport"
	maxRows := int64(MaxDays)
	var out []Day
	seen := map[string]bool{}
	for {
		var ans runReportResponse
		if err := s.c.Post(ctx, path, req, &ans); err != nil {
			return nil, err
		}
		days, err := parseRows(&ans, req.DateRanges[0])
		if err != nil {
			return nil, fmt.Errorf("%s: %w: %s", Name, seo.ErrUnavailable, err)
		}
		for _, d := range days {
			if seen[d.Date] {
				return nil, fmt.Errorf("%s: %w: date %s appears twice", Name, seo.ErrUnavailable, d.Date)
			}
			seen[d.Date] = true
		}
		out = append(out, days...)
		req.Offset += int64(len(ans.Rows))
		if req.Offset >= ans.RowCount || len(ans.Rows) == 0 {
			if req.Offset < ans.RowCount {
				return nil, fmt.Errorf("%s: %w: rowCount is %d but the answer stopped after %d rows", Name, seo.ErrUnavailable, ans.RowCount, req.Offset)
			}
			break
		}
		if req.Offset > maxRows {
			return nil, fmt.Errorf("%s: %w: more rows than days in the range", Name, seo.ErrUnavailable)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Date < out[j].Date })
	return out, nil
}

type parseError string

func (e parseError) Error() string { return string(e) }

func parseRows(ans *runReportResponse, r dateRange) ([]Day, error) {
	if len(ans.Rows) == 0 {
		return nil, nil
	}
	if len(ans.DimensionHeaders) != 1 || ans.DimensionHeaders[0].Name != "date" {
		return nil, parseError("dimensionHeaders are not [date]")
	}
	si, ui := -1, -1
	for i, h := range ans.MetricHeaders {
		switch h.Name {
		case "sessions":
			si = i
		case "totalUsers":
			ui = i
		}
	}
	if si < 0 || ui < 0 {
		return nil, parseError("metricHeaders lack sessions or totalUsers")
	}
	days := make([]Day, 0, len(ans.Rows))
	for n, row := range ans.Rows {
		if len(row.DimensionValues) != 1 || row.DimensionValues[0].Value == nil || len(row.MetricValues) != len(ans.MetricHeaders) {
			return nil, parseError(fmt.Sprintf("row %d does not match the headers", n))
		}
		t, err := time.Parse("20060102", *row.DimensionValues[0].Value)
		if err != nil {
			return nil, parseError(fmt.Sprintf("row %d: date %q is not YYYYMMDD", n, seo.Clip(*row.DimensionValues[0].Value)))
		}
		d := Day{Date: t.Format(google.DateLayout)}
		if d.Date < r.StartDate || d.Date > r.EndDate {
			return nil, parseError(fmt.Sprintf("row %d: date %s is outside the requested range", n, d.Date))
		}
		if d.Sessions, err = count(row.MetricValues[si]); err != nil {
			return nil, parseError(fmt.Sprintf("row %d: sessions %s", n, err))
		}
		if d.TotalUsers, err = count(row.MetricValues[ui]); err != nil {
			return nil, parseError(fmt.Sprintf("row %d: totalUsers %s", n, err))
		}
		days = append(days, d)
	}
	return days, nil
}

func count(v value) (int, error) {
	if v.Value == nil {
		return 0, parseError("is missing")
	}
	n, err := strconv.ParseInt(*v.Value, 10, 32)
	if err != nil || n < 0 {
		return 0, parseError(fmt.Sprintf("%q is not a count", seo.Clip(*v.Value)))
	}
	return int(n), nil
}

// Traffic returns GA4's organic sessions (sessionDefaultChannelGroup
// "Organic Search") for domain's property on start..end inclusive: the sum
// of the days and a daily series. Days without organic sessions are left
// out of Daily, not filled with zeros; with no data in the whole range
// Sessions is nil. An unmapped domain is an error wrapping seo.ErrNotFound.
func (s *Source) Traffic(ctx context.Context, domain string, start, end time.Time) (*reports.Traffic, error) {
	days, err := s.Days(ctx, domain, start, end)
	if err != nil {
		return nil, err
	}
	t := &reports.Traffic{Source: Name}
	if len(days) == 0 {
		return t, nil
	}
	total := 0
	for _, d := range days {
		n := d.Sessions
		total += n
		t.Daily = append(t.Daily, reports.DailyTraffic{Date: d.Date, Sessions: &n})
	}
	t.Sessions = &total
	return t, nil
}
