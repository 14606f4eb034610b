package httpapi

import (
	"bytes"
	"io"
	"testing"

	"github.com/seokit/seokit/crawler"
)

// TestConfigSchemaServed checks GET /v1/schemas/crawl-config.json: the
// schema crawler.ConfigSchema generates, without a credential.
func TestConfigSchemaServed(t *testing.T) {
	a := newTestAPI(t, nil)
	resp := a.call("GET", "/v1/schemas/crawl-config.json", "", "")
	wantStatus(t, resp, 200)
	b, _ := io.ReadAll(resp.Body)
	if !bytes.Equal(b, crawler.ConfigSchema()) {
		t.Error("served schema differs from crawler.ConfigSchema()")
	}
}

// TestSiteConfigFields checks that the options of a site analysis are
// validated by crawler.Config.Validate, naming options.FIELD.
func TestSiteConfigFields(t *testing.T) {
	a := newTestAPI(t, nil)
	for _, tc := range []struct{ name, options, field string }{
		{"bad selector", `{"extract":[{"name":"a","type":"css","expr":"h1"},{"name":"b","type":"css","expr":"[["}]}`, "options.extract[1].expr"},
		{"bad include", `{"include":["ok","(("]}`, "options.include[1]"},
		{"unknown extractor member", `{"extract":[{"name":"a","type":"css","expr":"h1","selector":"x"}]}`, "options.extract[0].selector"},
		{"unknown mute", `{"mute":["nope.nope"]}`, "options.mute[0]"},
		{"bad user agent", `{"userAgent":"a\nb"}`, "options.userAgent"},
		{"negative folder depth", `{"maxFolderDepth":-1}`, "options.maxFolderDepth"},
		{"string for a number", `{"maxPages":"ten"}`, "options.maxPages"},
		{"nested type", `{"extract":[{"name":"a","type":"css","expr":"h1"},{"name":"b","type":"css","expr":"h2","max":"x"}]}`, "options.extract[1].max"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := a.call("POST", "/v1/analyze/site", a.key, `{"domain":"example.com","options":`+tc.options+`}`)
			wantStatus(t, resp, 400)
			var e struct{ Error Error }
			readJSON(t, resp, &e)
			if e.Error.Code != CodeInvalidRequest || e.Error.Field != tc.field {
				t.Errorf("error %+v, want field %s", e.Error, tc.field)
			}
		})
	}
}
