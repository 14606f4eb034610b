package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/store"
)

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
