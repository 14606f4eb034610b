package auth

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

func TestAPIKeyFormat(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		k := newAPIKey()
		if len(k) != 45 || !strings.HasPrefix(k, "seo_live_") || !ValidKeyFormat(k) {
			t.Fatalf("bad key %q", k)
		}
		if seen[k] {
			t.Fatal("duplicate key")
		}
		seen[k] = true
	}
	k := newAPIKey()
	flip := func(i int) string {
		b := []byte(k)
		if b[i] == 'a' {
			b[i] = 'b'
		} else {
			b[i] = 'a'
		}
		return string(b)
	}
	for name, bad := range map[string]string{
		"random char changed":   flip(12),
		"checksum char changed": flip(len(k) - 1),
		"short":                 k[:len(k)-1],
		"long":                  k + "0",
		"other prefix":          "seo_test_" + k[9:],
		"non-base62":            k[:20] + "-" + k[21:],
		"empty":                 "",
	} {
		if ValidKeyFormat(bad) {
			t.Errorf("%s: %q accepted", name, bad)
		}
	}
}

func TestAPIKeyAuthentication(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	a := e.account("k@example.com")
	key, rec, err := e.srv.CreateAPIKey(ctx, a.ID, "ci", []string{"read", "analyze"}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Prefix != key[:13] || bytes.Contains(rec.Hash, []byte(key)) {
		t.Fatalf("record %+v", rec)
	}

	t.Run("header", func(t *testing.T) {
		st, p := e.whoami("X-API-Key", key)
		if st != 200 || p.AccountID != a.ID || p.Method != MethodAPIKey || p.KeyID != rec.ID {
			t.Fatalf("%d %+v", st, p)
		}
		if !p.Allowed(ScopeRead, OpAnalyze) || p.Allowed(ScopeRead, OpKeywords) || p.Allowed(ScopeWrite, OpAnalyze) {
			t.Errorf("permissions of %v wrong", p.Permissions)
		}
	})
	t.Run("query", func(t *testing.T) {
		res, err := http.Get(e.ts.URL + "/v1/whoami?api_key=" + url.QueryEscape(key))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("status %d", res.StatusCode)
		}
	})
	t.Run("bad checksum never reaches the store", func(t *testing.T) {
		b := []byte(key)
		if b[len(b)-1] == 'x' {
			b[len(b)-1] = 'y'
		} else {
			b[len(b)-1] = 'x'
		}
		before := e.st.calls.Load()
		for range 100 {
			r := httptest.NewRequest("GET", "/v1/whoami", nil)
			r.Header.Set("X-API-Key", string(b))
			if _, err := e.srv.Authenticate(r); !errors.Is(err, ErrInvalidCredentials) {
				t.Fatalf("err = %v", err)
			}
		}
		if st, _ := e.whoami("X-API-Key", string(b)); st != 401 {
			t.Errorf("status %d", st)
		}
		if got := e.st.calls.Load() - before; got != 0 {
			t.Errorf("%d store calls for bad checksums, want 0", got)
		}
	})
	t.Run("unknown well-formed key is looked up and refused", func(t *testing.T) {
		before := e.st.calls.Load()
		if st, _ := e.whoami("X-API-Key", newAPIKey()); st != 401 {
			t.Errorf("status %d", st)
		}
		if got := e.st.calls.Load() - before; got != 1 {
			t.Errorf("%d store calls, want 1 (KeyByHash)", got)
		}
	})
	t.Run("expired", func(t *testing.T) {
		k2, _, err := e.srv.CreateAPIKey(ctx, a.ID, "short", []string{"write"}, e.clock.Now().Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if st, _ := e.whoami("X-API-Key", k2); st != 200 {
			t.Fatalf("before expiry: %d", st)
		}
		e.clock.Advance(time.Hour)
		defer e.clock.Advance(-time.Hour)
		if st, _ := e.whoami("X-API-Key", k2); st != 401 {
			t.Errorf("after expiry: %d", st)
		}
	})
	t.Run("revoked", func(t *testing.T) {
		k3, r3, err := e.srv.CreateAPIKey(ctx, a.ID, "old", []string{"write"}, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.sql.RevokeKey(ctx, a.ID, r3.ID, e.clock.Now()); err != nil {
			t.Fatal(err)
		}
		if st, _ := e.whoami("X-API-Key", k3); st != 401 {
			t.Errorf("revoked: %d", st)
		}
	})
	t.Run("no plaintext in the database", func(t *testing.T) {
		clientSecret, _ := e.client(a, nil, nil)
		dump, err := e.sql.Dump(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range []string{key, key[13:], clientSecret, testPassword} {
			if bytes.Contains(dump, []byte(secret)) {
				t.Errorf("dump contains secret %q", secret[:12])
			}
		}
	})
}

func TestCreateAPIKeyValidation(t *testing.T) {
	e := newEnv(t, nil)
	a := e.account("v@example.com")
	tests := []struct {
		name  string
		perms []string
		exp   time.Time
		field string
	}{
		{"unknown permission", []string{"read", "admin"}, time.Time{}, "permissions"},
		{"operation only", []string{"analyze"}, time.Time{}, "permissions"},
		{"none", nil, time.Time{}, "permissions"},
		{"expiry in the past", []string{"read"}, time.Unix(1, 0), "expiresAt"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := e.srv.CreateAPIKey(context.Background(), a.ID, "k", tc.perms, tc.exp)
			ie, ok := seo.AsInputError(err)
			if !ok || ie.Field != tc.field {
				t.Errorf("err = %v, want InputError on %s", err, tc.field)
			}
		})
	}
	_, rec, err := e.srv.CreateAPIKey(context.Background(), a.ID, "k", []string{"write", "read", "write", "reports"}, time.Time{})
	if err != nil || strings.Join(rec.Permissions, ",") != "write,read,reports" {
		t.Errorf("dedupe: %v %v", rec, err)
	}
}

func TestAllowed(t *testing.T) {
	tests := []struct {
		name      string
		perms     []string
		scope, op string
		want      bool
	}{
		{"read reads", []string{"read"}, "read", "keywords", true},
		{"read cannot write", []string{"read"}, "write", "analyze", false},
		{"write implies read", []string{"write"}, "read", "reports", true},
		{"write writes", []string{"write"}, "write", "optimize", true},
		{"operation restricts", []string{"write", "analyze"}, "write", "optimize", false},
		{"operation allows", []string{"write", "analyze"}, "write", "analyze", true},
		{"operation within read", []string{"read", "analyze"}, "write", "analyze", false},
		{"nothing", nil, "read", "analyze", false},
		{"unknown scope", []string{"read", "write"}, "admin", "analyze", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &Principal{Permissions: tc.perms}
			if got := p.Allowed(tc.scope, tc.op); got != tc.want {
				t.Errorf("Allowed(%s, %s) with %v = %v", tc.scope, tc.op, tc.perms, got)
			}
		})
	}
	var nilP *Principal
	if nilP.Allowed("read", "analyze") {
		t.Error("nil principal allowed")
	}
}

func TestRedaction(t *testing.T) {
	k := newAPIKey()
	u, _ := url.Parse("/v1/analyze?url=https%3A%2F%2Fexample.com&api_key=" + k + "&b=2&api%5Fkey=" + k)
	got := RedactQuery(u)
	if strings.Contains(got, k) || !strings.Contains(got, "api_key=REDACTED") || !strings.Contains(got, "url=https%3A%2F%2Fexample.com") || !strings.Contains(got, "b=2") {
		t.Errorf("RedactQuery = %q", got)
	}
	if u.RawQuery == "" || !strings.Contains(u.RawQuery, k) {
		t.Error("RedactQuery modified its argument")
	}
	h := http.Header{"X-Api-Key": {k}, "Authorization": {"Bearer x"}, "Accept": {"a"}}
	rh := RedactHeader(h)
	if rh.Get("X-API-Key") != Redacted || rh.Get("Authorization") != Redacted || rh.Get("Accept") != "a" || h.Get("X-API-Key") != k {
		t.Errorf("RedactHeader = %v", rh)
	}
}

func TestNoCredentials(t *testing.T) {
	e := newEnv(t, nil)
	r := httptest.NewRequest("GET", "/v1/whoami", nil)
	if _, err := e.srv.Authenticate(r); !errors.Is(err, ErrNoCredentials) {
		t.Errorf("err = %v", err)
	}
}

func TestStoreFailureIsUnavailable(t *testing.T) {
	e := newEnv(t, nil)
	key, _, err := e.srv.CreateAPIKey(context.Background(), e.account("u@example.com").ID, "k", []string{"read"}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	e.sql.Close()
	r := httptest.NewRequest("GET", "/v1/whoami", nil)
	r.Header.Set("X-API-Key", key)
	if _, err := e.srv.Authenticate(r); !errors.Is(err, store.ErrUnavailable) || errors.Is(err, ErrInvalidCredentials) {
		t.Errorf("err = %v, want store.ErrUnavailable", err)
	}
}
