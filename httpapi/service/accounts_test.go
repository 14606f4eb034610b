package service_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
)

// TestAccountsClientsAreTheAccounts: an application is found only by
// the account that owns it and only while it is live; keys go through
// auth (their values authenticate); without an auth server, what needs
// one is a NotConfiguredError, never a panic or a silent success.
func TestAccountsClientsAreTheAccounts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, ":memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	au, err := auth.New(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	acc, err := service.NewAccounts(st, au, nil)
	if err != nil {
		t.Fatal(err)
	}
	ada, err := acc.CreateAccount(ctx, "ada@example.com", "Ada", "ada's long password", store.Free)
	if err != nil {
		t.Fatal(err)
	}
	bea, err := acc.CreateAccount(ctx, "bea@example.com", "Bea", "bea's long password", store.Free)
	if err != nil {
		t.Fatal(err)
	}
	_, app, err := acc.CreateClient(ctx, ada.ID, "reporter", []string{"https://ada.example/cb"}, []string{"read"})
	if err != nil {
		t.Fatal(err)
	}
	if c, err := acc.Client(ctx, ada.ID, app.ID); err != nil || c.ID != app.ID {
		t.Fatalf("owner's Client = %v, %v", c, err)
	}
	if _, err := acc.Client(ctx, bea.ID, app.ID); !errors.Is(err, service.ErrNotFound) {
		t.Fatalf("another account's Client: err = %v, want ErrNotFound", err)
	}
	value, k, err := acc.CreateKey(ctx, ada.ID, "script", []string{"read"}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("GET", "/v1/analyze/site", nil)
	r.Header.Set("X-API-Key", value)
	if p, err := au.Authenticate(r); err != nil || p.KeyID != k.ID || p.AccountID != ada.ID {
		t.Fatalf("the service's key does not authenticate: %+v, %v", p, err)
	}
	if err := acc.RevokeKey(ctx, ada.ID, k.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := au.Authenticate(r); err == nil {
		t.Fatal("a key the service revoked still authenticates")
	}

	bare, err := service.NewAccounts(st, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var nc *service.NotConfiguredError
	if _, _, err := bare.CreateKey(ctx, ada.ID, "x", []string{"read"}, time.Time{}); !errors.As(err, &nc) {
		t.Fatalf("CreateKey without auth: err = %v, want a NotConfiguredError", err)
	}
	if _, err := service.NewAccounts(nil, au, nil); err == nil {
		t.Fatal("NewAccounts without a store: no error")
	}
}
