package crux

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/seokit/seokit/fieldvitals"
	"github.com/seokit/seokit/internal/google"
	"github.com/seokit/seokit/seo"
)

// Name is the driver name.
const Name = "crux"

// Base is the Chrome UX Report API host.
const Base = "https://chromeuxreport.googleapis.com"

// apiMetrics maps seokit's metric names to the API's.
var apiMetrics = []struct{ name, api string }{
	{fieldvitals.LCP, "largest_contentful_paint"},
	{fieldvitals.INP, "interaction_to_next_paint"},
	{fieldvitals.CLS, "cumulative_layout_shift"},
	{fieldvitals.FCP, "first_contentful_paint"},
	{fieldvitals.TTFB, "experimental_time_to_first_byte"},
}

// Options configures a Source. Key is required.
type Options struct {
	// BaseURL replaces Base (tests, proxies).
	BaseURL string
	// HTTPClient sends the requests; nil means a client over
	// http.DefaultTransport.
	HTTPClient *http.Client
	// Timeout bounds each request; zero means 30 seconds.
	Timeout time.Duration
	// Limiter paces the queries; nil means the process's limiter of the
	// key, at CrUX's documented 150 queries a minute, shared by every
	// Source with the same key.
	Limiter *Limiter
}

// Source reads field Web Vitals from the Chrome UX Report API with an API
// key. It is safe for concurrent use.
type Source struct {
	c   *google.Client
	lim *Limiter
}

var _ fieldvitals.Source = (*Source)(nil)

// keyTransport sends the API key in the X-Goog-Api-Key header, so that it
// is never part of a URL an error could repeat.
type keyTransport struct {
	key  string
	base http.RoundTripper
}

func (t keyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Goog-Api-Key", t.key)
	return t.base.RoundTrip(r)
}

// New returns a Source using key. An empty key is an *seo.InputError
// naming "key"; a bad BaseURL one naming "baseURL".
func New(key string, opts *Options) (*Source, error) {
	key = strings.TrimSpace(key)
	if key == "" {
		return nil, &seo.InputError{Field: "key", Reason: "a Chrome UX Report API key is required"}
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	base := http.DefaultTransport
	if o.HTTPClient != nil && o.HTTPClient.Transport != nil {
		base = o.HTTPClient.Transport
	}
	hc := &http.Client{Transport: keyTransport{key: key, base: base}}
	if o.HTTPClient != nil {
		hc.CheckRedirect, hc.Jar = o.HTTPClient.CheckRedirect, o.HTTPClient.Jar
	}
	c, err := google.New(google.Config{Name: Name, BaseURL: o.BaseURL, HTTPClient: hc, Timeout: o.Timeout}, Base)
	if err != nil {
		return nil, err
	}
	lim := o.Limiter
	if lim == nil {
		lim = limiterFor(key)
	}
	return &Source{c: c, lim: lim}, nil
}

// Name returns "crux".
func (s *Source) Name() string { return Name }

type wireQuery struct {
	URL        string   `json:"url,omitempty"`
	Origin     string   `json:"origin,omitempty"`
	FormFactor string   `json:"formFactor,omitempty"`
	Metrics    []string `json:"metrics"`
}

func query(q fieldvitals.Query) wireQuery {
	w := wireQuery{URL: q.URL, Origin: q.Origin, FormFactor: string(q.FormFactor)}
	for _, m := range apiMetrics {
		w.Metrics = append(w.Metrics, m.api)
	}
	return w
}

// number reads a metric value: a JSON number, or a decimal string (CLS);
// ok is false for null, "NaN" and anything else.
func number(raw json.RawMessage) (float64, bool) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return 0, false
	}
	if uq, err := strconv.Unquote(s); err == nil {
		s = uq
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, false
	}
	return v, true
}

type wireDate struct{ Year, Month, Day int }

func (d wireDate) String() string {
	return fmt.Sprintf("%04d-%02d-%02d", d.Year, d.Month, d.Day)
}

type wirePeriod struct {
	FirstDate wireDate `json:"firstDate"`
	LastDate  wireDate `json:"lastDate"`
}

func (p wirePeriod) period() (fieldvitals.Period, error) {
	for _, d := range []wireDate{p.FirstDate, p.LastDate} {
		if _, err := time.Parse(time.DateOnly, d.String()); err != nil {
			return fieldvitals.Period{}, fmt.Errorf("%s: %w: collection period date %s is not a date", Name, seo.ErrUnavailable, d)
		}
	}
	return fieldvitals.Period{First: p.FirstDate.String(), Last: p.LastDate.String()}, nil
}

type wireBin struct {
	Start     json.RawMessage   `json:"start"`
	End       json.RawMessage   `json:"end"`
	Density   json.RawMessage   `json:"density"`
	Densities []json.RawMessage `json:"densities"`
}

type wireRecord struct {
	Record *struct {
		Metrics map[string]struct {
			Histogram   []wireBin `json:"histogram"`
			Percentiles struct {
				P75 json.RawMessage `json:"p75"`
			} `json:"percentiles"`
			HistogramTimeseries   []wireBin `json:"histogramTimeseries"`
			PercentilesTimeseries struct {
				P75s []json.RawMessage `json:"p75s"`
			} `json:"percentilesTimeseries"`
		} `json:"metrics"`
		CollectionPeriod  *wirePeriod  `json:"collectionPeriod"`
		CollectionPeriods []wirePeriod `json:"collectionPeriods"`
	} `json:"record"`
	URLNormalizationDetails *struct {
		NormalizedURL string `json:"normalizedUrl"`
	} `json:"urlNormalizationDetails"`
}

