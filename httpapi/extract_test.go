package httpapi

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/httpapi/store"
)

func TestAnalyzePageExtract(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!doctype html><html lang="en"><head><title>Shop</title></head><body>
<div class="product" data-sku="TR-100"><span class="price">€89.90</span></div><p>In stock</p></body></html>`))
	}))
	defer site.Close()
	a := newTestAPI(t, &Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Free: 10_000}})
	body := `{"url":"` + site.URL + `/","options":{"depth":"basic",
		"extract":[{"name":"price","type":"css","expr":".price"},{"name":"sku","type":"xpath","expr":"//div/@data-sku"},
			{"name":"n","type":"css","expr":".product","output":"count"},{"name":"eur","type":"regex","expr":"€([0-9.]+)","max":1}],
		"search":[{"name":"stock","contains":true,"text":"In stock","in":"text"},{"name":"no-ga","contains":false,"regex":"G-[A-Z0-9]+"}]}}`
	resp := a.call("POST", "/v1/analyze/page", a.key, body)
	wantStatus(t, resp, 200)
	var rep analyzer.Report
	readJSON(t, resp, &rep)
	want := []analyzer.Extraction{
		{Name: "price", Values: []string{"€89.90"}, Count: 1},
		{Name: "sku", Values: []string{"TR-100"}, Count: 1},
		{Name: "n", Values: []string{}, Count: 1},
		{Name: "eur", Values: []string{"89.90"}, Count: 1},
	}
	if !slices.EqualFunc(rep.Extracted, want, func(a, b analyzer.Extraction) bool {
		return a.Name == b.Name && slices.Equal(a.Values, b.Values) && a.Count == b.Count && a.Omitted == b.Omitted
	}) {
		t.Errorf("extracted %+v", rep.Extracted)
	}
	if ws := []analyzer.SearchMatch{{Name: "stock", Matched: true, Occurrences: 1}, {Name: "no-ga", Matched: true}}; !slices.Equal(rep.Search, ws) {
		t.Errorf("search %+v", rep.Search)
	}
}

func TestExtractOptionValidation(t *testing.T) {
	a := newTestAPI(t, &Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Free: 10_000}})
	for _, tc := range []struct{ name, options, field string }{
		{"bad css", `{"extract":[{"name":"x","type":"css","expr":"div[["}]}`, "options.extract[0].expr"},
		{"bad xpath", `{"extract":[{"name":"x","type":"css","expr":"a"},{"name":"y","type":"xpath","expr":"//div[@"}]}`, "options.extract[1].expr"},
		{"bad regex", `{"extract":[{"name":"x","type":"regex","expr":"(a"}]}`, "options.extract[0].expr"},
		{"bad type", `{"extract":[{"name":"x","type":"jq","expr":"."}]}`, "options.extract[0].type"},
		{"bad max", `{"extract":[{"name":"x","type":"css","expr":"a","max":1000}]}`, "options.extract[0].max"},
		{"bad search regex", `{"search":[{"name":"x","contains":true,"regex":"(a"}]}`, "options.search[0].regex"},
		{"search without text", `{"search":[{"name":"x","contains":true}]}`, "options.search[0].text"},
		{"css over its compounds", `{"extract":[{"name":"x","type":"css","expr":"p` + strings.Repeat(" div", analyzer.MaxCSSCompounds) + `"}]}`, "options.extract[0].expr"},
		{"css nested too deep", `{"extract":[{"name":"x","type":"css","expr":"a` + strings.Repeat(":not(b", analyzer.MaxCSSNesting+1) + strings.Repeat(")", analyzer.MaxCSSNesting+1) + `"}]}`, "options.extract[0].expr"},
		{"regex program too large", `{"extract":[{"name":"x","type":"regex","expr":"(?:\\w?){1000}(?:\\d?){1000}"}]}`, "options.extract[0].expr"},
		{"search regex program too large", `{"search":[{"name":"x","contains":true,"regex":"(?:\\w?){1000}(?:\\d?){1000}"}]}`, "options.search[0].regex"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := apiErr(t, a.call("POST", "/v1/analyze/page", a.key, `{"url":"http://127.0.0.1:1/","options":`+tc.options+`}`), 400, CodeInvalidRequest)
			if e.Field != tc.field {
				t.Errorf("page: field %q, want %q (%s)", e.Field, tc.field, e.Message)
			}
			e = apiErr(t, a.call("POST", "/v1/analyze/site", a.key, `{"domain":"127.0.0.1:1","options":`+tc.options+`}`), 400, CodeInvalidRequest)
			if e.Field != tc.field {
				t.Errorf("site: field %q, want %q (%s)", e.Field, tc.field, e.Message)
			}
		})
	}
	many := `{"extract":[` + strings.Repeat(`{"name":"x","type":"css","expr":"a"},`, analyzer.MaxExtractors) + `{"name":"y","type":"css","expr":"a"}]}`
	e := apiErr(t, a.call("POST", "/v1/analyze/page", a.key, `{"url":"http://127.0.0.1:1/","options":`+many+`}`), 400, CodeInvalidRequest)
	if e.Field != "options.extract" {
		t.Errorf("too many: field %q (%s)", e.Field, e.Message)
	}
}
