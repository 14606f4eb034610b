package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/store"
)

func ruleIDs(rs []store.AlertRule) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

func testAlertRules(ctx context.Context, t *testing.T, s store.Store) {
	a := mustAccount(ctx, t, s, "alerts@example.com")
	b := mustAccount(ctx, t, s, "other-alerts@example.com")
	p := mustProject(ctx, t, s, a.ID, "shop.example.com", base)
	theirs := mustProject(ctx, t, s, b.ID, "shop.example.com", base)

	r := &store.AlertRule{AccountID: a.ID, ProjectID: p.ID, Kind: "new_findings", Params: []byte(`{"severity":"warning"}`),
		Channel: "webhook", Target: "https://hooks.example.com/x", Secret: "sealed", CreatedAt: base}
	if err := s.CreateAlertRule(ctx, r); err != nil {
		t.Fatalf("CreateAlertRule: %v", err)
	}
	if len(r.ID) < 8 || r.ID[:4] != "alr_" || !r.UpdatedAt.Equal(base) {
		t.Fatalf("CreateAlertRule left ID %q, UpdatedAt %v", r.ID, r.UpdatedAt)
	}
	// Another account's project, or a missing one, is ErrNotFound.
	for _, pid := range []string{theirs.ID, "prj_missing"} {
		bad := &store.AlertRule{AccountID: a.ID, ProjectID: pid, Kind: "score_drop", Channel: "slack", Target: "https://x.example/"}
		if err := s.CreateAlertRule(ctx, bad); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("CreateAlertRule on project %s: %v, want ErrNotFound", pid, err)
		}
	}
	got, err := s.AlertRule(ctx, a.ID, r.ID)
	if err != nil || got.Kind != "new_findings" || string(got.Params) != `{"severity":"warning"}` || got.Channel != "webhook" ||
		got.Target != r.Target || got.Secret != "sealed" || got.Muted || !got.MutedUntil.IsZero() || !got.CreatedAt.Equal(base) {
		t.Errorf("AlertRule = %+v, %v", got, err)
	}
	if _, err := s.AlertRule(ctx, b.ID, r.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("AlertRule of another account: %v, want ErrNotFound", err)
	}
	r2 := &store.AlertRule{AccountID: a.ID, ProjectID: p.ID, Kind: "score_drop", Channel: "email", Target: "seo@example.com", CreatedAt: base.Add(time.Second)}
	if err := s.CreateAlertRule(ctx, r2); err != nil {
		t.Fatal(err)
	}
	if list, err := s.AlertRules(ctx, a.ID, p.ID); err != nil || fmt.Sprint(ruleIDs(list)) != fmt.Sprint([]string{r.ID, r2.ID}) {
		t.Errorf("AlertRules = %v, %v; want oldest first", ruleIDs(list), err)
	}
	if list, err := s.AlertRules(ctx, b.ID, p.ID); err != nil || len(list) != 0 {
		t.Errorf("AlertRules of another account's project = %v, %v", ruleIDs(list), err)
	}
	if n, err := s.CountAlertRules(ctx, a.ID); err != nil || n != 2 {
		t.Errorf("CountAlertRules = %d, %v; want 2", n, err)
	}

	up := *got
	up.Muted, up.MutedUntil, up.Target = true, base.Add(24*time.Hour), "https://hooks.example.com/y"
	up.UpdatedAt = base.Add(time.Hour)
	if err := s.UpdateAlertRule(ctx, &up); err != nil {
		t.Fatalf("UpdateAlertRule: %v", err)
	}
	if g, err := s.AlertRule(ctx, a.ID, r.ID); err != nil || !g.Muted || !g.MutedUntil.Equal(base.Add(24*time.Hour)) || g.Target != up.Target || !g.UpdatedAt.Equal(up.UpdatedAt) {
		t.Errorf("after UpdateAlertRule: %+v, %v", g, err)
	}
	other := up
	other.AccountID = b.ID
	if err := s.UpdateAlertRule(ctx, &other); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("UpdateAlertRule by another account: %v, want ErrNotFound", err)
	}
	if err := s.DeleteAlertRule(ctx, b.ID, r.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("DeleteAlertRule by another account: %v, want ErrNotFound", err)
	}
	if err := s.DeleteAlertRule(ctx, a.ID, r2.ID); err != nil {
		t.Errorf("DeleteAlertRule: %v", err)
	}
	// Deleting the project deletes its rules.
	if err := s.DeleteProject(ctx, a.ID, p.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AlertRule(ctx, a.ID, r.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("rule of a deleted project: %v, want ErrNotFound", err)
	}
}

