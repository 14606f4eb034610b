package httpapi

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/monitor"
	"github.com/seokit/seokit/seo"
)

// The outbox: alert deliveries and job callbacks are rows of one store
// table (store.Delivery), sent by one worker per server with one retry
// rule (settle) and one signed poster (monitor.Webhook.Send). A job ends
// by storing its final state, which queues its callback in the same
// transaction; no receiver ever holds a job worker or a crawl slot.
const (
	// DeliveryWorkers is how many delivery attempts, alerts and callbacks
	// together, one server makes at once.
	DeliveryWorkers = 20
	// DeliveriesPerAccount is how many attempts one account's deliveries
	// hold at once, counted over every server sharing the store: an
	// account whose receivers hang holds that many workers, never the
	// others' share.
	DeliveriesPerAccount = 4
	// deliveryLease is how long a claimed delivery is held: one attempt
	// (monitor.DefaultTimeout) and time to record it. Another server
	// takes the delivery again only after it, so an attempt is never made
	// twice at once.
	deliveryLease = monitor.DefaultTimeout + time.Minute
	// callbackBuilds bounds the callback bodies built at once: each reads
	// its job with its report.
	callbackBuilds = 2
)

// errStoreRead marks an attempt that could not read what it sends: it is
// not counted, and the delivery is tried again after a poll interval.
var errStoreRead = errors.New("reading the store failed")

// errRuleDeleted ends an alert whose rule was deleted.
var errRuleDeleted = errors.New("the rule was deleted")

// outboxPoll is the interval of the periodic job PeriodicOutboxPoll:
// Options.AlertPollInterval, or its default.
func (s *Server) outboxPoll() time.Duration {
	return cmp.Or(max(s.opts.AlertPollInterval, 0), DefaultAlertPollInterval)
}

// outboxPollWork is the work of the periodic job PeriodicOutboxPoll: the
// outbox worker of the instance running it looks for due deliveries.
func (s *Server) outboxPollWork(context.Context) error {
	s.wakeOutbox()
	return nil
}

// wakeOutbox makes the outbox worker look for due deliveries at once.
func (s *Server) wakeOutbox() {
	select {
	case s.outboxWakeup() <- struct{}{}:
	default:
	}
}

// outboxWakeup returns the channel that wakes the outbox worker; jobs
// resumed by Start may queue deliveries before the worker starts.
func (s *Server) outboxWakeup() chan struct{} {
	s.alertOnce.Do(func() { s.alertWake = make(chan struct{}, 1) })
	return s.alertWake
}

// outbox is the state of the running worker.
type outbox struct {
	s      *Server
	poll   time.Duration
	slots  chan struct{} // one per attempt running
	builds chan struct{} // one per callback body being built

	mu      sync.Mutex
	retries []time.Time // retries this server recorded, soonest first, at most maxRetryTimes
}

// maxRetryTimes bounds the retry times a worker remembers to wake for;
// retries beyond them are found by the poll.
const maxRetryTimes = 1024

// startOutbox starts the delivery worker; Close stops it. Deliveries left
// pending by a stop are sent after the next start, by this or another
// server (claims are leased in the store). The worker claims due
// deliveries when woken: by a job's end or an alert on this server, a
// free slot, a retry this server recorded falling due, or the periodic
// job PeriodicOutboxPoll, which finds the rest (retries recorded by
// another server, leases expired) on one instance per period.
func (s *Server) startOutbox() {
	wake := s.outboxWakeup()
	o := &outbox{s: s, poll: s.outboxPoll(),
		slots: make(chan struct{}, DeliveryWorkers), builds: make(chan struct{}, callbackBuilds)}
	s.goBackground(func(ctx context.Context) {
		t := time.NewTimer(outboxIdle)
		defer t.Stop()
		for {
			if free := cap(o.slots) - len(o.slots); free > 0 {
				o.claim(ctx, free)
			}
			t.Reset(o.wait())
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			case <-wake:
			}
		}
	})
}

// wait is how long the worker sleeps unless woken: until the soonest
// retry this server recorded falls due.
func (o *outbox) wait() time.Duration {
	o.mu.Lock()
	defer o.mu.Unlock()
	now := o.s.now()
	due := 0
	for due < len(o.retries) && !o.retries[due].After(now) {
		due++
	}
	if due > 0 {
		o.retries = o.retries[:copy(o.retries, o.retries[due:])]
		return time.Millisecond
	}
	if len(o.retries) == 0 {
		return outboxIdle
	}
	return o.retries[0].Sub(now)
}

// outboxIdle is how long the worker sleeps with no retry of its own
// due; the periodic poll wakes it sooner.
const outboxIdle = time.Hour

// retryAt notes a retry due at t.
func (o *outbox) retryAt(t time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	i := sort.Search(len(o.retries), func(i int) bool { return o.retries[i].After(t) })
	if i >= maxRetryTimes {
		return
	}
	if len(o.retries) == maxRetryTimes {
		o.retries = o.retries[:maxRetryTimes-1]
	}
	o.retries = slices.Insert(o.retries, i, t)
}

