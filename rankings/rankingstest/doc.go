// Package rankingstest holds the conformance suites of the rankings
// driver interfaces. Every driver runs its suite from its own tests:
//
//	func TestConformance(t *testing.T) {
//		rankingstest.RunStore(t, func(t *testing.T) rankings.Store { return memstore.New(nil) })
//	}
//
// RunStore checks a rankings.Store: Track and Untrack idempotence, batch
// atomicity of Record (an invalid observation stores nothing and names the
// field), the upsert rule (the later write of a day wins), filters and
// ordering of Latest and History, round trips of nil and fractional
// positions, and concurrent use (run it with -race). A store that is also
// a rankings.FailureStore has its failures checked too: the latest per
// series wins, filters apply and a bad batch stores nothing.
//
// RunSource checks a rankings.Source against one query whose leading
// organic results are known (for HTTP drivers, from an httptest server
// answering a recorded fixture of the provider): 1-based increasing
// positions within SERP.Depth, the depth asked respected, SERP.Source
// equal to Name(), an empty SERP for a provider that found nothing,
// *seo.InputError values for bad queries that reach no provider, provider
// failures (5xx, rate limit, rejected credentials, garbage, timeout)
// wrapping seo.ErrUnavailable or seo.ErrRateLimited, an error for a
// cancelled context, and concurrent use. Every rankings.Source driver
// runs it from a conformance_test.go file.
package rankingstest
