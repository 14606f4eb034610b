package rendertest_test

import (
	"context"
	"testing"

	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/render/rendertest"
	"github.com/seokit/seokit/seo"
)

// stub is a renderer that cannot render; a real driver passes the suite.
type stub struct{}

func (stub) Render(_ context.Context, _ *render.Request) (*render.Result, error) {
	return nil, render.ErrUnavailable
}

// A driver's test runs the suite with a renderer that obeys the fetcher it
// is given.
func ExampleRun() {
	var t *testing.T // the driver's test
	if t == nil {
		return
	}
	rendertest.Run(t, func(f *seo.Fetcher) render.Renderer {
		_ = f // a real renderer dials every connection with f.DialContext
		return stub{}
	})
}
