// Package googlefake holds local stand-ins for two Google APIs, speaking
// their documented JSON formats, for the tests of the drivers and of every
// surface that shows their data: the Search Console URL Inspection API
// (POST /v1/urlInspection/index:inspect) and the Chrome UX Report API
// (POST /v1/records:queryRecord and /v1/records:queryHistoryRecord).
//
// Each enforces the provider's quota and answers refusals, missing data
// and failures as the provider does (google.rpc.Status errors).
package googlefake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// writeError writes a google.rpc.Status error answer.
func writeError(w http.ResponseWriter, code int, status, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	fmt.Fprintf(w, `{"error":{"code":%d,"message":%q,"status":%q}}`, code, msg, status)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// IndexStatus is the indexStatusResult of an inspection, as documented.
type IndexStatus struct {
	Verdict         string   `json:"verdict,omitempty"`
	CoverageState   string   `json:"coverageState,omitempty"`
	RobotsTxtState  string   `json:"robotsTxtState,omitempty"`
	IndexingState   string   `json:"indexingState,omitempty"`
	LastCrawlTime   string   `json:"lastCrawlTime,omitempty"`
	PageFetchState  string   `json:"pageFetchState,omitempty"`
	GoogleCanonical string   `json:"googleCanonical,omitempty"`
	UserCanonical   string   `json:"userCanonical,omitempty"`
	Sitemap         []string `json:"sitemap,omitempty"`
	ReferringUrls   []string `json:"referringUrls,omitempty"`
	CrawledAs       string   `json:"crawledAs,omitempty"`
}

// SearchConsole is a URL Inspection API. Set its fields before serving;
// its counters are safe to read while it serves.
type SearchConsole struct {
	// Token is the Bearer token required; "" accepts any.
	Token string
	// Now tells the time for the quotas (a test's virtual clock); nil
	// means time.Now.
	Now func() time.Time
	// PerMinute and PerDay are the quotas per property enforced: more
	// inspections in any 60 s, or in one day, get 429 RESOURCE_EXHAUSTED.
	// Zero means no quota.
	PerMinute, PerDay int
	// Status answers the index status of an inspected URL; nil answers
	// "URL is unknown to Google".
	Status func(inspectionURL string) *IndexStatus
	// Fail, when set, answers a failure instead for a URL: "rate" (429),
	// "server" (500), "denied" (403), "garbage", "truncated", "partial" (no
	// indexStatusResult), "slow" (waits for the request to end).
	Fail func(inspectionURL string) string

	mu     sync.Mutex
	quotas map[string]*quota
	reqs   int
	ok     int
	refus  int
	log    []time.Time
}

// Stats returns the requests received, those answered with a result and
// those refused for quota.
func (f *SearchConsole) Stats() (requests, answered, refused int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reqs, f.ok, f.refus
}

// Times returns the (clock) times of the inspections answered, in order.
func (f *SearchConsole) Times() []time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Time(nil), f.log...)
}

func (f *SearchConsole) now() time.Time {
	if f.Now != nil {
		return f.Now()
	}
	return time.Now()
}

// quota is one property's count: the day's inspections and the times of
// those of the last minute.
type quota struct {
	day    string
	count  int
	recent []time.Time
}

// admit counts one inspection of property within the quotas.
func (f *SearchConsole) admit(property string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	if f.quotas == nil {
		f.quotas = map[string]*quota{}
	}
	q := f.quotas[property]
	if q == nil {
		q = &quota{}
		f.quotas[property] = q
	}
	// Google's days are Pacific time (UTC-8 is close enough here).
	if day := now.Add(-8 * time.Hour).Format(time.DateOnly); day != q.day {
		q.day, q.count = day, 0
	}
	i := 0
	for i < len(q.recent) && now.Sub(q.recent[i]) >= time.Minute {
		i++
	}
	q.recent = q.recent[i:]
	if (f.PerDay > 0 && q.count >= f.PerDay) || (f.PerMinute > 0 && len(q.recent) >= f.PerMinute) {
		f.refus++
		return false
	}
	q.count++
	q.recent = append(q.recent, now)
	f.log = append(f.log, now)
	f.ok++
	return true
}

// ServeHTTP answers urlInspection/index:inspect.
func (f *SearchConsole) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.reqs++
	f.mu.Unlock()
	if r.Method != http.MethodPost || r.URL.Path != "/v1/urlInspection/index:inspect" {
		writeError(w, http.StatusNotFound, "NOT_FOUND", "no such method")
		return
	}
	if f.Token != "" && r.Header.Get("Authorization") != "Bearer "+f.Token {
		writeError(w, http.StatusUnauthorized, "UNAUTHENTICATED", "Request had invalid authentication credentials.")
		return
	}
	var req struct {
		InspectionURL string `json:"inspectionUrl"`
		SiteURL       string `json:"siteUrl"`
		LanguageCode  string `json:"languageCode"`
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	if err := json.Unmarshal(body, &req); err != nil || req.InspectionURL == "" || req.SiteURL == "" {
		writeError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "inspectionUrl and siteUrl are required")
		return
	}
	fail := ""
	if f.Fail != nil {
		fail = f.Fail(req.InspectionURL)
	}
	switch fail {
	case "rate":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, `{"error":{"code":429,"message":"Quota exceeded for quota metric 'Inspections per minute'","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"42s"}]}}`)
		return
	case "server":
		writeError(w, http.StatusInternalServerError, "INTERNAL", "Internal error encountered.")
		return
	case "denied":
		writeError(w, http.StatusForbidden, "PERMISSION_DENIED", "You do not own this site, or the inspected URL is not part of this property.")
		return
	case "garbage":
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html>upstream proxy error</html>")
		return
	case "truncated":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"inspectionResult":{"indexStatusResult":{"verdict":"PA`)
		return
	case "slow":
		<-r.Context().Done()
		return
	}
	if !f.admit(req.SiteURL) {
		writeError(w, http.StatusTooManyRequests, "RESOURCE_EXHAUSTED", "Quota exceeded for quota metric 'URL Inspection requests' of service 'searchconsole.googleapis.com'.")
		return
	}
	if fail == "partial" {
		writeJSON(w, map[string]any{"inspectionResult": map[string]any{"inspectionResultLink": "https://search.google.com/search-console/inspect"}})
		return
	}
	st := &IndexStatus{Verdict: "NEUTRAL", CoverageState: "URL is unknown to Google", RobotsTxtState: "ROBOTS_TXT_STATE_UNSPECIFIED", IndexingState: "INDEXING_STATE_UNSPECIFIED", PageFetchState: "PAGE_FETCH_STATE_UNSPECIFIED"}
	if f.Status != nil {
		if s := f.Status(req.InspectionURL); s != nil {
			st = s
		}
	}
	writeJSON(w, map[string]any{"inspectionResult": map[string]any{
		"inspectionResultLink": "https://search.google.com/search-console/inspect?resource_id=" + strings.ReplaceAll(req.SiteURL, ":", "%3A") + "&id=fake",
		"indexStatusResult":    st,
	}})
}
