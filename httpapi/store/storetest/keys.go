package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

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

// testKeyBounds: an account has at most store.MaxKeys usable keys (an
// expired one does not count), and of its revoked and expired keys the
// store keeps the newest store.KeptInactiveKeys, however many it creates
// and revokes.
func testKeyBounds(ctx context.Context, t *testing.T, s store.Store) {
	a := mustAccount(ctx, t, s, "bounds@example.com")
	n := 0
	create := func(at time.Time, expires time.Time) (*store.APIKey, error) {
		n++
		k := &store.APIKey{AccountID: a.ID, Name: fmt.Sprintf("k%d", n), Prefix: fmt.Sprintf("seo_live_B%d", n),
			Hash: hash(fmt.Sprintf("bounds-%d", n)), CreatedAt: at, ExpiresAt: expires}
		return k, s.CreateKey(ctx, k)
	}
	at := func(i int) time.Time { return base.Add(time.Duration(i) * time.Second) }
	// One key that expires early, then usable ones up to the cap.
	if _, err := create(at(0), at(10)); err != nil {
		t.Fatalf("CreateKey: %v", err)
	}
	var usable []*store.APIKey
	for i := 1; i < store.MaxKeys; i++ {
		k, err := create(at(i), time.Time{})
		if err != nil {
			t.Fatalf("CreateKey %d: %v", i, err)
		}
		usable = append(usable, k)
	}
	// At 10 s the first key is still usable: the cap is reached.
	_, err := create(at(5), time.Time{})
	var le *store.LimitError
	if !errors.As(err, &le) || !errors.Is(err, store.ErrLimitReached) || le.What != "API keys" || le.Limit != store.MaxKeys || le.Count != store.MaxKeys {
		t.Fatalf("CreateKey past the cap: %v, want a *LimitError of %d API keys", err, store.MaxKeys)
	}
	// Once it expired, there is room for one more.
	if _, err := create(at(200), time.Time{}); err != nil {
		t.Fatalf("CreateKey after a key expired: %v", err)
	}
	// Revoking and creating many times keeps the stored keys bounded.
	for i := range 3 * store.KeptInactiveKeys {
		if err := s.RevokeKey(ctx, a.ID, usable[i].ID, at(300+i)); err != nil {
			t.Fatal(err)
		}
		if _, err := create(at(300+i), time.Time{}); err != nil {
			t.Fatalf("CreateKey after a revocation: %v", err)
		}
	}
	list, err := s.Keys(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	inactive := 0
	for _, k := range list {
		if !k.RevokedAt.IsZero() || (!k.ExpiresAt.IsZero() && !k.ExpiresAt.After(at(1000))) {
			inactive++
		}
	}
	if len(list)-inactive != store.MaxKeys || inactive != store.KeptInactiveKeys {
		t.Errorf("after %d revocations: %d keys stored, %d of them revoked or expired; want %d usable and %d kept", 3*store.KeptInactiveKeys, len(list), inactive, store.MaxKeys, store.KeptInactiveKeys)
	}
	// The newest revoked keys are the ones kept.
	if k, err := s.KeyByHash(ctx, usable[3*store.KeptInactiveKeys-1].Hash); err != nil || k.RevokedAt.IsZero() {
		t.Errorf("the last revoked key: %+v %v; want it kept, revoked", k, err)
	}
	if _, err := s.KeyByHash(ctx, usable[0].Hash); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the first revoked key: %v; want it deleted", err)
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
