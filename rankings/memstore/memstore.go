package memstore

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/seo"
)

var (
	_ rankings.Store        = (*Store)(nil)
	_ rankings.FailureStore = (*Store)(nil)
)

// Options configures a Store. The zero value is ready to use.
type Options struct {
	// Now is the clock used for Tracked.AddedAt; nil means time.Now.
	Now func() time.Time
}

type seriesKey struct {
	domain, keyword string
	locale          seo.Locale
	device          rankings.Device
}

func compareKeys(a, b seriesKey) int {
	return cmp.Or(cmp.Compare(a.domain, b.domain), cmp.Compare(a.keyword, b.keyword),
		cmp.Compare(a.locale.String(), b.locale.String()), cmp.Compare(a.device, b.device))
}

// Store is an in-memory rankings.Store. It is safe for concurrent use;
// results are copies.
type Store struct {
	mu      sync.RWMutex
	now     func() time.Time
	tracked map[seriesKey]rankings.Tracked
	obs     map[seriesKey]map[time.Time]rankings.Observation
	fails   map[seriesKey]rankings.Failure
}

// New returns an empty Store. opts may be nil.
func New(opts *Options) *Store {
	s := &Store{now: time.Now, tracked: map[seriesKey]rankings.Tracked{}, obs: map[seriesKey]map[time.Time]rankings.Observation{},
		fails: map[seriesKey]rankings.Failure{}}
	if opts != nil && opts.Now != nil {
		s.now = opts.Now
	}
	return s
}

func match(k seriesKey, f rankings.Filter) bool {
	if f.Domain != "" && k.domain != f.Domain {
		return false
	}
	if f.Locale != (seo.Locale{}) && k.locale != f.Locale {
		return false
	}
	if f.Device != "" && k.device != f.Device {
		return false
	}
	if f.Keywords != nil && !slices.Contains(f.Keywords, k.keyword) {
		return false
	}
	return true
}

func inRange(d time.Time, f rankings.Filter) bool {
	return (f.From.IsZero() || !d.Before(f.From)) && (f.To.IsZero() || !d.After(f.To))
}

func copyObs(o rankings.Observation) rankings.Observation {
	if o.Position != nil {
		p := *o.Position
		o.Position = &p
	}
	return o
}

// Track adds keywords to track; ones already tracked are skipped.
func (s *Store) Track(ctx context.Context, keywords []rankings.Tracked) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	now := s.now()
	norm := make([]rankings.Tracked, len(keywords))
	for i, t := range keywords {
		n, err := rankings.NormalizeTracked(i, t, now)
		if err != nil {
			return err
		}
		norm[i] = n
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range norm {
		k := seriesKey{t.Domain, t.Keyword, t.Locale, t.Device}
		if _, ok := s.tracked[k]; !ok {
			s.tracked[k] = t
		}
	}
	return nil
}

// Untrack stops tracking the keywords matching f and keeps their history.
func (s *Store) Untrack(ctx context.Context, f rankings.Filter) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f, err := rankings.NormalizeFilter(f, false)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.tracked {
		if match(k, f) {
			delete(s.tracked, k)
		}
	}
	return nil
}

// Tracked lists the tracked keywords matching f, ordered by domain,
// keyword, locale and device; an empty Domain lists every domain's.
func (s *Store) Tracked(ctx context.Context, f rankings.Filter) ([]rankings.Tracked, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := rankings.NormalizeFilter(f, true)
	if err != nil {
		return nil, err
	}
	s.mu.RLock()
	var out []rankings.Tracked
	for k, t := range s.tracked {
		if match(k, f) {
			out = append(out, t)
		}
	}
	s.mu.RUnlock()
	slices.SortFunc(out, func(a, b rankings.Tracked) int {
		return compareKeys(seriesKey{a.Domain, a.Keyword, a.Locale, a.Device}, seriesKey{b.Domain, b.Keyword, b.Locale, b.Device})
	})
	return out, nil
}

