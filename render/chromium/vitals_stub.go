package chromium

import (
	"context"

	"github.com/chromedp/chromedp"

	"github.com/seokit/seokit/render"
)

// Temporary stand-ins for the vitals and screenshot code; they are replaced
// by vitals.go and screenshot.go.

func installVitals() chromedp.Action[chromedp.Void] {
	return func(context.Context, *chromedp.Target) (chromedp.Void, error) { return chromedp.Void{}, nil }
}

func readVitals(ctx context.Context) (*render.Vitals, string, error) {
	return nil, "lab vitals are not measured by this build", nil
}

func takeScreenshots(ctx context.Context, shot render.Shot, res *render.Result) error {
	return nil
}
