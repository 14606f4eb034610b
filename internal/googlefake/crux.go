package googlefake

import (
	"encoding/json"
	"io"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// CrUXQuery is the body of records:queryRecord and
// records:queryHistoryRecord, as documented.
type CrUXQuery struct {
	URL        string   `json:"url,omitempty"`
	Origin     string   `json:"origin,omitempty"`
	FormFactor string   `json:"formFactor,omitempty"`
	Metrics    []string `json:"metrics,omitempty"`
}

// CrUXData is what the fake knows of one URL or origin: the p75 of each
// metric it has data for, by the API's metric names
// ("largest_contentful_paint", "cumulative_layout_shift" ...). A metric
// left out has no data (the answer omits it).
type CrUXData struct {
	P75 map[string]float64
	// Periods is the history length; zero means 25 (the History API's
	// default). Missing, when set, marks periods without data.
	Periods int
	Missing map[int]bool
}

// CrUX is a Chrome UX Report API.
type CrUX struct {
	// Key is the API key required (X-Goog-Api-Key header or key query
	// parameter); "" accepts any.
	Key string
	// Data answers a query; nil means no data (404 NOT_FOUND, as CrUX
	// answers for URLs and origins with too few visits).
	Data func(q CrUXQuery) *CrUXData
	// Fail, when set, answers a failure instead: "rate", "server",
	// "denied", "garbage", "truncated", "slow".
	Fail func(q CrUXQuery) string
	// Last is the last day of the latest collection period; zero means
	// 2026-11-29.
	Last time.Time

	mu   sync.Mutex
	reqs int
}

// Requests returns the requests received.
func (f *CrUX) Requests() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reqs
}

// bounds are the documented bin edges of each metric.
var bounds = map[string][2]float64{
	"largest_contentful_paint":               {2500, 4000},
	"interaction_to_next_paint":              {200, 500},
	"cumulative_layout_shift":                {0.1, 0.25},
	"first_contentful_paint":                 {1800, 3000},
	"experimental_time_to_first_byte":        {800, 1800},
	"round_trip_time":                        {75, 275},
	"largest_contentful_paint_resource_type": {0, 0},
}

