package riverjobs_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/riverjobs"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
)

// Bad options are an *seo.InputError naming the field, before the
// database is used.
func ExampleNew_badOptions() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, "postgres://seokit@127.0.0.1:5432/seokit")
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	_, err = riverjobs.New(ctx, pool, &riverjobs.Options{JobTimeout: time.Hour, RescueStuckJobsAfter: time.Minute})
	fmt.Println(err)
	// Output:
	// seo: invalid rescueStuckJobsAfter: must not be less than JobTimeout (1h0m0s) (got "1m0s")
}

// One instance of the service: the store and the queue on the same
// PostgreSQL database. Start as many as needed with the same settings.
func Example_instance() {
	ctx := context.Background()
	dsn := "postgres://seokit@db.internal:5432/seokit"
	st, err := sqlstore.Open(ctx, dsn, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	q, err := riverjobs.New(ctx, pool, &riverjobs.Options{Workers: 4})
	if err != nil {
		log.Fatal(err)
	}
	srv, err := httpapi.New(ctx, &httpapi.Options{Store: st, Queue: q, CallbackSecret: []byte("the same secret on every instance")})
	if err != nil {
		log.Fatal(err)
	}
	if err := srv.Start(ctx); err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	log.Fatal(http.ListenAndServe(":8080", srv))
}
