package analyzer

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/seokit/seokit/seo"
)

// Memory model of one analysis, from BenchmarkAnalyzeWorstCase: the peak
// RSS growth of a child process analysing one page. The element budget
// (Options.MaxElements) bounds the parsed tree, so a page costs a part per
// body byte (the body's text and attribute values, the main text, the
// streaming count past the budget) plus a part per parsed element, which
// dense markup reaches with few bytes until the budget caps it. Measured
// at seo.DefaultMaxBodyBytes: 117.8 MB for dense links, 102.1 MB for
// text-less links, 100.1 MB for long links, 78.6 MB for images, 72.9 MB
// for text, 44.1 MB for bare <p>, 25.1 MB for headings; at the size whose
// elements just fit the budget: 75.3x the body for bare <p> (300 KB),
// 30.7x for links (2.5 MB).
const (
	// estimateBaseBytes covers a small page: the report, the parser's
	// buffers, the checks' tables.
	estimateBaseBytes = 1 << 20
	// estimateBytesPerBodyByte covers the per-byte part: text holds 4.6x
	// its body at the cap, long links 6.4x with their elements.
	estimateBytesPerBodyByte = 5
	// estimateDenseBytesPerBodyByte is the most a body byte costs in
	// parsed elements (bare <p>, 75.3x in all at the budget, with a
	// third more as headroom for the garbage collector's timing), and
	// estimateBytesPerElement the most one parsed element costs beyond
	// its bytes (dense links: 117.8 MB at the cap, with 100,000 parsed;
	// 94.3 MB for a 2.5 MB page of them at the budget, about 810 bytes an
	// element, with a tenth more as headroom).
	estimateDenseBytesPerBodyByte = 100
	estimateBytesPerElement       = 900
)

// EstimateMemory returns the bytes an analysis of a body of bodyBytes
// holds at its peak with the default element budget: 1 MiB, plus 5 bytes
// per body byte, plus the parsed elements' part, 100 bytes per body byte up
// to 900 bytes for each of DefaultMaxElements elements. That is about
// 170 MB for a page at seo.DefaultMaxBodyBytes and 11.5 MB for a 100 KB
// page. The constants come from the worst peak-RSS growth measured by
// BenchmarkAnalyzeWorstCase (117.8 MB for a 15 MiB page of dense links,
// 75.3x the body for a 300 KB page of bare <p>), rounded up;
// Options.Memory reserves it (with Options.MaxElements in place of the
// default).
func EstimateMemory(bodyBytes int) int64 {
	return estimateMemory(bodyBytes, DefaultMaxElements)
}

// estimateMemory is EstimateMemory with an element budget of maxElements.
func estimateMemory(bodyBytes, maxElements int) int64 {
	n := int64(max(bodyBytes, 0))
	return estimateBaseBytes + estimateBytesPerBodyByte*n +
		min(estimateDenseBytesPerBodyByte*n, estimateBytesPerElement*int64(maxElements))
}

// reserve reserves the estimate for a body of n bytes from Options.Memory,
// when set, and returns the release function.
func (c *config) reserve(ctx context.Context, n int) (func(), error) {
	if c.Memory == nil {
		return func() {}, nil
	}
	release, err := c.Memory.Reserve(ctx, estimateMemory(n, c.MaxElements))
	if err != nil {
		return nil, fmt.Errorf("analyzer: memory for a %d-byte page: %w", n, err)
	}
	return release, nil
}

// capLists cuts the report's page-data lists that the checks read whole
// to max items, recording each cut in rep.Truncated. Links.List,
// Images.List and Headings are cut as they are extracted.
func capLists(rep *Report, max int) {
	t := &rep.Truncated
	rep.Canonical = capSlice(t, "canonical", rep.Canonical, max)
	rep.Robots.Directives = capSlice(t, "robots.directives", rep.Robots.Directives, max)
	rep.Hreflang = capSlice(t, "hreflang", rep.Hreflang, max)
	rep.StructuredData = capSlice(t, "structuredData", rep.StructuredData, max)
	types, kept := 0, 0
	for i := range rep.StructuredData {
		it := &rep.StructuredData[i]
		types += len(it.Types)
		if len(it.Types) > max {
			it.Types = slices.Clone(it.Types[:max])
		}
		kept += len(it.Types)
	}
	t.Note("structuredData.types", types, kept)
	rep.OpenGraph = capMap(t, "openGraph", rep.OpenGraph, max)
	rep.Twitter = capMap(t, "twitter", rep.Twitter, max)
	if rep.Viewport != nil {
		rep.Viewport.Fields = capMap(t, "viewport.fields", rep.Viewport.Fields, max)
	}
	if m := rep.Mobile; m != nil {
		m.Hreflang = capSlice(t, "mobile.hreflang", m.Hreflang, max)
		m.Structured = capSlice(t, "mobile.structuredDataTypes", m.Structured, max)
	}
}

// capSlice returns the first max items of s, noting a cut in t as name. A
// cut list is a copy, so that the report does not hold the whole array.
func capSlice[T any](t *seo.Truncated, name string, s []T, max int) []T {
	t.Note(name, len(s), max)
	if len(s) <= max {
		return s
	}
	return slices.Clone(s[:max])
}

// capMap keeps the max smallest keys of m, noting a cut in t as name.
func capMap(t *seo.Truncated, name string, m map[string]string, max int) map[string]string {
	t.Note(name, len(m), max)
	if len(m) <= max {
		return m
	}
	out := make(map[string]string, max)
	for _, k := range slices.Sorted(maps.Keys(m))[:max] {
		out[k] = m[k]
	}
	return out
}
