package storetest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
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

// Run runs the conformance suite. open returns a new, empty store for
// each subtest; Run closes it.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	t.Helper()
	fresh := func(t *testing.T) (store.Store, context.Context) {
		t.Helper()
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
	t.Run("TouchKey", func(t *testing.T) { s, ctx := fresh(t); testTouchKey(ctx, t, s) })
	t.Run("Clients", func(t *testing.T) { s, ctx := fresh(t); testClients(ctx, t, s) })
	t.Run("Codes", func(t *testing.T) { s, ctx := fresh(t); testCodes(ctx, t, s) })
	t.Run("CodeRace", func(t *testing.T) { s, ctx := fresh(t); testCodeRace(ctx, t, s) })
	t.Run("Refresh", func(t *testing.T) { s, ctx := fresh(t); testRefresh(ctx, t, s) })
	t.Run("RefreshRace", func(t *testing.T) { s, ctx := fresh(t); testRefreshRace(ctx, t, s) })
	t.Run("Revocations", func(t *testing.T) { s, ctx := fresh(t); testRevocations(ctx, t, s) })
	t.Run("SigningKeys", func(t *testing.T) { s, ctx := fresh(t); testSigningKeys(ctx, t, s) })
	t.Run("Take", func(t *testing.T) { s, ctx := fresh(t); testTake(ctx, t, s) })
	t.Run("TakeConcurrent", func(t *testing.T) { s, ctx := fresh(t); testTakeConcurrent(ctx, t, s) })
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
	t.Run("Caps", func(t *testing.T) { Caps(t, func(t *testing.T) []store.Store { return []store.Store{open(t)} }) })
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
	code := &store.AuthCode{Hash: hash("restart-code"), ClientID: c.ID, AccountID: a.ID, ExpiresAt: base.Add(10 * time.Minute)}
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

func mustAccount(ctx context.Context, t *testing.T, s store.Store, email string) *store.Account {
	t.Helper()
	a := &store.Account{Email: email, Name: "Test " + email, Plan: store.Free, CreatedAt: base}
	if err := s.CreateAccount(ctx, a); err != nil {
		t.Fatalf("CreateAccount(%s): %v", email, err)
	}
	if a.ID == "" {
		t.Fatalf("CreateAccount left the ID empty")
	}
	return a
}

func mustClient(ctx context.Context, t *testing.T, s store.Store, accountID string) *store.Client {
	t.Helper()
	c := &store.Client{AccountID: accountID, Name: "app", SecretHash: hash("secret"),
		RedirectURIs: []string{"https://app.example.com/cb"}, Scopes: []string{"read", "write"}, CreatedAt: base}
	if err := s.CreateClient(ctx, c); err != nil {
		t.Fatalf("CreateClient: %v", err)
	}
	return c
}

func ids(js []store.Job) []string {
	var out []string
	for _, j := range js {
		out = append(out, j.ID)
	}
	return out
}

func testAccounts(ctx context.Context, t *testing.T, s store.Store) {
	if n, err := s.CountAccounts(ctx); err != nil || n != 0 {
		t.Fatalf("CountAccounts on an empty store = %d, %v; want 0", n, err)
	}
	a := &store.Account{Email: "Grace@Example.COM", Name: "Grace", PasswordHash: "$argon2id$v=19$m=65536,t=1,p=4$c2FsdA$aGFzaA",
		Plan: store.Enterprise, DailyLimit: 50000, Admin: true, CreatedAt: base}
	if err := s.CreateAccount(ctx, a); err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
	if a.Email != "grace@example.com" {
		t.Errorf("CreateAccount left email %q, want it lowercased", a.Email)
	}
	b := mustAccount(ctx, t, s, "other@example.com")
	if a.ID == b.ID {
		t.Fatalf("two accounts got the same ID %q", a.ID)
	}
	got, err := s.Account(ctx, a.ID)
	if err != nil {
		t.Fatalf("Account: %v", err)
	}
	if got.Email != "grace@example.com" || got.Name != "Grace" || got.PasswordHash != a.PasswordHash ||
		got.Plan != store.Enterprise || got.DailyLimit != 50000 || !got.Admin || !got.CreatedAt.Equal(base) {
		t.Errorf("Account = %+v, want %+v", got, a)
	}
	byEmail, err := s.AccountByEmail(ctx, "GRACE@example.com")
	if err != nil || byEmail.ID != a.ID {
		t.Errorf("AccountByEmail(upper case) = %v, %v; want %s", byEmail, err, a.ID)
	}
	if n, err := s.CountAccounts(ctx); err != nil || n != 2 {
		t.Errorf("CountAccounts = %d, %v; want 2", n, err)
	}
	dup := &store.Account{Email: "grace@example.com", Plan: store.Free}
	if err := s.CreateAccount(ctx, dup); !errors.Is(err, store.ErrConflict) {
		t.Errorf("CreateAccount with a taken email: err = %v, want ErrConflict", err)
	}
	dupID := &store.Account{ID: a.ID, Email: "third@example.com", Plan: store.Free}
	if err := s.CreateAccount(ctx, dupID); !errors.Is(err, store.ErrConflict) {
		t.Errorf("CreateAccount with a taken ID: err = %v, want ErrConflict", err)
	}
	if n, _ := s.CountAccounts(ctx); n != 2 {
		t.Errorf("CountAccounts after refused creates = %d, want 2", n)
	}

	got.Plan, got.DailyLimit, got.Name, got.Admin = store.Pro, 0, "Grace H.", false
	if err := s.UpdateAccount(ctx, got); err != nil {
		t.Fatalf("UpdateAccount: %v", err)
	}
	again, err := s.Account(ctx, a.ID)
	if err != nil || again.Plan != store.Pro || again.Name != "Grace H." || again.Admin || again.DailyLimit != 0 {
		t.Errorf("after UpdateAccount: %+v, %v", again, err)
	}
	got.Email = "other@example.com"
	if err := s.UpdateAccount(ctx, got); !errors.Is(err, store.ErrConflict) {
		t.Errorf("UpdateAccount to a taken email: err = %v, want ErrConflict", err)
	}
	if err := s.UpdateAccount(ctx, &store.Account{ID: "acct_missing", Plan: store.Free}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("UpdateAccount of a missing account: err = %v, want ErrNotFound", err)
	}
	if _, err := s.Account(ctx, "acct_missing"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Account(missing): err = %v, want ErrNotFound", err)
	}
	if _, err := s.AccountByEmail(ctx, "nobody@example.com"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("AccountByEmail(missing): err = %v, want ErrNotFound", err)
	}
}

func testAccountInput(ctx context.Context, t *testing.T, s store.Store) {
	tests := []struct {
		name  string
		a     *store.Account
		field string
	}{
		{"nil account", nil, "account"},
		{"unknown plan", &store.Account{Email: "a@example.com", Plan: "gold"}, "plan"},
		{"negative limit", &store.Account{Email: "b@example.com", Plan: store.Enterprise, DailyLimit: -1}, "dailyLimit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.CreateAccount(ctx, tt.a)
			ie, ok := seo.AsInputError(err)
			if !ok || ie.Field != tt.field {
				t.Errorf("CreateAccount: err = %v, want an InputError on %q", err, tt.field)
			}
		})
	}
	if n, err := s.CountAccounts(ctx); err != nil || n != 0 {
		t.Errorf("CountAccounts after bad input = %d, %v; want 0", n, err)
	}
}

