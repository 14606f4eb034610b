package redisfrontier

import (
	"context"

	"github.com/redis/go-redis/v9"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/seo"
)

// Crawls opens the crawl of each job of the API server in one Redis
// server, so every instance resumes and shares the same job's crawl: it
// serves as httpapi.Frontiers and httpapi.HostGates. A job's crawl is
// keyed by its ID ("seokit:crawl:{jobID}:"), its host gate under the same
// prefix, so Remove deletes both. The zero value is not usable; call
// NewCrawls.
type Crawls struct {
	rdb  redis.UniversalClient
	opts Options
}

// NewCrawls returns the crawls kept in the Redis server behind rdb; the
// client stays the caller's. opts, which may be nil, apply to every
// frontier opened.
func NewCrawls(rdb redis.UniversalClient, opts *Options) (*Crawls, error) {
	if rdb == nil {
		return nil, &seo.InputError{Field: "client", Reason: "is nil", Err: seo.ErrInvalidInput}
	}
	c := &Crawls{rdb: rdb}
	if opts != nil {
		c.opts = *opts
	}
	return c, nil
}

// Open opens the crawl of the job, creating it when it does not exist.
func (c *Crawls) Open(ctx context.Context, jobID string) (crawler.Frontier, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return New(c.rdb, jobID, &c.opts)
}

// HostGate returns the job's host gate: its per-host rate and Crawl-delay
// hold across every worker of the job.
func (c *Crawls) HostGate(_ context.Context, jobID string) (crawler.HostGate, error) {
	if err := validateID(jobID); err != nil {
		return nil, err
	}
	return NewHostGate(c.rdb, &GateOptions{Prefix: keyPrefix(jobID) + "gate:"})
}

// Remove deletes every key of the job's crawl and host gate.
func (c *Crawls) Remove(ctx context.Context, jobID string) error {
	if err := validateID(jobID); err != nil {
		return err
	}
	return deletePrefix(ctx, c.rdb, keyPrefix(jobID))
}

// Component names the frontiers in the API's outage messages and health
// checks (httpapi.Component).
func (c *Crawls) Component() string { return "Redis frontier" }
