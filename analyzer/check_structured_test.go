package analyzer

import (
	"slices"
	"strconv"
	"testing"
)

var structuredIDs = []string{"structured_data.jsonld_parse_error", "structured_data.context_missing", "structured_data.type_missing",
	"structured_data.type_unknown", "structured_data.invalid_date", "structured_data.article.missing_recommended",
	"structured_data.product.missing_required", "structured_data.breadcrumb.missing_required", "structured_data.faq.missing_required",
	"structured_data.organization.missing_recommended", "structured_data.local_business.missing_required",
	"structured_data.event.missing_required", "structured_data.recipe.missing_required", "structured_data.job_posting.missing_required",
	"structured_data.video.missing_required", "structured_data.microdata_unparsed"}

func TestStructuredDataFixtures(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	// Below Complete the checks do not run but the page data is filled.
	rep := analyzeFixture(t, "structured_data/bad.html", "", nil, &Options{Depth: Standard})
	assertIDs(t, rep, nil, structuredIDs)
	if len(rep.StructuredData) == 0 {
		t.Error("StructuredData not filled at Standard depth")
	}
}

func TestStructuredDataDates(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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

// TestStructuredDataContexts resolves @context the ways schema.org's own
// examples write it (string, array, prefix map, @vocab; http or https, with
// or without a trailing slash), compacted IRIs and the "type"/"id" aliases
// of schema.org's context, and judges only names in schema.org's vocabulary.
func TestStructuredDataContexts(t *testing.T) {
	t.Parallel()
	event := func(ctx, typ, extra string) string {
		return `{"@context":` + ctx + `,` + typ + `,"name":"Gig","startDate":"2025-06-01T19:00","location":{"@type":"Place","name":"Hall"}` + extra + `}`
	}
	tests := []struct {
		name   string
		block  string
		want   []string // findings of sdValidityIDs expected
		types  []string // the item types reported
		values []string // type_unknown values expected
	}{
		{"https with slash", event(`"https://schema.org/"`, `"@type":"Event"`, ""), nil, []string{"Event"}, nil},
		{"http without slash", event(`"http://schema.org"`, `"@type":"Event"`, ""), nil, []string{"Event"}, nil},
		{"www and the context document", event(`"https://www.schema.org/docs/jsonldcontext.jsonld"`, `"@type":"Event"`, ""), nil, []string{"Event"}, nil},
		{"array", event(`["https://schema.org", {"@language":"en"}]`, `"@type":"Event"`, ""), nil, []string{"Event"}, nil},
		{"@vocab", event(`{"@vocab":"https://schema.org/"}`, `"@type":"Event"`, ""), nil, []string{"Event"}, nil},
		{"prefix map with compact type", event(`{"schema":"https://schema.org/"}`, `"@type":"schema:Event"`, ""), nil, []string{"Event"}, nil},
		{"other prefix name for schema.org", event(`{"s":"http://schema.org/"}`, `"@type":"s:Event","s:doorTime":"18:30:00"`, ""), nil, []string{"Event"}, nil},
		{"full IRI type", event(`{"@vocab":"http://schema.org/"}`, `"@type":"http://schema.org/MusicEvent"`, ""), nil, []string{"MusicEvent"}, nil},
		{"extension host", event(`"http://health-lifesci.schema.org/"`, `"@type":"Event"`, ""), nil, []string{"Event"}, nil},
		{"type and id aliases of schema.org's context", event(`"https://schema.org"`, `"type":"Event","id":"https://example.com/#gig"`, ""), nil, []string{"Event"}, nil},
		{"other vocabulary's types are not judged", event(`{"@vocab":"https://schema.org/","gs1":"https://ref.gs1.org/voc/"}`, `"@type":["Event","gs1:Offer","http://productontology.org/id/DVD"]`, ""), nil,
			[]string{"Event", "gs1:Offer", "http://productontology.org/id/DVD"}, nil},
		{"unknown schema.org type still judged", event(`{"schema":"https://schema.org/"}`, `"@type":"schema:Evnt"`, ""), []string{"structured_data.type_unknown"}, []string{"Evnt"}, []string{"Evnt"}},
		{"unknown type under an unread context not judged", event(`["https://schema.org","https://www.w3.org/ns/credentials/v2"]`, `"type":"VerifiableCredential"`, ""), nil, []string{"VerifiableCredential"}, nil},
		{"no schema.org anywhere", event(`{"dc":"http://purl.org/dc/terms/"}`, `"@type":"Event"`, ""), []string{"structured_data.context_missing"}, []string{"Event"}, nil},
		{"another vocabulary", event(`"https://example.org/vocab"`, `"@type":"Event"`, ""), []string{"structured_data.context_missing"}, []string{"Event"}, nil},
		{"aliases need schema.org's context", event(`{"@vocab":"https://schema.org/"}`, `"type":"Event"`, ""), []string{"structured_data.type_missing"}, nil, nil},
		{"graph member of another vocabulary only needs no type", `{"@context":{"rdfa":"http://www.w3.org/ns/rdfa#","schema":"https://schema.org/"},"@graph":[{"@id":"","rdfa:usesVocabulary":{"@id":"schema:"}},{"@type":"schema:Thing","schema:name":"x"}]}`,
			nil, []string{"Thing"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := analyzeString(t, `<!DOCTYPE html><html><head><title>x</title><script type="application/ld+json">`+tc.block+`</script></head><body></body></html>`, "", nil, nil)
			var got []string
			for _, f := range rep.Findings {
				if slices.Contains([]string{"structured_data.jsonld_parse_error", "structured_data.context_missing", "structured_data.type_missing", "structured_data.type_unknown", "structured_data.invalid_date", "structured_data.event.missing_required"}, f.ID) {
					got = append(got, f.ID)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("findings %v, want %v", got, tc.want)
			}
			var types []string
			for _, it := range rep.StructuredData {
				types = append(types, it.Types...)
			}
			if !slices.Equal(types, tc.types) {
				t.Errorf("types %v, want %v", types, tc.types)
			}
			var values []string
			for _, ev := range evidence(rep, "structured_data.type_unknown") {
				values = append(values, ev.Value)
			}
			if !slices.Equal(values, tc.values) {
				t.Errorf("type_unknown values %v, want %v", values, tc.values)
			}
		})
	}
}

// TestStructuredDataTimes accepts a Time where the property's schema.org
// range has Time, and only there.
func TestStructuredDataTimes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		prop, value string
		valid       bool
	}{
		{"doorTime", "18:30:00", true},
		{"doorTime", "18:30:00+01:00", true},
		{"doorTime", "18:30", true},
		{"doorTime", "2025-06-01T18:30:00Z", true},
		{"startTime", "09:00:00.5Z", true},
		{"checkinTime", "15:00", true},
		{"opens", "09:00:00", true},
		{"closes", "23:59", true},
		{"opens", "2025-06-01", false},
		{"doorTime", "18h30", false},
		{"doorTime", "25:00", false},
		{"startDate", "18:30:00", false},
		{"datePublished", "18:30:00", false},
		{"startDate", "2025-06-01T18:30:00+01:00", true},
	}
	for _, tc := range tests {
		t.Run(tc.prop+" "+tc.value, func(t *testing.T) {
			block := `{"@context":"https://schema.org","@type":"Thing","name":"x","` + tc.prop + `":"` + tc.value + `"}`
			rep := analyzeString(t, `<!DOCTYPE html><html><head><title>x</title><script type="application/ld+json">`+block+`</script></head><body></body></html>`, "", nil, nil)
			f := finding(rep, "structured_data.invalid_date")
			if (f == nil) != tc.valid {
				t.Errorf("invalid_date = %+v, want valid %v", f, tc.valid)
			}
		})
	}
}