func testListAccounts(ctx context.Context, t *testing.T, s store.Store) {
	if l, err := s.ListAccounts(ctx, "", 10); err != nil || len(l) != 0 {
		t.Fatalf("ListAccounts on an empty store = %d accounts, %v; want none", len(l), err)
	}
	// Created out of order; IDs of lowercase letters and digits sort the
	// same under every collation.
	want := []string{"acct_list00", "acct_list01", "acct_list02", "acct_list03", "acct_list04", "acct_list05", "acct_list06"}
	for _, i := range []int{3, 0, 6, 1, 5, 2, 4} {
		a := &store.Account{ID: want[i], Email: fmt.Sprintf("list%d@example.com", i), Name: fmt.Sprint("List ", i),
			Plan: store.Pro, DailyLimit: i, Admin: i == 2, CreatedAt: base}
		if err := s.CreateAccount(ctx, a); err != nil {
			t.Fatalf("CreateAccount(%s): %v", a.ID, err)
		}
	}
	var got []string
	after := ""
	for pages := 0; ; pages++ {
		if pages > len(want) {
			t.Fatalf("ListAccounts paging does not end: %v", got)
		}
		page, err := s.ListAccounts(ctx, after, 3)
		if err != nil {
			t.Fatalf("ListAccounts(%q, 3): %v", after, err)
		}
		if len(page) > 3 {
			t.Fatalf("ListAccounts(%q, 3) returned %d accounts", after, len(page))
		}
		for _, a := range page {
			got = append(got, a.ID)
		}
		if len(page) < 3 {
			break
		}
		after = page[len(page)-1].ID
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("ListAccounts pages = %v, want %v", got, want)
	}
	all, err := s.ListAccounts(ctx, "", 0)
	if err != nil || len(all) != len(want) {
		t.Fatalf("ListAccounts(limit 0) = %d accounts, %v; want %d (the default page)", len(all), err, len(want))
	}
	a := all[2]
	if a.ID != "acct_list02" || a.Email != "list2@example.com" || a.Name != "List 2" || a.Plan != store.Pro ||
		a.DailyLimit != 2 || !a.Admin || !a.CreatedAt.Equal(base) {
		t.Errorf("listed account = %+v; want every field as created", a)
	}
	tail, err := s.ListAccounts(ctx, "acct_list04", 100)
	if err != nil || len(tail) != 2 || tail[0].ID != "acct_list05" || tail[1].ID != "acct_list06" {
		t.Errorf("ListAccounts(after acct_list04) = %v, %v; want acct_list05, acct_list06", tail, err)
	}
	// A cursor need not exist: the page starts at the next ID.
	if l, err := s.ListAccounts(ctx, "acct_list03x", 1); err != nil || len(l) != 1 || l[0].ID != "acct_list04" {
		t.Errorf("ListAccounts(after a missing ID) = %v, %v; want acct_list04", l, err)
	}
	if l, err := s.ListAccounts(ctx, "acct_list06", 10); err != nil || len(l) != 0 {
		t.Errorf("ListAccounts(after the last) = %v, %v; want none", l, err)
	}
}

