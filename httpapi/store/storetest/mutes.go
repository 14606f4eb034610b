package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/seokit/seokit/httpapi/store"
)

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
