package riverjobs_test

import (
	"context"
	"fmt"
	"maps"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/riverjobs"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/memstore"
)

// tickStore counts the schedule ticks an instance runs: each tick reads
// the due schedules once (RunDueSchedules, no schedule being due). The
// test's own calls (a ctx with manualTick) are not counted.
type tickStore struct {
	store.Store
	ticks *atomic.Int64
	event chan<- struct{}
}

// manualTick marks the context of a RunDueSchedules the test calls itself.
type manualTick struct{}

func (s tickStore) DueSchedules(ctx context.Context, now time.Time, limit int) ([]store.Schedule, error) {
	if ctx.Value(manualTick{}) != nil {
		return s.Store.DueSchedules(ctx, now, limit)
	}
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
// instances each deliver their callback exactly once. A project's
// rankings schedule, due when the instances start and ticked by both at
// once besides the periodic ticks, runs one rank check job, once: one
// River job of kind rank_check, attempted by one instance, each keyword
// searched once.
func TestPeriodicAndDeliveriesOnceOverTwoInstances(t *testing.T) {
	t.Parallel() // a database of its own; it waits on events and deadlines, not on time
	dsn := migrated.DSN(t)
	const period = time.Second
	event := make(chan struct{}, 1)
	var ticks [2]atomic.Int64
	var ins [2]*instance
	src := &countingSource{calls: map[string]int{}}
	tracker := rankings.NewTracker(src, memstore.New(nil), nil)
	for i := range ins {
		in, err := openWrapped(context.Background(), dsn, &riverjobs.Options{Workers: 1, ID: fmt.Sprintf("instance-%d", i)}, testLogger(t),
			&httpapi.Options{ScheduleInterval: period, AlertPollInterval: period, Tracker: tracker}, func(st store.Store) store.Store {
				return tickStore{Store: st, ticks: &ticks[i], event: event}
			})
		if err != nil {
			t.Fatal(err)
		}
		in.t = t
		t.Cleanup(in.stop)
		ins[i] = in
	}
	acct, key := scheduleAccount(t, ins[0].st)
	site := newSlowSite(t, 1, 0)

	// A rankings schedule already due: both instances tick at once,
	// besides the leader's periodic ticks.
	ctx := context.Background()
	keywords := []string{"oak tables", "pine chairs"}
	p := &store.Project{AccountID: acct, Name: "ranks", Domain: "example.com", TimeZone: "UTC", Keywords: keywords, CreatedAt: time.Now()}
	if err := ins[0].st.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	due := time.Now().UTC().Add(-time.Minute).Truncate(time.Second)
	sc := &store.Schedule{AccountID: acct, ProjectID: p.ID, Kind: store.ScheduleRankings, Spec: "daily", NextRun: due, CreatedAt: due}
	if err := ins[0].st.CreateSchedule(ctx, sc); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for _, in := range ins {
		wg.Go(func() { in.srv.RunDueSchedules(context.WithValue(ctx, manualTick{}, true)) })
	}
	wg.Wait()
	rankRows := func() (rows, completed, attempts, again int) {
		t.Helper()
		err := ins[0].pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE state = 'completed'), coalesce(sum(attempt), 0),
			count(*) FILTER (WHERE cardinality(attempted_by) > 1) FROM river_job WHERE kind = $1`, riverjobs.KindRankCheck).Scan(&rows, &completed, &attempts, &again)
		if err != nil {
			t.Fatal(err)
		}
		return rows, completed, attempts, again
	}
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
	// The rank check, run by River on one instance.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if _, completed, _, _ := rankRows(); completed > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no rank check completed in 60 s")
		}
	}
	for _, in := range ins {
		in.srv.Close() // no tick or delivery after the counts are read
	}
	rcRows, rcCompleted, rcAttempts, rcAgain := rankRows()
	src.mu.Lock()
	searches := maps.Clone(src.calls)
	src.mu.Unlock()
	if rcRows != 1 || rcCompleted != 1 || rcAttempts != 1 || rcAgain != 0 {
		t.Errorf("rank check River jobs: %d rows, %d completed, %d attempts, %d run by two instances; want one job, run once", rcRows, rcCompleted, rcAttempts, rcAgain)
	}
	for _, k := range keywords {
		if searches[k] != 1 {
			t.Errorf("%q searched %d times, want once", k, searches[k])
		}
	}
	cur, serr := ins[0].st.Schedule(ctx, acct, sc.ID)
	if serr != nil {
		t.Fatal(serr)
	}
	if !cur.LastRun.Equal(due) || cur.LastError != "" {
		t.Errorf("rankings schedule after its run: lastRun %v (due %v), lastError %q", cur.LastRun, due, cur.LastError)
	}
	t.Logf("rankings schedule due at start, ticked by both instances at once and by the periodic ticks: %d rank check job(s), %d completed, %d attempt(s); searches %v",
		rcRows, rcCompleted, rcAttempts, searches)
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
