package analyzer

import (
	"slices"
	"testing"
)

var structuredIDs = []string{"structured_data.jsonld_parse_error", "structured_data.context_missing", "structured_data.type_missing",
	"structured_data.type_unknown", "structured_data.invalid_date", "structured_data.article.missing_recommended",
	"structured_data.product.missing_required", "structured_data.breadcrumb.missing_required", "structured_data.faq.missing_required",
	"structured_data.organization.missing_recommended", "structured_data.local_business.missing_required",
	"structured_data.event.missing_required", "structured_data.recipe.missing_required", "structured_data.job_posting.missing_required",
	"structured_data.video.missing_required", "structured_data.microdata_unparsed"}

func TestStructuredDataFixtures(t *testing.T) {
	rep := analyzeFixture(t, "structured_data/good.html", "", nil, nil)
	assertIDs(t, rep, nil, structuredIDs)
	var types []string
	for _, it := range rep.StructuredData {
		if it.Syntax != "json-ld" {
			t.Errorf("unexpected syntax %q", it.Syntax)
		}
		types = append(types, it.Types...)
	}
	want := []string{"Organization", "Article", "BreadcrumbList", "Product", "FAQPage", "Restaurant", "MusicEvent", "Recipe", "JobPosting", "VideoObject"}
	if !slices.Equal(types, want) {
		t.Errorf("types = %v, want %v", types, want)
	}

	rep = analyzeFixture(t, "structured_data/bad.html", "", nil, nil)
	assertIDs(t, rep, structuredIDs, nil)
	if f := finding(rep, "structured_data.type_unknown"); f == nil || f.Evidence.Value != "Articel" {
		t.Errorf("type_unknown evidence = %+v", f)
	}
	if f := finding(rep, "structured_data.jsonld_parse_error"); f == nil || f.Evidence.Element != `<script type="application/ld+json"> #1` {
		t.Errorf("parse error evidence = %+v", f)
	}
	var dates []string
	for _, ev := range evidence(rep, "structured_data.invalid_date") {
		dates = append(dates, ev.Value)
	}
	slices.Sort(dates)
	if !slices.Equal(dates, []string{"01/05/2024", "2024-01-01 10:00", "2024-13-01"}) {
		t.Errorf("invalid dates = %v", dates)
	}
	var syntaxes []string
	for _, it := range rep.StructuredData {
		if it.Syntax != "json-ld" {
			syntaxes = append(syntaxes, it.Syntax+":"+it.Types[0])
		}
	}
	if !slices.Equal(syntaxes, []string{"microdata:Person", "rdfa:Book"}) {
		t.Errorf("microdata/rdfa items = %v", syntaxes)
	}
}

func TestStructuredDataDepth(t *testing.T) {
	// Below Complete the checks do not run but the page data is filled.
	rep := analyzeFixture(t, "structured_data/bad.html", "", nil, &Options{Depth: Standard})
	assertIDs(t, rep, nil, structuredIDs)
	if len(rep.StructuredData) == 0 {
		t.Error("StructuredData not filled at Standard depth")
	}
}

func TestStructuredDataDates(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"2024-05-01", true}, {"2024", true}, {"2024-05", true}, {"2024-05-01T10:00", true}, {"2024-05-01T10:00:00", true},
		{"2024-05-01T10:00:00Z", true}, {"2024-05-01T10:00:00+02:00", true}, {"2024-05-01T10:00:00.123456-0500", true},
		{"2024-05-01T10:00+02", true}, {"2024-02-29", true},
		{"2023-02-29", false}, {"2024-5-1", false}, {"01/05/2024", false}, {"2024-05-01 10:00", false}, {"May 1, 2024", false},
		{"2024-05-01T25:00", false}, {"2024-05-01T10:00:00+2", false}, {"2024-05-01T10:00:00.Z", false}, {"", false}, {"2024-05T10:00", false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := sdValidDate(tc.in); got != tc.want {
				t.Errorf("sdValidDate(%q) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}

func TestStructuredDataVocabulary(t *testing.T) {
	known := sdKnownTypes()
	if len(known) < 800 {
		t.Errorf("vocabulary has %d types, want at least 800", len(known))
	}
	for _, ty := range []string{"Thing", "Article", "LocalBusiness", "BreadcrumbList", "FAQPage", "JobPosting", "VideoObject", "Text"} {
		if !known[ty] {
			t.Errorf("%s missing from the vocabulary", ty)
		}
	}
	if known["Articel"] || known["# schema.org type names (classes and data types), one per line."] {
		t.Error("vocabulary holds a non-type")
	}
}

func TestStructuredDataUnwrap(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"comment", "<!-- {\"a\":1} -->", `{"a":1}`},
		{"cdata", "//<![CDATA[\n{\"a\":1}\n//]]>", `{"a":1}`},
		{"semicolon", `{"a":1};`, `{"a":1}`},
		{"plain", ` {"a":1} `, `{"a":1}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := sdUnwrap(tc.in); got != tc.want {
				t.Errorf("sdUnwrap(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if _, err := sdDecode(sdUnwrap(tc.in)); err != nil {
				t.Error(err)
			}
		})
	}
	if _, err := sdDecode(`{"a":1} {"b":2}`); err == nil {
		t.Error("trailing data accepted")
	}
}
