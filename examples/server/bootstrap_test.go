package main

import (
	"context"
	"sync"
	"testing"

	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
)

// Instances starting together over one database create one admin account;
// the others start without printing secrets.
func TestBootstrapConcurrentStarts(t *testing.T) {
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, ":memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const instances = 4
	apis := make([]*httpapi.Server, instances)
	for i := range apis {
		if apis[i], err = httpapi.New(ctx, &httpapi.Options{Store: st}); err != nil {
			t.Fatal(err)
		}
		defer apis[i].Close()
	}
	var wg sync.WaitGroup
	created := make([]*firstStart, instances)
	errs := make([]error, instances)
	start := make(chan struct{})
	for i := range apis {
		wg.Go(func() {
			<-start
			created[i], errs[i] = bootstrap(ctx, apis[i])
		})
	}
	close(start)
	wg.Wait()
	n := 0
	for i := range apis {
		if errs[i] != nil {
			t.Fatalf("instance %d: %v", i, errs[i])
		}
		if created[i] != nil {
			n++
		}
	}
	if accounts, _ := st.CountAccounts(ctx); n != 1 || accounts != 1 {
		t.Fatalf("%d instances printed secrets and %d accounts exist, want 1 and 1", n, accounts)
	}
}
