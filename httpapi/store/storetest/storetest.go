package storetest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/store"
)

// Dumper is an optional capability of a driver: Dump returns every stored
// row as bytes, as a database dump would show them (byte columns raw). Run
// greps it to prove no plaintext secret is stored.
type Dumper interface {
	Dump(ctx context.Context) ([]byte, error)
}

// base is the fixed time the suite's records use; its zone is not UTC
// on purpose (stores return UTC).
var base = time.Date(2026, 3, 14, 9, 26, 53, 589_000_000, time.FixedZone("UTC+2", 2*3600))

func hash(s string) []byte {
	h := sha256.Sum256([]byte(s))
	return h[:]
}

// maxParallel bounds the suite's subtests that run at once. Each holds a
// database of its own (a PostgreSQL store keeps up to 10 connections, a
// Caps subtest three stores), so the suite stays well under a test
// server's connection limit whatever go test's -parallel is.
const maxParallel = 4

// slots holds one token per subtest running (parallel).
var slots = make(chan struct{}, maxParallel)

// parallel runs the subtest t in parallel with the suite's others, at
// most maxParallel at once: every subtest has a store of its own and the
// suite keeps no shared state.
func parallel(t *testing.T) {
	t.Helper()
	t.Parallel()
	slots <- struct{}{}
	t.Cleanup(func() { <-slots })
}

// Run runs the conformance suite. open returns a new, empty store for
// each subtest (it is called from parallel subtests); Run closes it. Its
// Caps part races each cap through one store.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	t.Helper()
	run(t, open, func(t *testing.T) []store.Store { return []store.Store{open(t)} })
}

// RunShared is Run with its Caps part raced through several handles on
// one new, empty database, as several server instances share it: shared
// returns them (see Caps). A driver whose database several processes can
// share calls it instead of Run and Caps apart, which would race every cap
// twice, through one handle and then through several.
func RunShared(t *testing.T, open func(t *testing.T) store.Store, shared func(t *testing.T) []store.Store) {
	t.Helper()
	run(t, open, shared)
}

