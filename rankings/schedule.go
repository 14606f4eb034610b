package rankings

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/seokit/seokit/seo"
)

// ScheduleOptions configures Tracker.Run. The zero value is usable.
type ScheduleOptions struct {
	// At is the time of day, after UTC midnight, of the daily pass; zero
	// means 03:00 UTC. It must be below 24 hours.
	At time.Duration
	// RetryEvery is the wait before retrying the keywords whose check
	// failed; zero means one hour.
	RetryEvery time.Duration
	// MaxRetries bounds the retries after a daily pass; zero means 3 (a
	// negative value means none).
	MaxRetries int
	// After returns a channel that receives once d has passed; nil means
	// time.After. Tests inject a fake clock here.
	After func(d time.Duration) <-chan time.Time
	// OnPass, when set, is called after each pass (daily or retry) with its
	// report.
	OnPass func(r *RecheckReport)
}

// RecheckReport is the outcome of one RecheckDue pass.
type RecheckReport struct {
	// Due is the number of tracked keywords not yet checked that UTC day.
	Due int
	// Checked is how many of them were checked and stored.
	Checked int
	// Failed lists the ones whose check failed, with the error.
	Failed []RecheckFailure
}

// RecheckFailure is a tracked keyword whose check failed.
type RecheckFailure struct {
	Tracked Tracked
	Err     error
}

// RecheckDue checks, once, every tracked keyword (of every domain) that
// has no observation dated today (UTC), grouped by domain, locale and
// device. Failures are reported in the RecheckReport and, when the store
// is a [FailureStore], recorded (never as "not ranked"); the returned
// error is for failures to read the store, a missing Source or a
// cancelled ctx.
func (t *Tracker) RecheckDue(ctx context.Context) (*RecheckReport, error) {
	if t.src == nil {
		return nil, fmt.Errorf("rankings: recheck: no SERP source configured: %w", seo.ErrUnavailable)
	}
	tracked, err := t.st.Tracked(ctx, Filter{})
	if err != nil {
		return nil, fmt.Errorf("rankings: recheck: list tracked: %w", err)
	}
	type group struct {
		domain string
		loc    seo.Locale
		dev    Device
	}
	groups := map[group][]Tracked{}
	for _, tr := range tracked {
		g := group{tr.Domain, tr.Locale, tr.Device}
		groups[g] = append(groups[g], tr)
	}
	keys := make([]group, 0, len(groups))
	for g := range groups {
		keys = append(keys, g)
	}
	slices.SortFunc(keys, func(a, b group) int {
		return cmp.Or(cmp.Compare(a.domain, b.domain), cmp.Compare(a.loc.String(), b.loc.String()), cmp.Compare(a.dev, b.dev))
	})
	today := Day(t.opts.Now())
	rep := &RecheckReport{}
	for _, g := range keys {
		trs := groups[g]
		latest, err := t.st.Latest(ctx, Filter{Domain: g.domain, Locale: g.loc, Device: g.dev, From: today})
		if err != nil {
			return rep, fmt.Errorf("rankings: recheck: read latest: %w", err)
		}
		done := map[string]bool{}
		for _, o := range latest {
			if o.Locale == g.loc {
				done[o.Keyword] = true
			}
		}
		var due []Tracked
		for _, tr := range trs {
			if !done[tr.Keyword] {
				due = append(due, tr)
			}
		}
		rep.Due += len(due)
		tg, err := ParseTarget(g.domain)
		if err != nil {
			for _, tr := range due {
				rep.Failed = append(rep.Failed, RecheckFailure{tr, err})
			}
			continue
		}
		for start := 0; start < len(due); start += t.opts.MaxKeywords {
			part := due[start:min(start+t.opts.MaxKeywords, len(due))]
			ks := make([]string, len(part))
			for i, tr := range part {
				ks[i] = tr.Keyword
			}
			if err := ctx.Err(); err != nil {
				return rep, err
			}
			good, failed, _, err := t.checkEach(ctx, tg, ks, g.loc, g.dev)
			if err != nil {
				if cerr := ctx.Err(); cerr != nil {
					return rep, cerr
				}
				for _, tr := range part {
					rep.Failed = append(rep.Failed, RecheckFailure{tr, err})
				}
				continue
			}
			rep.Checked += len(good)
			for _, tr := range part {
				if e := failed[tr.Keyword]; e != nil {
					rep.Failed = append(rep.Failed, RecheckFailure{tr, e})
				}
			}
			if err := ctx.Err(); err != nil {
				return rep, err
			}
		}
	}
	return rep, nil
}

// Run re-checks the tracked keywords every day at opts.At (UTC) with
// RecheckDue, retrying failures every RetryEvery up to MaxRetries times,
// until ctx ends; it then returns ctx's error. A pass that cannot read the
// store is retried like failed keywords. opts may be nil.
func (t *Tracker) Run(ctx context.Context, opts *ScheduleOptions) error {
	var o ScheduleOptions
	if opts != nil {
		o = *opts
	}
	if o.At == 0 {
		o.At = 3 * time.Hour
	}
	if o.At < 0 || o.At >= 24*time.Hour {
		return &seo.InputError{Field: "at", Value: o.At.String(), Reason: "must be a time of day between 0 and 24h"}
	}
	if o.RetryEvery <= 0 {
		o.RetryEvery = time.Hour
	}
	if o.MaxRetries == 0 {
		o.MaxRetries = 3
	}
	if o.After == nil {
		o.After = time.After
	}
	if t.src == nil {
		return fmt.Errorf("rankings: run: no SERP source configured: %w", seo.ErrUnavailable)
	}
	wait := func(d time.Duration) error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-o.After(d):
			return nil
		}
	}
	for {
		if err := wait(NextRun(t.opts.Now(), o.At).Sub(t.opts.Now())); err != nil {
			return err
		}
		for attempt := 0; ; attempt++ {
			rep, err := t.RecheckDue(ctx)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if rep == nil {
				rep = &RecheckReport{}
			}
			if err != nil && !errors.Is(err, context.Canceled) {
				rep.Failed = append(rep.Failed, RecheckFailure{Err: err})
			}
			if o.OnPass != nil {
				o.OnPass(rep)
			}
			if len(rep.Failed) == 0 || attempt >= o.MaxRetries {
				break
			}
			if err := wait(o.RetryEvery); err != nil {
				return err
			}
		}
	}
}

// NextRun returns the first instant after now that is at past a UTC
// midnight.
func NextRun(now time.Time, at time.Duration) time.Time {
	next := Day(now).Add(at)
	if !next.After(now) {
		next = Day(now).AddDate(0, 0, 1).Add(at)
	}
	return next
}
