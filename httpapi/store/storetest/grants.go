package storetest

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/store"
)

// ahead is an expiry d from now: the store deletes codes and refresh
// tokens that expired over an hour ago (store.Grants), so the ones a test
// reads back expire after the test, whatever its fixed times (base).
func ahead(d time.Duration) time.Time { return time.Now().Add(d).Truncate(time.Second) }

// testGrantPruning: codes and refresh tokens that expired over an hour ago
// are deleted as others are added; those expired less than an hour ago,
// or still live, are kept.
func testGrantPruning(ctx context.Context, t *testing.T, s store.Store) {
	a := mustAccount(ctx, t, s, "prune@example.com")
	c := mustClient(ctx, t, s, a.ID)
	now := time.Now()
	// The expired ones first: a store may prune only once a minute.
	type grant struct {
		hash    string
		expires time.Time
		gone    bool
	}
	codes := []grant{{"old-code", now.Add(-2 * time.Hour), true}, {"recent-code", now.Add(-time.Minute), false}, {"live-code", now.Add(time.Minute), false}}
	for _, g := range codes {
		if err := s.CreateCode(ctx, &store.AuthCode{Hash: hash(g.hash), ClientID: c.ID, AccountID: a.ID, FamilyID: "fam_" + g.hash, ExpiresAt: g.expires}); err != nil {
			t.Fatal(err)
		}
	}
	toks := []grant{{"old-rt", now.Add(-2 * time.Hour), true}, {"recent-rt", now.Add(-time.Minute), false}, {"live-rt", now.Add(time.Hour), false}}
	for _, g := range toks {
		if err := s.CreateRefresh(ctx, &store.RefreshToken{Hash: hash(g.hash), ClientID: c.ID, AccountID: a.ID, FamilyID: "fam_" + g.hash, ExpiresAt: g.expires}); err != nil {
			t.Fatal(err)
		}
	}
	for _, g := range codes {
		if _, err := s.Code(ctx, hash(g.hash)); errors.Is(err, store.ErrNotFound) != g.gone {
			t.Errorf("code %s: %v; want it deleted only when it expired over an hour ago", g.hash, err)
		}
	}
	for _, g := range toks {
		if _, err := s.RefreshToken(ctx, hash(g.hash)); errors.Is(err, store.ErrNotFound) != g.gone {
			t.Errorf("refresh token %s: %v; want it deleted only when it expired over an hour ago", g.hash, err)
		}
	}
}

func testCodes(ctx context.Context, t *testing.T, s store.Store) {
	a := mustAccount(ctx, t, s, "codes@example.com")
	c := mustClient(ctx, t, s, a.ID)
	code := &store.AuthCode{Hash: hash("code-1"), ClientID: c.ID, AccountID: a.ID, RedirectURI: "https://app.example.com/cb",
		Scopes: []string{"read"}, Challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", FamilyID: "fam_1",
		Resource: "https://api.example.com/mcp", ExpiresAt: ahead(10 * time.Minute), CreatedAt: base}
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
		got.FamilyID != "fam_1" || got.Resource != code.Resource || len(got.Scopes) != 1 || !got.ExpiresAt.Equal(code.ExpiresAt) || !got.UsedAt.Equal(used) {
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
	code := &store.AuthCode{Hash: hash("race-code"), ClientID: c.ID, AccountID: a.ID, FamilyID: "fam_race", ExpiresAt: ahead(time.Minute)}
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
		Scopes: []string{"read", "write"}, Resource: "https://api.example.com/mcp", ExpiresAt: ahead(30 * 24 * time.Hour), CreatedAt: base}
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
	if got.FamilyID != "fam_r" || got.ClientID != c.ID || got.AccountID != a.ID || len(got.Scopes) != 2 || got.Resource != tok.Resource ||
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
	tok := &store.RefreshToken{Hash: hash("rt-race"), FamilyID: "fam_rr", ClientID: c.ID, AccountID: a.ID, ExpiresAt: ahead(time.Hour)}
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
