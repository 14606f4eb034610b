package crawler_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/seo"
)

const schemaFile = "../docs/crawl-config.schema.json"

// TestConfigSchemaFile checks that the published schema is the one the Go
// type generates; SEOKIT_UPDATE_GOLDEN=1 rewrites it.
func TestConfigSchemaFile(t *testing.T) {
	got := crawler.ConfigSchema()
	if os.Getenv("SEOKIT_UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile(schemaFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from crawler.ConfigSchema(); run SEOKIT_UPDATE_GOLDEN=1 go test -run TestConfigSchemaFile ./crawler", schemaFile)
	}
}

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(crawler.ConfigSchema()))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(crawler.ConfigSchemaID, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(crawler.ConfigSchemaID)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// firstLocation is the JSON pointer of the deepest cause of a validation
// error.
func firstLocation(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return ""
	}
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	return "/" + strings.Join(ve.InstanceLocation, "/")
}

func TestConfigSchemaValidates(t *testing.T) {
	sch := compileSchema(t)
	files, _ := filepath.Glob("testdata/config/*.json")
	if len(files) == 0 {
		t.Fatal("no example configuration")
	}
	for _, name := range files {
		raw, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("%s: schema refuses it: %v", name, err)
		}
		if _, err := crawler.DecodeConfig(bytes.NewReader(raw)); err != nil {
			t.Errorf("%s: DecodeConfig: %v", name, err)
		}
	}
	bad := []struct{ name, doc, loc string }{
		{"unknown member", `{"maxPages":10,"extrct":[]}`, "/"},
		{"unknown nested member", `{"extract":[{"name":"a","type":"css","expr":"h1","selector":"h2"}]}`, "/extract/0"},
		{"string for a number", `{"maxPages":"ten"}`, "/maxPages"},
		{"negative", `{"maxFolderDepth":-1}`, "/maxFolderDepth"},
		{"bad kind", `{"extract":[{"name":"a","type":"jq","expr":"."}]}`, "/extract/0/type"},
		{"bad output", `{"extract":[{"name":"a","type":"css","expr":"h1","output":"all"}]}`, "/extract/0/output"},
		{"header value not a string", `{"headers":{"X-A":1}}`, "/headers/X-A"},
		{"password not a string", `{"basicAuth":{"username":"u","password":2}}`, "/basicAuth/password"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			inst, err := jsonschema.UnmarshalJSON(strings.NewReader(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			err = sch.Validate(inst)
			if err == nil {
				t.Fatal("schema accepts it")
			}
			if got := firstLocation(err); got != tc.loc {
				t.Errorf("location %q, want %q (%v)", got, tc.loc, err)
			}
		})
	}
}

func TestDecodeConfigErrors(t *testing.T) {
	for _, tc := range []struct{ name, doc, field string }{
		{"unknown member", `{"maxPages":10,"extrct":[]}`, "extrct"},
		{"unknown nested member", `{"extract":[{"name":"a","type":"css","expr":"h1"},{"name":"b","type":"css","expr":"h2","selector":"h2"}]}`, "extract[1].selector"},
		{"string for a number", `{"maxPages":"ten"}`, "maxPages"},
		{"nested type", `{"segments":[{"name":"a","minDepth":"x"}]}`, "segments.minDepth"},
		{"not an object", `[1]`, "config"},
		{"not JSON", `{"maxPages":`, "config"},
		{"two documents", `{} {}`, "config"},
		{"bad selector", `{"extract":[{"name":"a","type":"css","expr":"h1"},{"name":"b","type":"css","expr":"[["}]}`, "extract[1].expr"},
		{"bad segment", `{"segments":[{"name":"a","url":"x"},{"name":"b","url":"("}]}`, "segments[1].url"},
		{"bad include", `{"include":["("]}`, "include[0]"},
		{"negative pages", `{"maxPages":-1}`, "maxPages"},
		{"unknown mute", `{"mute":["social","nope.nope"]}`, "mute[1]"},
		{"bad header", `{"headers":{"Host":"x"}}`, "headers.Host"},
		{"bad cookie", `{"cookies":{"a b":"c"}}`, "cookies.a b"},
		{"bad list URL", `{"urls":["https://example.com/","ftp://example.com/"]}`, "urls[1]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := crawler.DecodeConfig(strings.NewReader(tc.doc))
			ie, ok := seo.AsInputError(err)
			if !ok {
				t.Fatalf("error %v, want an *seo.InputError", err)
			}
			if ie.Field != tc.field {
				t.Errorf("field %q, want %q (%v)", ie.Field, tc.field, err)
			}
			if !errors.Is(err, seo.ErrInvalidInput) {
				t.Error("not seo.ErrInvalidInput")
			}
		})
	}
}

