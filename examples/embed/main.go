// Command embed shows the seokit API mounted under /seo/ in an existing
// application's ServeMux, next to the application's own routes.
//
//	go run ./examples/embed
//
// It listens on 127.0.0.1:8081 with a private in-memory store, creates an
// account and prints an API key, then serves:
//
//	GET  /                       the application's own page
//	GET  /healthz                the application's health check
//	     /seo/v1/...             the seokit API (http.StripPrefix("/seo", api))
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
)

// newMux returns the application's mux with the API under /seo/, keeping
// its accounts in st. allowPrivate lets analyses reach private addresses
// (tests).
func newMux(ctx context.Context, st store.Store, allowPrivate bool) (*http.ServeMux, *httpapi.Server, error) {
	api, err := httpapi.New(ctx, &httpapi.Options{Store: st, BasePath: "/seo", AllowPrivate: allowPrivate})
	if err != nil {
		return nil, nil, err
	}
	// Start runs the site analyses, schedules and callbacks in the
	// background; without it the handler only answers requests.
	if err := api.Start(ctx); err != nil {
		api.Close()
		return nil, nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "my application; the SEO API is under /seo/v1/\n")
	})
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		if err := api.Store().Ping(r.Context()); err != nil {
			http.Error(w, "store unavailable", http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ok\n")
	})
	mux.Handle("/seo/", http.StripPrefix("/seo", api))
	return mux, api, nil
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	// A private in-memory store: accounts and keys last until exit.
	st, err := sqlstore.Open(ctx, ":memory:", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	mux, api, err := newMux(ctx, st, false)
	if err != nil {
		log.Fatal(err)
	}
	defer api.Close()
	acct, err := api.Auth().CreateAccount(ctx, "me@localhost", "Me", "", store.Free)
	if err != nil {
		log.Fatal(err)
	}
	key, _, err := api.Auth().CreateAPIKey(ctx, acct.ID, "embed", []string{auth.ScopeRead, auth.ScopeWrite}, time.Time{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("API key:", key)
	srv := &http.Server{Addr: "127.0.0.1:8081", Handler: mux, ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout: 30 * time.Second, WriteTimeout: 90 * time.Second, IdleTimeout: 120 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	fmt.Println("Listening on http://" + srv.Addr)
	if err := srv.ListenAndServe(); err != http.ErrServerClosed {
		log.Fatal(err)
	}
}