func testAlertDeliveries(ctx context.Context, t *testing.T, s store.Store) {
	a := mustAccount(ctx, t, s, "deliveries@example.com")
	p := mustProject(ctx, t, s, a.ID, "shop.example.com", base)
	r := &store.AlertRule{AccountID: a.ID, ProjectID: p.ID, Kind: "top_page_changed", Channel: "slack", Target: "https://x.example/"}
	if err := s.CreateAlertRule(ctx, r); err != nil {
		t.Fatal(err)
	}
	add := func(key, change string, at time.Time, coolDown time.Duration) (*store.AlertDelivery, bool) {
		t.Helper()
		d := &store.AlertDelivery{AccountID: a.ID, ProjectID: p.ID, RuleID: r.ID, JobID: "job_" + key, DedupeKey: key, ChangeKey: change,
			Payload: []byte(`{"title":"` + key + `"}`), CreatedAt: at}
		ok, err := s.AddAlertDelivery(ctx, d, at.Add(-coolDown))
		if err != nil {
			t.Fatalf("AddAlertDelivery(%s): %v", key, err)
		}
		return d, ok
	}
	d1, ok := add("fp1", "c1", base, time.Hour)
	if !ok || d1.State != store.DeliveryPending || d1.ID[:4] != "dlv_" || !d1.NextAttempt.Equal(base) {
		t.Fatalf("first delivery %+v, added %v", d1, ok)
	}
	// The same fingerprint again: nothing stored.
	if _, ok := add("fp1", "c1", base.Add(time.Minute), time.Hour); ok {
		t.Error("a repeated dedupe key was stored")
	}
	// The same change from another state within the cool-down: suppressed.
	d2, ok := add("fp2", "c1", base.Add(30*time.Minute), time.Hour)
	if !ok || d2.State != store.DeliverySuppressed || d2.LastError == "" {
		t.Errorf("flap within the cool-down: %+v, added %v; want suppressed", d2, ok)
	}
	// After the cool-down: sent again.
	d3, ok := add("fp3", "c1", base.Add(2*time.Hour), time.Hour)
	if !ok || d3.State != store.DeliveryPending {
		t.Errorf("flap after the cool-down: %+v, added %v; want pending", d3, ok)
	}

	// Claims: due ones only, and each once.
	claimed, err := s.ClaimDeliveries(ctx, base.Add(time.Hour), time.Minute, 10, 0)
	if err != nil || len(claimed) != 1 || claimed[0].ID != d1.ID || string(claimed[0].Payload) != `{"title":"fp1"}` {
		t.Fatalf("ClaimDeliveries = %+v, %v; want d1", claimed, err)
	}
	if again, err := s.ClaimDeliveries(ctx, base.Add(time.Hour), time.Minute, 10, 0); err != nil || len(again) != 0 {
		t.Errorf("second claim within the lease = %d, %v; want none", len(again), err)
	}
	// Concurrent claims after both are due never hand one out twice.
	var mu sync.Mutex
	seen := map[string]int{}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ds, err := s.ClaimDeliveries(ctx, base.Add(3*time.Hour), time.Hour, 10, 0)
			if err != nil {
				errs <- err
				return
			}
			mu.Lock()
			for _, d := range ds {
				seen[d.ID]++
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if !errors.Is(err, store.ErrUnavailable) && !errors.Is(err, store.ErrConflict) { // a serialisation failure may refuse a claim
			t.Errorf("concurrent claim: %v", err)
		}
	}
	if seen[d1.ID] > 1 || seen[d3.ID] > 1 {
		t.Errorf("concurrent claims handed out %v", seen)
	}

	if claimed[0].Kind != store.DeliveryAlert || claimed[0].RuleID != r.ID || claimed[0].ProjectID != p.ID || !claimed[0].LeaseUntil.Equal(base.Add(time.Hour+time.Minute)) {
		t.Errorf("claimed delivery %+v", claimed[0])
	}
	d1 = &claimed[0]
	// The concurrent claims took d1 again after its first lease: that
	// lease is no longer its own, so an update under it writes nothing.
	stale := *d1
	stale.State = store.DeliveryFailed
	if err := s.UpdateDelivery(ctx, &stale); !errors.Is(err, store.ErrNotFound) && seen[d1.ID] == 1 {
		t.Errorf("UpdateDelivery under a lease claimed again: %v, want ErrNotFound", err)
	}
	// An update without a lease (not from a claim) is written.
	d1.LeaseUntil = time.Time{}
	d1.State, d1.Attempts, d1.DeliveredAt, d1.LastError = store.DeliveryDelivered, 1, base.Add(time.Hour), ""
	if err := s.UpdateDelivery(ctx, d1); err != nil {
		t.Fatalf("UpdateDelivery: %v", err)
	}
	log, err := s.AlertDeliveries(ctx, a.ID, p.ID, 0)
	if err != nil || len(log) != 3 || log[0].ID != d3.ID || log[2].ID != d1.ID {
		t.Fatalf("AlertDeliveries = %+v, %v; want d3, d2, d1", log, err)
	}
	if g := log[2]; g.State != store.DeliveryDelivered || g.Attempts != 1 || !g.DeliveredAt.Equal(base.Add(time.Hour)) || g.JobID != "job_fp1" ||
		!g.LeaseUntil.IsZero() || string(g.Payload) != `{"title":"fp1"}` {
		t.Errorf("updated delivery %+v", g)
	}
	b := mustAccount(ctx, t, s, "other-deliveries@example.com")
	if l, err := s.AlertDeliveries(ctx, b.ID, p.ID, 0); err != nil || len(l) != 0 {
		t.Errorf("another account's log: %d, %v", len(l), err)
	}

	// The log is capped per project; pending deliveries are kept. The
	// 1,005 transactions may outlast the suite's deadline under -race on a
	// busy machine: they get their own context.
	bulk := context.WithoutCancel(ctx)
	for i := range store.MaxAlertDeliveries + 5 {
		d := &store.AlertDelivery{AccountID: a.ID, ProjectID: p.ID, RuleID: r.ID, DedupeKey: fmt.Sprint("bulk", i),
			State: store.DeliverySuppressed, CreatedAt: base.Add(time.Duration(i+10) * time.Hour)}
		if _, err := s.AddAlertDelivery(bulk, d, time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	log, err = s.AlertDeliveries(bulk, a.ID, p.ID, 0)
	if err != nil || len(log) != store.MaxAlertDeliveries {
		t.Errorf("capped log: %d, %v; want %d", len(log), err, store.MaxAlertDeliveries)
	}
	if _, err := s.ClaimDeliveries(bulk, base.Add(1e4*time.Hour), time.Minute, 10, 0); err != nil {
		t.Fatal(err)
	}
}
