package optimizer

import (
	"strings"
	"testing"

	"github.com/seokit/seokit/seo"
)

// TestTruncatedSpans checks that lists cut at MaxSpans say so with their
// totals, and that uncut lists say nothing.
func TestTruncatedSpans(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 80 {
		b.WriteString(passives[i%len(passives)])
		b.WriteString(" Coffee beans smell good. ")
		if i%4 == 3 {
			b.WriteString("\n\n")
		}
	}
	r := optimize(t, Request{Content: b.String(), Keywords: []string{"coffee beans"}})
	f, ok := findingIDs(r)[IDPassiveVoice]
	if !ok {
		t.Fatalf("no %s finding", IDPassiveVoice)
	}
	if len(f.Spans) != MaxSpans {
		t.Errorf("passive spans = %d, want %d", len(f.Spans), MaxSpans)
	}
	if got, want := f.Truncated["spans"], (seo.Truncation{Total: 80, Omitted: 80 - MaxSpans}); got != want {
		t.Errorf("passive truncated = %+v, want %+v", got, want)
	}
	kp := r.Keyphrases[0]
	if len(kp.Spans) != MaxSpans || kp.Truncated["spans"] != (seo.Truncation{Total: 160, Omitted: 160 - MaxSpans}) {
		t.Errorf("keyphrase spans = %d, truncated %+v; want %d and 160 in all", len(kp.Spans), kp.Truncated, MaxSpans)
	}
	if r.Truncated != nil {
		t.Errorf("report truncated = %+v, want none", r.Truncated)
	}
	small := optimize(t, Request{Content: benchText(t, "en", 300), Keywords: benchKeywords["en"]})
	for _, f := range small.Findings {
		if f.Truncated != nil {
			t.Errorf("%s: truncated %+v on a short text", f.ID, f.Truncated)
		}
	}
}

// TestTruncatedFindings checks the cap on the findings of a report: the
// most severe are kept and the total is noted.
func TestTruncatedFindings(t *testing.T) {
	t.Parallel()
	kws := make([]string, 0, MaxKeywords)
	for i := range MaxKeywords {
		kws = append(kws, "absent"+strings.Repeat("x", i%50)+string(rune('a'+i%26))+string(rune('a'+i/26%26)))
	}
	r := optimize(t, Request{Content: benchText(t, "en", 300), Keywords: kws, Title: "Coffee"})
	if len(r.Findings) != MaxFindings {
		t.Fatalf("findings = %d, want %d", len(r.Findings), MaxFindings)
	}
	tr, ok := r.Truncated["findings"]
	if !ok || tr.Total <= MaxFindings || tr.Omitted != tr.Total-MaxFindings {
		t.Errorf("truncated = %+v", r.Truncated)
	}
	for i := 1; i < len(r.Findings); i++ {
		if r.Findings[i].Severity > r.Findings[i-1].Severity {
			t.Fatalf("findings not sorted by severity at %d", i)
		}
	}
}
