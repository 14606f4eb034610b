package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

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
