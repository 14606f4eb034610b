package chromium

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/seokit/seokit/render"
)

// vitalsJS registers the PerformanceObservers of the lab Web Vitals and
// defines window.__seokitVitals, which returns the figures as JSON.
//
//go:embed vitals.js
var vitalsJS string

// Caps of what readVitals accepts from the page, which could be hostile.
const (
	maxVitalsJSON   = 64 << 10 // bytes of the figures' JSON
	maxShifts       = 5        // largest layout shifts kept
	maxShiftSources = 5        // elements kept per shift
	maxElementDesc  = 100      // runes of an element description
	maxTimingMs     = 24 * 60 * 60 * 1000
	// vitalsWait bounds the evaluation of the figures: a page whose main
	// thread stays busy does not answer.
	vitalsWait = 5 * time.Second
)

// installVitals returns the action, run before navigation, that installs
// vitals.js in every new document of the tab (Page.addScriptToEvaluateOnNewDocument)
// but the blank page of a reset (blankGuard).
// The script runs before the page's own scripts and regardless of its
// Content-Security-Policy, and measures the top document only:
//
//   - LCP: the last largest-contentful-paint entry and its element;
//   - CLS: layout shifts without recent input, in session windows as web.dev
//     defines them (gaps under 1 s, windows under 5 s; CLS is the largest
//     window), with the 5 largest shifts and up to 5 elements each moved.
//     Chromium flags the shifts of the first 500 ms as after input because
//     of the device emulation; as Lighthouse does, they count until the
//     first shift without the flag;
//   - TBT: the time beyond 50 ms of each long task after first contentful
//     paint, until the figures are read;
//   - FCP from the paint entries, TTFB from navigation timing (responseStart).
//
// It changes no emulation: the device metrics are the renderer's.
func installVitals() chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: blankGuard(vitalsJS)})
		if err != nil {
			return fmt.Errorf("render: install vitals: %w", err)
		}
		return nil
	})
}

// rawVitals is what window.__seokitVitals returns.
type rawVitals struct {
	ContentType string   `json:"contentType"`
	LCP         *float64 `json:"lcp"`
	LCPElement  string   `json:"lcpElement"`
	CLS         *float64 `json:"cls"`
	Shifts      []struct {
		Value    float64  `json:"value"`
		Elements []string `json:"elements"`
	} `json:"shifts"`
	TBT         *float64 `json:"tbt"`
	FCP         *float64 `json:"fcp"`
	TTFB        *float64 `json:"ttfb"`
	DOMElements int      `json:"domElements"`
}

// readVitals reads the lab Web Vitals of the page once it settled; the
// rendering ends there, so LCP is read at that moment, as Lighthouse does
// when its trace ends (in the field LCP is final only after the first input
// or when the page is hidden). A metric the page did not produce is nil: no
// LCP entry gives a nil LCP, no first contentful paint a nil FCP and TBT.
//
// When nothing could be measured it returns nil and the reason: the
// document is not HTML (an image, a PDF, JSON), the script did not run in
// it (a browser error page), or its main thread did not answer within 5 s.
// An error means the browser could not be asked (the tab is gone, ctx
// ended).
func readVitals(ctx context.Context) (*render.Vitals, string, error) {
	wctx, cancel := context.WithTimeout(ctx, vitalsWait)
	defer cancel()
	const expr = `typeof window.__seokitVitals === "function" ? window.__seokitVitals() : ""`
	byValue := true
	r, err := chromedp.Run(wctx, func(ctx context.Context, t *chromedp.Target) (runtime.EvaluateResult, error) {
		return cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ReturnByValue: &byValue})
	})
	if err != nil {
		if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			return nil, "the page's main thread did not answer within " + vitalsWait.String(), nil
		}
		return nil, "", fmt.Errorf("render: read vitals: %w", err)
	}
	if r.ExceptionDetails != nil {
		return nil, "the vitals script failed: " + clipDesc(r.ExceptionDetails.Text), nil
	}
	var s string
	if r.Result == nil || len(r.Result.Value) > 2*maxVitalsJSON || json.Unmarshal(r.Result.Value, &s) != nil {
		return nil, "the vitals script returned no figures", nil
	}
	v, reason := parseVitals(s)
	return v, reason, nil
}

// parseVitals checks and caps the figures vitals.js returned (s), which a
// hostile page could have shaped.
func parseVitals(s string) (*render.Vitals, string) {
	if s == "" {
		return nil, "the vitals script did not run in this document"
	}
	if len(s) > maxVitalsJSON {
		return nil, "the vitals script returned too much data"
	}
	var raw rawVitals
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		return nil, "the vitals script returned no figures"
	}
	if ct := strings.ToLower(raw.ContentType); ct != "text/html" && ct != "application/xhtml+xml" {
		return nil, "not an HTML document (" + clipDesc(raw.ContentType) + ")"
	}
	v := &render.Vitals{
		LCP:         timing(raw.LCP),
		CLS:         score(raw.CLS),
		TBT:         timing(raw.TBT),
		FCP:         timing(raw.FCP),
		TTFB:        timing(raw.TTFB),
		DOMElements: max(raw.DOMElements, 0),
	}
	if v.LCP != nil {
		v.LCPElement = clipDesc(raw.LCPElement)
	}
	if v.CLS != nil {
		for _, sh := range raw.Shifts {
			if len(v.Shifts) == maxShifts {
				break
			}
			if math.IsNaN(sh.Value) || math.IsInf(sh.Value, 0) || sh.Value <= 0 {
				continue
			}
			els := []string{}
			for _, e := range sh.Elements {
				if len(els) == maxShiftSources {
					break
				}
				if e = clipDesc(e); e != "" {
					els = append(els, e)
				}
			}
			v.Shifts = append(v.Shifts, render.Shift{Value: round(sh.Value, 4), Elements: els})
		}
	}
	if v.LCP == nil && v.CLS == nil && v.TBT == nil && v.FCP == nil && v.TTFB == nil {
		return nil, "the browser reported no paint, layout shift or navigation timing"
	}
	return v, ""
}

// timing returns a plausible duration in milliseconds, rounded to 0.1 ms,
// or nil.
func timing(f *float64) *float64 {
	if f == nil || math.IsNaN(*f) || *f < 0 || *f > maxTimingMs {
		return nil
	}
	r := round(*f, 1)
	return &r
}

// score returns a plausible layout shift score, rounded to 4 decimals, or
// nil.
func score(f *float64) *float64 {
	if f == nil || math.IsNaN(*f) || math.IsInf(*f, 0) || *f < 0 {
		return nil
	}
	r := round(*f, 4)
	return &r
}

func round(f float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	return math.Round(f*p) / p
}

// clipDesc makes s valid UTF-8 without control characters and at most
// maxElementDesc runes long.
func clipDesc(s string) string {
	s = strings.ToValidUTF8(s, "")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
	n := 0
	for i := range s {
		if n == maxElementDesc {
			return s[:i]
		}
		n++
	}
	return s
}