// post sends one query when the limiter lets it; CrUX's 404 (no data)
// gives insufficient true. A 429 pauses the key's queries for its
// Retry-After (DefaultRetryAfter without one) and the query is sent again,
// at most MaxRetries times.
func (s *Source) post(ctx context.Context, path string, q fieldvitals.Query) (ans *wireRecord, insufficient bool, err error) {
	for attempt := 0; ; attempt++ {
		done, werr := s.lim.Wait(ctx)
		if werr != nil {
			return nil, false, werr
		}
		ans = &wireRecord{}
		err = s.c.Post(ctx, path, query(q), ans)
		done()
		var rl *seo.RateLimitError
		if attempt >= MaxRetries || !errors.As(err, &rl) {
			break
		}
		wait := rl.RetryAfter
		if wait <= 0 {
			wait = DefaultRetryAfter
		}
		s.lim.Pause(wait)
	}
	if errors.Is(err, seo.ErrNotFound) {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	if ans.Record == nil {
		return nil, false, fmt.Errorf("%s: %w: the answer has no record", Name, seo.ErrUnavailable)
	}
	return ans, false, nil
}

// Record returns the latest 28-day record of q.
func (s *Source) Record(ctx context.Context, q fieldvitals.Query) (*fieldvitals.Record, error) {
	q, err := q.Check()
	if err != nil {
		return nil, err
	}
	r := &fieldvitals.Record{Query: q, Source: Name, Status: fieldvitals.StatusInsufficient, Metrics: []fieldvitals.Metric{}}
	ans, none, err := s.post(ctx, "/v1/records:queryRecord", q)
	if err != nil {
		return nil, err
	}
	if none {
		return r, nil
	}
	r.Status = fieldvitals.StatusOK
	if ans.Record.CollectionPeriod != nil {
		p, err := ans.Record.CollectionPeriod.period()
		if err != nil {
			return nil, err
		}
		r.Period = &p
	}
	if d := ans.URLNormalizationDetails; d != nil && d.NormalizedURL != q.URL {
		r.NormalizedURL = seo.ClipTo(d.NormalizedURL, 2048)
	}
	for _, m := range apiMetrics {
		mt := fieldvitals.Metric{Name: m.name, Unit: fieldvitals.Unit(m.name), Status: fieldvitals.StatusInsufficient}
		w, ok := ans.Record.Metrics[m.api]
		if v, has := number(w.Percentiles.P75); ok && has {
			mt.Status, mt.P75, mt.Rating = fieldvitals.StatusOK, &v, fieldvitals.Rate(m.name, v)
			for _, b := range w.Histogram {
				bin, err := readBin(b, b.Density)
				if err != nil {
					return nil, err
				}
				if len(mt.Histogram) == 10 {
					break
				}
				mt.Histogram = append(mt.Histogram, bin)
			}
		}
		r.Metrics = append(r.Metrics, mt)
	}
	return r, nil
}

// readBin reads one histogram bin with the given density.
func readBin(b wireBin, density json.RawMessage) (fieldvitals.Bin, error) {
	start, ok := number(b.Start)
	if !ok {
		return fieldvitals.Bin{}, fmt.Errorf("%s: %w: a histogram bin has no start", Name, seo.ErrUnavailable)
	}
	bin := fieldvitals.Bin{Start: start}
	if end, ok := number(b.End); ok {
		bin.End = &end
	}
	d, ok := number(density)
	if !ok || d > 1.0001 {
		return fieldvitals.Bin{}, fmt.Errorf("%s: %w: a histogram density is not a share", Name, seo.ErrUnavailable)
	}
	bin.Density = d
	return bin, nil
}

// History returns the weekly series of q's 28-day records.
func (s *Source) History(ctx context.Context, q fieldvitals.Query) (*fieldvitals.History, error) {
	q, err := q.Check()
	if err != nil {
		return nil, err
	}
	h := &fieldvitals.History{Query: q, Source: Name, Status: fieldvitals.StatusInsufficient, Periods: []fieldvitals.Period{}, Metrics: []fieldvitals.Series{}}
	ans, none, err := s.post(ctx, "/v1/records:queryHistoryRecord", q)
	if err != nil {
		return nil, err
	}
	if none {
		return h, nil
	}
	h.Status = fieldvitals.StatusOK
	ps := ans.Record.CollectionPeriods
	if len(ps) > fieldvitals.MaxPeriods {
		ps = ps[len(ps)-fieldvitals.MaxPeriods:]
	}
	skip := len(ans.Record.CollectionPeriods) - len(ps)
	for _, p := range ps {
		pp, err := p.period()
		if err != nil {
			return nil, err
		}
		h.Periods = append(h.Periods, pp)
	}
	for _, m := range apiMetrics {
		w, ok := ans.Record.Metrics[m.api]
		if !ok {
			continue
		}
		raw := w.PercentilesTimeseries.P75s
		if len(raw) != len(ans.Record.CollectionPeriods) {
			return nil, fmt.Errorf("%s: %w: %s has %d values for %d periods", Name, seo.ErrUnavailable, m.api, len(raw), len(ans.Record.CollectionPeriods))
		}
		sr := fieldvitals.Series{Name: m.name, Unit: fieldvitals.Unit(m.name), P75: make([]*float64, 0, len(ps))}
		for _, v := range raw[skip:] {
			if f, ok := number(v); ok {
				sr.P75 = append(sr.P75, &f)
			} else {
				sr.P75 = append(sr.P75, nil)
			}
		}
		h.Metrics = append(h.Metrics, sr)
	}
	return h, nil
}
