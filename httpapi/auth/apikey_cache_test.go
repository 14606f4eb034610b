package auth

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

// authKey authenticates key against srv directly.
func authKey(srv *Server, key string) (*Principal, error) {
	r := httptest.NewRequest("GET", "/v1/whoami", nil)
	r.Header.Set("X-API-Key", key)
	return srv.Authenticate(r)
}

func TestKeyCacheSkipsTheStore(t *testing.T) {
	tests := []struct {
		name      string
		ttl       time.Duration
		wantCalls int64 // store calls of the 10 requests after the first
	}{
		{"default TTL", 0, 0},
		{"cache off", -1, 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, &Options{KeyCacheTTL: tc.ttl})
			a := e.account("c@example.com")
			key, rec, err := e.srv.CreateAPIKey(context.Background(), a.ID, "k", []string{"read", "keywords"}, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := authKey(e.srv, key); err != nil {
				t.Fatal(err)
			}
			before := e.st.calls.Load()
			for range 10 {
				p, err := authKey(e.srv, key)
				if err != nil {
					t.Fatal(err)
				}
				if p.AccountID != a.ID || p.KeyID != rec.ID || !p.Allowed(ScopeRead, OpKeywords) || p.Allowed(ScopeRead, OpReports) {
					t.Fatalf("principal %+v", p)
				}
				p.Permissions[0] = "write" // a caller's change must not reach the cache
			}
			if got := e.st.calls.Load() - before; got != tc.wantCalls {
				t.Errorf("%d store calls for 10 repeated requests, want %d", got, tc.wantCalls)
			}
			if p, _ := authKey(e.srv, key); p == nil || p.Allowed(ScopeWrite, OpKeywords) {
				t.Errorf("cached permissions changed by a caller: %+v", p)
			}
		})
	}
}

