package httpapi

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/store"
)

// TestMCPCallEndsWithItsRequest: an MCP tool call whose client
// disconnects stops: its page analysis frees the account's slot at once,
// as the same analysis through /v1 does, instead of running on in the
// session until it ends by itself.
func TestMCPCallEndsWithItsRequest(t *testing.T) {
	a := newTestAPI(t, &Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Free: 1000}})
	site := newBlockingSite(t)
	post := func(ctx context.Context, session, body string) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, "POST", a.ts.URL+"/mcp", strings.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("X-API-Key", a.key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		return a.ts.Client().Do(req) // /mcp is not in the OpenAPI document a.client checks
	}
	resp, err := post(context.Background(), "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	session := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || session == "" {
		t.Fatalf("initialize: status %d, session %q", resp.StatusCode, session)
	}
	if resp, err = post(context.Background(), session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		if resp, err := post(ctx, session, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"analyze_page","arguments":{"url":"`+site.URL+`/"}}}`); err == nil {
			resp.Body.Close()
		}
	}()
	select {
	case <-site.started:
	case <-time.After(30 * time.Second):
		t.Fatal("the tool call never reached the site")
	}
	if n := a.accountCount(KindPage); n != 1 {
		t.Fatalf("%d page analyses of the account running during the call, want 1", n)
	}
	cancel()
	start := time.Now()
	for a.accountCount(KindPage) != 0 {
		if time.Since(start) > 5*time.Second {
			t.Fatalf("the account's page analysis slot is still held %v after its client disconnected", time.Since(start))
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Logf("slot free %v after the client disconnected", time.Since(start))
}
