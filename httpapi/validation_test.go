package httpapi

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
)

// TestMutesInputValidation covers what a hostile client sends the mute
// list API: a missing list, an over-long domain, elements of the wrong
// type, and values that must be echoed as sent.
func TestMutesInputValidation(t *testing.T) {
	a := newTestAPI(t, &Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Free: 10_000}})
	wantStatus(t, a.call("PUT", "/v1/mutes/example.com", a.key, `{"ids":["social"]}`), 200)
	label := strings.Repeat("a", 300)
	long := strings.Repeat("abcdefghi.", 26) + "com" // 263 characters
	for _, tc := range []struct {
		name, method, path, body, field string
		msgHas, msgNot                  []string
	}{
		{name: "empty object", method: "PUT", path: "/v1/mutes/example.com", body: `{}`, field: "ids"},
		{name: "null ids", method: "PUT", path: "/v1/mutes/example.com", body: `{"ids":null}`, field: "ids"},
		{name: "long label", method: "PUT", path: "/v1/mutes/" + label + ".com", body: `{"ids":[]}`, field: "domain"},
		{name: "label of 64", method: "PUT", path: "/v1/mutes/" + strings.Repeat("b", 64) + ".com", body: `{"ids":[]}`, field: "domain", msgHas: []string{"63"}},
		{name: "long label GET", method: "GET", path: "/v1/mutes/" + label + ".com", field: "domain"},
		{name: "long name", method: "PUT", path: "/v1/mutes/" + long, body: `{"ids":[]}`, field: "domain", msgHas: []string{"253"}},
		{name: "number id", method: "PUT", path: "/v1/mutes/example.com", body: `{"ids":["social","links","title",7]}`, field: "ids[3]", msgHas: []string{"ids[3] must be a string"}},
		{name: "object id", method: "PUT", path: "/v1/mutes/example.com", body: `{"ids":[{}]}`, field: "ids[0]"},
		{name: "ids not an array", method: "PUT", path: "/v1/mutes/example.com", body: `{"ids":"social"}`, field: "ids"},
		{name: "bad port echoed as sent", method: "PUT", path: "/v1/mutes/a.example:99999", body: `{"ids":[]}`, field: "domain",
			msgHas: []string{`"a.example:99999"`}, msgNot: []string{"https://"}},
		{name: "markup echoed as sent", method: "PUT", path: "/v1/mutes/%3Cscript%3E.com", body: `{"ids":[]}`, field: "domain",
			msgHas: []string{`"<script>.com"`}, msgNot: []string{"https://"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := apiErr(t, a.call(tc.method, tc.path, a.key, tc.body), 400, CodeInvalidRequest)
			if e.Field != tc.field {
				t.Errorf("field %q, want %q (%s)", e.Field, tc.field, e.Message)
			}
			for _, s := range tc.msgHas {
				if !strings.Contains(e.Message, s) {
					t.Errorf("message %q lacks %q", e.Message, s)
				}
			}
			for _, s := range tc.msgNot {
				if strings.Contains(e.Message, s) {
					t.Errorf("message %q has %q", e.Message, s)
				}
			}
		})
	}
	resp := a.call("GET", "/v1/mutes/example.com", a.key, "")
	wantStatus(t, resp, 200)
	var l MuteList
	readJSON(t, resp, &l)
	if !slices.Equal(l.IDs, []string{"social"}) {
		t.Errorf("refused PUTs changed the list to %v", l.IDs)
	}

	// Site analyses validate their domain the same way.
	e := apiErr(t, a.call("POST", "/v1/analyze/site", a.key, `{"domain":"a.example:99999"}`), 400, CodeInvalidRequest)
	if e.Field != "domain" || !strings.Contains(e.Message, `"a.example:99999"`) || strings.Contains(e.Message, "https://") {
		t.Errorf("site analysis: field %q, message %q", e.Field, e.Message)
	}
	e = apiErr(t, a.call("POST", "/v1/analyze/site", a.key, `{"domain":"`+label+`.com"}`), 400, CodeInvalidRequest)
	if e.Field != "domain" {
		t.Errorf("site analysis of a long label: field %q (%s)", e.Field, e.Message)
	}
}

// TestAnalysisMuteOptionValidation checks options.mute of page and site
// analyses: a non-string element is named by index, and too many entries
// name the cap.
func TestAnalysisMuteOptionValidation(t *testing.T) {
	a := newTestAPI(t, &Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Free: 10_000}})
	many := `[` + strings.Repeat(`"social",`, 9_999) + `"social"]`
	for _, tc := range []struct{ name, path, body, field, msgHas string }{
		{"page number", "/v1/analyze/page", `{"url":"https://example.com/","options":{"mute":["social",1]}}`, "options.mute[1]", "options.mute[1] must be a string"},
		{"site number", "/v1/analyze/site", `{"domain":"example.com","options":{"mute":[true]}}`, "options.mute[0]", "options.mute[0] must be a string"},
		{"page too many", "/v1/analyze/page", `{"url":"https://example.com/","options":{"mute":` + many + `}}`, "options.mute", "at most 200"},
		{"site too many", "/v1/analyze/site", `{"domain":"example.com","options":{"mute":` + many + `}}`, "options.mute", "at most 200"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := apiErr(t, a.call("POST", tc.path, a.key, tc.body), 400, CodeInvalidRequest)
			if e.Field != tc.field || !strings.Contains(e.Message, tc.msgHas) {
				t.Errorf("field %q, message %q; want field %q and %q", e.Field, e.Message, tc.field, tc.msgHas)
			}
		})
	}
}

