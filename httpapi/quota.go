// The daily quota of the API and the dashboard: an account's limits from
// its plan (plans.Table.For, remembered by plans.Cache), each request or
// action counted against its daily limit and burst rate, and the 429 and
// X-RateLimit headers of a refusal.

package httpapi

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/seokit/seokit/httpapi/plans"
	"github.com/seokit/seokit/httpapi/ratelimit"
	"github.com/seokit/seokit/httpapi/store"
)

// accountPlan returns the limits of the account (plans.Table.For).
func (s *Server) accountPlan(ctx context.Context, accountID string) (plans.Limits, error) {
	if s.opts.DisableAuth {
		// The load-test baseline: no account, no plan caps but the server's.
		return plans.Limits{MaxSitePages: s.opts.MaxSitePages, ConcurrentSiteJobs: math.MaxInt32}, nil
	}
	if p, ok := s.accounts.Get(accountID, s.now()); ok {
		return p, nil
	}
	a, err := s.st.Account(ctx, accountID)
	if err != nil {
		return plans.Limits{}, err
	}
	p := s.plans.For(a)
	s.accounts.Put(accountID, p, s.now())
	return p, nil
}

// quota is the outcome of counting one request.
type quota struct {
	limit int
	res   ratelimit.Result
	now   time.Time
	reset time.Time // next UTC midnight
}

// take counts one request or action of the account against its daily
// limit and burst rate. It is the one place every path that spends server
// resources or provider money is counted: protect for the API, CountAction for
// the dashboard.
func (s *Server) take(ctx context.Context, accountID string) (*quota, error) {
	p, err := s.accountPlan(ctx, accountID)
	if err != nil {
		return nil, err
	}
	now := s.now().UTC()
	q := &quota{limit: p.DailyRequests, now: now, reset: time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, time.UTC)}
	rate, burst := p.RequestRate, p.RequestBurst
	if rate <= 0 {
		rate = s.opts.BurstRate
	}
	if burst <= 0 {
		burst = s.opts.Burst
	}
	q.res, err = s.limiter.Take(ctx, ratelimit.Request{
		Account: accountID, Now: now, Daily: q.limit, Rate: rate, Burst: burst,
	})
	if err != nil {
		if errors.Is(err, store.ErrUnavailable) {
			err = outage(s.limiter, "rate limiter", err)
		}
		return nil, err
	}
	return q, nil
}

// setHeaders sets the X-RateLimit headers and, on a refusal, Retry-After.
// The three are set under their canonical keys (what the wire carries)
// from one backing array, one allocation for all.
func (q *quota) setHeaders(h http.Header) {
	v := [3]string{strconv.Itoa(q.limit), strconv.Itoa(max(0, q.limit-q.res.Count)), strconv.FormatInt(q.reset.Unix(), 10)}
	vs := v[:]
	h["X-Ratelimit-Limit"] = vs[0:1:1]
	h["X-Ratelimit-Remaining"] = vs[1:2:2]
	h["X-Ratelimit-Reset"] = vs[2:3:3]
	if e := q.refusal(); e != nil {
		h.Set("Retry-After", e.retryAfter)
		if q.res.Refused == ratelimit.DailyLimit {
			h.Set("X-RateLimit-Remaining", "0")
		}
	}
}

// refusal is the 429 of a refused request, nil when it was admitted.
func (q *quota) refusal() *Error {
	var e *Error
	switch q.res.Refused {
	case ratelimit.BurstLimit:
		e = apiError(http.StatusTooManyRequests, CodeRateLimited, "too many requests at once; slow down")
		e.retryAfter = strconv.FormatInt(max(int64(q.res.RetryAfter.Seconds()+0.999), 1), 10)
	case ratelimit.DailyLimit:
		e = apiError(http.StatusTooManyRequests, CodeRateLimited, "daily request limit of "+strconv.Itoa(q.limit)+" reached; it resets at 00:00 UTC")
		e.retryAfter = strconv.FormatInt(max(int64(q.reset.Sub(q.now).Seconds()+0.999), 1), 10)
	}
	return e
}

// Names of actions counted by CountAction, for its logs.
const (
	ActionSiteAnalysis  = "site analysis"
	ActionTrackKeywords = "track keywords"
)

// CountAction counts one action of the account that spends resources or
// provider money against the account's daily limit and burst rate, as
// every API request is counted, for a surface outside the services: the
// services charge their own actions (Analyses().Submit, Rankings().Track:
// the dashboard counts nothing itself). A refusal is an *Error (429
// rate_limited) whose PublicMessage says why; the action must not run.
func (s *Server) CountAction(ctx context.Context, accountID, action string) error {
	q, err := s.take(ctx, accountID)
	if err != nil {
		return err
	}
	if e := q.refusal(); e != nil {
		s.log.InfoContext(ctx, "action refused by the daily quota", "account", accountID, "action", action, "message", e.Message)
		return e
	}
	return nil
}

// DailyLimit returns the account's daily request limit, its plan's or its
// own. The dashboard shows it.
func (s *Server) DailyLimit(ctx context.Context, accountID string) (int, error) {
	p, err := s.accountPlan(ctx, accountID)
	return p.DailyRequests, err
}

// TrackedKeywords returns the most keywords the account may track, its
// plan's plans.Limits.TrackedKeywords. The dashboard's track form and
// examples/server's POST /v1/rankings/track hook pass it to the watchlist.
func (s *Server) TrackedKeywords(ctx context.Context, accountID string) (int, error) {
	p, err := s.accountPlan(ctx, accountID)
	return p.TrackedKeywords, err
}

// MaxSitePages returns the most pages a site analysis of the account may
// crawl. The dashboard shows it on its form.
func (s *Server) MaxSitePages(ctx context.Context, accountID string) (int, error) {
	p, err := s.accountPlan(ctx, accountID)
	return p.MaxSitePages, err
}
