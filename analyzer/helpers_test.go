package analyzer

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/seokit/seokit/seo"
)

// analyzeFixture analyses testdata/<name> as served at pageURL (default
// https://example.com/page) with the given header (default text/html).
func analyzeFixture(t *testing.T, name, pageURL string, header http.Header, opts *Options) *Report {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return analyzeString(t, string(body), pageURL, header, opts)
}

// analyzeString analyses an inline document like analyzeFixture.
func analyzeString(t *testing.T, doc, pageURL string, header http.Header, opts *Options) *Report {
	t.Helper()
	if pageURL == "" {
		pageURL = "https://example.com/page"
	}
	if header == nil {
		header = http.Header{"Content-Type": {"text/html; charset=utf-8"}}
	}
	if opts == nil {
		opts = &Options{Depth: Complete}
	}
	rep, err := AnalyzeHTML(context.Background(), pageURL, header, []byte(doc), opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// findingIDs returns the distinct finding IDs of a report.
func findingIDs(rep *Report) []string {
	var ids []string
	for _, f := range rep.Findings {
		if !slices.Contains(ids, f.ID) {
			ids = append(ids, f.ID)
		}
	}
	return ids
}

// finding returns the first finding with id, or nil.
func finding(rep *Report, id string) *seo.Finding {
	for i := range rep.Findings {
		if rep.Findings[i].ID == id {
			return &rep.Findings[i]
		}
	}
	return nil
}

// evidence returns the evidence of every occurrence of id kept in the
// report: its finding's Evidence, then its Examples.
func evidence(rep *Report, id string) []seo.Evidence {
	f := finding(rep, id)
	if f == nil {
		return nil
	}
	return append([]seo.Evidence{f.Evidence}, f.Examples...)
}

// assertIDs fails unless every id in want is reported and none in absent is.
func assertIDs(t *testing.T, rep *Report, want, absent []string) {
	t.Helper()
	got := findingIDs(rep)
	for _, id := range want {
		if !slices.Contains(got, id) {
			t.Errorf("missing finding %s; got %v", id, got)
		}
		if _, ok := catalog[id]; !ok {
			t.Errorf("finding %s is not declared in the catalogue", id)
		}
	}
	for _, id := range absent {
		if slices.Contains(got, id) {
			t.Errorf("unexpected finding %s: %+v", id, *finding(rep, id))
		}
	}
}
