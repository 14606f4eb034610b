package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/mcpserver"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
)

// env is an API server on loopback with accounts and keys.
type env struct {
	t     testing.TB
	srv   *httpapi.Server
	ts    *httptest.Server
	acct  string
	key   string // read and write
	ro    string // read only, same account
	other string // read and write, another account
}

func newEnv(t testing.TB, opts *httpapi.Options) *env {
	t.Helper()
	ctx := context.Background()
	var o httpapi.Options
	if opts != nil {
		o = *opts
	}
	o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	st, err := sqlstore.Open(ctx, ":memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	o.Store = st
	srv, err := httpapi.New(ctx, &o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	e := &env{t: t, srv: srv, ts: ts}
	a, err := srv.Auth().CreateAccount(ctx, "a@example.com", "A", "", store.Free)
	if err != nil {
		t.Fatal(err)
	}
	e.acct = a.ID
	e.key = e.newKey(a.ID, auth.ScopeRead, auth.ScopeWrite)
	e.ro = e.newKey(a.ID, auth.ScopeRead)
	b, err := srv.Auth().CreateAccount(ctx, "b@example.com", "B", "", store.Free)
	if err != nil {
		t.Fatal(err)
	}
	e.other = e.newKey(b.ID, auth.ScopeRead, auth.ScopeWrite)
	return e
}

func (e *env) newKey(accountID string, perms ...string) string {
	e.t.Helper()
	key, _, err := e.srv.Auth().CreateAPIKey(context.Background(), accountID, "test", perms, time.Time{})
	if err != nil {
		e.t.Fatal(err)
	}
	return key
}

// headerTransport adds a credential to every request.
type headerTransport struct {
	name, value string
	base        http.RoundTripper
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.name, h.value)
	return h.base.RoundTrip(r)
}

// connect opens an MCP session over Streamable HTTP with an API key.
func (e *env) connect(key string, opts *mcp.ClientOptions) *mcp.ClientSession {
	e.t.Helper()
	return e.connectHeader("X-API-Key", key, opts)
}

func (e *env) connectHeader(name, value string, opts *mcp.ClientOptions) *mcp.ClientSession {
	e.t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "seokit-test", Version: "1"}, opts)
	tr := &mcp.StreamableClientTransport{Endpoint: e.ts.URL + "/mcp",
		HTTPClient: &http.Client{Transport: headerTransport{name, value, http.DefaultTransport}, Timeout: 60 * time.Second}, MaxRetries: -1}
	cs, err := c.Connect(context.Background(), tr, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { cs.Close() })
	return cs
}

// connectLong opens an MCP session whose HTTP client has no overall
// timeout: the session's standalone SSE stream (its notifications) stays
// open for as long as the session, which connect's 60 s client timeout
// would cut. The calls are bounded by the test's own deadline.
func (e *env) connectLong(key string, base http.RoundTripper) *mcp.ClientSession {
	e.t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "seokit-test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: e.ts.URL + "/mcp", MaxRetries: -1,
		HTTPClient: &http.Client{Transport: headerTransport{"X-API-Key", key, base}}}, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { cs.Close() })
	return cs
}

// v1 calls the API with key and returns the status and body.
func (e *env) v1(method, path, key, body string) (int, []byte) {
	e.t.Helper()
	req, err := http.NewRequest(method, e.ts.URL+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("X-API-Key", key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// post sends body to the API's path through client with the key and the
// header pairs hdr, fails t unless the answer is a 200, and returns
// the answer's JSON (the data of a one-event SSE stream, should the server
// send one).
func (e *env) post(t testing.TB, client *http.Client, path, body string, hdr ...string) []byte {
	t.Helper()
	req, _ := http.NewRequest("POST", e.ts.URL+path, strings.NewReader(body))
	req.Header.Set("X-API-Key", e.key)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%s: %d %v %.300s", path, resp.StatusCode, err, b)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		if i := bytes.Index(b, []byte("data: ")); i >= 0 {
			b = b[i+len("data: "):]
			if j := bytes.IndexByte(b, '\n'); j >= 0 {
				b = b[:j]
			}
		}
	}
	return b
}

// toolErr is the envelope of a refused call.
type toolErr struct {
	Code       string `json:"code"`
	Message    string `json:"message"`
	Status     int    `json:"status"`
	Field      string `json:"field"`
	RetryAfter int    `json:"retryAfter"`
}

// call calls a tool and decodes its structured content into out; it
// returns the refusal of an error result (nil on success).
func call(t *testing.T, cs *mcp.ClientSession, name string, args any, out any) *toolErr {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return decodeResult(t, name, res, out)
}

func decodeResult(t *testing.T, name string, res *mcp.CallToolResult, out any) *toolErr {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		var env struct {
			Error *toolErr `json:"error"`
		}
		if err := json.Unmarshal(b, &env); err != nil || env.Error == nil {
			t.Fatalf("%s: error result without the envelope: %s", name, b)
		}
		return env.Error
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: %v in %s", name, err, b)
		}
	}
	return nil
}

// gatedSite is a loopback site of a few pages whose /slow page answers
// only once release is closed.
type gatedSite struct {
	*httptest.Server
	release chan struct{}
	once    sync.Once
}

func newGatedSite(t testing.TB) *gatedSite {
	g := &gatedSite{release: make(chan struct{})}
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
			return
		case "/slow":
			select {
			case <-g.release:
			case <-r.Context().Done():
				return
			}
		case "/", "/a":
		default:
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html lang=en><head><title>Page %s</title></head><body><h1>Page</h1><a href="/a">a</a> <a href="/slow">slow</a><img src="/x.png"></body></html>`, r.URL.Path)
	}))
	t.Cleanup(func() { g.open(); g.Close() })
	return g
}

func (g *gatedSite) open() { g.once.Do(func() { close(g.release) }) }

// connectLocal runs srv over in-memory transports and returns a client
// session, as `cli mcp` serves a local client.
func connectLocal(t *testing.T, srv *mcpserver.Server) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "seokit-test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}