// value writes a metric value as the API does: CLS as a decimal string,
// the others as integers.
func value(metric string, v float64) any {
	if metric == "cumulative_layout_shift" {
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return int(math.Round(v))
}

// densities returns the share of good, needs-improvement and poor
// experiences for a p75 value: 75% at or below p75.
func densities(b [2]float64, p75 float64) [3]float64 {
	switch {
	case p75 <= b[0]:
		return [3]float64{0.8, 0.13, 0.07}
	case p75 <= b[1]:
		return [3]float64{0.55, 0.3, 0.15}
	}
	return [3]float64{0.3, 0.2, 0.5}
}

func date(t time.Time) map[string]int {
	return map[string]int{"year": t.Year(), "month": int(t.Month()), "day": t.Day()}
}

func (f *CrUX) last() time.Time {
	if f.Last.IsZero() {
		return time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	}
	return f.Last
}

func (f *CrUX) key(q CrUXQuery) map[string]any {
	k := map[string]any{}
	if q.FormFactor != "" {
		k["formFactor"] = q.FormFactor
	}
	if q.URL != "" {
		k["url"] = q.URL
	} else {
		k["origin"] = q.Origin
	}
	return k
}

// ServeHTTP answers records:queryRecord and records:queryHistoryRecord.
func (f *CrUX) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.reqs++
	f.mu.Unlock()
	history := r.URL.Path == "/v1/records:queryHistoryRecord"
	if r.Method != http.MethodPost || (!history && r.URL.Path != "/v1/records:queryRecord") {
		writeError(w, http.StatusNotFound, "NOT_FOUND", "no such method")
		return
	}
	if key := r.Header.Get("X-Goog-Api-Key"); f.Key != "" && key != f.Key && r.URL.Query().Get("key") != f.Key {
		writeError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.")
		return
	}
	var q CrUXQuery
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	if err := json.Unmarshal(body, &q); err != nil || (q.URL == "") == (q.Origin == "") {
		writeError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "exactly one of url and origin is required")
		return
	}
	fail := ""
	if f.Fail != nil {
		fail = f.Fail(q)
	}
	switch fail {
	case "rate":
		writeError(w, http.StatusTooManyRequests, "RESOURCE_EXHAUSTED", "Quota exceeded for quota metric 'Queries' and limit 'Queries per minute' of service 'chromeuxreport.googleapis.com'.")
		return
	case "server":
		writeError(w, http.StatusInternalServerError, "INTERNAL", "Internal error encountered.")
		return
	case "denied":
		writeError(w, http.StatusForbidden, "PERMISSION_DENIED", "Chrome UX Report API has not been used in this project before or it is disabled.")
		return
	case "garbage":
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html>bad gateway</html>")
		return
	case "truncated":
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"record":{"key":{"origin":"https://exa`)
		return
	case "slow":
		<-r.Context().Done()
		return
	}
	var d *CrUXData
	if f.Data != nil {
		d = f.Data(q)
	}
	if d == nil {
		writeError(w, http.StatusNotFound, "NOT_FOUND", "chrome ux report data not found")
		return
	}
	want := map[string]bool{}
	for _, m := range q.Metrics {
		want[m] = true
	}
	last := f.last()
	if !history {
		metrics := map[string]any{}
		for m, p := range d.P75 {
			if len(want) > 0 && !want[m] {
				continue
			}
			b := bounds[m]
			ds := densities(b, p)
			metrics[m] = map[string]any{
				"histogram": []map[string]any{
					{"start": value(m, 0), "end": value(m, b[0]), "density": ds[0]},
					{"start": value(m, b[0]), "end": value(m, b[1]), "density": ds[1]},
					{"start": value(m, b[1]), "density": ds[2]},
				},
				"percentiles": map[string]any{"p75": value(m, p)},
			}
		}
		rec := map[string]any{"key": f.key(q), "metrics": metrics,
			"collectionPeriod": map[string]any{"firstDate": date(last.AddDate(0, 0, -27)), "lastDate": date(last)}}
		ans := map[string]any{"record": rec}
		if q.URL != "" {
			ans["urlNormalizationDetails"] = map[string]string{"originalUrl": q.URL, "normalizedUrl": q.URL}
		}
		writeJSON(w, ans)
		return
	}
	n := d.Periods
	if n == 0 {
		n = 25
	}
	periods := make([]any, n)
	for i := range n {
		end := last.AddDate(0, 0, -7*(n-1-i))
		periods[i] = map[string]any{"firstDate": date(end.AddDate(0, 0, -27)), "lastDate": date(end)}
	}
	metrics := map[string]any{}
	for m, p := range d.P75 {
		if len(want) > 0 && !want[m] {
			continue
		}
		b := bounds[m]
		p75s := make([]any, n)
		bins := [3][]any{}
		for i := range n {
			if d.Missing[i] {
				p75s[i] = nil
				for j := range bins {
					bins[j] = append(bins[j], "NaN")
				}
				continue
			}
			v := p * (1 + 0.2*float64(n-1-i)/float64(n)) // improving over time
			p75s[i] = value(m, v)
			ds := densities(b, v)
			for j := range bins {
				bins[j] = append(bins[j], ds[j])
			}
		}
		metrics[m] = map[string]any{
			"histogramTimeseries": []map[string]any{
				{"start": value(m, 0), "end": value(m, b[0]), "densities": bins[0]},
				{"start": value(m, b[0]), "end": value(m, b[1]), "densities": bins[1]},
				{"start": value(m, b[1]), "densities": bins[2]},
			},
			"percentilesTimeseries": map[string]any{"p75s": p75s},
		}
	}
	writeJSON(w, map[string]any{"record": map[string]any{"key": f.key(q), "metrics": metrics, "collectionPeriods": periods}})
}