// TestPageSkipExternalLinks analyses a page linking to another host with
// checkLinks, with and without skipExternalLinks (body and query): with
// it the other host gets no request.
func TestPageSkipExternalLinks(t *testing.T) {
	var hits atomic.Int64
	ext := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(ext.Close)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		// Another host name than the page's 127.0.0.1: an external link.
		fmt.Fprintf(w, `<!doctype html><html lang=en><head><title>A page that links elsewhere</title></head><body><h1>Page</h1><a href="%s/ref">a reference</a></body></html>`,
			strings.Replace(ext.URL, "127.0.0.1", "localhost", 1))
	}))
	t.Cleanup(page.Close)
	a := newTestAPI(t, &Options{AllowPrivate: true})
	for _, tc := range []struct {
		name, method, path, body string
		skip                     bool
	}{
		{"post skip", "POST", "/v1/analyze/page", fmt.Sprintf(`{"url":%q,"options":{"checkLinks":true,"skipExternalLinks":true}}`, page.URL+"/"), true},
		{"get skip", "GET", "/v1/analyze?checkLinks=true&skipExternalLinks=true&url=" + page.URL + "/", "", true},
		{"post check", "POST", "/v1/analyze/page", fmt.Sprintf(`{"url":%q,"options":{"checkLinks":true}}`, page.URL+"/"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hits.Store(0)
			resp := a.call(tc.method, tc.path, a.key, tc.body)
			wantStatus(t, resp, 200)
			io.Copy(io.Discard, resp.Body)
			if n := hits.Load(); (n > 0) == tc.skip {
				t.Errorf("external host got %d requests with skipExternalLinks=%v", n, tc.skip)
			}
		})
	}
	apiErr(t, a.call("GET", "/v1/analyze?skipExternalLinks=maybe&url="+page.URL+"/", a.key, ""), 400, CodeInvalidRequest)
}

// TestDecodeBadTime: a time its type refuses is a 400 naming the field,
// not "the body is not valid JSON".
func TestDecodeBadTime(t *testing.T) {
	for _, v := range []string{`"2027-01-01"`, `""`, `"2027-01-01T00:00:00+25:00"`, `"10000-01-01T00:00:00Z"`} {
		r := httptest.NewRequest("PATCH", "/", strings.NewReader(`{"muted":true,"mutedUntil":`+v+`}`))
		r.Header.Set("Content-Type", "application/json")
		var req AlertRuleRequest
		err := decodeJSON(httptest.NewRecorder(), r, 1<<20, &req)
		var fe *service.FieldError
		if !errors.As(err, &fe) || fe.Field != "mutedUntil" {
			t.Errorf("mutedUntil %s: %v, want a 400 naming mutedUntil", v, err)
		}
	}
}

// TestDecodeLoneSurrogate: an escaped UTF-16 surrogate that is not half of
// a pair, which encoding/json would decode to U+FFFD, is refused naming the
// value that holds it; pairs and escaped backslashes before a u pass.
func TestDecodeLoneSurrogate(t *testing.T) {
	for _, tc := range []struct{ body, field string }{
		{`{"name":"a\ud800b"}`, "name"},
		{`{"name":"\udc00"}`, "name"},
		{`{"name":"\ud800\u0041"}`, "name"},
		{`{"name":"\ud800\n"}`, "name"},
		{`{"name":"x\uD83D"}`, "name"},
		{`{"domain":"example.com","keywords":["tea","\ud83d\ude00","\uDBFF"]}`, "keywords[2]"},
		{`{"config":{"headers":{"X-A":"1","X-B":"\udfff"}}}`, "config.headers.X-B"},
		{`{"config":{"h\ud800":"1"}}`, "config"},
		{`{"name":"ok","keywords":["\\ud800"]}`, ""},
		{`{"name":"\ud83d\ude00 \uD83D\uDE00 \u00e9\"\\"}`, ""},
	} {
		r := httptest.NewRequest("POST", "/", strings.NewReader(tc.body))
		r.Header.Set("Content-Type", "application/json")
		var req ProjectRequest
		err := decodeJSON(httptest.NewRecorder(), r, 1<<20, &req)
		if tc.field == "" {
			if err != nil || req.Name == nil || strings.ContainsRune(*req.Name, utf8.RuneError) {
				t.Errorf("%s: %v (%+v), want it decoded", tc.body, err, req)
			}
			continue
		}
		var fe *service.FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field || !strings.Contains(fe.Message, "surrogate") {
			t.Errorf("%s: %v, want a 400 naming %s", tc.body, err, tc.field)
		}
	}
}

// TestDecodeInvalidUTF8: a body that is not UTF-8 is refused naming the
// value that holds the bad byte, never stored with U+FFFD in its place.
func TestDecodeInvalidUTF8(t *testing.T) {
	for body, field := range map[string]string{
		"{\"name\":\"a\xffb\"}": "name",
		"{\"domain\":\"example.com\",\"keywords\":[\"tea\",\"\xc3(\"]}": "keywords[1]",
		"{\"config\":{\"headers\":{\"X-A\":\"1\",\"X-B\":\"\xfe\"}}}":   "config.headers.X-B",
		"{\"config\":{\"h\xffx\":\"1\"}}":                               "config",
		"{\"keywords\":[[\"a\"],\"b\"],\"name\":\"\xff\"}":              "name",
		"\"\xff\"":         "body",
		"{\"name\":\"\xff": "body",
	} {
		r := httptest.NewRequest("POST", "/", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		var req ProjectRequest
		err := decodeJSON(httptest.NewRecorder(), r, 1<<20, &req)
		var fe *service.FieldError
		if !errors.As(err, &fe) || fe.Field != field || !strings.Contains(fe.Message, "UTF-8") {
			t.Errorf("%q: %v, want a 400 naming %s", body, err, field)
		}
	}
}
