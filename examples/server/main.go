// Command server runs the seokit /v1 API as a standalone HTTP server.
//
//	go run ./examples/server [flags]
//
// It listens on 127.0.0.1:8080 and keeps accounts, keys, usage counters and
// jobs in the SQLite file seokit.db (or a PostgreSQL database given as a
// postgres:// DSN), and keywords and rankings in seokit-data.db. On the
// first start it creates an admin account (admin@localhost, Pro plan) and
// prints its API key and API client credentials once:
//
//	API key: seo_live_...
//	Client ID: ...
//	Client secret: ...
//
// Every flag has an environment variable, used when the flag is not given:
//
//	-addr            SEOKIT_ADDR              listen address (127.0.0.1:8080)
//	-db              SEOKIT_DB                API store: SQLite path or postgres:// DSN (seokit.db)
//	-data-db         SEOKIT_DATA_DB           keyword and ranking data, SQLite path (seokit-data.db)
//	-tls-cert        SEOKIT_TLS_CERT          TLS certificate file (PEM)
//	-tls-key         SEOKIT_TLS_KEY           TLS private key file (PEM)
//	-trusted-proxy   SEOKIT_TRUSTED_PROXIES   comma-separated CIDRs of TLS-terminating proxies
//	-free-limit      SEOKIT_FREE_LIMIT        daily requests of the Free plan (100)
//	-pro-limit       SEOKIT_PRO_LIMIT         daily requests of the Pro plan (1000)
//	-callback-secret SEOKIT_CALLBACK_SECRET   master secret of job callback signatures
//	-dataforseo-login, -dataforseo-password   DATAFORSEO_LOGIN, DATAFORSEO_PASSWORD
//	-serpapi-key                              SERPAPI_KEY
//	-google-cse-key, -google-cse-cx           GOOGLE_CSE_KEY, GOOGLE_CSE_CX
//
// Prefer the environment variables for secrets: flags show in process
// listings. Without TLS the server refuses to listen on an address that is
// not loopback unless -trusted-proxy names the proxy in front of it.
// SIGINT or SIGTERM shuts it down gracefully.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
	"github.com/seokit/seokit/keywords"
	kwdataforseo "github.com/seokit/seokit/keywords/dataforseo"
	"github.com/seokit/seokit/keywords/local"
	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/customsearch"
	rkdataforseo "github.com/seokit/seokit/rankings/dataforseo"
	"github.com/seokit/seokit/rankings/serpapi"
	rsql "github.com/seokit/seokit/rankings/sqlstore"
	"github.com/seokit/seokit/reports"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(1)
	}
}

// config is the parsed command line.
type config struct {
	addr, db, dataDB, tlsCert, tlsKey, proxies, callbackSecret string
	freeLimit, proLimit                                        int
	dfsLogin, dfsPassword, serpapiKey, cseKey, cseCX           string
}

func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok && v != "" {
		return v
	}
	return def
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

func parse(args []string, stderr io.Writer) (*config, error) {
	var c config
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.addr, "addr", env("SEOKIT_ADDR", "127.0.0.1:8080"), "listen address")
	fs.StringVar(&c.db, "db", env("SEOKIT_DB", "seokit.db"), "API store: SQLite path or postgres:// DSN")
	fs.StringVar(&c.dataDB, "data-db", env("SEOKIT_DATA_DB", "seokit-data.db"), "keyword and ranking data: SQLite path")
	fs.StringVar(&c.tlsCert, "tls-cert", env("SEOKIT_TLS_CERT", ""), "TLS certificate file")
	fs.StringVar(&c.tlsKey, "tls-key", env("SEOKIT_TLS_KEY", ""), "TLS key file")
	fs.StringVar(&c.proxies, "trusted-proxy", env("SEOKIT_TRUSTED_PROXIES", ""), "comma-separated CIDRs of trusted TLS-terminating proxies")
	fs.IntVar(&c.freeLimit, "free-limit", envInt("SEOKIT_FREE_LIMIT", httpapi.DefaultFreeLimit), "daily requests of the Free plan")
	fs.IntVar(&c.proLimit, "pro-limit", envInt("SEOKIT_PRO_LIMIT", httpapi.DefaultProLimit), "daily requests of the Pro plan")
	fs.StringVar(&c.callbackSecret, "callback-secret", env("SEOKIT_CALLBACK_SECRET", ""), "master secret of callback signatures (random per process if empty)")
	fs.StringVar(&c.dfsLogin, "dataforseo-login", env("DATAFORSEO_LOGIN", ""), "DataForSEO login")
	fs.StringVar(&c.dfsPassword, "dataforseo-password", env("DATAFORSEO_PASSWORD", ""), "DataForSEO password")
	fs.StringVar(&c.serpapiKey, "serpapi-key", env("SERPAPI_KEY", ""), "SerpApi key")
	fs.StringVar(&c.cseKey, "google-cse-key", env("GOOGLE_CSE_KEY", ""), "Google Custom Search API key")
	fs.StringVar(&c.cseCX, "google-cse-cx", env("GOOGLE_CSE_CX", ""), "Google Custom Search engine ID")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if (c.tlsCert == "") != (c.tlsKey == "") {
		return nil, errors.New("-tls-cert and -tls-key go together")
	}
	if c.freeLimit < 0 || c.proLimit < 0 {
		return nil, errors.New("plan limits must not be negative")
	}
	return &c, nil
}

