// Package ratelimit counts API requests against each account's limits: a
// short-term burst limit and a daily quota per UTC day.
//
// Limiter is the driver interface. Local, the default, keeps the daily
// counts in the API's store (so a restart resets nothing) and the burst
// buckets in this process; the redislimit driver keeps both in Redis, so
// that several API instances share them. Every driver runs the
// ratelimittest conformance suite.
//
// Both drivers use the same burst algorithm, GCRA (the generic cell rate
// algorithm): each account has one "theoretical arrival time" that every
// admitted request pushes 1/Rate further; a request is refused while that
// time would run more than Burst/Rate ahead of now, and RetryAfter is by
// how much. It behaves as a token bucket of Burst tokens refilled at Rate
// per second, with one number of state per account. Drivers count time in
// whole units (Local nanoseconds, redislimit microseconds), so a Rate above
// 1e9/s (Local) or 1e6/s (redislimit) counts as that rate.
//
// A request refused by either limit counts against neither, and a limiter
// that cannot reach its backing service answers an error wrapping
// store.ErrUnavailable, never an admission.
package ratelimit