func run(t *testing.T, open func(t *testing.T) store.Store, caps func(t *testing.T) []store.Store) {
	t.Helper()
	fresh := func(t *testing.T) (store.Store, context.Context) {
		t.Helper()
		parallel(t)
		s := open(t)
		t.Cleanup(func() { s.Close() })
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		t.Cleanup(cancel)
		return s, ctx
	}
	t.Run("Ping", func(t *testing.T) {
		s, ctx := fresh(t)
		if err := s.Ping(ctx); err != nil {
			t.Fatalf("Ping: %v", err)
		}
	})
	t.Run("Accounts", func(t *testing.T) { s, ctx := fresh(t); testAccounts(ctx, t, s) })
	t.Run("AccountInput", func(t *testing.T) { s, ctx := fresh(t); testAccountInput(ctx, t, s) })
	t.Run("ListAccounts", func(t *testing.T) { s, ctx := fresh(t); testListAccounts(ctx, t, s) })
	t.Run("Keys", func(t *testing.T) { s, ctx := fresh(t); testKeys(ctx, t, s) })
	t.Run("KeyBounds", func(t *testing.T) { s, ctx := fresh(t); testKeyBounds(ctx, t, s) })
	t.Run("TouchKey", func(t *testing.T) { s, ctx := fresh(t); testTouchKey(ctx, t, s) })
	t.Run("Clients", func(t *testing.T) { s, ctx := fresh(t); testClients(ctx, t, s) })
	t.Run("ClientBounds", func(t *testing.T) { s, ctx := fresh(t); testClientBounds(ctx, t, s) })
	t.Run("Codes", func(t *testing.T) { s, ctx := fresh(t); testCodes(ctx, t, s) })
	t.Run("GrantPruning", func(t *testing.T) { s, ctx := fresh(t); testGrantPruning(ctx, t, s) })
	t.Run("CodeRace", func(t *testing.T) { s, ctx := fresh(t); testCodeRace(ctx, t, s) })
	t.Run("Refresh", func(t *testing.T) { s, ctx := fresh(t); testRefresh(ctx, t, s) })
	t.Run("RefreshRace", func(t *testing.T) { s, ctx := fresh(t); testRefreshRace(ctx, t, s) })
	t.Run("Revocations", func(t *testing.T) { s, ctx := fresh(t); testRevocations(ctx, t, s) })
	t.Run("SigningKeys", func(t *testing.T) { s, ctx := fresh(t); testSigningKeys(ctx, t, s) })
	t.Run("Take", func(t *testing.T) { s, ctx := fresh(t); testTake(ctx, t, s) })
	t.Run("TakeConcurrent", func(t *testing.T) { s, ctx := fresh(t); testTakeConcurrent(ctx, t, s) })
	t.Run("TakeN", func(t *testing.T) { s, ctx := fresh(t); testTakeN(ctx, t, s) })
	t.Run("Usage", func(t *testing.T) { s, ctx := fresh(t); testUsage(ctx, t, s) })
	t.Run("Jobs", func(t *testing.T) { s, ctx := fresh(t); testJobs(ctx, t, s) })
	t.Run("FinalJob", func(t *testing.T) { s, ctx := fresh(t); testFinalJob(ctx, t, s) })
	t.Run("Unfinished", func(t *testing.T) { s, ctx := fresh(t); testUnfinished(ctx, t, s) })
	t.Run("Mutes", func(t *testing.T) { s, ctx := fresh(t); testMutes(ctx, t, s) })
	t.Run("Projects", func(t *testing.T) { s, ctx := fresh(t); testProjects(ctx, t, s) })
	t.Run("ProjectJobs", func(t *testing.T) { s, ctx := fresh(t); testProjectJobs(ctx, t, s) })
	t.Run("Schedules", func(t *testing.T) { s, ctx := fresh(t); testSchedules(ctx, t, s) })
	t.Run("ClaimSchedule", func(t *testing.T) { s, ctx := fresh(t); testClaimSchedule(ctx, t, s) })
	t.Run("ClaimScheduleRace", func(t *testing.T) { s, ctx := fresh(t); testClaimRace(ctx, t, s) })
	t.Run("UpdateAfterClaim", func(t *testing.T) { s, ctx := fresh(t); testUpdateAfterClaim(ctx, t, s) })
	t.Run("Caps", func(t *testing.T) {
		t.Parallel() // its subtests take the slots
		Caps(t, caps)
	})
	t.Run("AlertRules", func(t *testing.T) { s, ctx := fresh(t); testAlertRules(ctx, t, s) })
	t.Run("AlertDeliveries", func(t *testing.T) { s, ctx := fresh(t); testAlertDeliveries(ctx, t, s) })
	t.Run("CallbackDeliveries", func(t *testing.T) { s, ctx := fresh(t); testCallbackDeliveries(ctx, t, s) })
	t.Run("ClaimPerAccount", func(t *testing.T) { s, ctx := fresh(t); testClaimPerAccount(ctx, t, s) })
	t.Run("Screenshots", func(t *testing.T) {
		s, ctx := fresh(t)
		ss, ok := s.(store.Screenshots)
		if !ok {
			t.Skip("the store does not implement store.Screenshots")
		}
		testScreenshots(ctx, t, s, ss)
	})
	indexStatus := func(name string, f func(ctx context.Context, t *testing.T, s store.Store, is store.IndexStatus)) {
		t.Run(name, func(t *testing.T) {
			s, ctx := fresh(t)
			is, ok := s.(store.IndexStatus)
			if !ok {
				t.Skip("the store does not implement store.IndexStatus")
			}
			f(ctx, t, s, is)
		})
	}
	indexStatus("IndexRuns", testIndexRuns)
	indexStatus("InspectionQuota", func(ctx context.Context, t *testing.T, _ store.Store, is store.IndexStatus) {
		testInspectionQuota(ctx, t, is)
	})
	indexStatus("InspectionRace", func(ctx context.Context, t *testing.T, _ store.Store, is store.IndexStatus) {
		testInspectionRace(ctx, t, is)
	})
	t.Run("PruneJobs", func(t *testing.T) { s, ctx := fresh(t); testPruneJobs(ctx, t, s) })
	t.Run("PruneWhileReading", func(t *testing.T) { s, ctx := fresh(t); testPruneWhileReading(ctx, t, s) })
	t.Run("JobResults", func(t *testing.T) {
		s, ctx := fresh(t)
		jr, ok := s.(store.JobResults)
		if !ok {
			t.Skip("the store does not implement store.JobResults")
		}
		testJobResults(ctx, t, s, jr)
	})
	t.Run("Times", func(t *testing.T) { s, ctx := fresh(t); testTimes(ctx, t, s) })
	t.Run("NoPlaintext", func(t *testing.T) { s, ctx := fresh(t); testNoPlaintext(ctx, t, s) })
}

