// Package reportstest holds the conformance suites of the reports driver
// interfaces. Every driver runs its suite from a conformance_test.go file:
//
//	func TestConformance(t *testing.T) {
//		reportstest.RunTrafficSource(t, src, reportstest.TrafficCase{...})
//	}
//
// RunTrafficSource checks a reports.TrafficSource against a range whose
// measured traffic is known (for HTTP drivers, from an httptest server
// answering a recorded fixture of the provider): Traffic.Source equal to
// Name(), daily dates inside the range in ascending order without
// repeats, totals equal to the sums of the days and CTR to clicks over
// impressions, nil (never 0) figures when the provider measured nothing,
// *seo.InputError values naming "domain", "start" or "end" for bad input
// that reaches no provider, provider failures wrapping seo.ErrUnavailable
// or seo.ErrRateLimited, an error for a cancelled context, and concurrent
// use.
//
// RunPositionScanner checks a rankings.Store that is also a
// reports.PositionScanner: for every filter (domain, keywords, locale,
// device, date range) ScanPositions reports the series History reports,
// in History's order, each with its latest observation in the range, its
// day numbers ascending and its positions (0 when not ranked); the slices
// stay the caller's; a missing domain is bad input, fn's error ends the
// scan and is returned, and a cancelled context is an error.
package reportstest
