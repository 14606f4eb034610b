package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/seo"
)

func writeReport(t *testing.T, dir, name string, r *crawler.SiteReport) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDiffCommand(t *testing.T) {
	dir := t.TempDir()
	page := func(u, title string, findings ...string) crawler.PageSummary {
		return crawler.PageSummary{URL: u, Status: 200, Indexable: true, Title: title, Findings: findings}
	}
	old := writeReport(t, dir, "old.json", &crawler.SiteReport{Domain: "example.com",
		Pages: []crawler.PageSummary{page("https://example.com/", "Home"), page("https://example.com/a", "A")}})
	cur := writeReport(t, dir, "new.json", &crawler.SiteReport{Domain: "example.com",
		Pages:    []crawler.PageSummary{page("https://example.com/", "Home"), page("https://example.com/a", "A | renamed", "title.missing")},
		Findings: []crawler.FindingGroup{{ID: "title.missing", Severity: seo.Error, Scope: seo.ScopePage, Count: 1, Pages: 1}}})

	for _, tc := range []struct {
		args     []string
		wantErr  error
		contains []string
	}{
		{[]string{"diff", old, cur}, nil, []string{"New findings (1)", "title.missing", `"A | renamed"`}},
		{[]string{"diff", "-format", "markdown", old, cur}, nil, []string{"| Site score |", "`title.missing`", `A \| renamed`}},
		{[]string{"diff", "-format", "json", old, cur}, nil, []string{`"status": "new"`}},
		{[]string{"diff", "-format", "html", old, cur}, nil, []string{"<!DOCTYPE html>", "title.missing"}},
		{[]string{"diff", "-fail-on-new", "error", old, cur}, errFindings, nil},
		{[]string{"diff", "-fail-on-new", "error", old, old}, nil, []string{"New findings (0)"}},
	} {
		var out, errOut bytes.Buffer
		err := run(context.Background(), tc.args, &out, &errOut)
		if !errors.Is(err, tc.wantErr) && err != tc.wantErr {
			t.Errorf("%v: err = %v, want %v", tc.args, err, tc.wantErr)
		}
		for _, want := range tc.contains {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%v: output lacks %q:\n%s", tc.args, want, out.String())
			}
		}
	}
	for _, args := range [][]string{
		{"diff", old},
		{"diff", "-format", "pdf", old, cur},
		{"diff", "-fail-on-new", "fatal", old, cur},
		{"diff", old, filepath.Join(dir, "missing.json")},
	} {
		var out, errOut bytes.Buffer
		err := run(context.Background(), args, &out, &errOut)
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != 2 {
			t.Errorf("%v: err = %v, want a usage error (exit 2)", args, err)
		}
	}
}
