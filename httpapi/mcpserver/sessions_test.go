package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/plans"
	"github.com/seokit/seokit/httpapi/store"
)

const initReq = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// refused checks that an initialize answered the API's error envelope
// with status, code, Retry-After and a message containing msg.
func refused(t *testing.T, resp *http.Response, body string, status int, code, msg string) {
	t.Helper()
	var e struct {
		Error struct {
			Code, Message string
			Status        int
		}
	}
	if resp.StatusCode != status || json.Unmarshal([]byte(body), &e) != nil || e.Error.Code != code || e.Error.Status != status ||
		!strings.Contains(e.Error.Message, msg) || resp.Header.Get("Retry-After") == "" || resp.Header.Get("Mcp-Session-Id") != "" {
		t.Fatalf("initialize answered %d (Retry-After %q, session %q) %s; want %d %s naming %q", resp.StatusCode,
			resp.Header.Get("Retry-After"), resp.Header.Get("Mcp-Session-Id"), body, status, code, msg)
	}
}

// TestSessionCaps: an account holds at most MCPSessionsPerAccount MCP
// sessions open (each with its GET stream): the next initialize is 429
// naming the limit while another account still opens one; past
// MCPSessions in all the next is 503; a request that opens no session
// (a ping without a session) counts nothing once answered; a DELETE ends
// a session and its count, so the account opens one again; Close ends
// every session. Sessions were bounded by the daily quota alone.
func TestSessionCaps(t *testing.T) {
	e := newEnv(t, &httpapi.Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Free: 1000},
		Admission: &httpapi.AdmissionOptions{MCPSessionsPerAccount: 2, MCPSessions: 3}})
	c, err := e.srv.Auth().CreateAccount(context.Background(), "c@example.com", "C", "", store.Free)
	if err != nil {
		t.Fatal(err)
	}
	cKey := e.newKey(c.ID, auth.ScopeRead, auth.ScopeWrite)

	// A request without a session that does not initialize: the SDK
	// makes a session for it and ends it with the answer.
	rawMCP(t, e, e.key, "POST", "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	first, second := session(t, e, e.key), session(t, e, e.key)
	for _, sid := range []string{first, second} {
		resp, _ := rawMCP(t, e, e.key, "GET", sid, "")
		if resp.StatusCode != 200 {
			t.Fatalf("GET stream of session %s: %d", sid, resp.StatusCode)
		}
	}
	resp, body := rawMCP(t, e, e.key, "POST", "", initReq)
	refused(t, resp, body, 429, "rate_limited", "2 MCP sessions open, its limit")

	session(t, e, e.other) // another account still opens one: three in all
	resp, body = rawMCP(t, e, cKey, "POST", "", initReq)
	refused(t, resp, body, 503, "unavailable", "as many MCP sessions open as it admits")

	// A DELETE ends a session and its count.
	if resp, body := rawMCP(t, e, e.key, "DELETE", first, ""); resp.StatusCode != 204 {
		t.Fatalf("DELETE: %d %s", resp.StatusCode, body)
	}
	if resp, _ := rawMCP(t, e, e.key, "POST", first, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); resp.StatusCode != 404 {
		t.Fatalf("the deleted session answered %d", resp.StatusCode)
	}
	deadline := time.Now().Add(10 * time.Second)
	var third string
	for third == "" {
		resp, body := rawMCP(t, e, e.key, "POST", "", initReq)
		switch {
		case resp.StatusCode == 200:
			third = resp.Header.Get("Mcp-Session-Id")
		case time.Now().After(deadline):
			t.Fatalf("initialize after a DELETE: %d %s", resp.StatusCode, body)
		default:
			time.Sleep(10 * time.Millisecond) // the count ends as the session's goroutines do
		}
	}

	// Close ends the sessions: their clients' next requests are 404.
	e.srv.Close()
	for _, sid := range []string{second, third} {
		if resp, _ := rawMCP(t, e, e.key, "POST", sid, `{"jsonrpc":"2.0","id":3,"method":"ping"}`); resp.StatusCode != 404 {
			t.Errorf("session %s after Close answered %d, want 404", sid, resp.StatusCode)
		}
	}
}

// TestSessionCapsPerPlan: a plan's MCPSessions is its accounts' cap in
// place of the server's MCPSessionsPerAccount; a plan without one keeps the
// server's. The cap was the server's for every plan.
func TestSessionCapsPerPlan(t *testing.T) {
	e := newEnv(t, &httpapi.Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Free: 1000, store.Pro: 1000},
		Plans:     map[store.Plan]plans.Limits{store.Pro: {MCPSessions: 3}},
		Admission: &httpapi.AdmissionOptions{MCPSessionsPerAccount: 1}})
	pro, err := e.srv.Auth().CreateAccount(context.Background(), "pro@example.com", "P", "", store.Pro)
	if err != nil {
		t.Fatal(err)
	}
	proKey := e.newKey(pro.ID, auth.ScopeRead)
	for range 3 {
		session(t, e, proKey)
	}
	resp, body := rawMCP(t, e, proKey, "POST", "", initReq)
	refused(t, resp, body, 429, "rate_limited", "3 MCP sessions open, its limit")

	session(t, e, e.key) // a Free account: the server's cap of one
	resp, body = rawMCP(t, e, e.key, "POST", "", initReq)
	refused(t, resp, body, 429, "rate_limited", "1 MCP sessions open, its limit")
}
