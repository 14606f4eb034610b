package google

import (
	"context"
	"fmt"
	"math"
	"net/url"
	"strings"
	"time"

	"github.com/seokit/seokit/seo"
)

// SearchConsoleBase is the Search Console API host. The older
// https://www.googleapis.com host serves the same /webmasters/v3 paths.
const SearchConsoleBase = "https://searchconsole.googleapis.com"

// MaxRowLimit is the largest rowLimit searchAnalytics.query accepts.
const MaxRowLimit = 25000

// DateLayout is the YYYY-MM-DD form both APIs use for dates.
const DateLayout = "2006-01-02"

// SearchAnalyticsRequest is the body of searchAnalytics.query.
type SearchAnalyticsRequest struct {
	StartDate             string        `json:"startDate"`
	EndDate               string        `json:"endDate"`
	Dimensions            []string      `json:"dimensions,omitempty"`
	Type                  string        `json:"type,omitempty"`
	DimensionFilterGroups []FilterGroup `json:"dimensionFilterGroups,omitempty"`
	AggregationType       string        `json:"aggregationType,omitempty"`
	RowLimit              int           `json:"rowLimit,omitempty"`
	StartRow              int           `json:"startRow"`
	DataState             string        `json:"dataState,omitempty"`
}

// FilterGroup is one dimensionFilterGroups entry.
type FilterGroup struct {
	GroupType string   `json:"groupType,omitempty"`
	Filters   []Filter `json:"filters"`
}

// Filter is one dimension filter ("query" "equals" "seo tools").
type Filter struct {
	Dimension  string `json:"dimension"`
	Operator   string `json:"operator"`
	Expression string `json:"expression"`
}

// SearchAnalyticsRow is one answer row. Keys follow the request's
// dimensions; Position is Google's average position (1-based).
type SearchAnalyticsRow struct {
	Keys        []string
	Clicks      int
	Impressions int
	CTR         float64
	Position    float64
}

type wireRow struct {
	Keys        []string `json:"keys"`
	Clicks      *float64 `json:"clicks"`
	Impressions *float64 `json:"impressions"`
	CTR         *float64 `json:"ctr"`
	Position    *float64 `json:"position"`
}

type wireAnswer struct {
	Rows                    []wireRow `json:"rows"`
	ResponseAggregationType string    `json:"responseAggregationType"`
}

// ParseSite validates a Search Console property: "sc-domain:example.com"
// (a Domain property) or an http(s) URL prefix such as
// "https://www.example.com/" (an empty path becomes "/"). Errors are
// *seo.InputError for field.
func ParseSite(field, raw string) (string, error) {
	s := strings.TrimSpace(raw)
	bad := func(reason string) (string, error) {
		return "", &seo.InputError{Field: field, Value: raw, Reason: reason}
	}
	if s == "" {
		return bad("is empty; use sc-domain:example.com or https://www.example.com/")
	}
	if d, ok := strings.CutPrefix(s, "sc-domain:"); ok {
		host, err := seo.ParseHost(d, nil)
		if err != nil || d != strings.TrimSpace(d) {
			return bad("a Domain property is sc-domain: followed by a bare domain name such as example.com")
		}
		return "sc-domain:" + host, nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return bad("must be sc-domain:example.com or a URL prefix such as https://www.example.com/")
	}
	if u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return bad("a URL-prefix property has no query or fragment")
	}
	if _, err := seo.ParseURL(s); err != nil {
		return bad("must be sc-domain:example.com or a URL prefix such as https://www.example.com/")
	}
	if u.Path == "" {
		u.Path = "/"
	}
	u.Host = strings.ToLower(u.Host)
	return u.String(), nil
}

// SearchAnalyticsPath returns the escaped request path for a property.
func SearchAnalyticsPath(site string) string {
	return "/webmasters/v3/sites/" + url.QueryEscape(site) + "/searchAnalytics/query"
}

