package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
)

// tsSDKEnv names the node_modules directory holding
// @modelcontextprotocol/sdk (.ci/run installs it outside the repository).
const tsSDKEnv = "SEOKIT_MCP_TS_SDK"

// needTSSDK returns node and the SDK's node_modules directory, or skips
// (fails under SEOKIT_REQUIRE_SERVERS=1) when either is missing.
func needTSSDK(t *testing.T) (node, modules string) {
	t.Helper()
	missing := func(why string) {
		if os.Getenv("SEOKIT_REQUIRE_SERVERS") == "1" {
			t.Fatalf("%s (SEOKIT_REQUIRE_SERVERS=1)", why)
		}
		t.Skip(why)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not installed: the TypeScript SDK interoperability test needs it")
	}
	modules = os.Getenv(tsSDKEnv)
	if modules == "" {
		missing(tsSDKEnv + " is not set: set it to a node_modules directory with @modelcontextprotocol/sdk (npm install @modelcontextprotocol/sdk@1.32.2)")
	}
	if _, err := os.Stat(filepath.Join(modules, "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		missing(fmt.Sprintf("%s=%s has no @modelcontextprotocol/sdk: %v", tsSDKEnv, modules, err))
	}
	return node, modules
}

// interopSite is a loopback site of four pages whose /slow page is held
// until /release is fetched, so a site analysis of it is running when a
// client follows its progress.
type interopSite struct {
	ts       *httptest.Server
	release  chan struct{}
	once     sync.Once
	released bool
}

func newInteropSite(t *testing.T) *interopSite {
	s := &interopSite{release: make(chan struct{})}
	page := func(title, body string) string {
		return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>` + title + `</title>` +
			`<meta name="description" content="A page of the interoperability test site, long enough to be a description."></head>` +
			`<body><h1>` + title + `</h1>` + body + `</body></html>`
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "User-agent: *\nAllow: /\n") })
	mux.HandleFunc("/release", func(w http.ResponseWriter, r *http.Request) {
		s.once.Do(func() { s.released = true; close(s.release) })
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-s.release:
		case <-r.Context().Done():
			return
		case <-time.After(50 * time.Second): // the client never followed the progress: the test fails on it
		}
		fmt.Fprint(w, page("Slow", `<p>Served once the client saw progress.</p><a href="/">Home</a>`))
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, page("Home", `<p>Home.</p><a href="/a">A</a> <a href="/b">B</a> <a href="/slow">Slow</a>`))
		case "/a":
			fmt.Fprint(w, page("A", `<p>Page A.</p><img src="/missing.png"><a href="/">Home</a>`))
		case "/b":
			fmt.Fprint(w, page("", `<p>Page B has no title.</p><a href="/">Home</a>`))
		default:
			http.NotFound(w, r)
		}
	})
	s.ts = httptest.NewServer(mux)
	t.Cleanup(func() {
		s.once.Do(func() { close(s.release) })
		s.ts.Close()
	})
	return s
}

// interopResult is what mcp_interop.mjs prints.
type interopResult struct {
	Exchanges []struct {
		Method string   `json:"method"`
		Path   string   `json:"path"`
		Status int      `json:"status"`
		Params []string `json:"params"`
		WWW    string   `json:"www"`
	} `json:"exchanges"`
	AuthorizationURL string   `json:"authorizationURL"`
	ISS              string   `json:"iss"`
	ClientID         string   `json:"clientID"`
	Aud              any      `json:"aud"`
	Scope            string   `json:"scope"`
	Tools            []string `json:"tools"`
	ToolListBytes    int      `json:"toolListBytes"`
	Page             struct {
		URL      string `json:"url"`
		Status   int    `json:"status"`
		Findings int    `json:"findings"`
	} `json:"page"`
	AnalysisID string `json:"analysisID"`
	Progress   []struct {
		Progress float64 `json:"progress"`
		Total    float64 `json:"total"`
		Message  string  `json:"message"`
	} `json:"progress"`
	Final struct {
		Status   string `json:"status"`
		Pages    *int   `json:"pages"`
		Checks   *int   `json:"checks"`
		TimedOut bool   `json:"timedOut"`
	} `json:"final"`
	FindingPages []struct {
		Total    int      `json:"total"`
		Returned int      `json:"returned"`
		IDs      []string `json:"ids"`
	} `json:"findingPages"`
	Report struct {
		URI      string `json:"uri"`
		MimeType string `json:"mimeType"`
		Bytes    int    `json:"bytes"`
		Pages    *int   `json:"pages"`
	} `json:"report"`
}

// TestMCPInteropTypeScriptSDK: the official TypeScript SDK
// (@modelcontextprotocol/sdk, driven by testdata/mcp_interop.mjs)
// connects to the server's /mcp over Streamable HTTP on loopback, runs the
// whole OAuth flow itself (the 401's resource_metadata, protected resource
// and authorization server metadata, dynamic registration, PKCE S256, the
// resource indicator on the authorization and token requests), with the
// consent given by a signed-in user, then lists the tools, analyses a
// page, starts a site analysis, follows its progress notifications, pages
// through its findings and reads its report resource.
func TestMCPInteropTypeScriptSDK(t *testing.T) {
	node, modules := needTSSDK(t)
	ctx := context.Background()
	site := newInteropSite(t)

	st, err := sqlstore.Open(ctx, ":memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	var signedIn string // the account the consent page sees signed in
	au, err := auth.New(ctx, st, &auth.Options{BaseURL: base, Resources: []string{MCPPath},
		SessionAccount: func(*http.Request) (string, bool) { return signedIn, signedIn != "" }})
	if err != nil {
		t.Fatal(err)
	}
	acct, err := au.CreateAccount(ctx, "agent-owner@example.com", "Owner", "", store.Pro)
	if err != nil {
		t.Fatal(err)
	}
	signedIn = acct.ID
	logs := &syncBuffer{}
	srv, err := New(ctx, &Options{Store: st, Auth: au, AllowPrivate: true, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("serve: %v", err)
		}
	})

	// The script runs beside the SDK's node_modules, where node's module
	// resolution finds it.
	dir := t.TempDir()
	script, err := os.ReadFile(filepath.Join("testdata", "mcp_interop.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mcp_interop.mjs"), script, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(rctx, node, filepath.Join(dir, "mcp_interop.mjs"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "MCP_URL="+base+MCPPath, "SITE_URL="+site.ts.URL, "RELEASE_URL="+site.ts.URL+"/release")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("node mcp_interop.mjs: %v\nstderr:\n%s\nstdout:\n%s\nserver log (tail):\n%s", err, stderr.String(), stdout.String(), tail(logs.String(), 3000))
	}
	elapsed := time.Since(start)
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	var res interopResult
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil {
		t.Fatalf("script output: %v\n%s", err, stdout.String())
	}

	// The OAuth flow, as the SDK ran it.
	resource := base + MCPPath
	var seq []string
	for _, e := range res.Exchanges {
		seq = append(seq, fmt.Sprintf("%s %s %d", e.Method, e.Path, e.Status))
	}
	first := res.Exchanges[0]
	if first.Path != MCPPath || first.Status != http.StatusUnauthorized || !strings.Contains(first.WWW, `resource_metadata="`+base+`/.well-known/oauth-protected-resource/mcp"`) {
		t.Errorf("first exchange %+v: want 401 from /mcp naming the resource metadata", first)
	}
	for _, want := range []string{
		"GET /.well-known/oauth-protected-resource/mcp 200",
		"GET /.well-known/oauth-authorization-server 200",
		"POST /v1/oauth/register 201",
		"POST /v1/oauth/token 200",
	} {
		if !slices.Contains(seq, want) {
			t.Errorf("the SDK's exchanges lack %q: %v", want, seq)
		}
	}
	for _, e := range res.Exchanges {
		if e.Path == "/v1/oauth/token" && e.Status == 200 {
			for _, p := range []string{"code_verifier", "resource", "client_id"} {
				if !slices.Contains(e.Params, p) {
					t.Errorf("token request without %s: %v", p, e.Params)
				}
			}
			if slices.Contains(e.Params, "client_secret") {
				t.Errorf("a public client sent a secret: %v", e.Params)
			}
		}
	}
	au2, _ := url.Parse(res.AuthorizationURL)
	q := au2.Query()
	if q.Get("code_challenge_method") != "S256" || len(q.Get("code_challenge")) != 43 || q.Get("resource") != resource || q.Get("client_id") != res.ClientID {
		t.Errorf("authorization request %s: want PKCE S256 and resource %s", res.AuthorizationURL, resource)
	}
	if res.ISS != base {
		t.Errorf("authorization response iss %q, want %q", res.ISS, base)
	}
	if fmt.Sprint(res.Aud) != resource && fmt.Sprint(res.Aud) != "["+resource+"]" {
		t.Errorf("access token aud %v, want %s", res.Aud, resource)
	}
	c, err := st.Client(ctx, res.ClientID)
	if err != nil || c.AccountID != auth.RegistryAccountID || len(c.SecretHash) != 0 {
		t.Errorf("registered client %+v, %v: want a public client of the registry", c, err)
	}

	// The MCP session.
	for _, name := range []string{"analyze_page", "start_site_analysis", "wait_site_analysis", "site_findings"} {
		if !slices.Contains(res.Tools, name) {
			t.Errorf("tools/list lacks %s: %v", name, res.Tools)
		}
	}
	if res.Page.Status != http.StatusOK || res.Page.URL != site.ts.URL+"/a" {
		t.Errorf("analyze_page: %+v", res.Page)
	}
	if len(res.Progress) == 0 || !site.released {
		t.Errorf("no progress notification reached the client (released %v)", site.released)
	}
	if res.Final.Status != "succeeded" || res.Final.Pages == nil || *res.Final.Pages < 4 || res.Final.TimedOut {
		t.Errorf("site analysis ended %+v, want succeeded with the 4 pages", res.Final)
	}
	total, seen := 0, map[string]bool{}
	for i, p := range res.FindingPages {
		if i == 0 {
			total = p.Total
		}
		if p.Total != total || p.Returned != len(p.IDs) || p.Returned > 1 {
			t.Errorf("findings page %d: %+v", i, p)
		}
		for _, id := range p.IDs {
			if seen[id] {
				t.Errorf("finding %s on two pages", id)
			}
			seen[id] = true
		}
	}
	if total == 0 || len(seen) != total || len(res.FindingPages) != total {
		t.Errorf("paged %d findings over %d pages, the first page said %d", len(seen), len(res.FindingPages), total)
	}
	if res.Report.URI != "seokit://analyses/"+res.AnalysisID+"/report" || res.Report.Bytes == 0 || res.Report.Pages == nil || *res.Report.Pages < 4 {
		t.Errorf("report resource: %+v", res.Report)
	}
	t.Logf("mcp interop (TypeScript SDK): %d HTTP exchanges, %d tools (tools/list %d bytes), %d progress notifications, %d findings paged one per call, report %d bytes, %s",
		len(res.Exchanges), len(res.Tools), res.ToolListBytes, len(res.Progress), len(seen), res.Report.Bytes, elapsed.Round(time.Millisecond))
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