func TestConfigApply(t *testing.T) {
	raw, err := os.ReadFile("testdata/config/shop.json")
	if err != nil {
		t.Fatal(err)
	}
	c, err := crawler.DecodeConfig(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c.Headers = map[string]string{"x-staging": "1"}
	c.BasicAuth = &crawler.BasicAuth{Username: "u", Password: "p"}
	c.Cookies = map[string]string{"b": "2", "a": "1"}
	o := crawler.Options{Scope: crawler.Scope{ListSitemap: "https://shop.example.com/sitemap.xml"},
		Analyzer: &analyzer.Options{Depth: analyzer.Complete, Mute: []string{"images", "social"}}}
	keep := o.Analyzer
	if err := c.Apply(&o); err != nil {
		t.Fatal(err)
	}
	if o.MaxPages != 2000 || !o.SkipExternalLinks || o.IncludeSubdomains || len(o.Segments) != 3 {
		t.Errorf("crawl settings not applied: %+v", o)
	}
	if len(o.Include) != 1 || len(o.Exclude) != 2 || o.KeepParams[0] != "page" || o.ListSitemap == "" {
		t.Errorf("scope not applied: %+v", o.Scope)
	}
	if o.Header.Get("X-Staging") != "1" || o.BasicAuth.Password != "p" || len(o.Cookies) != 2 || o.Cookies[0].Name != "a" {
		t.Errorf("access not applied: %v %v %v", o.Header, o.BasicAuth, o.Cookies)
	}
	if ua, tok, _ := seo.ResolveUserAgent("googlebot-smartphone"); o.UserAgent != ua || o.RobotsToken != tok {
		t.Errorf("user agent %q %q", o.UserAgent, o.RobotsToken)
	}
	if a := o.Analyzer; a == keep || a.Depth != analyzer.Complete || len(a.Extract) != 4 || len(a.Search) != 1 || strings.Join(a.Mute, ",") != "images,social" {
		t.Errorf("analyzer options: %+v", a)
	}
	if len(keep.Extract) != 0 {
		t.Error("Apply changed the caller's analyzer.Options")
	}

	bad := crawler.Config{Include: []string{"("}}
	o = crawler.Options{MaxPages: 7}
	if err := bad.Apply(&o); err == nil || o.MaxPages != 7 || o.Analyzer != nil {
		t.Errorf("a bad configuration applied: %v %+v", err, o)
	}
}

func TestConfigZeroValue(t *testing.T) {
	var c crawler.Config
	o := crawler.Options{}
	if err := c.Apply(&o); err != nil {
		t.Fatal(err)
	}
	if o.MaxPages != 0 || len(o.Include) != 0 || o.UserAgent != "" || o.Analyzer == nil {
		t.Errorf("zero configuration changed options: %+v", o)
	}
}

func TestConfigValidateFor(t *testing.T) {
	c := crawler.Config{Exclude: []string{`\.com/$`}}
	if err := c.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	ie, ok := seo.AsInputError(c.ValidateFor("example.com"))
	if !ok || ie.Field != "exclude" {
		t.Errorf("ValidateFor: %v, want an InputError on exclude", ie)
	}
	if err := c.ValidateFor("https://example.com/blog/"); err != nil {
		t.Errorf("ValidateFor a start URL the scope admits: %v", err)
	}
	bad := crawler.Config{MaxPages: -1}
	if ie, ok := seo.AsInputError(bad.ValidateFor("example.com")); !ok || ie.Field != "maxPages" {
		t.Errorf("ValidateFor does not validate the configuration: %v", ie)
	}
}
