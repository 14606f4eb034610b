package crawler

import (
	"encoding/json"
	"reflect"
	"strings"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/seo"
)

// ConfigSchemaID is the $id of ConfigSchema's document.
const ConfigSchemaID = "https://github.com/seokit/seokit/docs/crawl-config.schema.json"

// schema is the part of a JSON Schema (draft 2020-12) that ConfigSchema
// uses.
type schema struct {
	Schema               string             `json:"$schema,omitempty"`
	ID                   string             `json:"$id,omitempty"`
	Ref                  string             `json:"$ref,omitempty"`
	Title                string             `json:"title,omitempty"`
	Description          string             `json:"description,omitempty"`
	Type                 string             `json:"type,omitempty"`
	Enum                 []string           `json:"enum,omitempty"`
	Pattern              string             `json:"pattern,omitempty"`
	Minimum              *int               `json:"minimum,omitempty"`
	MaxItems             *int               `json:"maxItems,omitempty"`
	MaxProperties        *int               `json:"maxProperties,omitempty"`
	Properties           map[string]*schema `json:"properties,omitempty"`
	AdditionalProperties any                `json:"additionalProperties,omitempty"`
	Items                *schema            `json:"items,omitempty"`
	Defs                 map[string]*schema `json:"$defs,omitempty"`
}

// ConfigSchema returns the JSON Schema (draft 2020-12) of a Config
// document, generated from the Go type: every member Config decodes, no
// other (additionalProperties false), with the enumerations and caps that
// Validate checks where a schema can say them. Validate still decides:
// patterns, selectors and check IDs are checked only by it.
func ConfigSchema() []byte {
	b, err := json.MarshalIndent(configSchema(), "", "  ")
	if err != nil {
		panic(err) // a fixed, marshalable value
	}
	return append(b, '\n')
}

// configRules are the constraints of members, by "Type.member".
var configRules = map[string]func(*schema){
	"Config.maxPages":       minimum(0),
	"Config.maxFolderDepth": minimum(0),
	"Config.segments":       maxItems(MaxSegments),
	"Config.mute":           maxItems(MaxMutes),
	"Config.include":        maxItems(MaxScopePatterns),
	"Config.exclude":        maxItems(MaxScopePatterns),
	"Config.urls":           maxItems(MaxListURLs),
	"Config.extract":        maxItems(analyzer.MaxExtractors),
	"Config.search":         maxItems(analyzer.MaxSearchRules),
	"Config.cookies":        func(s *schema) { s.MaxProperties = intPtr(MaxCookies) },
	"Config.headers":        func(s *schema) { s.MaxProperties = intPtr(seo.MaxRequestHeaders) },
	"Extractor.type":        enum("css", "xpath", "regex"),
	"Extractor.output":      enum("text", "inner_html", "outer_html", "attr", "count"),
	"Extractor.max":         minimum(0),
	"SearchRule.in":         enum("html", "text"),
	"Segment.minDepth":      minimum(0),
	"Segment.maxDepth":      minimum(0),
	"Segment.template":      func(s *schema) { s.Pattern = templateValue.String() },
}

