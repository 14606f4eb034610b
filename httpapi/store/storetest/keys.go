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