// Restart checks that counters, jobs and grants survive a restart. open
// returns a store and a function that closes it and opens the same
// database again.
func Restart(t *testing.T, open func(t *testing.T) (store.Store, func() store.Store)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, reopen := open(t)
	a := mustAccount(ctx, t, s, "restart@example.com")
	day := base
	for range 7 {
		if _, ok, err := s.Take(ctx, a.ID, day, 10); err != nil || !ok {
			t.Fatalf("Take before restart: ok=%v err=%v", ok, err)
		}
	}
	j := &store.Job{AccountID: a.ID, Kind: "site", Request: []byte(`{"domain":"example.com"}`), CreatedAt: base}
	if err := s.CreateJob(ctx, j); err != nil {
		t.Fatalf("CreateJob: %v", err)
	}
	running := *j
	running.Status = store.JobRunning
	running.StartedAt = base.Add(time.Second)
	running.Progress = []byte(`{"pages":3}`)
	if err := s.UpdateJob(ctx, &running); err != nil {
		t.Fatalf("UpdateJob: %v", err)
	}
	c := mustClient(ctx, t, s, a.ID)
	code := &store.AuthCode{Hash: hash("restart-code"), ClientID: c.ID, AccountID: a.ID, ExpiresAt: ahead(10 * time.Minute)}
	if err := s.CreateCode(ctx, code); err != nil {
		t.Fatalf("CreateCode: %v", err)
	}
	if _, err := s.UseCode(ctx, code.Hash, base); err != nil {
		t.Fatalf("UseCode: %v", err)
	}

	s = reopen()
	defer s.Close()
	n, ok, err := s.Take(ctx, a.ID, day, 10)
	if err != nil || !ok || n != 8 {
		t.Errorf("Take after restart = %d, %v, %v; want 8, true, nil (the count must survive)", n, ok, err)
	}
	got, err := s.Job(ctx, a.ID, j.ID)
	if err != nil {
		t.Fatalf("Job after restart: %v", err)
	}
	if got.Status != store.JobRunning || string(got.Progress) != `{"pages":3}` {
		t.Errorf("job after restart = %s %s; want running {\"pages\":3}", got.Status, got.Progress)
	}
	un, err := s.Unfinished(ctx)
	if err != nil || len(un) != 1 || un[0].ID != j.ID {
		t.Errorf("Unfinished after restart = %v, %v; want the running job", ids(un), err)
	}
	if _, err := s.UseCode(ctx, code.Hash, base); !errors.Is(err, store.ErrUsed) {
		t.Errorf("UseCode after restart: err = %v, want ErrUsed", err)
	}
}

func testTimes(ctx context.Context, t *testing.T, s store.Store) {
	zone := time.FixedZone("UTC-7", -7*3600)
	at := time.Date(2026, 7, 1, 23, 30, 0, 123_456_789, zone) // 2026-07-02 06:30 UTC
	a := &store.Account{Email: "time@example.com", Plan: store.Free, CreatedAt: at}
	if err := s.CreateAccount(ctx, a); err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
	got, err := s.Account(ctx, a.ID)
	if err != nil {
		t.Fatalf("Account: %v", err)
	}
	if got.CreatedAt.Location() != time.UTC {
		t.Errorf("CreatedAt location = %v, want UTC", got.CreatedAt.Location())
	}
	if d := got.CreatedAt.Sub(at).Abs(); d >= time.Millisecond {
		t.Errorf("CreatedAt = %v, want %v to the millisecond (off by %v)", got.CreatedAt, at, d)
	}
	// The UTC day counts, not the local one.
	if _, _, err := s.Take(ctx, a.ID, at, 10); err != nil {
		t.Fatalf("Take: %v", err)
	}
	u, err := s.Usage(ctx, a.ID, time.Date(2026, 7, 2, 0, 0, 0, 0, time.UTC), time.Date(2026, 7, 2, 0, 0, 0, 0, time.UTC))
	if err != nil || len(u) != 1 || u[0].Count != 1 {
		t.Errorf("Usage on the UTC day of a local-time Take = %v, %v; want one request", u, err)
	}
}

func testNoPlaintext(ctx context.Context, t *testing.T, s store.Store) {
	d, ok := s.(Dumper)
	if !ok {
		t.Skip("SKIP: the driver has no Dump; cannot inspect stored rows")
	}
	const key = "seo_live_Zq8YbW3mN1pR7sT2vX5kL9dF4hJ6cG0aE_3kT9xQ"
	const secret = "cs_8hF2kLmN4pQ7rS1tV3wX6yZ9bC0dE5g"
	const code = "ac_Ux7Yw2Vt5Sr8Qp1On4Ml7Kj0Ih3Gf6Ed"
	a := mustAccount(ctx, t, s, "dump@example.com")
	k := &store.APIKey{AccountID: a.ID, Name: "prod", Prefix: key[:13], Hash: hash(key), Permissions: []string{"read"}}
	if err := s.CreateKey(ctx, k); err != nil {
		t.Fatalf("CreateKey: %v", err)
	}
	c := &store.Client{AccountID: a.ID, Name: "app", SecretHash: hash(secret)}
	if err := s.CreateClient(ctx, c); err != nil {
		t.Fatalf("CreateClient: %v", err)
	}
	if err := s.CreateCode(ctx, &store.AuthCode{Hash: hash(code), ClientID: c.ID, AccountID: a.ID, FamilyID: "fam_d"}); err != nil {
		t.Fatalf("CreateCode: %v", err)
	}
	dump, err := d.Dump(ctx)
	if err != nil {
		t.Fatalf("Dump: %v", err)
	}
	// The dump must show the rows (so the check below means something).
	for _, want := range [][]byte{[]byte(key[:13]), []byte(a.ID), hash(key)} {
		if !bytes.Contains(dump, want) {
			t.Fatalf("dump lacks %q: Dump does not show stored rows", want)
		}
	}
	for _, secret := range []string{key, key[13:], secret, code} {
		if bytes.Contains(dump, []byte(secret)) {
			t.Errorf("dump contains the plaintext %q", secret)
		}
	}
}
