package indexstatus_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/indexstatus"
	"github.com/seokit/seokit/indexstatus/indexstatustest"
	"github.com/seokit/seokit/internal/googlefake"
)

// memCounter is a Counter over a per-minute ring and a day count, like a
// store's; broken makes Take fail.
type memCounter struct {
	mu     sync.Mutex
	ends   []time.Time // zero: in flight
	day    map[string]int
	broken bool
	polls  int
}

func (c *memCounter) Take(_ context.Context, property, day string, now time.Time, q indexstatus.Quota) (func(time.Time), time.Time, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken {
		return nil, time.Time{}, errors.New("database unavailable")
	}
	if c.day == nil {
		c.day = map[string]int{}
	}
	free, retry := -1, time.Time{}
	for i, e := range c.ends {
		switch {
		case e.IsZero():
		case !e.Add(time.Minute).After(now):
			free = i
		case retry.IsZero() || e.Add(time.Minute).Before(retry):
			retry = e.Add(time.Minute)
		}
	}
	if free < 0 && len(c.ends) < q.PerMinute {
		c.ends = append(c.ends, time.Time{})
		free = len(c.ends) - 1
	}
	if free < 0 {
		c.polls++
		return nil, retry, nil
	}
	if c.day[property+day] >= q.PerDay {
		return nil, time.Time{}, indexstatus.ErrDailyQuota
	}
	c.day[property+day]++
	c.ends[free] = time.Time{}
	return func(at time.Time) { c.mu.Lock(); c.ends[free] = at; c.mu.Unlock() }, time.Time{}, nil
}

func (c *memCounter) Used(_ context.Context, property, day string) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.day[property+day], nil
}

// TestSharedLedger: a run over a Counter stays within the quotas the
// fake Search Console enforces, waiting as the Counter says; a Counter
// that fails leaves the pages not inspected with quota_unavailable.
func TestSharedLedger(t *testing.T) {
	clock := &virtualClock{now: time.Date(2026, 12, 1, 17, 0, 0, 0, time.UTC)}
	q := indexstatus.Quota{PerMinute: 20, PerDay: 70}
	fake := &googlefake.SearchConsole{Now: clock.Now, PerMinute: q.PerMinute, PerDay: q.PerDay, Status: indexstatustest.Status}
	ins := newFake(t, fake)
	c := &memCounter{}
	ledger := indexstatus.NewSharedLedger(q, clock, c)
	if !ledger.Shared() {
		t.Fatal("a ledger over a Counter is not Shared")
	}
	rep, err := indexstatus.Run(context.Background(), indexstatustest.Site(300), ins, "sc-domain:example.com", &indexstatus.Options{Ledger: ledger})
	if err != nil {
		t.Fatal(err)
	}
	_, answered, refused := fake.Stats()
	t.Logf("shared ledger: %d inspected, %d answered, %d refused, peak %d a minute, used %d -> %d",
		rep.Counts.Inspected, answered, refused, maxInWindow(fake.Times(), time.Minute), rep.Quota.UsedBefore, rep.Quota.UsedAfter)
	if rep.Counts.Inspected != q.PerDay || refused != 0 || rep.Quota.UsedAfter != q.PerDay || maxInWindow(fake.Times(), time.Minute) > q.PerMinute {
		t.Errorf("counts %+v, refused %d, used after %d", rep.Counts, refused, rep.Quota.UsedAfter)
	}

	broken := indexstatus.NewSharedLedger(q, clock, &memCounter{broken: true})
	rep, err = indexstatus.Run(context.Background(), indexstatustest.Site(30), ins, "sc-domain:example.org", &indexstatus.Options{Ledger: broken})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Counts.Inspected != 0 || rep.Counts.NotInspectedReasons[indexstatus.ReasonQuotaUnavailable] != rep.Counts.Sampled || rep.Counts.Sampled == 0 {
		t.Errorf("with a broken counter: %+v", rep.Counts)
	}
}