func testKeys(ctx context.Context, t *testing.T, s store.Store) {
	a := mustAccount(ctx, t, s, "keys@example.com")
	b := mustAccount(ctx, t, s, "intruder@example.com")
	var made []*store.APIKey
	for i := range 3 {
		k := &store.APIKey{AccountID: a.ID, Name: fmt.Sprintf("key %d", i), Prefix: fmt.Sprintf("seo_live_K%d", i),
			Hash: hash(fmt.Sprintf("seo_live_secret_%d", i)), Permissions: []string{"read", "write"},
			CreatedAt: base.Add(time.Duration(i) * time.Minute), ExpiresAt: base.Add(24 * time.Hour)}
		if err := s.CreateKey(ctx, k); err != nil {
			t.Fatalf("CreateKey: %v", err)
		}
		if k.ID == "" {
			t.Fatal("CreateKey left the ID empty")
		}
		made = append(made, k)
	}
	got, err := s.KeyByHash(ctx, hash("seo_live_secret_1"))
	if err != nil {
		t.Fatalf("KeyByHash: %v", err)
	}
	if got.ID != made[1].ID || got.AccountID != a.ID || got.Prefix != "seo_live_K1" || !bytes.Equal(got.Hash, made[1].Hash) ||
		len(got.Permissions) != 2 || got.Permissions[1] != "write" || !got.ExpiresAt.Equal(base.Add(24*time.Hour)) ||
		!got.LastUsedAt.IsZero() || !got.RevokedAt.IsZero() {
		t.Errorf("KeyByHash = %+v, want %+v", got, made[1])
	}
	if _, err := s.KeyByHash(ctx, hash("unknown")); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("KeyByHash(unknown): err = %v, want ErrNotFound", err)
	}
	dup := &store.APIKey{AccountID: a.ID, Name: "dup", Prefix: "seo_live_D", Hash: hash("seo_live_secret_0")}
	if err := s.CreateKey(ctx, dup); !errors.Is(err, store.ErrConflict) {
		t.Errorf("CreateKey with a taken hash: err = %v, want ErrConflict", err)
	}
	list, err := s.Keys(ctx, a.ID)
	if err != nil || len(list) != 3 {
		t.Fatalf("Keys = %d keys, %v; want 3", len(list), err)
	}
	for i, want := range []string{made[2].ID, made[1].ID, made[0].ID} {
		if list[i].ID != want {
			t.Errorf("Keys[%d] = %s, want %s (newest first)", i, list[i].ID, want)
		}
	}
	if other, err := s.Keys(ctx, b.ID); err != nil || len(other) != 0 {
		t.Errorf("Keys(other account) = %d keys, %v; want none", len(other), err)
	}
	if err := s.RevokeKey(ctx, b.ID, made[0].ID, base); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("RevokeKey by another account: err = %v, want ErrNotFound", err)
	}
	if k, _ := s.KeyByHash(ctx, made[0].Hash); k == nil || !k.RevokedAt.IsZero() {
		t.Errorf("another account's RevokeKey revoked the key: %+v", k)
	}
	if err := s.RevokeKey(ctx, a.ID, made[0].ID, base.Add(time.Hour)); err != nil {
		t.Fatalf("RevokeKey: %v", err)
	}
	k, err := s.KeyByHash(ctx, made[0].Hash)
	if err != nil || !k.RevokedAt.Equal(base.Add(time.Hour)) {
		t.Errorf("after RevokeKey: %+v, %v; want RevokedAt %v (KeyByHash returns revoked keys)", k, err, base.Add(time.Hour))
	}
	if err := s.RevokeKey(ctx, a.ID, "key_missing", base); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("RevokeKey(missing): err = %v, want ErrNotFound", err)
	}
	if _, err := s.KeyByHash(ctx, nil); !errors.Is(err, seo.ErrInvalidInput) {
		t.Errorf("KeyByHash(nil): err = %v, want an input error", err)
	}
}

func testTouchKey(ctx context.Context, t *testing.T, s store.Store) {
	a := mustAccount(ctx, t, s, "touch@example.com")
	k := &store.APIKey{AccountID: a.ID, Name: "k", Prefix: "seo_live_T", Hash: hash("seo_live_touch"), CreatedAt: base}
	if err := s.CreateKey(ctx, k); err != nil {
		t.Fatalf("CreateKey: %v", err)
	}
	steps := []struct {
		name string
		at   time.Time
		want time.Time
	}{
		{"first use recorded", base.Add(time.Minute), base.Add(time.Minute)},
		{"use 10s later not written", base.Add(time.Minute + 10*time.Second), base.Add(time.Minute)},
		{"use 5 minutes later recorded", base.Add(6 * time.Minute), base.Add(6 * time.Minute)},
	}
	for _, st := range steps {
		if err := s.TouchKey(ctx, k.ID, st.at); err != nil {
			t.Fatalf("%s: TouchKey: %v", st.name, err)
		}
		got, err := s.KeyByHash(ctx, k.Hash)
		if err != nil {
			t.Fatalf("KeyByHash: %v", err)
		}
		if !got.LastUsedAt.Equal(st.want) {
			t.Errorf("%s: LastUsedAt = %v, want %v", st.name, got.LastUsedAt, st.want)
		}
	}
}

func testClients(ctx context.Context, t *testing.T, s store.Store) {
	a := mustAccount(ctx, t, s, "clients@example.com")
	b := mustAccount(ctx, t, s, "intruder@example.com")
	c := mustClient(ctx, t, s, a.ID)
	if c.ID == "" {
		t.Fatal("CreateClient left the ID empty")
	}
	got, err := s.Client(ctx, c.ID)
	if err != nil {
		t.Fatalf("Client: %v", err)
	}
	if got.AccountID != a.ID || got.Name != "app" || !bytes.Equal(got.SecretHash, hash("secret")) ||
		len(got.RedirectURIs) != 1 || got.RedirectURIs[0] != "https://app.example.com/cb" ||
		len(got.Scopes) != 2 || !got.CreatedAt.Equal(base) || !got.RevokedAt.IsZero() {
		t.Errorf("Client = %+v, want %+v", got, c)
	}
	if err := s.CreateClient(ctx, &store.Client{ID: c.ID, AccountID: a.ID}); !errors.Is(err, store.ErrConflict) {
		t.Errorf("CreateClient with a taken ID: err = %v, want ErrConflict", err)
	}
	c2 := &store.Client{AccountID: a.ID, Name: "second", CreatedAt: base.Add(time.Minute)}
	if err := s.CreateClient(ctx, c2); err != nil {
		t.Fatalf("CreateClient: %v", err)
	}
	list, err := s.Clients(ctx, a.ID)
	if err != nil || len(list) != 2 || list[0].ID != c2.ID || list[1].ID != c.ID {
		t.Errorf("Clients = %v, %v; want [%s %s] (newest first)", list, err, c2.ID, c.ID)
	}
	if other, err := s.Clients(ctx, b.ID); err != nil || len(other) != 0 {
		t.Errorf("Clients(other) = %v, %v; want none", other, err)
	}
	got.RedirectURIs = append(got.RedirectURIs, "https://app.example.com/cb2")
	got.RevokedAt = base.Add(time.Hour)
	if err := s.UpdateClient(ctx, got); err != nil {
		t.Fatalf("UpdateClient: %v", err)
	}
	if g, err := s.Client(ctx, c.ID); err != nil || len(g.RedirectURIs) != 2 || !g.RevokedAt.Equal(base.Add(time.Hour)) {
		t.Errorf("after UpdateClient: %+v, %v", g, err)
	}
	stolen := *got
	stolen.AccountID = b.ID
	stolen.Name = "stolen"
	if err := s.UpdateClient(ctx, &stolen); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("UpdateClient by another account: err = %v, want ErrNotFound", err)
	}
	if err := s.DeleteClient(ctx, b.ID, c.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("DeleteClient by another account: err = %v, want ErrNotFound", err)
	}
	if _, err := s.Client(ctx, c.ID); err != nil {
		t.Errorf("client gone after another account's delete: %v", err)
	}
	if err := s.DeleteClient(ctx, a.ID, c.ID); err != nil {
		t.Fatalf("DeleteClient: %v", err)
	}
	if _, err := s.Client(ctx, c.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Client after delete: err = %v, want ErrNotFound", err)
	}
	if err := s.DeleteClient(ctx, a.ID, c.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("second DeleteClient: err = %v, want ErrNotFound", err)
	}
}

