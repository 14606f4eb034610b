package fieldvitals

import (
	"context"
	"net/url"
	"strings"

	"github.com/seokit/seokit/seo"
)

// Source reads field Web Vitals. Drivers live in subpackages
// (fieldvitals/crux) and run fieldvitalstest.RunSource.
type Source interface {
	// Name names the driver ("crux").
	Name() string
	// Record returns the latest 28-day record of q. Too little traffic
	// for data is a Record with Status StatusInsufficient, not an error.
	// A quota refusal wraps seo.ErrRateLimited; other provider failures
	// seo.ErrUnavailable; bad input is an *seo.InputError ("url",
	// "origin", "formFactor").
	Record(ctx context.Context, q Query) (*Record, error)
	// History returns the weekly series of q's 28-day records (the CrUX
	// History API), with the same states and errors as Record.
	History(ctx context.Context, q Query) (*History, error)
}

// FormFactor narrows a query to a device class; "" means all devices.
type FormFactor string

// Form factors, as the CrUX API spells them.
const (
	AllDevices FormFactor = ""
	Phone      FormFactor = "PHONE"
	Desktop    FormFactor = "DESKTOP"
	Tablet     FormFactor = "TABLET"
)

// Query asks for one URL or one origin (exactly one of them), optionally
// on one form factor.
type Query struct {
	URL        string     `json:"url,omitempty"`
	Origin     string     `json:"origin,omitempty"`
	FormFactor FormFactor `json:"formFactor,omitempty"`
}

// Check validates q and returns it normalised: an absolute http(s) URL, or
// an origin (scheme and host, no path), and a known form factor. Errors are
// *seo.InputError naming "url", "origin" or "formFactor".
func (q Query) Check() (Query, error) {
	q.URL, q.Origin = strings.TrimSpace(q.URL), strings.TrimSpace(q.Origin)
	switch q.FormFactor {
	case AllDevices, Phone, Desktop, Tablet:
	default:
		ff := FormFactor(strings.ToUpper(string(q.FormFactor)))
		switch ff {
		case Phone, Desktop, Tablet:
			q.FormFactor = ff
		default:
			return q, &seo.InputError{Field: "formFactor", Value: string(q.FormFactor), Reason: "must be PHONE, DESKTOP, TABLET or empty (all)"}
		}
	}
	switch {
	case q.URL == "" && q.Origin == "":
		return q, &seo.InputError{Field: "url", Reason: "give a url or an origin"}
	case q.URL != "" && q.Origin != "":
		return q, &seo.InputError{Field: "origin", Value: q.Origin, Reason: "give a url or an origin, not both"}
	case q.URL != "":
		u, err := seo.ParseURL(q.URL)
		if err != nil {
			return q, err
		}
		u.Fragment = ""
		q.URL = u.String()
	default:
		u, err := url.Parse(q.Origin)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
			return q, &seo.InputError{Field: "origin", Value: q.Origin, Reason: "must be a scheme and host such as https://www.example.com"}
		}
		if _, err := seo.ParseURL(q.Origin); err != nil {
			return q, &seo.InputError{Field: "origin", Value: q.Origin, Reason: "must be a scheme and host such as https://www.example.com"}
		}
		q.Origin = u.Scheme + "://" + strings.ToLower(u.Host)
	}
	return q, nil
}

// Statuses of a Record, History or Metric.
const (
	// StatusOK: the figures are Google's.
	StatusOK = "ok"
	// StatusInsufficient: Chrome users did not visit enough for CrUX to
	// publish data (its 404 "no data", or a metric left out): not a zero.
	StatusInsufficient = "insufficient_data"
)

// Metric names, in the order records list them.
const (
	LCP  = "lcp"
	INP  = "inp"
	CLS  = "cls"
	FCP  = "fcp"
	TTFB = "ttfb"
)

// Metrics lists the metric names in order.
var Metrics = []string{LCP, INP, CLS, FCP, TTFB}

// Thresholds are the documented "good" and "poor" limits of each metric:
// a p75 at or below Good is good, above Poor is poor.
var Thresholds = map[string]struct{ Good, Poor float64 }{
	LCP: {2500, 4000}, INP: {200, 500}, CLS: {0.1, 0.25}, FCP: {1800, 3000}, TTFB: {800, 1800},
}

// Ratings of a Metric.
const (
	Good             = "good"
	NeedsImprovement = "needs_improvement"
	Poor             = "poor"
)

// Rate returns the rating of a metric's p75 value.
func Rate(metric string, p75 float64) string {
	t, ok := Thresholds[metric]
	switch {
	case !ok:
		return ""
	case p75 <= t.Good:
		return Good
	case p75 <= t.Poor:
		return NeedsImprovement
	}
	return Poor
}

// Unit returns a metric's unit: "ms", or "" for CLS (unitless).
func Unit(metric string) string {
	if metric == CLS {
		return ""
	}
	return "ms"
}

// Period is a collection period, first and last day included
// (YYYY-MM-DD).
type Period struct {
	First string `json:"first"`
	Last  string `json:"last"`
}

// Bin is one histogram bin: the share of experiences from Start to End
// (nil End: no upper bound).
type Bin struct {
	Start   float64  `json:"start"`
	End     *float64 `json:"end"`
	Density float64  `json:"density"`
}

// Metric is one metric of a Record.
type Metric struct {
	Name string `json:"name"`
	Unit string `json:"unit"`
	// Status is StatusOK or StatusInsufficient (CrUX has no data for this
	// metric): then P75, Rating and Histogram are absent.
	Status    string   `json:"status"`
	P75       *float64 `json:"p75"`
	Rating    string   `json:"rating,omitempty"`
	Histogram []Bin    `json:"histogram,omitempty"`
}

// Record is the field data of one URL or origin over a 28-day period.
type Record struct {
	Query Query `json:"query"`
	// Source names the driver ("crux").
	Source string `json:"source"`
	// Status is StatusOK, or StatusInsufficient when CrUX has no data:
	// then Period and Metrics are absent.
	Status string `json:"status"`
	// NormalizedURL is the URL CrUX looked up, when it normalised it.
	NormalizedURL string  `json:"normalizedUrl,omitempty"`
	Period        *Period `json:"period"`
	// Metrics are LCP, INP, CLS, FCP and TTFB, in that order, each with
	// its own status.
	Metrics []Metric `json:"metrics"`
}

// Metric returns the named metric of r, nil when absent.
func (r *Record) Metric(name string) *Metric {
	for i := range r.Metrics {
		if r.Metrics[i].Name == name {
			return &r.Metrics[i]
		}
	}
	return nil
}

// Series is a metric's weekly p75 values over History.Periods; an entry is
// nil for a period without data.
type Series struct {
	Name string     `json:"name"`
	Unit string     `json:"unit"`
	P75  []*float64 `json:"p75"`
}

// MaxPeriods caps History.Periods (CrUX gives 25 by default, 40 at most).
const MaxPeriods = 40

// History is the weekly series of a URL's or origin's 28-day records.
type History struct {
	Query  Query  `json:"query"`
	Source string `json:"source"`
	// Status is StatusOK or StatusInsufficient (no data at all).
	Status  string   `json:"status"`
	Periods []Period `json:"periods"`
	// Metrics are the series of the metrics CrUX has, in Metrics order.
	Metrics []Series `json:"metrics"`
}