// SearchAnalytics runs a searchAnalytics.query for site, paging with
// startRow by req.RowLimit (0 means MaxRowLimit) until a short page or
// maxRows rows (0 means no cap other than Google's). It returns the rows and
// whether the cap cut them. An absent rows array is no rows.
func SearchAnalytics(ctx context.Context, c *Client, site string, req SearchAnalyticsRequest, maxRows int) ([]SearchAnalyticsRow, bool, error) {
	if req.RowLimit <= 0 || req.RowLimit > MaxRowLimit {
		req.RowLimit = MaxRowLimit
	}
	if maxRows > 0 && req.RowLimit > maxRows {
		req.RowLimit = maxRows
	}
	path := SearchAnalyticsPath(site)
	var out []SearchAnalyticsRow
	for start := 0; ; {
		req.StartRow = start
		var ans wireAnswer
		if err := c.Post(ctx, path, req, &ans); err != nil {
			return nil, false, err
		}
		if len(ans.Rows) > req.RowLimit {
			return nil, false, fmt.Errorf("%s: %w: answer has %d rows, more than the rowLimit %d", c.name, seo.ErrUnavailable, len(ans.Rows), req.RowLimit)
		}
		for i, w := range ans.Rows {
			r, err := checkRow(w, len(req.Dimensions))
			if err != nil {
				return nil, false, fmt.Errorf("%s: %w: row %d: %s", c.name, seo.ErrUnavailable, start+i, err)
			}
			out = append(out, r)
		}
		if len(ans.Rows) < req.RowLimit {
			return out, false, nil
		}
		if maxRows > 0 && len(out) >= maxRows {
			return out[:maxRows], true, nil
		}
		start += len(ans.Rows)
		if err := ctx.Err(); err != nil {
			return nil, false, fmt.Errorf("%s: request cancelled: %w", c.name, err)
		}
	}
}

type rowError string

func (e rowError) Error() string { return string(e) }

func checkRow(w wireRow, dims int) (SearchAnalyticsRow, error) {
	if len(w.Keys) != dims {
		return SearchAnalyticsRow{}, rowError(fmt.Sprintf("has %d keys for %d dimensions", len(w.Keys), dims))
	}
	count := func(name string, v *float64) (int, error) {
		if v == nil {
			return 0, rowError(name + " is missing")
		}
		if math.IsNaN(*v) || *v < 0 || *v > math.MaxInt32 || *v != math.Trunc(*v) {
			return 0, rowError(fmt.Sprintf("%s %v is not a count", name, *v))
		}
		return int(*v), nil
	}
	clicks, err := count("clicks", w.Clicks)
	if err != nil {
		return SearchAnalyticsRow{}, err
	}
	impr, err := count("impressions", w.Impressions)
	if err != nil {
		return SearchAnalyticsRow{}, err
	}
	if clicks > impr {
		return SearchAnalyticsRow{}, rowError(fmt.Sprintf("clicks %d exceed impressions %d", clicks, impr))
	}
	r := SearchAnalyticsRow{Keys: w.Keys, Clicks: clicks, Impressions: impr}
	if w.Position == nil || math.IsNaN(*w.Position) || *w.Position < 1 {
		return SearchAnalyticsRow{}, rowError("position is missing or below 1")
	}
	r.Position = *w.Position
	if w.CTR != nil {
		if math.IsNaN(*w.CTR) || *w.CTR < 0 || *w.CTR > 1 {
			return SearchAnalyticsRow{}, rowError(fmt.Sprintf("ctr %v is outside 0..1", *w.CTR))
		}
		r.CTR = *w.CTR
	} else if impr > 0 {
		r.CTR = float64(clicks) / float64(impr)
	}
	return r, nil
}

// Day returns t's UTC calendar day as YYYY-MM-DD.
func Day(t time.Time) string { return t.UTC().Format(DateLayout) }

// CheckRange validates an inclusive date range: both set, start not after
// end, and at most maxDays days long (0 means no limit). Errors are
// *seo.InputError naming "start" or "end".
func CheckRange(start, end time.Time, maxDays int) error {
	switch {
	case start.IsZero():
		return &seo.InputError{Field: "start", Reason: "is missing"}
	case end.IsZero():
		return &seo.InputError{Field: "end", Reason: "is missing"}
	}
	s := truncDay(start)
	e := truncDay(end)
	if s.After(e) {
		return &seo.InputError{Field: "start", Value: Day(start), Reason: "is after end " + Day(end)}
	}
	if maxDays > 0 && int(e.Sub(s).Hours()/24)+1 > maxDays {
		return &seo.InputError{Field: "end", Value: Day(end), Reason: fmt.Sprintf("the range from %s is longer than %d days", Day(start), maxDays)}
	}
	return nil
}

func truncDay(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}