func testCodes(ctx context.Context, t *testing.T, s store.Store) {
	a := mustAccount(ctx, t, s, "codes@example.com")
	c := mustClient(ctx, t, s, a.ID)
	code := &store.AuthCode{Hash: hash("code-1"), ClientID: c.ID, AccountID: a.ID, RedirectURI: "https://app.example.com/cb",
		Scopes: []string{"read"}, Challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", FamilyID: "fam_1",
		ExpiresAt: base.Add(10 * time.Minute), CreatedAt: base}
	if err := s.CreateCode(ctx, code); err != nil {
		t.Fatalf("CreateCode: %v", err)
	}
	if err := s.CreateCode(ctx, &store.AuthCode{Hash: hash("code-1"), ClientID: c.ID, AccountID: a.ID, FamilyID: "fam_x"}); !errors.Is(err, store.ErrConflict) {
		t.Errorf("CreateCode with a taken hash: err = %v, want ErrConflict", err)
	}
	if peek, err := s.Code(ctx, code.Hash); err != nil || peek.FamilyID != "fam_1" || !peek.UsedAt.IsZero() {
		t.Errorf("Code = %+v, %v; want the unused code", peek, err)
	}
	if _, err := s.Code(ctx, hash("nope")); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Code(unknown): err = %v, want ErrNotFound", err)
	}
	used := base.Add(time.Minute)
	got, err := s.UseCode(ctx, code.Hash, used)
	if err != nil {
		t.Fatalf("UseCode: %v", err)
	}
	if got.ClientID != c.ID || got.AccountID != a.ID || got.RedirectURI != code.RedirectURI || got.Challenge != code.Challenge ||
		got.FamilyID != "fam_1" || len(got.Scopes) != 1 || !got.ExpiresAt.Equal(code.ExpiresAt) || !got.UsedAt.Equal(used) {
		t.Errorf("UseCode = %+v, want %+v used at %v", got, code, used)
	}
	again, err := s.UseCode(ctx, code.Hash, used.Add(time.Second))
	if !errors.Is(err, store.ErrUsed) {
		t.Errorf("second UseCode: err = %v, want ErrUsed", err)
	}
	if again == nil || again.FamilyID != "fam_1" || !again.UsedAt.Equal(used) {
		t.Errorf("second UseCode returned %+v, want the code with its family and first use time", again)
	}
	if _, err := s.UseCode(ctx, hash("nope"), used); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("UseCode(unknown): err = %v, want ErrNotFound", err)
	}
}

func testCodeRace(ctx context.Context, t *testing.T, s store.Store) {
	a := mustAccount(ctx, t, s, "race@example.com")
	c := mustClient(ctx, t, s, a.ID)
	code := &store.AuthCode{Hash: hash("race-code"), ClientID: c.ID, AccountID: a.ID, FamilyID: "fam_race", ExpiresAt: base.Add(time.Minute)}
	if err := s.CreateCode(ctx, code); err != nil {
		t.Fatalf("CreateCode: %v", err)
	}
	const n = 50
	var wins, used, other atomic.Int32
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			_, err := s.UseCode(ctx, code.Hash, base)
			switch {
			case err == nil:
				wins.Add(1)
			case errors.Is(err, store.ErrUsed):
				used.Add(1)
			default:
				other.Add(1)
				t.Errorf("UseCode: %v", err)
			}
		})
	}
	wg.Wait()
	if wins.Load() != 1 || used.Load() != n-1 {
		t.Errorf("%d concurrent UseCode: %d succeeded, %d ErrUsed, %d other; want exactly 1 success", n, wins.Load(), used.Load(), other.Load())
	}
}

func testRefresh(ctx context.Context, t *testing.T, s store.Store) {
	a := mustAccount(ctx, t, s, "refresh@example.com")
	c := mustClient(ctx, t, s, a.ID)
	tok := &store.RefreshToken{Hash: hash("rt-1"), FamilyID: "fam_r", ClientID: c.ID, AccountID: a.ID,
		Scopes: []string{"read", "write"}, ExpiresAt: base.Add(30 * 24 * time.Hour), CreatedAt: base}
	if err := s.CreateRefresh(ctx, tok); err != nil {
		t.Fatalf("CreateRefresh: %v", err)
	}
	if err := s.CreateRefresh(ctx, &store.RefreshToken{Hash: hash("rt-1"), FamilyID: "fam_r", ClientID: c.ID, AccountID: a.ID}); !errors.Is(err, store.ErrConflict) {
		t.Errorf("CreateRefresh with a taken hash: err = %v, want ErrConflict", err)
	}
	if peek, err := s.RefreshToken(ctx, tok.Hash); err != nil || peek.FamilyID != "fam_r" || !peek.UsedAt.IsZero() {
		t.Errorf("RefreshToken = %+v, %v; want the unused token", peek, err)
	}
	if _, err := s.RefreshToken(ctx, hash("nope")); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("RefreshToken(unknown): err = %v, want ErrNotFound", err)
	}
	got, err := s.UseRefresh(ctx, tok.Hash, base.Add(time.Hour))
	if err != nil {
		t.Fatalf("UseRefresh: %v", err)
	}
	if got.FamilyID != "fam_r" || got.ClientID != c.ID || got.AccountID != a.ID || len(got.Scopes) != 2 ||
		!got.ExpiresAt.Equal(tok.ExpiresAt) || !got.UsedAt.Equal(base.Add(time.Hour)) || !got.CreatedAt.Equal(base) {
		t.Errorf("UseRefresh = %+v", got)
	}
	again, err := s.UseRefresh(ctx, tok.Hash, base.Add(2*time.Hour))
	if !errors.Is(err, store.ErrUsed) || again == nil || again.FamilyID != "fam_r" {
		t.Errorf("second UseRefresh = %+v, %v; want the token with ErrUsed", again, err)
	}
	if _, err := s.UseRefresh(ctx, hash("nope"), base); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("UseRefresh(unknown): err = %v, want ErrNotFound", err)
	}
}

