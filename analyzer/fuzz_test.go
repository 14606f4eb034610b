package analyzer

import (
	"context"
	"net/http"
	"testing"
)

// FuzzAnalyzeHTML checks that no document makes the analysis panic, hang or
// report an ID outside the catalogue.
func FuzzAnalyzeHTML(f *testing.F) {
	for _, seed := range []string{
		"",
		"<html><head><title>x</title></head><body><h1>y</h1></body></html>",
		"<title><svg><title>a</title></svg>",
		`<meta name="robots" content="noindex, max-snippet:0"><link rel="canonical" href="::bad">`,
		`<script type="application/ld+json">{"@context":"https://schema.org","@type":["Product"],"offers":{}}</script>`,
		`<link rel="alternate" hreflang="en-uk" href="/en"><a href="javascript:void(0)">x</a>`,
		"\x00\xff\xfe<html>\x80\x81",
		`<meta charset="shift_jis"><p>\x82\xa0</p>`,
		`<img src="a.jpg" alt="IMG_1234.jpg" width="x"><picture></picture>`,
		`<meta name="viewport" content="width=device-width;;maximum-scale=abc">`,
	} {
		f.Add(seed)
	}
	header := http.Header{"Content-Type": {"text/html"}, "X-Robots-Tag": {"googlebot: unavailable_after: 25 Jun 2010 15:00:00 PST"}}
	f.Fuzz(func(t *testing.T, doc string) {
		rep, err := AnalyzeHTML(context.Background(), "https://example.com/a/b?c=d", header, []byte(doc), &Options{Depth: Complete})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Score == nil {
			t.Fatalf("no score (%s)", rep.ScoreReason)
		}
		if rep.Score.Value < 0 || rep.Score.Value > 100 {
			t.Fatalf("score %d", rep.Score.Value)
		}
		for _, fd := range rep.Findings {
			if _, ok := catalog[fd.ID]; !ok {
				t.Fatalf("undeclared finding %s", fd.ID)
			}
		}
	})
}
