// Package redislimit is a ratelimit.Limiter in Redis, for several API
// instances sharing one account's limits.
//
// Each Take runs one Lua script, atomically in the Redis server, over two
// keys of the account:
//
//   - the burst bucket, a GCRA "theoretical arrival time" in Unix
//     microseconds (prefix + "{account}:b"), expiring a minute after the bucket
//     is full again (Redis expires keys by its own clock; the minute covers
//     callers whose clocks lag it);
//   - the day's count (prefix + "{account}:d:YYYY-MM-DD", the UTC date),
//     incremented only while below the limit and expiring after
//     Options.DayTTL (40 days by default) so that Usage can serve a 30-day
//     chart.
//
// The script refuses an account past its daily quota first, then one whose
// bucket is empty, and only then takes a token and increments the count, so
// a refused request counts against neither limit and any number of
// instances admit exactly the limit. The braces make both keys of an
// account hash to one slot, as Redis Cluster requires of a script's keys.
//
// # Time
//
// The limiter uses the request's time (ratelimit.Request.Now), not the
// Redis server's clock: the day a request counts on is then the day the
// API's X-RateLimit-Reset header was computed from, and tests can move the
// clock. Instances must keep their clocks synchronised (NTP): a skew of s
// moves the day boundary by s for that instance and lets its bucket run at
// most s ahead or behind.
//
// # When Redis fails: fail closed
//
// If Redis cannot be reached or answers an error, Take returns an error
// wrapping store.ErrUnavailable and the API answers 503 "unavailable". The
// limiter never admits a request it could not count: falling back to
// unlimited access would let one client use any amount of upstream data
// (rank checks and keyword data cost money per call) while Redis is down,
// and falling back to per-instance limits would multiply every quota by the
// number of instances without anyone noticing. A 503 is visible, retried by
// clients, and ends when Redis returns. Open configures the client it
// creates with short timeouts and no command retries, so a failure answers
// within Options.Timeout and a request is never counted twice by a retried
// script. Once Redis is back, the client finds it within about a second:
// after repeated failed dials go-redis answers the last dial error at once
// and probes the server in the background once a second.
//
// Redis keeps the counts: run it with persistence (appendonly yes) or a
// replica, because a Redis that restarts empty restarts the day's counts.
package redislimit
