package chromium

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"math"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/seokit/seokit/render"
)

// Limits of the screenshots.
const (
	// maxShotHeight caps the height of a full-page screenshot in CSS
	// pixels; a longer page is cut at that height. Its width is capped
	// likewise.
	maxShotHeight = 16384
	// maxShotBytes caps the size of one PNG; a larger one is dropped.
	maxShotBytes = 5 << 20
	// shotWait bounds each capture.
	shotWait = 15 * time.Second
)

// errShotTooLarge reports a screenshot dropped for its size.
var errShotTooLarge = errors.New("render: screenshot too large")

// takeScreenshots takes the screenshots shot asks for and stores them in
// res: render.Viewport a PNG of the viewport in res.Screenshot (the visible
// part of the page as it is at the end of the rendering, which is the first
// viewport unless the page scrolled itself); render.FullPage that one and a
// PNG of the whole page in res.FullScreenshot, cut at 16,384 CSS pixels of
// height (and of width). render.NoShot and "" take none.
//
// The PNGs are in CSS pixels, not device pixels: a mobile screenshot is 412
// pixels wide whatever the device pixel ratio. A PNG larger than 5 MB is
// dropped: the field stays nil and the error, which wraps errShotTooLarge,
// says so; the other screenshot is kept. Other errors say which capture
// failed; what was taken before stays in res.
func takeScreenshots(ctx context.Context, shot render.Shot, res *render.Result) error {
	if shot != render.Viewport && shot != render.FullPage {
		return nil
	}
	wctx, cancel := context.WithTimeout(ctx, shotWait)
	defer cancel()
	m, err := chromedp.Run(wctx, func(ctx context.Context, t *chromedp.Target) (page.GetLayoutMetricsResult, error) {
		return cdp.Call(ctx, t, page.GetLayoutMetrics, cdp.Empty{})
	})
	if err != nil {
		return fmt.Errorf("render: screenshot: layout metrics: %w", err)
	}
	vv, content := m.CSSVisualViewport, m.CSSContentSize
	if vv == nil || content == nil || vv.ClientWidth < 1 || vv.ClientHeight < 1 {
		return fmt.Errorf("render: screenshot: the page has no viewport")
	}
	dpr, err := devicePixelRatio(wctx)
	if err != nil {
		return err
	}
	scale := 1 / dpr

	var errs []error
	res.Screenshot, err = capture(wctx, &page.Viewport{
		X: vv.PageX, Y: vv.PageY, Width: vv.ClientWidth, Height: vv.ClientHeight, Scale: scale,
	}, false, "viewport")
	if err != nil && !errors.Is(err, errShotTooLarge) {
		return err
	}
	errs = append(errs, err)
	if shot == render.FullPage {
		cancel()
		fctx, cancel := context.WithTimeout(ctx, shotWait)
		defer cancel()
		w := math.Min(math.Max(content.Width, vv.ClientWidth), maxShotHeight)
		h := math.Min(math.Max(content.Height, vv.ClientHeight), maxShotHeight)
		res.FullScreenshot, err = capture(fctx, &page.Viewport{Width: w, Height: h, Scale: scale}, true, "full-page")
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// devicePixelRatio asks the page for window.devicePixelRatio; a missing or
// implausible answer counts as 1.
func devicePixelRatio(ctx context.Context) (float64, error) {
	byValue := true
	r, err := chromedp.Run(ctx, func(ctx context.Context, t *chromedp.Target) (runtime.EvaluateResult, error) {
		return cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: "window.devicePixelRatio", ReturnByValue: &byValue})
	})
	if err != nil {
		return 0, fmt.Errorf("render: screenshot: device pixel ratio: %w", err)
	}
	var dpr float64
	if r.ExceptionDetails != nil || r.Result == nil || json.Unmarshal(r.Result.Value, &dpr) != nil || dpr < 0.5 || dpr > 8 {
		return 1, nil
	}
	return dpr, nil
}

// capture takes one PNG of clip and checks it; what names it in errors.
func capture(ctx context.Context, clip *page.Viewport, beyond bool, what string) ([]byte, error) {
	fromSurface := true
	r, err := chromedp.Run(ctx, func(ctx context.Context, t *chromedp.Target) (page.CaptureScreenshotResult, error) {
		return cdp.Call(ctx, t, page.CaptureScreenshot, page.CaptureScreenshotParams{
			Format:                page.CaptureScreenshotFormatPng,
			Clip:                  clip,
			FromSurface:           &fromSurface,
			CaptureBeyondViewport: &beyond,
		})
	})
	if err != nil {
		return nil, fmt.Errorf("render: %s screenshot: %w", what, err)
	}
	if err := checkShot(r.Data, what); err != nil {
		return nil, err
	}
	return r.Data, nil
}

// checkShot refuses a PNG larger than maxShotBytes, or not a PNG.
func checkShot(b []byte, what string) error {
	if len(b) > maxShotBytes {
		return fmt.Errorf("%w: %s screenshot dropped: %d bytes is over the %d MB cap", errShotTooLarge, what, len(b), maxShotBytes>>20)
	}
	if _, err := png.DecodeConfig(bytes.NewReader(b)); err != nil {
		return fmt.Errorf("render: %s screenshot: not a PNG: %w", what, err)
	}
	return nil
}