func testRefreshRace(ctx context.Context, t *testing.T, s store.Store) {
	a := mustAccount(ctx, t, s, "rrace@example.com")
	c := mustClient(ctx, t, s, a.ID)
	tok := &store.RefreshToken{Hash: hash("rt-race"), FamilyID: "fam_rr", ClientID: c.ID, AccountID: a.ID, ExpiresAt: base.Add(time.Hour)}
	if err := s.CreateRefresh(ctx, tok); err != nil {
		t.Fatalf("CreateRefresh: %v", err)
	}
	const n = 50
	var wins, used atomic.Int32
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			_, err := s.UseRefresh(ctx, tok.Hash, base)
			switch {
			case err == nil:
				wins.Add(1)
			case errors.Is(err, store.ErrUsed):
				used.Add(1)
			default:
				t.Errorf("UseRefresh: %v", err)
			}
		})
	}
	wg.Wait()
	if wins.Load() != 1 || used.Load() != n-1 {
		t.Errorf("%d concurrent UseRefresh: %d succeeded, %d ErrUsed; want exactly 1 success", n, wins.Load(), used.Load())
	}
}

func testRevocations(ctx context.Context, t *testing.T, s store.Store) {
	if r, err := s.FamilyRevoked(ctx, "fam_a"); err != nil || r {
		t.Fatalf("FamilyRevoked before revoke = %v, %v; want false", r, err)
	}
	for range 2 { // idempotent
		if err := s.RevokeFamily(ctx, "fam_a", base); err != nil {
			t.Fatalf("RevokeFamily: %v", err)
		}
	}
	if r, err := s.FamilyRevoked(ctx, "fam_a"); err != nil || !r {
		t.Errorf("FamilyRevoked = %v, %v; want true", r, err)
	}
	if r, err := s.FamilyRevoked(ctx, "fam_b"); err != nil || r {
		t.Errorf("FamilyRevoked(other family) = %v, %v; want false", r, err)
	}
	exp := time.Now().Add(24 * time.Hour)
	if r, err := s.TokenRevoked(ctx, "jti-1"); err != nil || r {
		t.Fatalf("TokenRevoked before revoke = %v, %v; want false", r, err)
	}
	for range 2 {
		if err := s.RevokeToken(ctx, "jti-1", exp); err != nil {
			t.Fatalf("RevokeToken: %v", err)
		}
	}
	if r, err := s.TokenRevoked(ctx, "jti-1"); err != nil || !r {
		t.Errorf("TokenRevoked = %v, %v; want true", r, err)
	}
	if r, err := s.TokenRevoked(ctx, "jti-2"); err != nil || r {
		t.Errorf("TokenRevoked(other jti) = %v, %v; want false", r, err)
	}
}

func testSigningKeys(ctx context.Context, t *testing.T, s store.Store) {
	seed := func(b byte) []byte { return bytes.Repeat([]byte{b}, 32) }
	keys := []*store.SigningKey{
		{KID: "k1", PrivateKey: seed(1), CreatedAt: base},
		{KID: "k2", PrivateKey: seed(2), CreatedAt: base.Add(time.Hour)},
		{KID: "k3", PrivateKey: seed(3), CreatedAt: base.Add(2 * time.Hour)},
	}
	for _, k := range keys {
		if err := s.AddSigningKey(ctx, k); err != nil {
			t.Fatalf("AddSigningKey: %v", err)
		}
	}
	if err := s.AddSigningKey(ctx, &store.SigningKey{KID: "k1", PrivateKey: seed(9)}); !errors.Is(err, store.ErrConflict) {
		t.Errorf("AddSigningKey with a taken kid: err = %v, want ErrConflict", err)
	}
	if err := s.RetireSigningKey(ctx, "k1", base.Add(3*time.Hour)); err != nil {
		t.Fatalf("RetireSigningKey: %v", err)
	}
	if err := s.RetireSigningKey(ctx, "k9", base); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("RetireSigningKey(missing): err = %v, want ErrNotFound", err)
	}
	tests := []struct {
		name  string
		since time.Time
		want  []string
	}{
		{"before retirement", base.Add(2 * time.Hour), []string{"k3", "k2", "k1"}},
		{"at retirement", base.Add(3 * time.Hour), []string{"k3", "k2", "k1"}},
		{"after retirement", base.Add(4 * time.Hour), []string{"k3", "k2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.SigningKeys(ctx, tt.since)
			if err != nil {
				t.Fatalf("SigningKeys: %v", err)
			}
			var kids []string
			for _, k := range got {
				kids = append(kids, k.KID)
			}
			if fmt.Sprint(kids) != fmt.Sprint(tt.want) {
				t.Errorf("SigningKeys(%v) = %v, want %v", tt.since, kids, tt.want)
			}
			for _, k := range got {
				if len(k.PrivateKey) != 32 || k.PrivateKey[0] != k.KID[1]-'0' {
					t.Errorf("key %s has seed %x", k.KID, k.PrivateKey)
				}
				if k.KID == "k1" && !k.RetiredAt.Equal(base.Add(3*time.Hour)) {
					t.Errorf("k1 RetiredAt = %v", k.RetiredAt)
				}
			}
		})
	}
}

