package auth

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// countingStore counts the store calls Authenticate can make.
type countingStore struct {
	store.Store
	calls atomic.Int64
}

func (c *countingStore) KeyByHash(ctx context.Context, h []byte) (*store.APIKey, error) {
	c.calls.Add(1)
	return c.Store.KeyByHash(ctx, h)
}

func (c *countingStore) TouchKey(ctx context.Context, id string, at time.Time) error {
	c.calls.Add(1)
	return c.Store.TouchKey(ctx, id, at)
}

func (c *countingStore) TokenRevoked(ctx context.Context, jti string) (bool, error) {
	c.calls.Add(1)
	return c.Store.TokenRevoked(ctx, jti)
}

func (c *countingStore) FamilyRevoked(ctx context.Context, fam string) (bool, error) {
	c.calls.Add(1)
	return c.Store.FamilyRevoked(ctx, fam)
}

func (c *countingStore) SigningKeys(ctx context.Context, since time.Time) ([]store.SigningKey, error) {
	c.calls.Add(1)
	return c.Store.SigningKeys(ctx, since)
}

func (c *countingStore) Client(ctx context.Context, id string) (*store.Client, error) {
	c.calls.Add(1)
	return c.Store.Client(ctx, id)
}

// env is a Server over sqlstore, mounted on an httptest server with a
// /v1/whoami route that authenticates.
type env struct {
	t     testing.TB
	st    *countingStore
	sql   *sqlstore.Store
	srv   *Server
	ts    *httptest.Server
	clock *clock
}

const testPassword = "correct horse battery staple"

func newEnv(t testing.TB, opts *Options) *env {
	t.Helper()
	ctx := context.Background()
	sq, err := sqlstore.Open(ctx, ":memory:", nil)
	if err != nil {
		t.Fatalf("sqlstore.Open: %v", err)
	}
	t.Cleanup(func() { sq.Close() })
	e := &env{t: t, st: &countingStore{Store: sq}, sql: sq, clock: &clock{t: time.Now().UTC().Truncate(time.Second)}}
	var o Options
	if opts != nil {
		o = *opts
	}
	o.Now = e.clock.Now
	e.srv, err = New(ctx, e.st, &o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	mux := http.NewServeMux()
	e.srv.Register(mux)
	mux.HandleFunc("GET /v1/whoami", func(w http.ResponseWriter, r *http.Request) {
		p, err := e.srv.Authenticate(r)
		if err != nil {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			writeEnvelope(w, http.StatusUnauthorized, "unauthorized", err.Error())
			return
		}
		writeJSON(w, http.StatusOK, p)
	})
	// /mcp stands for a protected resource (Options.Resources "/mcp").
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		p, err := e.srv.AuthenticateResource(r, "/mcp")
		if err != nil {
			code := ""
			if errors.Is(err, ErrInvalidCredentials) {
				code = "invalid_token"
			}
			w.Header().Set("WWW-Authenticate", e.srv.ResourceChallenge("/mcp", code, "read", ""))
			writeEnvelope(w, http.StatusUnauthorized, "unauthorized", err.Error())
			return
		}
		writeJSON(w, http.StatusOK, p)
	})
	e.ts = httptest.NewServer(mux)
	t.Cleanup(e.ts.Close)
	return e
}

// account makes an account with testPassword.
func (e *env) account(email string) *store.Account {
	e.t.Helper()
	a, err := e.srv.CreateAccount(context.Background(), email, "Test", testPassword, store.Pro)
	if err != nil {
		e.t.Fatalf("CreateAccount: %v", err)
	}
	return a
}

// client makes a client of account a.
func (e *env) client(a *store.Account, redirects, scopes []string) (string, *store.Client) {
	e.t.Helper()
	secret, c, err := e.srv.CreateClient(context.Background(), a.ID, "Test App", redirects, scopes)
	if err != nil {
		e.t.Fatalf("CreateClient: %v", err)
	}
	return secret, c
}

// whoami calls /v1/whoami with the header set and returns the status and
// the principal when 200.
func (e *env) whoami(header, value string) (int, *Principal) {
	e.t.Helper()
	req, _ := http.NewRequest("GET", e.ts.URL+"/v1/whoami", nil)
	if header != "" {
		req.Header.Set(header, value)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatalf("whoami: %v", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return res.StatusCode, nil
	}
	var p Principal
	if err := json.NewDecoder(res.Body).Decode(&p); err != nil {
		e.t.Fatalf("decode principal: %v", err)
	}
	return res.StatusCode, &p
}

func (e *env) bearer(tok string) (int, *Principal) { return e.whoami("Authorization", "Bearer "+tok) }

func mustReq(t *testing.T, method, u string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func testNow() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