// configDescriptions describe the members of Config.
var configDescriptions = map[string]string{
	"maxPages":           "Most pages crawled; 0 or absent means 500 (the API also caps it by the account's plan).",
	"includeSubdomains":  "Crawl the subdomains of the site's registrable domain too.",
	"skipExternalLinks":  "Do not check external targets (links, refresh targets, redirect Locations, images, scripts, stylesheets, canonical URLs, hreflang alternates): nothing outside the site is requested.",
	"noCrawlCanonicals":  "Do not crawl the pages' in-scope canonical URLs that no link reaches (they are crawled by default).",
	"noCrawlHreflang":    "Do not crawl the pages' in-scope hreflang alternates that no link reaches (they are crawled by default).",
	"skipResourceChecks": "Do not check the site's own images, scripts and stylesheets (images.broken, resources.broken_script, resources.broken_stylesheet); each is otherwise requested once per crawl.",
	"aiCrawlers":         "Add the AI crawler readiness report (robots.txt per AI crawler, /llms.txt, firewall probe).",
	"skipAiCrawlerProbe": "With aiCrawlers, do not fetch the home page as each AI crawler.",
	"segments":           "Groups of pages (by URL regex, status, depth, extracted value, template fingerprint or the template of a URL); the first matching segment wins.",
	"mute":               "Check IDs or areas whose findings are left out of the findings and scores.",
	"include":            "Crawl only URLs matching one of these regular expressions (RE2).",
	"exclude":            "Never request URLs matching one of these regular expressions (RE2).",
	"keepParams":         "Keep only these query parameters (a trailing * matches a prefix).",
	"maxFolderDepth":     "Leave out URLs with more path segments than this; 0 means no limit.",
	"urls":               "List mode: crawl exactly these absolute http(s) URLs, following no links.",
	"headers":            "Request headers sent to the site's own hosts only.",
	"basicAuth":          "HTTP basic authentication for the site's own hosts.",
	"cookies":            "Cookies (name to value) sent to the site's own hosts only.",
	"userAgent":          "A preset (googlebot-smartphone, googlebot-desktop, bingbot, seokit) that also picks the robots.txt group, or a user agent string.",
	"extract":            "Custom extractors run on every page: CSS selector, XPath or regular expression.",
	"search":             "Custom search rules: contains or does not contain a text or regular expression.",
}

func minimum(n int) func(*schema)  { return func(s *schema) { s.Minimum = intPtr(n) } }
func maxItems(n int) func(*schema) { return func(s *schema) { s.MaxItems = intPtr(n) } }
func enum(v ...string) func(*schema) {
	return func(s *schema) { s.Enum = v }
}
func intPtr(n int) *int { return &n }

// configSchema builds the schema of Config.
func configSchema() schema {
	defs := map[string]*schema{}
	root := structSchema(reflect.TypeFor[Config](), defs)
	root.Schema = "https://json-schema.org/draft/2020-12/schema"
	root.ID = ConfigSchemaID
	root.Title = "seokit crawl configuration"
	root.Description = "A saved crawl configuration: the options of a site analysis (cli crawl -config FILE, POST /v1/analyze/site options, the dashboard's configuration field)."
	for name, p := range root.Properties {
		p.Description = configDescriptions[name]
	}
	root.Defs = defs
	return *root
}

// structSchema is the schema of the struct type t; the structs it refers
// to are added to defs by type name.
func structSchema(t reflect.Type, defs map[string]*schema) *schema {
	s := &schema{Type: "object", Properties: map[string]*schema{}, AdditionalProperties: false}
	for f := range t.Fields() {
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || tag == "-" {
			continue
		}
		if tag == "" {
			tag = f.Name
		}
		p := typeSchema(f.Type, defs)
		if rule := configRules[t.Name()+"."+tag]; rule != nil {
			rule(p)
		}
		s.Properties[tag] = p
	}
	return s
}

// typeSchema is the schema of a member of type t.
func typeSchema(t reflect.Type, defs map[string]*schema) *schema {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return &schema{Type: "string"}
	case reflect.Bool:
		return &schema{Type: "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &schema{Type: "integer"}
	case reflect.Float32, reflect.Float64:
		return &schema{Type: "number"}
	case reflect.Slice, reflect.Array:
		return &schema{Type: "array", Items: typeSchema(t.Elem(), defs)}
	case reflect.Map:
		return &schema{Type: "object", AdditionalProperties: typeSchema(t.Elem(), defs)}
	case reflect.Struct:
		if _, ok := defs[t.Name()]; !ok {
			defs[t.Name()] = nil // recursion guard
			defs[t.Name()] = structSchema(t, defs)
		}
		return &schema{Ref: "#/$defs/" + t.Name()}
	}
	return &schema{}
}