// TestStructuredDataContextBounds: a block of many nested contexts, each
// defining many terms, applies at most sdMaxContexts contexts and keeps at
// most sdMaxTerms terms, so its cost stays in proportion to its size.
func TestStructuredDataContextBounds(t *testing.T) {
	t.Parallel()
	ctx := map[string]any{}
	for i := range 2 * sdMaxTerms {
		ctx["t"+strconv.Itoa(i)] = "https://schema.org/Thing"
	}
	c := sdContext{}.with(ctx)
	if n := len(c.terms) + len(c.prefixes); n != sdMaxTerms {
		t.Errorf("%d terms kept, want %d", n, sdMaxTerms)
	}
	var graph []any
	for range 2 * sdMaxContexts {
		graph = append(graph, map[string]any{"@context": map[string]any{"x": "https://schema.org/"}, "@type": "x:Thing"})
	}
	// The last member's context is past the bound: its "x:" prefix is not
	// known, so its type stays a foreign IRI.
	graph = append(graph, map[string]any{"@context": map[string]any{"y": "https://schema.org/"}, "@type": "y:Event"})
	var st sdNormState
	out := sdNormalize(map[string]any{"@context": "https://schema.org", "@graph": graph}, sdContext{}, &st)
	if st.contexts != sdMaxContexts {
		t.Errorf("%d contexts applied, want %d", st.contexts, sdMaxContexts)
	}
	members := out.(map[string]any)["@graph"].([]any)
	if got := members[0].(map[string]any)["@type"]; got != "Thing" {
		t.Errorf("first member type %v, want Thing", got)
	}
	if got := members[len(members)-1].(map[string]any)["@type"]; got != "y:Event" {
		t.Errorf("member past the bound: type %v, want y:Event unresolved", got)
	}
}
