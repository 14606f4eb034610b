package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
)

// recordExchange, when set, sees every request the tests make and its
// response (an OpenAPI contract test validates them). Tests that set it
// must not run in parallel with others that depend on it being nil.
var recordExchange func(req *http.Request, reqBody []byte, resp *http.Response, respBody []byte)

// recordingTransport reads both bodies, hands them to recordExchange and
// gives the caller fresh readers.
type recordingTransport struct{ base http.RoundTripper }

func (t recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var reqBody []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		reqBody = b
		req.Body = io.NopCloser(bytes.NewReader(b))
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	respBody, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(respBody))
	if hook := recordExchange; hook != nil {
		r2 := req.Clone(req.Context())
		r2.Body = io.NopCloser(bytes.NewReader(reqBody))
		resp2 := *resp
		resp2.Body = io.NopCloser(bytes.NewReader(respBody))
		hook(r2, reqBody, &resp2, respBody)
	}
	resp.Body = io.NopCloser(bytes.NewReader(respBody))
	return resp, nil
}

// testPeerHeader lets a test pretend the TCP peer is another address; the
// helper's wrapper moves it into RemoteAddr before the API sees the request.
const testPeerHeader = "X-Test-Peer"

// testAPI is a Server behind an httptest server, with an account "A"
// (Free plan) holding a read+write key.
type testAPI struct {
	t      *testing.T
	srv    *Server
	ts     *httptest.Server
	client *http.Client
	st     store.Store
	acct   *store.Account
	key    string
	logs   *syncBuffer
}

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type apiConfig struct {
	tls bool
	// keep: do not close the store at cleanup (restart tests).
	noAccount bool
}

// newTestAPI starts a Server with opts (nil: defaults over a fresh
// in-memory store with AllowPrivate) and creates account A with a key.
func newTestAPI(t *testing.T, opts *Options, cfgs ...apiConfig) *testAPI {
	t.Helper()
	var cfg apiConfig
	if len(cfgs) > 0 {
		cfg = cfgs[0]
	}
	ctx := context.Background()
	var o Options
	if opts != nil {
		o = *opts
	}
	logs := &syncBuffer{}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(logs, nil))
	}
	if o.Store == nil {
		st, err := sqlstore.Open(ctx, ":memory:", nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		o.Store = st
	}
	srv, err := New(ctx, &o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.Header.Get(testPeerHeader); p != "" {
			r.RemoteAddr = p
			r.Header.Del(testPeerHeader)
		}
		srv.ServeHTTP(w, r)
	})
	var ts *httptest.Server
	if cfg.tls {
		ts = httptest.NewTLSServer(h)
	} else {
		ts = httptest.NewServer(h)
	}
	t.Cleanup(ts.Close)
	a := &testAPI{t: t, srv: srv, ts: ts, st: o.Store, logs: logs}
	a.client = &http.Client{Transport: recordingTransport{base: ts.Client().Transport}, Timeout: 60 * time.Second}
	if !cfg.noAccount && srv.Auth() != nil {
		a.acct, a.key = a.account("a@example.com", store.Free, auth.ScopeRead, auth.ScopeWrite)
	}
	return a
}

// account creates an account and a key with perms.
func (a *testAPI) account(email string, plan store.Plan, perms ...string) (*store.Account, string) {
	a.t.Helper()
	ctx := context.Background()
	acct, err := a.srv.Auth().CreateAccount(ctx, email, email, "", plan)
	if err != nil {
		a.t.Fatal(err)
	}
	return acct, a.newKey(acct.ID, perms...)
}

func (a *testAPI) newKey(accountID string, perms ...string) string {
	a.t.Helper()
	key, _, err := a.srv.Auth().CreateAPIKey(context.Background(), accountID, "test", perms, time.Time{})
	if err != nil {
		a.t.Fatal(err)
	}
	return key
}

// do sends req (a path relative to the server is completed) and returns
// the response with its body buffered.
func (a *testAPI) do(req *http.Request) *http.Response {
	a.t.Helper()
	resp, err := a.send(req)
	if err != nil {
		a.t.Fatal(err)
	}
	return resp
}

// send is do for goroutines other than the test's: it returns the error
// instead of ending the test.
func (a *testAPI) send(req *http.Request) (*http.Response, error) {
	if req.URL.Host == "" {
		u := a.ts.URL + req.URL.String()
		r2, err := http.NewRequestWithContext(req.Context(), req.Method, u, req.Body)
		if err != nil {
			return nil, err
		}
		r2.Header = req.Header
		req = r2
	}
	resp, err := a.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", req.Method, req.URL, err)
	}
	return resp, nil
}

// req builds a request; body "" sends none; key "" sends no credential.
func (a *testAPI) req(method, path, key, body string) *http.Request {
	a.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	r, err := http.NewRequest(method, path, rd)
	if err != nil {
		a.t.Fatal(err)
	}
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		r.Header.Set("X-API-Key", key)
	}
	return r
}

// call is do(req(...)).
func (a *testAPI) call(method, path, key, body string) *http.Response {
	a.t.Helper()
	return a.do(a.req(method, path, key, body))
}

// readJSON decodes the response body into v.
func readJSON(t *testing.T, resp *http.Response, v any) {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, b)
	}
}

// apiErr reads an error envelope and checks its status and code.
func apiErr(t *testing.T, resp *http.Response, status int, code string) Error {
	t.Helper()
	if resp.StatusCode != status {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d, want %d; body %s", resp.StatusCode, status, b)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type %q", ct)
	}
	var env struct {
		Error *Error `json:"error"`
	}
	readJSON(t, resp, &env)
	if env.Error == nil {
		t.Fatal("no error member")
	}
	if env.Error.Code != code || env.Error.Status != status || env.Error.Message == "" {
		t.Fatalf("error %+v, want code %s status %d", env.Error, code, status)
	}
	if env.Error.RequestID == "" || env.Error.RequestID != resp.Header.Get("X-Request-Id") {
		t.Errorf("requestId %q, header %q", env.Error.RequestID, resp.Header.Get("X-Request-Id"))
	}
	return *env.Error
}

// wantStatus fails unless resp has status.
func wantStatus(t *testing.T, resp *http.Response, status int) {
	t.Helper()
	if resp.StatusCode != status {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d, want %d; body %s", resp.StatusCode, status, b)
	}
}

// clock is an adjustable time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

type netipPrefix = netip.Prefix

func mustPrefix(s string) netip.Prefix { return netip.MustParsePrefix(s) }

// storeSiteJob stores a finished site analysis of domain with rep as its
// report, created at the given time.
func (a *testAPI) storeSiteJob(accountID, domain string, status store.JobStatus, rep *crawler.SiteReport, at time.Time) string {
	a.t.Helper()
	ctx := context.Background()
	req, _ := json.Marshal(SiteRequest{Domain: domain})
	j := &store.Job{AccountID: accountID, Kind: "site", Status: store.JobQueued, Request: req, CreatedAt: at}
	if err := a.st.CreateJob(ctx, j); err != nil {
		a.t.Fatal(err)
	}
	j.Status, j.FinishedAt = status, at
	if rep != nil {
		j.Result, _ = json.Marshal(rep)
	}
	if err := a.st.UpdateJob(ctx, j); err != nil {
		a.t.Fatal(err)
	}
	return j.ID
}
