package sqlstore_test

import (
	"context"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
)

func Example() {
	ctx := context.Background()
	s, err := sqlstore.Open(ctx, ":memory:", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	acct := &store.Account{Email: "Ada@Example.com", Name: "Ada", Plan: store.Free}
	if err := s.CreateAccount(ctx, acct); err != nil {
		log.Fatal(err)
	}
	fmt.Println(acct.Email, acct.Plan)

	day := time.Date(2026, 3, 1, 15, 4, 5, 0, time.UTC)
	for range 3 {
		n, ok, err := s.Take(ctx, acct.ID, day, 2) // a limit of 2 a day
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(n, ok)
	}
	// Output:
	// ada@example.com free
	// 1 true
	// 2 true
	// 2 false
}

// ListAccounts pages through every account: pass the last ID of a page to
// get the next; a short page is the last.
func ExampleStore_ListAccounts() {
	ctx := context.Background()
	s, err := sqlstore.Open(ctx, ":memory:", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	for i := range 5 {
		a := &store.Account{ID: fmt.Sprintf("acct_%d", i), Email: fmt.Sprintf("user%d@example.com", i), Plan: store.Free}
		if err := s.CreateAccount(ctx, a); err != nil {
			log.Fatal(err)
		}
	}
	const pageSize = 2
	after := ""
	for {
		page, err := s.ListAccounts(ctx, after, pageSize)
		if err != nil {
			log.Fatal(err)
		}
		var emails []string
		for _, a := range page {
			emails = append(emails, a.Email)
		}
		fmt.Println(strings.Join(emails, " "))
		if len(page) < pageSize {
			break
		}
		after = page[len(page)-1].ID
	}
	// Output:
	// user0@example.com user1@example.com
	// user2@example.com user3@example.com
	// user4@example.com
}
