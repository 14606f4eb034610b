package crawler

import (
	"testing"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/seo"
)

// TestReuseBodies wants pooled page buffers only for crawls whose page
// bodies nothing outside the analyzer sees: none with a check of the
// caller's or a rendering.
func TestReuseBodies(t *testing.T) {
	check := analyzer.Check{Area: "mine", Run: func(*analyzer.Page, *analyzer.Reporter) {}}
	for _, tt := range []struct {
		name  string
		a     *analyzer.Options
		reuse bool
	}{
		{"defaults", nil, true},
		{"analyzer options", &analyzer.Options{Depth: analyzer.Standard}, true},
		{"own check", &analyzer.Options{Checks: []analyzer.Check{check}}, false},
		{"rendered", &analyzer.Options{Render: render.Always}, false},
	} {
		cr := &crawl{o: Options{Analyzer: tt.a}}
		cr.ana = cr.analyzerOptions()
		if got := cr.reuseBodies(); got != tt.reuse {
			t.Errorf("%s: reuseBodies %v, want %v", tt.name, got, tt.reuse)
		}
		if got := cr.pageBuffer() != nil; got != tt.reuse {
			t.Errorf("%s: pageBuffer given %v, want %v", tt.name, got, tt.reuse)
		}
	}
}

// TestRecycleBody keeps a body read into a larger buffer than the pooled
// one as the buffer, and lets a buffer past maxPooledBody go.
func TestRecycleBody(t *testing.T) {
	small := make([]byte, 0, 10)
	bp := &small
	recycleBody(bp, &seo.Response{Body: make([]byte, 100)})
	if cap(*bp) != 100 {
		t.Errorf("buffer of %d bytes kept, want the body's 100", cap(*bp))
	}
	recycleBody(bp, &seo.Response{Body: make([]byte, maxPooledBody+1)})
	if cap(*bp) != 100 {
		t.Errorf("buffer of %d bytes kept, want 100: a body past maxPooledBody is not pooled", cap(*bp))
	}
	recycleBody(nil, nil) // a crawl that does not reuse bodies
}
