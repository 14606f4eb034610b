package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestChecksCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		args      []string
		code      int
		want, not []string
	}{
		{"plain", []string{"checks"}, 0, []string{"links.uncrawlable", "links.placeholder_href", "site.orphan", "logs.spoofed_bot"}, []string{"source:", "differs:"}},
		{"verbose", []string{"checks", "-v"}, 0, []string{"links.uncrawlable", "    source:  Lighthouse crawlable-anchors", "    differs: Lighthouse fails only javascript:void(0)"}, nil},
		{"argument", []string{"checks", "links"}, 2, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(context.Background(), tc.args, &out, &errOut)
			if code := exitCode(err); code != tc.code {
				t.Fatalf("exit code %d (%v), want %d", code, err, tc.code)
			}
			for _, s := range tc.want {
				if !strings.Contains(out.String(), s) {
					t.Errorf("output lacks %q", s)
				}
			}
			for _, s := range tc.not {
				if strings.Contains(out.String(), s) {
					t.Errorf("output has %q", s)
				}
			}
		})
	}
}

func TestChecksJSON(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := run(context.Background(), []string{"checks", "-json"}, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	var checks []struct {
		ID, Severity, Summary, Source, Differs string
	}
	if err := json.Unmarshal(out.Bytes(), &checks); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range checks {
		if c.ID == "links.non_descriptive_text" {
			found = true
			if !strings.HasPrefix(c.Source, "Lighthouse link-text") || c.Differs == "" {
				t.Errorf("links.non_descriptive_text = %v, want its source and differences", c)
			}
		}
		if c.ID == "" || c.Severity == "" || c.Summary == "" || c.Source == "" {
			t.Errorf("incomplete entry %v", c)
		}
	}
	if !found {
		t.Error("links.non_descriptive_text is not listed")
	}
}