// Record stores observations: all of them or, when one is invalid, none.
// A later observation of the same domain, keyword, locale, device and day
// replaces an earlier one.
func (s *Store) Record(ctx context.Context, obs []rankings.Observation) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	norm := make([]rankings.Observation, len(obs))
	for i, o := range obs {
		n, err := rankings.NormalizeObservation(i, o)
		if err != nil {
			return err
		}
		norm[i] = n
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range norm {
		k := seriesKey{o.Domain, o.Keyword, o.Locale, o.Device}
		m := s.obs[k]
		if m == nil {
			m = map[time.Time]rankings.Observation{}
			s.obs[k] = m
		}
		m[o.Date] = o
	}
	return nil
}

// History returns the observations matching f, ordered by keyword, locale,
// device and date.
func (s *Store) History(ctx context.Context, f rankings.Filter) ([]rankings.Observation, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := rankings.NormalizeFilter(f, false)
	if err != nil {
		return nil, err
	}
	var out []rankings.Observation
	s.mu.RLock()
	for k, m := range s.obs {
		if !match(k, f) {
			continue
		}
		for d, o := range m {
			if inRange(d, f) {
				out = append(out, copyObs(o))
			}
		}
	}
	s.mu.RUnlock()
	sortObs(out)
	return out, nil
}

func sortObs(out []rankings.Observation) {
	slices.SortFunc(out, func(a, b rankings.Observation) int {
		return cmp.Or(compareKeys(seriesKey{a.Domain, a.Keyword, a.Locale, a.Device}, seriesKey{b.Domain, b.Keyword, b.Locale, b.Device}),
			a.Date.Compare(b.Date))
	})
}

// Latest returns the most recent observation per keyword, locale and
// device matching f (within [f.From, f.To] when set), ordered by keyword,
// locale and device.
func (s *Store) Latest(ctx context.Context, f rankings.Filter) ([]rankings.Observation, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := rankings.NormalizeFilter(f, false)
	if err != nil {
		return nil, err
	}
	var out []rankings.Observation
	s.mu.RLock()
	for k, m := range s.obs {
		if !match(k, f) {
			continue
		}
		var best *rankings.Observation
		for d, o := range m {
			if inRange(d, f) && (best == nil || d.After(best.Date)) {
				best = &o
			}
		}
		if best != nil {
			out = append(out, copyObs(*best))
		}
	}
	s.mu.RUnlock()
	sortObs(out)
	return out, nil
}

// RecordFailures stores failed checks: all of them or, when one is
// invalid, none. A later failure of the same series replaces an earlier
// one.
func (s *Store) RecordFailures(ctx context.Context, fs []rankings.Failure) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	norm := make([]rankings.Failure, len(fs))
	for i, f := range fs {
		n, err := rankings.NormalizeFailure(i, f)
		if err != nil {
			return err
		}
		norm[i] = n
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range norm {
		k := seriesKey{f.Domain, f.Keyword, f.Locale, f.Device}
		if old, ok := s.fails[k]; !ok || !f.At.Before(old.At) {
			s.fails[k] = f
		}
	}
	return nil
}

// LatestFailures returns the latest failure per keyword, locale and
// device matching f, ordered by keyword, locale and device.
func (s *Store) LatestFailures(ctx context.Context, f rankings.Filter) ([]rankings.Failure, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := rankings.NormalizeFilter(f, false)
	if err != nil {
		return nil, err
	}
	var out []rankings.Failure
	s.mu.RLock()
	for k, v := range s.fails {
		if match(k, f) {
			out = append(out, v)
		}
	}
	s.mu.RUnlock()
	slices.SortFunc(out, func(a, b rankings.Failure) int {
		return compareKeys(seriesKey{a.Domain, a.Keyword, a.Locale, a.Device}, seriesKey{b.Domain, b.Keyword, b.Locale, b.Device})
	})
	return out, nil
}
