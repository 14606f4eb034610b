package riverjobs_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/riverjobs"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/internal/pgtest"
)

// tickStore counts the schedule ticks an instance runs: each tick reads
// the due schedules once (RunDueSchedules, no schedule being due).
type tickStore struct {
	store.Store
	ticks *atomic.Int64
	event chan<- struct{}
}

func (s tickStore) DueSchedules(ctx context.Context, now time.Time, limit int) ([]store.Schedule, error) {
	s.ticks.Add(1)
	select {
	case s.event <- struct{}{}:
	default:
	}
	return s.Store.DueSchedules(ctx, now, limit)
}

// TestPeriodicAndDeliveriesOnceOverTwoInstances runs two API instances on
// one PostgreSQL database with River. The schedule tick is a River
// periodic job that only the elected leader inserts: over several
// periods, the ticks run on the two instances together equal the tick
// jobs River inserted, each run once. Site analyses submitted to both
// instances each deliver their callback exactly once.
func TestPeriodicAndDeliveriesOnceOverTwoInstances(t *testing.T) {
	dsn := pgtest.DSN(t)
	const period = time.Second
	event := make(chan struct{}, 1)
	var ticks [2]atomic.Int64
	var ins [2]*instance
	for i := range ins {
		in, err := openWrapped(context.Background(), dsn, &riverjobs.Options{Workers: 1, ID: fmt.Sprintf("instance-%d", i)}, testLogger(t),
			&httpapi.Options{ScheduleInterval: period, AlertPollInterval: period}, func(st store.Store) store.Store {
				return tickStore{Store: st, ticks: &ticks[i], event: event}
			})
		if err != nil {
			t.Fatal(err)
		}
		in.t = t
		t.Cleanup(in.stop)
		ins[i] = in
	}
	key := newAccount(t, ins[0].st, "periodic@example.com")
	site := newSlowSite(t, 1, 0)
	h := &hook{}
	receiver := httptest.NewServer(h)
	t.Cleanup(receiver.Close)

	// Site analyses with callbacks, submitted alternately to each
	// instance, one after the other (the plan runs one at once).
	const jobs = 6
	ids := map[string]bool{}
	for i := range jobs {
		j := submit(t, ins[i%2].url, key, fmt.Sprintf(`{"domain":%q,"callbackUrl":%q}`, site.domain(t), receiver.URL+"/cb"))
		ids[j.ID] = true
		waitJob(t, ins[(i+1)%2].url, key, j.ID, 60*time.Second, func(j httpapi.Job) bool { return j.Status == "succeeded" })
	}
	// At least three ticks, wherever they run.
	const wantTicks = 3
	deadline := time.After(60 * time.Second)
	for ticks[0].Load()+ticks[1].Load() < wantTicks {
		select {
		case <-event:
		case <-deadline:
			t.Fatalf("%d schedule ticks after 60s, want %d", ticks[0].Load()+ticks[1].Load(), wantTicks)
		}
	}
	for id := range ids {
		waitJob(t, ins[0].url, key, id, 60*time.Second, func(j httpapi.Job) bool {
			return j.Callback != nil && j.Callback.State == "delivered"
		})
	}
	for _, in := range ins {
		in.srv.Close() // no tick or delivery after the counts are read
	}
	a, b := ticks[0].Load(), ticks[1].Load()
	// A tick stopped by Close mid-run is put back (attempt 0) by River,
	// so a run is a row attempted by an instance (attempted_by).
	var inserted, ran, completed, again int
	err := ins[0].pool.QueryRow(context.Background(),
		`SELECT count(*), count(*) FILTER (WHERE attempted_at IS NOT NULL), count(*) FILTER (WHERE state = 'completed'), count(*) FILTER (WHERE cardinality(attempted_by) > 1) FROM river_job WHERE kind = $1 AND args->>'name' = $2`,
		riverjobs.KindPeriodic, httpapi.PeriodicScheduleTick).Scan(&inserted, &ran, &completed, &again)
	if err != nil {
		t.Fatal(err)
	}
	var polls, pollsRun int
	err = ins[0].pool.QueryRow(context.Background(),
		`SELECT count(*), count(*) FILTER (WHERE attempted_at IS NOT NULL) FROM river_job WHERE kind = $1 AND args->>'name' = $2`,
		riverjobs.KindPeriodic, httpapi.PeriodicOutboxPoll).Scan(&polls, &pollsRun)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, ev := range h.got() {
		got[ev.ID]++
	}
	twice := 0
	for id := range ids {
		if got[id] != 1 {
			twice++
			t.Errorf("job %s: callback received %d times, want once", id, got[id])
		}
	}
	t.Logf("schedule ticks every %v: %d tick jobs inserted by the leader, %d run, %d completed; instance 0 ran %d ticks, instance 1 ran %d; outbox polls: %d inserted, %d run; %d callbacks, %d received other than once (%d attempts)",
		period, inserted, ran, completed, a, b, polls, pollsRun, jobs, twice, h.attemptCount())
	if polls > inserted+2 {
		t.Errorf("%d outbox polls for %d ticks of the same period: more than one instance inserts them", polls, inserted)
	}
	// Every completed tick job ran on one instance, and every tick an
	// instance ran was a tick job (Close may stop one just fetched).
	if a+b < int64(completed) || a+b > int64(ran) || again > 0 {
		t.Errorf("the instances ran %d ticks for %d tick jobs completed, %d run (%d run twice): each period's tick must run once", a+b, completed, ran, again)
	}
	if ran < wantTicks-1 {
		t.Errorf("%d tick jobs run, want at least %d", ran, wantTicks-1)
	}
}
