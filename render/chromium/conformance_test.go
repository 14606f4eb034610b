package chromium

import (
	"context"
	"testing"
	"time"

	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/render/rendertest"
	"github.com/seokit/seokit/seo"
)

func TestConformance(t *testing.T) {
	requireBrowser(t)
	rendertest.Run(t, func(f *seo.Fetcher) render.Renderer {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		p, err := New(ctx, &Options{Fetcher: f})
		if err != nil {
			t.Fatal(err)
		}
		return p
	})
}