// TestKeyCacheRevocation: a key revoked through a Server is refused by it
// at once; another Server over the same store (another instance) accepts
// its cached copy for at most KeyCacheTTL.
func TestKeyCacheRevocation(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	other, err := New(ctx, e.st, &Options{Now: e.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	a := e.account("r@example.com")
	key, rec, err := e.srv.CreateAPIKey(ctx, a.ID, "k", []string{"read"}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	for _, srv := range []*Server{e.srv, other} {
		if _, err := authKey(srv, key); err != nil {
			t.Fatal(err)
		}
	}
	e.clock.Advance(2 * time.Second)
	if err := e.srv.RevokeAPIKey(ctx, a.ID, rec.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := authKey(e.srv, key); !errors.Is(err, ErrInvalidCredentials) {
		t.Errorf("revoking server: err = %v, want ErrInvalidCredentials at once", err)
	}
	if st, _ := e.whoami("X-API-Key", key); st != 401 {
		t.Errorf("revoking server over HTTP: %d, want 401", st)
	}
	// The other instance verified the key 2 s ago: it may accept it until
	// 10 s after that verification, never later.
	if _, err := authKey(other, key); err != nil {
		t.Errorf("other instance within its TTL: %v (the documented window allows acceptance)", err)
	}
	e.clock.Advance(DefaultKeyCacheTTL - 2*time.Second)
	if _, err := authKey(other, key); !errors.Is(err, ErrInvalidCredentials) {
		t.Errorf("other instance %v after verification: err = %v, want ErrInvalidCredentials", DefaultKeyCacheTTL, err)
	}
}

func TestRevokeAPIKeyErrors(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	a, b := e.account("a@example.com"), e.account("b@example.com")
	key, rec, err := e.srv.CreateAPIKey(ctx, a.ID, "k", []string{"read"}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, account, id string
		notFound          bool
		field             string
	}{
		{"another account's key", b.ID, rec.ID, true, ""},
		{"no such key", a.ID, "key_missing", true, ""},
		{"empty account", "", rec.ID, false, "accountId"},
		{"empty id", a.ID, "", false, "id"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := e.srv.RevokeAPIKey(ctx, tc.account, tc.id)
			if tc.notFound && !errors.Is(err, store.ErrNotFound) {
				t.Errorf("err = %v, want ErrNotFound", err)
			}
			if ie, ok := seo.AsInputError(err); tc.field != "" && (!ok || ie.Field != tc.field) {
				t.Errorf("err = %v, want an input error on %s", err, tc.field)
			}
			if _, err := authKey(e.srv, key); err != nil {
				t.Errorf("key refused after a failed revocation: %v", err)
			}
		})
	}
}

// TestKeyCacheExpiryOnHit: a cached key past its expiry is refused.
func TestKeyCacheExpiryOnHit(t *testing.T) {
	e := newEnv(t, &Options{KeyCacheTTL: time.Minute})
	ctx := context.Background()
	a := e.account("x@example.com")
	key, _, err := e.srv.CreateAPIKey(ctx, a.ID, "k", []string{"read"}, e.clock.Now().Add(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := authKey(e.srv, key); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(5 * time.Second)
	if _, err := authKey(e.srv, key); !errors.Is(err, ErrInvalidCredentials) {
		t.Errorf("expired key served from the cache: err = %v", err)
	}
}

// TestKeyCacheLookupRacingRevocation: a store read that began before a
// revocation is not cached afterwards.
func TestKeyCacheLookupRacingRevocation(t *testing.T) {
	c := newKeyCache(time.Minute, 10)
	now := time.Now()
	h := sha256.Sum256([]byte("k"))
	k := &store.APIKey{ID: "key_1", AccountID: "acct_1", Permissions: []string{"read"}}
	epoch := c.epoch()
	c.drop("key_1") // revoked while the lookup was in flight
	c.put(h, k, epoch, now)
	if _, ok := c.get(h, now); ok {
		t.Error("a lookup older than a revocation was cached")
	}
	c.put(h, k, c.epoch(), now)
	if _, ok := c.get(h, now); !ok {
		t.Error("a fresh lookup was not cached")
	}
}

func TestKeyCacheBounded(t *testing.T) {
	c := newKeyCache(time.Minute, 100)
	now := time.Now()
	for i := range 1000 {
		id := fmt.Sprintf("key_%d", i)
		c.put(sha256.Sum256([]byte(id)), &store.APIKey{ID: id}, c.epoch(), now)
		if n := c.len(); n > 100 {
			t.Fatalf("%d cached keys after %d puts, bound 100", n, i+1)
		}
	}
	if c.byKey.Len() != c.len() {
		t.Errorf("index of %d ids for %d keys", c.byKey.Len(), c.len())
	}
}

// TestKeyCacheDropAfterEvictions: a key kept in the cache by its use is
// still found by ID when it is revoked after many other keys came and
// went, and the least recently used keys are the ones dropped.
func TestKeyCacheDropAfterEvictions(t *testing.T) {
	c := newKeyCache(time.Minute, 10)
	now := time.Now()
	hot := &store.APIKey{ID: "key_hot"}
	hh := sha256.Sum256([]byte(hot.ID))
	c.put(hh, hot, c.epoch(), now)
	for i := range 100 {
		id := fmt.Sprintf("key_%d", i)
		c.put(sha256.Sum256([]byte(id)), &store.APIKey{ID: id}, c.epoch(), now)
		if _, ok := c.get(hh, now); !ok {
			t.Fatalf("a key used on every request was dropped after %d other keys", i+1)
		}
	}
	if _, ok := c.get(sha256.Sum256([]byte("key_0")), now); ok {
		t.Error("the least recently used key was kept")
	}
	c.drop(hot.ID)
	if _, ok := c.get(hh, now); ok {
		t.Error("a revoked key is still cached")
	}
	if c.byKey.Len() != c.len() {
		t.Errorf("index of %d ids for %d keys", c.byKey.Len(), c.len())
	}
}

// TestTouchBounded: the map of last touches holds at most maxTouched keys
// and a key is written to the store at most once a minute.
func TestTouchBounded(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	now := e.clock.Now()
	for i := range maxTouched + 100 {
		e.srv.touch(ctx, fmt.Sprintf("key_%d", i), now)
	}
	if n := e.srv.touched.Len(); n != maxTouched {
		t.Errorf("%d touched keys, bound %d", n, maxTouched)
	}
	last := fmt.Sprintf("key_%d", maxTouched+99)
	before := e.st.calls.Load()
	e.srv.touch(ctx, last, now.Add(time.Second))
	if got := e.st.calls.Load() - before; got != 0 {
		t.Errorf("%d store calls for a key touched a second ago, want 0", got)
	}
	e.srv.touch(ctx, last, now.Add(time.Minute))
	if got := e.st.calls.Load() - before; got != 1 {
		t.Errorf("%d store calls for a key touched a minute ago, want 1", got)
	}
}
