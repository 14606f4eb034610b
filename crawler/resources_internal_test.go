package crawler

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"github.com/seokit/seokit/analyzer"
)

// TestPageResourcesSrcset: the image a crawl checks for a srcset is its
// first candidate as browsers parse it (analyzer.SrcsetCandidates): the
// whole URL, commas included, and not a candidate whose descriptors make
// browsers drop it.
func TestPageResourcesSrcset(t *testing.T) {
	t.Parallel()
	doc := `<html><head><title>t</title></head><body>
<img alt="a" srcset="/up/w_300,h_200/a.jpg 1x, /up/w_600,h_400/a.jpg 2x">
<img alt="b" srcset="/dropped.jpg 2x 3x, /kept.jpg 2x">
<picture><source srcset="data:image/gif;base64,R0lGOD 1x, /never.jpg 2x"><img alt="c" src="/c.jpg"></picture>
</body></html>`
	var want [numTargetKinds]bool
	want[targetImage] = true
	var got []string
	opts := &analyzer.Options{Checks: []analyzer.Check{{Area: "test", Run: func(p *analyzer.Page, _ *analyzer.Reporter) {
		for _, r := range pageResources(p, want) {
			got = append(got, r.url.String())
		}
	}}}}
	if _, err := analyzer.AnalyzeHTML(context.Background(), "https://example.com/", http.Header{"Content-Type": {"text/html"}}, []byte(doc), opts); err != nil {
		t.Fatal(err)
	}
	wantURLs := []string{"https://example.com/c.jpg", "https://example.com/up/w_300,h_200/a.jpg", "https://example.com/kept.jpg"}
	if !slices.Equal(got, wantURLs) {
		t.Errorf("images checked %q; want %q", got, wantURLs)
	}
}
