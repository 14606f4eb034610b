package httpapi

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/dashboard"
	"github.com/seokit/seokit/httpapi/store"
)

func TestMutesEndpoints(t *testing.T) {
	a := newTestAPI(t, &Options{AllowPrivate: true})
	get := func(key, domain string) MuteList {
		t.Helper()
		resp := a.call("GET", "/v1/mutes/"+domain, key, "")
		wantStatus(t, resp, 200)
		var l MuteList
		readJSON(t, resp, &l)
		return l
	}
	if l := get(a.key, "example.com"); l.Domain != "example.com" || l.IDs == nil || len(l.IDs) != 0 {
		t.Errorf("empty list = %+v, want domain example.com and ids []", l)
	}
	resp := a.call("PUT", "/v1/mutes/www.Example.com", a.key, `{"ids":["social","security.csp_missing","social","site.orphan"]}`)
	wantStatus(t, resp, 200)
	var put MuteList
	readJSON(t, resp, &put)
	want := []string{"social", "security.csp_missing", "site.orphan"}
	if put.Domain != "example.com" || !slices.Equal(put.IDs, want) {
		t.Errorf("PUT answered %+v, want example.com %v", put, want)
	}
	if l := get(a.key, "example.com"); !slices.Equal(l.IDs, want) {
		t.Errorf("GET after PUT = %v, want %v", l.IDs, want)
	}
	_, keyB := a.account("b@example.com", store.Free, auth.ScopeRead, auth.ScopeWrite)
	if l := get(keyB, "example.com"); len(l.IDs) != 0 {
		t.Errorf("another account sees %v", l.IDs)
	}

	for _, tc := range []struct {
		name, method, path, body, field string
	}{
		{"unknown id", "PUT", "/v1/mutes/example.com", `{"ids":["social","title.too_long","links","bogus.id"]}`, "ids[3]"},
		{"empty id", "PUT", "/v1/mutes/example.com", `{"ids":[""]}`, "ids[0]"},
		{"too many", "PUT", "/v1/mutes/example.com", `{"ids":[` + strings.Repeat(`"social",`, MaxMutes) + `"social"]}`, "ids"},
		{"missing ids", "PUT", "/v1/mutes/example.com", `{"idz":[]}`, "idz"},
		{"bad domain", "GET", "/v1/mutes/exa%20mple.com", "", "domain"},
		{"scheme in domain", "PUT", "/v1/mutes/http:%2F%2Fexample.com", `{"ids":[]}`, "domain"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := apiErr(t, a.call(tc.method, tc.path, a.key, tc.body), 400, CodeInvalidRequest)
			if e.Field != tc.field {
				t.Errorf("field %q, want %q (%s)", e.Field, tc.field, e.Message)
			}
		})
	}
	if l := get(a.key, "example.com"); !slices.Equal(l.IDs, want) {
		t.Errorf("a refused PUT changed the list: %v", l.IDs)
	}

	ro := a.newKey(a.acct.ID, auth.ScopeRead)
	get(ro, "example.com")
	apiErr(t, a.call("PUT", "/v1/mutes/example.com", ro, `{"ids":[]}`), 403, CodeForbidden)

	resp = a.call("PUT", "/v1/mutes/example.com", a.key, `{"ids":[]}`)
	wantStatus(t, resp, 200)
	if l := get(a.key, "example.com"); len(l.IDs) != 0 {
		t.Errorf("after unmuting everything: %v", l.IDs)
	}
}

// mutedReport is what the mute tests read of a page or site report.
type mutedReport struct {
	Findings []struct {
		ID string `json:"id"`
	} `json:"findings"`
	Muted []struct {
		ID       string `json:"id"`
		Severity string `json:"severity"`
		Count    int    `json:"count"`
	} `json:"muted"`
	Score struct {
		Value int `json:"value"`
	} `json:"score"`
}

func (m mutedReport) has(id string) bool {
	for _, f := range m.Findings {
		if f.ID == id || strings.HasPrefix(f.ID, id+".") {
			return true
		}
	}
	return false
}

func (m mutedReport) mutedCount(id string) int {
	for _, x := range m.Muted {
		if x.ID == id {
			return x.Count
		}
	}
	return 0
}