func testTake(ctx context.Context, t *testing.T, s store.Store) {
	a := mustAccount(ctx, t, s, "take@example.com")
	b := mustAccount(ctx, t, s, "take2@example.com")
	day := base
	for i := 1; i <= 3; i++ {
		n, ok, err := s.Take(ctx, a.ID, day, 3)
		if err != nil || !ok || n != i {
			t.Fatalf("Take #%d = %d, %v, %v; want %d, true", i, n, ok, err, i)
		}
	}
	for range 2 {
		n, ok, err := s.Take(ctx, a.ID, day, 3)
		if err != nil || ok || n != 3 {
			t.Errorf("Take over the limit = %d, %v, %v; want 3, false (refusals are not counted)", n, ok, err)
		}
	}
	// Another time of the same UTC day shares the counter.
	sameDay := time.Date(day.UTC().Year(), day.UTC().Month(), day.UTC().Day(), 23, 59, 59, 0, time.UTC)
	if n, ok, err := s.Take(ctx, a.ID, sameDay, 3); err != nil || ok || n != 3 {
		t.Errorf("Take later the same UTC day = %d, %v, %v; want 3, false", n, ok, err)
	}
	// A raised limit admits again.
	if n, ok, err := s.Take(ctx, a.ID, day, 4); err != nil || !ok || n != 4 {
		t.Errorf("Take with a raised limit = %d, %v, %v; want 4, true", n, ok, err)
	}
	if n, ok, err := s.Take(ctx, a.ID, day.AddDate(0, 0, 1), 3); err != nil || !ok || n != 1 {
		t.Errorf("Take on the next day = %d, %v, %v; want 1, true", n, ok, err)
	}
	if n, ok, err := s.Take(ctx, b.ID, day, 3); err != nil || !ok || n != 1 {
		t.Errorf("Take of another account = %d, %v, %v; want 1, true", n, ok, err)
	}
	if n, ok, err := s.Take(ctx, b.ID, day, 0); err != nil || ok || n != 1 {
		t.Errorf("Take with limit 0 = %d, %v, %v; want 1, false", n, ok, err)
	}
}

func testTakeConcurrent(ctx context.Context, t *testing.T, s store.Store) {
	a := mustAccount(ctx, t, s, "burst@example.com")
	const limit, callers = 100, 150
	var admitted, refused atomic.Int32
	var wg sync.WaitGroup
	seen := make([]atomic.Bool, limit+1)
	for range callers {
		wg.Go(func() {
			n, ok, err := s.Take(ctx, a.ID, base, limit)
			if err != nil {
				t.Errorf("Take: %v", err)
				return
			}
			if ok {
				admitted.Add(1)
				if n < 1 || n > limit || seen[n].Swap(true) {
					t.Errorf("admitted Take returned count %d twice or out of range", n)
				}
			} else {
				refused.Add(1)
			}
		})
	}
	wg.Wait()
	if admitted.Load() != limit || refused.Load() != callers-limit {
		t.Errorf("%d concurrent Take on limit %d: %d admitted, %d refused; want exactly %d admitted", callers, limit, admitted.Load(), refused.Load(), limit)
	}
	u, err := s.Usage(ctx, a.ID, base, base)
	if err != nil || len(u) != 1 || u[0].Count != limit {
		t.Errorf("Usage after the burst = %+v, %v; want one day of %d", u, err, limit)
	}
}

func testUsage(ctx context.Context, t *testing.T, s store.Store) {
	a := mustAccount(ctx, t, s, "usage@example.com")
	d0 := time.Date(2026, 1, 30, 12, 0, 0, 0, time.UTC)
	counts := map[int]int{0: 2, 1: 1, 3: 4} // day offset -> requests; day 2 has none
	for off, n := range counts {
		for range n {
			if _, _, err := s.Take(ctx, a.ID, d0.AddDate(0, 0, off), 100); err != nil {
				t.Fatalf("Take: %v", err)
			}
		}
	}
	midnight := func(off int) time.Time { return time.Date(2026, 1, 30+off, 0, 0, 0, 0, time.UTC) }
	tests := []struct {
		name     string
		from, to time.Time
		want     string
	}{
		{"all days", d0.AddDate(0, 0, -5), d0.AddDate(0, 0, 10), fmt.Sprint([]store.Usage{{Day: midnight(0), Count: 2}, {Day: midnight(1), Count: 1}, {Day: midnight(3), Count: 4}})},
		{"inclusive bounds", midnight(1), midnight(3), fmt.Sprint([]store.Usage{{Day: midnight(1), Count: 1}, {Day: midnight(3), Count: 4}})},
		{"empty day only", midnight(2), midnight(2), fmt.Sprint([]store.Usage(nil))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Usage(ctx, a.ID, tt.from, tt.to)
			if err != nil {
				t.Fatalf("Usage: %v", err)
			}
			if fmt.Sprint(got) != tt.want {
				t.Errorf("Usage = %v, want %v", got, tt.want)
			}
			for _, u := range got {
				if u.Day.Location() != time.UTC {
					t.Errorf("Usage day %v is not UTC", u.Day)
				}
			}
		})
	}
	if got, err := s.Usage(ctx, "acct_other", d0.AddDate(0, 0, -5), d0.AddDate(0, 0, 10)); err != nil || len(got) != 0 {
		t.Errorf("Usage of another account = %v, %v; want none", got, err)
	}
}

