package analyzer

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/seokit/seokit/seo"
)

// Memory model of one analysis, from BenchmarkAnalyzeWorstCase: the peak
// RSS growth of a child process analysing a page at seo.DefaultMaxBodyBytes
// in the densest forms measured 31.5x the body for links, 26.7x for
// text-less links, 26.2x for images, 22.8x for headings and 63.1x for bare
// <p> elements (the parsed tree alone is about 41x the body there).
const (
	// estimateBytesPerBodyByte is the peak working set per body byte,
	// rounded up from the worst form measured.
	estimateBytesPerBodyByte = 64
	// estimateBaseBytes covers a small page: the report, the parser's
	// buffers, the checks' tables.
	estimateBaseBytes = 1 << 20
)

// EstimateMemory returns the bytes an analysis of a body of bodyBytes
// holds at its peak: 1 MiB plus 64 bytes per body byte (about 1 GB for a
// page at seo.DefaultMaxBodyBytes, 7.4 MB for a 100 KB page). The factor is
// the worst peak-RSS growth per body byte measured by
// BenchmarkAnalyzeWorstCase (63.1x, a 15 MiB page of bare <p> elements;
// dense links measured 31.5x), rounded up; Options.Memory reserves it.
func EstimateMemory(bodyBytes int) int64 {
	return estimateBaseBytes + estimateBytesPerBodyByte*int64(max(bodyBytes, 0))
}

// reserve reserves the estimate for a body of n bytes from Options.Memory,
// when set, and returns the release function.
func (c *config) reserve(ctx context.Context, n int) (func(), error) {
	if c.Memory == nil {
		return func() {}, nil
	}
	release, err := c.Memory.Reserve(ctx, EstimateMemory(n))
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
