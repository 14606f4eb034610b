package optimizer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/seo"
)

func TestInputErrors(t *testing.T) {
	t.Parallel()
	tooMany := make([]string, MaxKeywords+1)
	for i := range tooMany {
		tooMany[i] = fmt.Sprintf("word%d", i)
	}
	cases := []struct {
		name  string
		req   Request
		field string
	}{
		{"locale as a name", Request{Content: "Hello world.", Locale: "english"}, "locale"},
		{"empty locale", Request{Content: "Hello world."}, "locale"},
		{"unknown language", Request{Content: "Hello world.", Locale: "qq-US"}, "locale"},
		{"bad format", Request{Content: "x", Locale: "en-US", Format: "pdf"}, "format"},
		{"too many keyphrases", Request{Content: "x", Locale: "en-US", Keywords: tooMany}, "keywords"},
		{"empty keyphrase", Request{Content: "x", Locale: "en-US", Keywords: []string{"a", "b", "c", "  "}}, "keywords[3]"},
		{"quotes only", Request{Content: "x", Locale: "en-US", Keywords: []string{`""`}}, "keywords[0]"},
		{"invalid UTF-8 keyphrase", Request{Content: "x", Locale: "en-US", Keywords: []string{"caf\xe9"}}, "keywords[0]"},
		{"content over the limit", Request{Content: strings.Repeat("a", MaxContentBytes+1), Locale: "en-US"}, "content"},
		{"long title", Request{Content: "x", Locale: "en-US", Title: strings.Repeat("t", MaxFieldBytes+1)}, "title"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := Optimize(context.Background(), c.req)
			if err == nil {
				t.Fatalf("no error, report %+v", r.Stats)
			}
			ie, ok := seo.AsInputError(err)
			if !ok || !errors.Is(err, seo.ErrInvalidInput) {
				t.Fatalf("error %v is not an input error", err)
			}
			if ie.Field != c.field {
				t.Errorf("field %q, want %q", ie.Field, c.field)
			}
		})
	}
}

// TestOddInput: each of these gives a report, never a panic.
func TestOddInput(t *testing.T) {
	t.Parallel()
	thousand := make([]string, MaxKeywords)
	for i := range thousand {
		thousand[i] = fmt.Sprintf("coffee %d", i)
	}
	cases := []struct {
		name  string
		req   Request
		check func(t *testing.T, r *Report)
	}{
		{"empty text", Request{Content: "", Keywords: []string{"coffee"}}, func(t *testing.T, r *Report) {
			if r.Stats.Words != 0 || findingIDs(r)[IDContentEmpty].ID == "" {
				t.Errorf("stats %+v findings %v", r.Stats, ids(r))
			}
		}},
		{"one word", Request{Content: "Coffee", Keywords: []string{"coffee"}}, func(t *testing.T, r *Report) {
			if r.Stats.Words != 1 || r.Keyphrases[0].Occurrences != 1 {
				t.Errorf("words %d occurrences %d", r.Stats.Words, r.Keyphrases[0].Occurrences)
			}
		}},
		{"emoji only", Request{Content: "☕️🔥🎉 👍👍\n\n😀", Keywords: []string{"coffee"}}, func(t *testing.T, r *Report) {
			if r.Stats.Words != 0 || r.Stats.Sentences != 0 {
				t.Errorf("emoji counted as words: %+v", r.Stats)
			}
		}},
		{"invalid UTF-8", Request{Content: "Coffee \xff\xfe beans are \xc3 good. Coffee beans.", Keywords: []string{"coffee beans"}}, func(t *testing.T, r *Report) {
			if r.Keyphrases[0].Occurrences != 2 {
				t.Errorf("occurrences %d", r.Keyphrases[0].Occurrences)
			}
		}},
		{"1,000 keyphrases", Request{Content: gen(400, 8, true), Keywords: thousand}, func(t *testing.T, r *Report) {
			if len(r.Keyphrases) != MaxKeywords {
				t.Errorf("%d keyphrase reports", len(r.Keyphrases))
			}
		}},
		{"locale with underscore", Request{Content: "Good coffee.", Locale: "en_US", Keywords: []string{"coffee"}}, func(t *testing.T, r *Report) {
			if r.Locale != "en-US" {
				t.Errorf("locale %q", r.Locale)
			}
		}},
		{"only markup", Request{Content: "<div><p></p><script>var coffee = 1;</script></div>", Keywords: []string{"coffee"}}, func(t *testing.T, r *Report) {
			if r.Format != "html" || r.Stats.Words != 0 {
				t.Errorf("format %q words %d", r.Format, r.Stats.Words)
			}
		}},
		{"whitespace", Request{Content: " \n\n\t \n", Keywords: []string{"coffee"}}, func(t *testing.T, r *Report) {
			if r.Stats.Words != 0 {
				t.Errorf("words %d", r.Stats.Words)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.check(t, optimize(t, c.req))
		})
	}
}

// TestTenMegabytes: a 10 MB text gives a report within the time limit.
func TestTenMegabytes(t *testing.T) {
	t.Parallel() // the time is only logged
	if testing.Short() {
		t.Skip("10 MB text skipped in -short mode")
	}
	var b strings.Builder
	for b.Len() < 10_000_000 {
		b.WriteString(gen(2000, 8, true))
	}
	text := b.String()[:10_000_000]
	start := time.Now()
	r := optimize(t, Request{Content: text, Keywords: []string{"coffee beans", "green tea"}})
	if r.Stats.Words < 1_000_000 || r.Keyphrases[0].Occurrences == 0 {
		t.Errorf("words %d occurrences %d", r.Stats.Words, r.Keyphrases[0].Occurrences)
	}
	for _, f := range r.Findings {
		if len(f.Spans) > MaxSpans {
			t.Errorf("%s has %d spans", f.ID, len(f.Spans))
		}
	}
	t.Logf("10 MB: %d words in %v", r.Stats.Words, time.Since(start))
}

func TestCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Optimize(ctx, Request{Content: gen(300, 5, true), Locale: "en-US"})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}