func testScreenshots(ctx context.Context, t *testing.T, s store.Store, ss store.Screenshots) {
	a := mustAccount(ctx, t, s, "shots@example.com")
	b := mustAccount(ctx, t, s, "shots2@example.com")
	j := &store.Job{AccountID: a.ID, Kind: "site"}
	if err := s.CreateJob(ctx, j); err != nil {
		t.Fatalf("CreateJob: %v", err)
	}
	const page = "https://example.com/a?b=1"
	png := []byte("\x89PNG\r\n\x1a\nfirst")
	if _, err := ss.Screenshot(ctx, a.ID, j.ID, page); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Screenshot before any PutScreenshot: err = %v, want ErrNotFound", err)
	}
	if err := ss.PutScreenshot(ctx, j.ID, page, png); err != nil {
		t.Fatalf("PutScreenshot: %v", err)
	}
	got, err := ss.Screenshot(ctx, a.ID, j.ID, page)
	if err != nil || !bytes.Equal(got, png) {
		t.Errorf("Screenshot = %q, %v; want %q", got, err, png)
	}
	again := []byte("\x89PNG\r\n\x1a\nsecond")
	if err := ss.PutScreenshot(ctx, j.ID, page, again); err != nil {
		t.Fatalf("PutScreenshot again: %v", err)
	}
	if got, err := ss.Screenshot(ctx, a.ID, j.ID, page); err != nil || !bytes.Equal(got, again) {
		t.Errorf("Screenshot after replacing = %q, %v; want %q", got, err, again)
	}
	if _, err := ss.Screenshot(ctx, b.ID, j.ID, page); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Screenshot of another account's job: err = %v, want ErrNotFound", err)
	}
	if _, err := ss.Screenshot(ctx, a.ID, j.ID, page+"&c"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Screenshot of another page: err = %v, want ErrNotFound", err)
	}
	if err := ss.PutScreenshot(ctx, "job_missing", page, png); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("PutScreenshot for an unknown job: err = %v, want ErrNotFound", err)
	}
	bad := []struct {
		name, url string
		png       []byte
	}{
		{"empty URL", "", png},
		{"empty image", page, nil},
		{"too large", page, make([]byte, store.MaxScreenshotBytes+1)},
	}
	for _, tt := range bad {
		if err := ss.PutScreenshot(ctx, j.ID, tt.url, tt.png); !errors.Is(err, seo.ErrInvalidInput) {
			t.Errorf("PutScreenshot with %s: err = %v, want ErrInvalidInput", tt.name, err)
		}
	}
}

func testMutes(ctx context.Context, t *testing.T, s store.Store) {
	a := mustAccount(ctx, t, s, "mutes@example.com")
	b := mustAccount(ctx, t, s, "other-mutes@example.com")
	get := func(acct, domain string) []string {
		t.Helper()
		ids, err := s.Mutes(ctx, acct, domain)
		if err != nil {
			t.Fatalf("Mutes(%s, %s): %v", acct, domain, err)
		}
		return ids
	}
	if ids := get(a.ID, "example.com"); ids != nil {
		t.Errorf("Mutes before any SetMutes = %v, want nil", ids)
	}
	set := []string{"social", "security.csp_missing"}
	if err := s.SetMutes(ctx, a.ID, "example.com", set); err != nil {
		t.Fatalf("SetMutes: %v", err)
	}
	if got := get(a.ID, "example.com"); fmt.Sprint(got) != fmt.Sprint(set) {
		t.Errorf("Mutes = %v, want %v in the order set", got, set)
	}
	if got := get(b.ID, "example.com"); got != nil {
		t.Errorf("another account's mutes leak: %v", got)
	}
	if got := get(a.ID, "example.org"); got != nil {
		t.Errorf("another domain's mutes leak: %v", got)
	}
	if err := s.SetMutes(ctx, a.ID, "example.com", []string{"links.uncrawlable"}); err != nil {
		t.Fatalf("SetMutes again: %v", err)
	}
	if got := get(a.ID, "example.com"); fmt.Sprint(got) != "[links.uncrawlable]" {
		t.Errorf("Mutes after replacing = %v", got)
	}
	if err := s.SetMutes(ctx, a.ID, "example.com", nil); err != nil {
		t.Fatalf("SetMutes(nil): %v", err)
	}
	if got := get(a.ID, "example.com"); got != nil {
		t.Errorf("Mutes after clearing = %v, want nil", got)
	}
	if err := s.SetMutes(ctx, "acct_missing", "example.com", set); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("SetMutes for an unknown account: %v, want ErrNotFound", err)
	}
}