// claim leases up to n due deliveries and starts one attempt each, each
// holding a slot until it ends.
func (o *outbox) claim(ctx context.Context, n int) {
	s := o.s
	ds, err := s.st.ClaimDeliveries(ctx, s.now(), deliveryLease, n, DeliveriesPerAccount)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("deliveries not claimed", "err", err)
		}
		return
	}
	for i := range ds {
		d := ds[i]
		o.slots <- struct{}{} // never blocks: at most n were claimed
		if !s.goBackground(func(ctx context.Context) {
			defer func() {
				<-o.slots
				s.wakeOutbox() // a slot is free
			}()
			o.attempt(ctx, &d)
		}) {
			<-o.slots // closing; the lease expires and it is sent after the next start
		}
	}
}

// attempt makes one attempt to send d and records its outcome.
func (o *outbox) attempt(ctx context.Context, d *store.Delivery) {
	s := o.s
	var (
		err    error
		delays []time.Duration
	)
	if d.Kind == store.DeliveryCallback {
		delays = s.opts.CallbackRetryDelays
		err = s.sendCallback(ctx, d, o.builds)
	} else {
		delays = s.opts.AlertRetryDelays
		if delays == nil {
			delays = DefaultAlertRetryDelays
		}
		var sent bool
		if sent, err = s.sendAlert(ctx, d); !sent {
			return // suppressed and recorded
		}
	}
	if ctx.Err() != nil || errors.Is(err, errStoreRead) {
		// Not an attempt: give the claim back, so that this server after
		// a restart, or another one, sends it without waiting for the
		// lease.
		if ctx.Err() == nil {
			s.log.Warn("delivery not attempted", "delivery", d.ID, "kind", d.Kind, "err", err)
			d.NextAttempt = s.now().UTC().Add(o.poll)
		}
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		if err := s.st.UpdateDelivery(rctx, d); err != nil && !errors.Is(err, store.ErrNotFound) {
			s.log.Warn("delivery claim not released", "delivery", d.ID, "err", err)
		}
		return
	}
	settle(d, err, s.now().UTC(), delays)
	if err != nil {
		s.log.Warn("delivery failed", "kind", d.Kind, "delivery", d.ID, "job", d.JobID, "rule", d.RuleID, "attempt", d.Attempts, "state", d.State, "err", err)
	}
	if d.State == store.DeliveryPending {
		o.retryAt(d.NextAttempt)
	}
	// The outcome is saved even when the server is closing as the attempt
	// ends: unsaved, the delivery would keep its lease (a minute and
	// more) instead of its next attempt, or be sent again once delivered.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	if err := s.st.UpdateDelivery(sctx, d); err != nil && !errors.Is(err, store.ErrNotFound) {
		s.log.Warn("delivery state not saved", "delivery", d.ID, "err", err)
	}
}

// settle records the outcome err of one attempt of d at now, by the retry
// rule every delivery follows: delivered; pending again delays[n-1] after
// the n-th failed attempt; failed after the last (len(delays)+1 attempts)
// or when what it sends is gone (its rule or job deleted).
func settle(d *store.Delivery, err error, now time.Time, delays []time.Duration) {
	d.Attempts++
	switch {
	case err == nil:
		d.State, d.DeliveredAt, d.LastError, d.NextAttempt = store.DeliveryDelivered, now, "", time.Time{}
	case errors.Is(err, errRuleDeleted) || errors.Is(err, errJobDeleted) || d.Attempts > len(delays):
		d.State, d.LastError, d.NextAttempt = store.DeliveryFailed, seo.ClipTo(err.Error(), 500), time.Time{}
	default:
		d.LastError, d.NextAttempt = seo.ClipTo(err.Error(), 500), now.Add(delays[d.Attempts-1])
	}
}

// sendAlert makes one attempt to send an alert through its rule's
// channel. A rule muted since the alert was raised suppresses it: that
// is recorded, and sent is false.
func (s *Server) sendAlert(ctx context.Context, d *store.Delivery) (sent bool, err error) {
	var a monitor.Alert
	if err := json.Unmarshal(d.Payload, &a); err != nil {
		return true, err
	}
	rule, err := s.st.AlertRule(ctx, d.AccountID, d.RuleID)
	if errors.Is(err, store.ErrNotFound) {
		return true, errRuleDeleted
	}
	if err != nil {
		return true, errors.Join(errStoreRead, err)
	}
	if rule.Muted || rule.MutedUntil.After(s.now()) {
		d.State, d.LastError, d.NextAttempt = store.DeliverySuppressed, "the rule was muted before the alert was sent", time.Time{}
		if err := s.st.UpdateDelivery(ctx, d); err != nil {
			s.log.Warn("alert delivery state not saved", "delivery", d.ID, "err", err)
		}
		return false, nil
	}
	return true, s.notify(ctx, rule, &a)
}