func TestPageAnalysisAppliesMutes(t *testing.T) {
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<!doctype html><html lang="en"><head><title>Mutes</title></head><body><img src="/a.png"><img src="/b.png"><p>Text.</p></body></html>`)
	}))
	defer page.Close()
	a := newTestAPI(t, &Options{AllowPrivate: true})
	analyze := func(body string) mutedReport {
		t.Helper()
		resp := a.call("POST", "/v1/analyze/page", a.key, body)
		wantStatus(t, resp, 200)
		var rep mutedReport
		readJSON(t, resp, &rep)
		return rep
	}
	plain := analyze(fmt.Sprintf(`{"url":%q}`, page.URL+"/"))
	if !plain.has("security") || !plain.has("images.alt_missing") || plain.Muted != nil {
		t.Fatalf("plain analysis: %+v", plain)
	}
	host := hostOf(t, page.URL)
	wantStatus(t, a.call("PUT", "/v1/mutes/"+host, a.key, `{"ids":["security","site.orphan"]}`), 200)
	rep := analyze(fmt.Sprintf(`{"url":%q,"options":{"mute":["images.alt_missing"]}}`, page.URL+"/"))
	if rep.has("security") || rep.has("images.alt_missing") {
		t.Errorf("muted findings reported: %+v", rep.Findings)
	}
	if rep.mutedCount("images.alt_missing") != 2 || rep.mutedCount("security.csp_missing") != 1 {
		t.Errorf("muted = %+v, want images.alt_missing 2 and the security IDs", rep.Muted)
	}
	if rep.Score.Value <= plain.Score.Value {
		t.Errorf("score %d with mutes, %d without", rep.Score.Value, plain.Score.Value)
	}
	// GET /v1/analyze takes mute too; the stored list applies.
	resp := a.call("GET", "/v1/analyze?url="+page.URL+"/&mute=images", a.key, "")
	wantStatus(t, resp, 200)
	var got mutedReport
	readJSON(t, resp, &got)
	if got.has("images") || got.has("security") {
		t.Errorf("GET with mute=images: %+v", got.Findings)
	}
	e := apiErr(t, a.call("POST", "/v1/analyze/page", a.key, fmt.Sprintf(`{"url":%q,"options":{"mute":["social","nope"]}}`, page.URL)), 400, CodeInvalidRequest)
	if e.Field != "options.mute[1]" {
		t.Errorf("field %q, want options.mute[1]", e.Field)
	}
}

func TestSiteAnalysisAppliesMutes(t *testing.T) {
	site := crawlSite(t, 5, 0)
	a := newTestAPI(t, &Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Free: 10_000}})
	host := hostOf(t, site.URL)
	wantStatus(t, a.call("PUT", "/v1/mutes/"+host, a.key, `{"ids":["security"]}`), 200)
	resp := a.call("POST", "/v1/analyze/site", a.key, fmt.Sprintf(`{"domain":%q,"options":{"maxPages":20,"mute":["social"]}}`, host))
	wantStatus(t, resp, 202)
	var created Job
	readJSON(t, resp, &created)
	if !slices.Equal(created.Options.Mute, []string{"security", "social"}) {
		t.Errorf("job options.mute = %v, want the stored list and the request's", created.Options.Mute)
	}
	j := waitJob(t, a, a.key, created.ID, func(j Job) bool { return j.Status == "succeeded" || j.Status == "failed" })
	if j.Status != "succeeded" {
		t.Fatalf("job %+v", j)
	}
	var rep mutedReport
	if err := json.Unmarshal(j.Result, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.has("security") || rep.has("social") {
		t.Errorf("muted findings in the site report: %+v", rep.Findings)
	}
	if rep.mutedCount("security.csp_missing") != 5 {
		t.Errorf("muted = %+v, want security.csp_missing on the 5 pages", rep.Muted)
	}
	e := apiErr(t, a.call("POST", "/v1/analyze/site", a.key, fmt.Sprintf(`{"domain":%q,"options":{"mute":["site.bogus"]}}`, host)), 400, CodeInvalidRequest)
	if e.Field != "options.mute[0]" {
		t.Errorf("field %q, want options.mute[0]", e.Field)
	}
}

var _ dashboard.Mutes = (*Server)(nil)
