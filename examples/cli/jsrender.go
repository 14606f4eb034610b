// JavaScript rendering in the command line: the -render flag, starting
// Chromium, and the raw-versus-rendered comparison and the crawl's render
// summary printed as text.

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/render/chromium"
	"github.com/seokit/seokit/seo"
)

// renderModeFlag parses the value of -render; a bad one is a usage error.
func renderModeFlag(s string) (render.Mode, error) {
	m, err := render.ParseMode(s)
	if err != nil {
		return "", &exitError{code: 2, err: fmt.Errorf(`-render must be "none", "auto" or "always", not %q`, s)}
	}
	return m, nil
}

// startRenderer starts the Chromium pool when mode renders (nil and a no-op
// stop for render.None). The browser's requests obey the same address
// policy as the raw fetches (allowPrivate); axePath is axe-core's script for
// the accessibility audit ("": chromium.FindAxe's defaults). Without a browser the error
// says how to get one; raw analysis needs none.
func startRenderer(ctx context.Context, mode render.Mode, allowPrivate bool, tabs int, axePath string) (render.Renderer, func(), error) {
	if mode == render.None {
		return nil, func() {}, nil
	}
	pool, err := chromium.New(ctx, &chromium.Options{
		Fetcher: seo.NewFetcher(&seo.FetcherOptions{AllowPrivate: allowPrivate}),
		Tabs:    tabs,
		AxePath: axePath,
	})
	if err != nil {
		if errors.Is(err, render.ErrUnavailable) {
			return nil, nil, &exitError{code: 2, err: fmt.Errorf("%s; install chromium or set SEOKIT_CHROMIUM (or use -render none)", unavailableText(err))}
		}
		return nil, nil, &exitError{code: 2, err: fmt.Errorf("rendering unavailable: %w", err)}
	}
	return pool, func() { _ = pool.Close() }, nil
}

// unavailableText is err's message starting at "rendering unavailable".
func unavailableText(err error) string {
	s := err.Error()
	if i := strings.Index(s, "rendering unavailable"); i >= 0 {
		return s[i:]
	}
	return "rendering unavailable: " + s
}

// printRendering writes the rendering of a page analysis: whether and why
// it was rendered, the raw → rendered pair of every changed field, the
// links only in the rendered DOM, JavaScript errors and lab vitals.
func printRendering(w io.Writer, rr *analyzer.RenderReport) {
	if rr == nil {
		return
	}
	fmt.Fprintf(w, "\nRendering (%s)\n", rr.Mode)
	if !rr.Rendered {
		fmt.Fprintf(w, "  not rendered: %s\n", clean(rr.Reason))
		return
	}
	state := "rendered"
	if rr.TimedOut {
		state = "rendered, cut short by the time budget"
	}
	fmt.Fprintf(w, "  %s (%s) in %d ms, %s profile\n", state, clean(rr.Reason), rr.ElapsedMs, rr.Device)
	if len(rr.Changes) == 0 {
		fmt.Fprintln(w, "  JavaScript changed none of title, description, h1, canonical, robots, hreflang, structured data, words, links")
	}
	for _, c := range rr.Changes {
		fmt.Fprintf(w, "  %-14s %s -> %s\n", clean(c.Field), quoteOrNone(c.Raw), quoteOrNone(c.Rendered))
	}
	if l := rr.LinksOnlyRendered; l != nil && l.Count > 0 {
		fmt.Fprintf(w, "  links only after rendering: %d, e.g. %s\n", l.Count, clean(strings.Join(l.Examples[:min(3, len(l.Examples))], " ")))
	}
	if n := len(rr.Errors) + rr.ErrorsOmitted; n > 0 {
		fmt.Fprintf(w, "  JavaScript errors: %d, first: %s\n", n, clean(ellipsis(rr.Errors[0].Text, maxExampleChars)))
	}
	if v := rr.Vitals; v != nil {
		fmt.Fprintf(w, "  lab vitals (%s, not field data): LCP %s, CLS %s, TBT %s\n", v.Device,
			metric(v.LCP, "%.0f ms"), metric(v.CLS, "%.3f"), metric(v.TBT, "%.0f ms"))
	} else if rr.VitalsReason != "" {
		fmt.Fprintf(w, "  lab vitals: none (%s)\n", clean(rr.VitalsReason))
	}
}

// quoteOrNone quotes a field value, "(none)" for an absent one.
func quoteOrNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return fmt.Sprintf("%q", ellipsis(s, maxExampleChars))
}

// metric formats an optional measurement, "not measured" for nil.
func metric(v *float64, format string) string {
	if v == nil {
		return "not measured"
	}
	return fmt.Sprintf(format, *v)
}

// printRenderSummary writes the rendering summary of a crawl, if it
// rendered.
func printRenderSummary(w io.Writer, s *crawler.RenderSummary) {
	if s == nil {
		return
	}
	line := fmt.Sprintf("Rendering     %s: %d rendered (%d timed out), %d not rendered", s.Mode, s.Rendered, s.TimedOut, s.NotRendered)
	if len(s.NotRenderedReasons) > 0 {
		line += " (" + countsText(s.NotRenderedReasons) + ")"
	}
	line += fmt.Sprintf(", %d failed, %d with JS errors", s.Failed, s.JSErrorPages)
	fmt.Fprintln(w, line)
	fmt.Fprintf(w, "              changed by JavaScript on %d pages", s.ChangedPages)
	if len(s.Changes) > 0 {
		fmt.Fprintf(w, " (%s)", countsText(s.Changes))
	}
	fmt.Fprintf(w, "; %d links only after rendering on %d pages\n", s.LinksOnlyRendered, s.LinksOnlyRenderedPages)
	if v := s.Vitals; v != nil {
		fmt.Fprintf(w, "              lab vitals p75 over %d pages (%s, not field data): LCP %s, CLS %s, TBT %s\n", v.Pages, v.Device,
			metric(v.LCPP75Ms, "%.0f ms"), metric(v.CLSP75, "%.3f"), metric(v.TBTP75Ms, "%.0f ms"))
	}
	if s.Screenshots+s.ScreenshotsOmitted > 0 {
		fmt.Fprintf(w, "              %d screenshots in %s (%d omitted)\n", s.Screenshots, clean(s.ScreenshotDir), s.ScreenshotsOmitted)
	}
}

// countsText lists counts by key, sorted: "a 2, b 1".
func countsText(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", clean(k), m[k])
	}
	return strings.Join(parts, ", ")
}
