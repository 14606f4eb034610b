package analyzer

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// sdValidityIDs are the structured-data findings about the markup itself
// (syntax, context, types, value formats), which a schema.org example must
// never raise. The per-type rich-result rules (missing_required and
// missing_recommended) follow Google's requirements, which schema.org's
// examples do not aim at, so they are not counted.
var sdValidityIDs = []string{
	"structured_data.jsonld_parse_error", "structured_data.context_missing", "structured_data.type_missing",
	"structured_data.type_unknown", "structured_data.invalid_date",
}

// sdExampleExpected are the examples of schema.org release 30.0 whose
// finding is right, with the reason.
var sdExampleExpected = map[string]string{
	"eg-0269": "no @context at all: JSON-LD without a context expands to no schema.org statement (JSON-LD 1.1, section 3.1)",
	"eg-0348": "no @context at all: JSON-LD without a context expands to no schema.org statement (JSON-LD 1.1, section 3.1)",
	"eg-0460": "no @context at all: JSON-LD without a context expands to no schema.org statement (JSON-LD 1.1, section 3.1)",
}

// sdExample is one JSON-LD example of a schema.org examples file.
type sdExample struct {
	id, json string
}

var sdExampleID = regexp.MustCompile(`#(eg-\d+)`)

// readSchemaOrgExamples reads a schema.org examples file (the format of
// schemaorg/schemaorg's data/*examples.txt: sections TYPES:, PRE-MARKUP:,
// MICRODATA:, RDFA:, JSON:) and returns the non-empty JSON sections.
func readSchemaOrgExamples(t *testing.T, path string) []sdExample {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []sdExample
	var id, section string
	var body strings.Builder
	flush := func() {
		if section == "JSON" && strings.Contains(body.String(), "ld+json") {
			out = append(out, sdExample{id: id, json: body.String()})
		}
		body.Reset()
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if h, rest, ok := strings.Cut(line, ":"); ok && (h == "TYPES" || h == "PRE-MARKUP" || h == "MICRODATA" || h == "RDFA" || h == "JSON") {
			flush()
			section = h
			if h == "TYPES" {
				id = ""
				if m := sdExampleID.FindStringSubmatch(rest); m != nil {
					id = m[1]
				}
			}
			continue
		}
		body.WriteString(line)
		body.WriteByte('\n')
	}
	flush()
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSchemaOrgExamples analyses every JSON-LD example of a schema.org
// release (SEOKIT_SCHEMAORG_EXAMPLES names its schemaorg-all-examples.txt,
// from schemaorg/schemaorg data/releases/<version>/) and requires that none
// raises a validity finding: schema.org's own examples are valid schema.org.
// It prints the count by finding and each example that raises one.
func TestSchemaOrgExamples(t *testing.T) {
	t.Parallel()
	path := os.Getenv("SEOKIT_SCHEMAORG_EXAMPLES")
	if path == "" {
		t.Skip("SEOKIT_SCHEMAORG_EXAMPLES not set: no schema.org examples file")
	}
	examples := readSchemaOrgExamples(t, path)
	if len(examples) == 0 {
		t.Fatalf("%s holds no JSON-LD examples", path)
	}
	byID := map[string]int{}
	failing := 0
	for _, ex := range examples {
		doc := "<!DOCTYPE html><html><head><title>Example</title></head><body>" + ex.json + "</body></html>"
		rep := analyzeString(t, doc, "https://example.com/", nil, nil)
		var hits []string
		for _, f := range rep.Findings {
			if slices.Contains(sdValidityIDs, f.ID) {
				byID[f.ID]++
				hits = append(hits, fmt.Sprintf("%s (%s %s)", f.ID, f.Evidence.Detail, f.Evidence.Value))
			}
		}
		reason, expected := sdExampleExpected[ex.id]
		switch {
		case len(hits) > 0 && expected:
			failing++
			t.Logf("example %s: %s; expected: %s", ex.id, strings.Join(hits, "; "), reason)
		case len(hits) > 0:
			failing++
			t.Errorf("example %s: %s", ex.id, strings.Join(hits, "; "))
		case expected:
			t.Errorf("example %s raises nothing now; drop it from sdExampleExpected", ex.id)
		}
	}
	t.Logf("schema.org examples: %d JSON-LD examples, %d raise validity findings (%d listed with their reason)", len(examples), failing, len(sdExampleExpected))
	for _, id := range sdValidityIDs {
		t.Logf("  %-40s %d examples", id, byID[id])
	}
}
