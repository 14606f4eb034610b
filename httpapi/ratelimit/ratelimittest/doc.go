// Package ratelimittest is the conformance suite every ratelimit.Limiter
// driver runs: exactness under concurrency (300 takes on a limit of 100
// admit exactly 100, counts 1 to 100 each once), the day rolling over at
// UTC midnight, burst refusals and their RetryAfter, refused requests
// counting against neither limit, Usage per day, accounts kept apart,
// cancelled contexts and bad input.
//
// A driver's test calls RunLimiter with a constructor:
//
//	func TestConformance(t *testing.T) {
//		ratelimittest.RunLimiter(t, func(t *testing.T) ratelimit.Limiter {
//			return mydriver.New(...)
//		})
//	}
package ratelimittest
