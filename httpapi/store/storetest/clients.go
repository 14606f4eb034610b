package storetest

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/store"
)

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

// testClientBounds: CreateClientWithin refuses an account's client past
// its limit with a *LimitError naming the count, counting the account's
// clients only; a deleted client frees its place.
func testClientBounds(ctx context.Context, t *testing.T, s store.Store) {
	a := mustAccount(ctx, t, s, "apps@example.com")
	b := mustAccount(ctx, t, s, "other-apps@example.com")
	const limit = 3
	var ids []string
	for i := range limit {
		c := &store.Client{AccountID: a.ID, Name: "app", CreatedAt: base.Add(time.Duration(i) * time.Minute)}
		if err := s.CreateClientWithin(ctx, c, limit); err != nil {
			t.Fatalf("CreateClientWithin #%d: %v", i+1, err)
		}
		ids = append(ids, c.ID)
	}
	var le *store.LimitError
	err := s.CreateClientWithin(ctx, &store.Client{AccountID: a.ID, Name: "one more"}, limit)
	if !errors.As(err, &le) || !errors.Is(err, store.ErrLimitReached) || le.What != "OAuth applications" || le.Limit != limit || le.Count != limit {
		t.Fatalf("CreateClientWithin past the limit: %v, want a *LimitError of %d OAuth applications", err, limit)
	}
	if err := s.CreateClientWithin(ctx, &store.Client{AccountID: b.ID, Name: "theirs"}, limit); err != nil {
		t.Errorf("another account's first client: %v", err)
	}
	if err := s.DeleteClient(ctx, a.ID, ids[0]); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateClientWithin(ctx, &store.Client{AccountID: a.ID, Name: "again"}, limit); err != nil {
		t.Errorf("CreateClientWithin after a delete: %v", err)
	}
	if list, err := s.Clients(ctx, a.ID); err != nil || len(list) != limit {
		t.Errorf("Clients = %d, %v; want %d", len(list), err, limit)
	}
	if err := s.CreateClientWithin(ctx, &store.Client{AccountID: "acct_missing", Name: "x"}, limit); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("CreateClientWithin of no account: %v, want ErrNotFound", err)
	}
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