// loopbackAddr reports whether a listen address binds loopback only.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsLoopback()
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parse(args, stderr)
	if err != nil {
		return err
	}
	var proxies []netip.Prefix
	for p := range strings.SplitSeq(c.proxies, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		pr, err := netip.ParsePrefix(p)
		if err != nil {
			a, aerr := netip.ParseAddr(p)
			if aerr != nil {
				return fmt.Errorf("-trusted-proxy: %q is not a CIDR or address", p)
			}
			pr = netip.PrefixFrom(a, a.BitLen())
		}
		proxies = append(proxies, pr)
	}
	if c.tlsCert == "" && !loopbackAddr(c.addr) && len(proxies) == 0 {
		return fmt.Errorf("refusing plain HTTP on %s: give -tls-cert and -tls-key, listen on loopback, or name the TLS proxy with -trusted-proxy", c.addr)
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))

	st, err := sqlstore.Open(ctx, c.db, nil)
	if err != nil {
		return err
	}
	defer st.Close()
	ks, err := local.Open(ctx, c.dataDB, nil)
	if err != nil {
		return err
	}
	defer ks.Close()
	rs, err := rsql.Open(ctx, c.dataDB, nil)
	if err != nil {
		return err
	}
	defer rs.Close()

	sources := []keywords.Source{ks}
	var serp rankings.Source
	switch {
	case c.dfsLogin != "" && c.dfsPassword != "":
		sources = append(sources, kwdataforseo.New(c.dfsLogin, c.dfsPassword, nil))
		serp = rkdataforseo.New(c.dfsLogin, c.dfsPassword, nil)
	case c.serpapiKey != "":
		serp = serpapi.New(c.serpapiKey, nil)
	case c.cseKey != "" && c.cseCX != "":
		serp = customsearch.New(c.cseKey, c.cseCX, nil)
	}
	opts := &httpapi.Options{
		Store:          st,
		Suggester:      keywords.NewSuggester(sources, nil),
		Tracker:        rankings.NewTracker(serp, rs, nil),
		Reports:        reports.New(rs, ks, nil),
		Limits:         map[store.Plan]int{store.Free: c.freeLimit, store.Pro: c.proLimit},
		TrustedProxies: proxies,
		Logger:         logger,
	}
	if c.callbackSecret != "" {
		opts.CallbackSecret = []byte(c.callbackSecret)
	}
	api, err := httpapi.New(ctx, opts)
	if err != nil {
		return err
	}
	defer api.Close()
	if err := bootstrap(ctx, api, stdout); err != nil {
		return err
	}

	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           api,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		// A complete page analysis with link checks takes up to about a
		// minute.
		WriteTimeout:   90 * time.Second,
		IdleTimeout:    120 * time.Second,
		MaxHeaderBytes: 64 << 10,
		ErrorLog:       slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	scheme := "http"
	if c.tlsCert != "" {
		scheme = "https"
	}
	fmt.Fprintf(stdout, "Listening on %s://%s\n", scheme, ln.Addr())
	errc := make(chan error, 1)
	go func() {
		if c.tlsCert != "" {
			errc <- srv.ServeTLS(ln, c.tlsCert, c.tlsKey)
		} else {
			errc <- srv.Serve(ln)
		}
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	return nil
}

// bootstrap creates the admin account, an API key and an API client when
// the store has no account yet, and prints the secrets once.
func bootstrap(ctx context.Context, api *httpapi.Server, stdout io.Writer) error {
	n, err := api.Store().CountAccounts(ctx)
	if err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	a := api.Auth()
	acct, err := a.CreateAccount(ctx, "admin@localhost", "Admin", "", store.Pro)
	if err != nil {
		return fmt.Errorf("create admin account: %w", err)
	}
	acct.Admin = true
	if err := api.Store().UpdateAccount(ctx, acct); err != nil {
		return err
	}
	key, _, err := a.CreateAPIKey(ctx, acct.ID, "admin", []string{auth.ScopeRead, auth.ScopeWrite}, time.Time{})
	if err != nil {
		return err
	}
	secret, client, err := a.CreateClient(ctx, acct.ID, "admin", nil, []string{auth.ScopeRead, auth.ScopeWrite})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Created account admin@localhost (Pro plan). These secrets are shown only once:\nAPI key: %s\nClient ID: %s\nClient secret: %s\n", key, client.ID, secret)
	return nil
}
