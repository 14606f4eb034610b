package dashboard_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/seokit/seokit/httpapi/auth"
)

// addrTransport sends every request as if from addr.
type addrTransport string

func (a addrTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Test-Addr", string(a))
	return http.DefaultTransport.RoundTrip(r)
}

// TestLoginThrottleIsPerAddress: bad passwords for an account from one
// address throttle that address only; the owner signs in from another.
func TestLoginThrottleIsPerAddress(t *testing.T) {
	e := newEnv(t, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mux.ServeHTTP(w, r.WithContext(auth.WithClientAddr(r.Context(), r.Header.Get("X-Test-Addr"))))
	}))
	t.Cleanup(ts.Close)
	from := func(addr string) (*http.Client, string) {
		c := e.client(t)
		c.Transport = addrTransport(addr)
		_, body := get(t, c, ts.URL+"/dashboard/login")
		return c, csrfOf(t, body)
	}
	signIn := func(c *http.Client, csrf, password string) *http.Response {
		resp, _ := post(t, c, ts.URL+"/dashboard/login", url.Values{
			"csrf_token": {csrf}, "email": {testEmail}, "password": {password}, "next": {"/dashboard/"},
		})
		return resp
	}
	attacker, csrfA := from("203.0.113.1")
	for i := range auth.DefaultPairBurst {
		if resp := signIn(attacker, csrfA, "wrong password"); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("bad password %d: status %d, want 401", i, resp.StatusCode)
		}
	}
	resp := signIn(attacker, csrfA, testPassword)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Errorf("right password from the guessing address: status %d, Retry-After %q; want 429 with Retry-After",
			resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	owner, csrfB := from("198.51.100.2")
	if resp := signIn(owner, csrfB, testPassword); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("owner from another address: status %d, want 303", resp.StatusCode)
	}
}
