package sqlstore_test

import (
	"context"
	"fmt"
	"log"
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