func testJobs(ctx context.Context, t *testing.T, s store.Store) {
	a := mustAccount(ctx, t, s, "jobs@example.com")
	b := mustAccount(ctx, t, s, "intruder@example.com")
	var made []*store.Job
	for i := range 3 {
		j := &store.Job{AccountID: a.ID, Kind: "site", Request: []byte(fmt.Sprintf(`{"n":%d}`, i)),
			CallbackURL: "https://hooks.example.com/x", CreatedAt: base.Add(time.Duration(i) * time.Second)}
		if err := s.CreateJob(ctx, j); err != nil {
			t.Fatalf("CreateJob: %v", err)
		}
		if j.ID == "" || j.Status != store.JobQueued {
			t.Fatalf("CreateJob left ID %q status %q; want an ID and queued", j.ID, j.Status)
		}
		made = append(made, j)
	}
	got, err := s.Job(ctx, a.ID, made[1].ID)
	if err != nil {
		t.Fatalf("Job: %v", err)
	}
	if got.Kind != "site" || string(got.Request) != `{"n":1}` || got.CallbackURL != "https://hooks.example.com/x" ||
		got.Status != store.JobQueued || !got.CreatedAt.Equal(made[1].CreatedAt) {
		t.Errorf("Job = %+v", got)
	}
	if _, err := s.Job(ctx, b.ID, made[1].ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Job of another account: err = %v, want ErrNotFound", err)
	}
	if _, err := s.Job(ctx, a.ID, "job_missing"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Job(missing): err = %v, want ErrNotFound", err)
	}
	list, err := s.Jobs(ctx, a.ID, 2)
	if err != nil || len(list) != 2 || list[0].ID != made[2].ID || list[1].ID != made[1].ID {
		t.Errorf("Jobs(limit 2) = %v, %v; want [%s %s] (newest first)", ids(list), err, made[2].ID, made[1].ID)
	}
	if other, err := s.Jobs(ctx, b.ID, 10); err != nil || len(other) != 0 {
		t.Errorf("Jobs(other) = %v, %v; want none", ids(other), err)
	}

	run := *got
	run.Status, run.StartedAt, run.Progress = store.JobRunning, base.Add(time.Minute), []byte(`{"pages":1}`)
	if err := s.UpdateJob(ctx, &run); err != nil {
		t.Fatalf("UpdateJob(running): %v", err)
	}
	stolen := run
	stolen.AccountID = b.ID
	stolen.Status = store.JobCanceled
	if err := s.UpdateJob(ctx, &stolen); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("UpdateJob by another account: err = %v, want ErrNotFound", err)
	}
	done := run
	done.Status, done.FinishedAt, done.Result, done.CallbackState = store.JobSucceeded, base.Add(2*time.Minute), []byte(`{"score":91}`), "pending"
	if err := s.UpdateJob(ctx, &done); err != nil {
		t.Fatalf("UpdateJob(succeeded): %v", err)
	}
	g, err := s.Job(ctx, a.ID, run.ID)
	if err != nil || g.Status != store.JobSucceeded || string(g.Result) != `{"score":91}` || string(g.Progress) != `{"pages":1}` ||
		!g.StartedAt.Equal(base.Add(time.Minute)) || !g.FinishedAt.Equal(base.Add(2*time.Minute)) || g.CallbackState != "pending" {
		t.Errorf("after UpdateJob: %+v, %v", g, err)
	}
	// Lists never load results; the one job does.
	list, err = s.Jobs(ctx, a.ID, 10)
	if err != nil || len(list) != 3 {
		t.Fatalf("Jobs after success = %v, %v; want 3 jobs", ids(list), err)
	}
	for _, j := range list {
		if j.Result != nil {
			t.Errorf("Jobs loaded the result of %s: %q", j.ID, j.Result)
		}
		if j.ID == run.ID && (j.Status != store.JobSucceeded || string(j.Progress) != `{"pages":1}`) {
			t.Errorf("Jobs lists %s as %+v", j.ID, j)
		}
	}
	if n, err := s.ActiveJobs(ctx, a.ID); err != nil || n != 2 {
		t.Errorf("ActiveJobs = %d, %v; want 2 (queued)", n, err)
	}
	if n, err := s.ActiveJobs(ctx, b.ID); err != nil || n != 0 {
		t.Errorf("ActiveJobs(other) = %d, %v; want 0", n, err)
	}
	bad := *made[0]
	bad.Status = "paused"
	if err := s.UpdateJob(ctx, &bad); !errors.Is(err, seo.ErrInvalidInput) {
		t.Errorf("UpdateJob with status paused: err = %v, want an input error", err)
	}
}

func testFinalJob(ctx context.Context, t *testing.T, s store.Store) {
	a := mustAccount(ctx, t, s, "final@example.com")
	j := &store.Job{AccountID: a.ID, Kind: "site", CallbackURL: "https://hooks.example.com/x", CreatedAt: base}
	if err := s.CreateJob(ctx, j); err != nil {
		t.Fatalf("CreateJob: %v", err)
	}
	canceled := *j
	canceled.Status, canceled.FinishedAt, canceled.CallbackState = store.JobCanceled, base.Add(time.Minute), "pending"
	if err := s.UpdateJob(ctx, &canceled); err != nil {
		t.Fatalf("UpdateJob(canceled): %v", err)
	}
	late := canceled
	late.Status, late.Progress = store.JobRunning, []byte(`{"pages":9}`)
	if err := s.UpdateJob(ctx, &late); !errors.Is(err, store.ErrConflict) {
		t.Errorf("late progress on a canceled job: err = %v, want ErrConflict", err)
	}
	late2 := canceled
	late2.Progress, late2.CallbackState = []byte(`{"pages":9}`), "delivered"
	if err := s.UpdateJob(ctx, &late2); !errors.Is(err, store.ErrConflict) {
		t.Errorf("progress with a callback change on a canceled job: err = %v, want ErrConflict", err)
	}
	if g, _ := s.Job(ctx, a.ID, j.ID); g == nil || g.Status != store.JobCanceled || len(g.Progress) != 0 || g.CallbackState != "pending" {
		t.Errorf("a refused update changed the job: %+v", g)
	}
	cb := canceled
	cb.CallbackState = "delivered"
	cb.UpdatedAt = base.Add(5 * time.Minute)
	if err := s.UpdateJob(ctx, &cb); err != nil {
		t.Fatalf("UpdateJob(callback delivered): %v", err)
	}
	g, err := s.Job(ctx, a.ID, j.ID)
	if err != nil || g.Status != store.JobCanceled || g.CallbackState != "delivered" || !g.UpdatedAt.Equal(base.Add(5*time.Minute)) {
		t.Errorf("after callback update: %+v, %v; want canceled, delivered", g, err)
	}
}

func testUnfinished(ctx context.Context, t *testing.T, s store.Store) {
	a := mustAccount(ctx, t, s, "u1@example.com")
	b := mustAccount(ctx, t, s, "u2@example.com")
	// Created out of order; Unfinished must sort by creation time.
	spec := []struct {
		acct   string
		offset time.Duration
		status store.JobStatus
	}{
		{b.ID, 3 * time.Second, store.JobQueued},
		{a.ID, 1 * time.Second, store.JobRunning},
		{a.ID, 2 * time.Second, store.JobSucceeded},
		{b.ID, 0, store.JobQueued},
		{a.ID, 4 * time.Second, store.JobFailed},
	}
	idAt := map[time.Duration]string{}
	for _, sp := range spec {
		j := &store.Job{AccountID: sp.acct, Kind: "site", Status: sp.status, CreatedAt: base.Add(sp.offset)}
		if err := s.CreateJob(ctx, j); err != nil {
			t.Fatalf("CreateJob: %v", err)
		}
		idAt[sp.offset] = j.ID
	}
	got, err := s.Unfinished(ctx)
	if err != nil {
		t.Fatalf("Unfinished: %v", err)
	}
	want := []string{idAt[0], idAt[time.Second], idAt[3*time.Second]}
	if fmt.Sprint(ids(got)) != fmt.Sprint(want) {
		t.Errorf("Unfinished = %v, want %v (queued and running, oldest first)", ids(got), want)
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
