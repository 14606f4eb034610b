package auth

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"
)

func BenchmarkAuthenticateJWT(b *testing.B) {
	e := newEnv(b, nil)
	tok, _, err := e.srv.issueToken(context.Background(), "acct_1", "cli_1", "", "", []string{"read"}, time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	r := httptest.NewRequest("GET", "/v1/whoami", nil)
	r.Header.Set("Authorization", "Bearer "+tok)
	for b.Loop() {
		if _, err := e.srv.Authenticate(r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAuthenticateAPIKey(b *testing.B) {
	e := newEnv(b, nil)
	a, err := e.srv.CreateAccount(context.Background(), "b@example.com", "B", "", "")
	if err != nil {
		b.Fatal(err)
	}
	key, _, err := e.srv.CreateAPIKey(context.Background(), a.ID, "k", []string{"read"}, time.Time{})
	if err != nil {
		b.Fatal(err)
	}
	r := httptest.NewRequest("GET", "/v1/whoami", nil)
	r.Header.Set("X-API-Key", key)
	for b.Loop() {
		if _, err := e.srv.Authenticate(r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRejectBadChecksum(b *testing.B) {
	e := newEnv(b, nil)
	key := newAPIKey()
	bad := key[:len(key)-1] + "!"
	r := httptest.NewRequest("GET", "/v1/whoami", nil)
	r.Header.Set("X-API-Key", bad)
	for b.Loop() {
		if _, err := e.srv.Authenticate(r); err == nil {
			b.Fatal("accepted")
		}
	}
}

func BenchmarkRejectDotToken(b *testing.B) {
	e := newEnv(b, nil)
	r := httptest.NewRequest("GET", "/v1/whoami", nil)
	r.Header.Set("Authorization", "Bearer "+dots(8000))
	for b.Loop() {
		if _, err := e.srv.Authenticate(r); err == nil {
			b.Fatal("accepted")
		}
	}
}

func dots(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = '.'
	}
	return string(b)
}
