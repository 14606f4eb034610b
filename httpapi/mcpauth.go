package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"

	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/store"
)

// MCPPath is where the MCP endpoint is served: an OAuth protected resource
// (RFC 9728) whose tokens are bound to it (RFC 8707). An auth.Server given
// in Options.Auth lists it in auth.Options.Resources so that OAuth clients
// can reach it; API keys work either way.
const MCPPath = "/mcp"

// maxPeekBytes bounds how much of an MCP request the scope check reads.
const maxPeekBytes = 1 << 20

// authenticateFor authenticates r with authn and, on failure, writes the
// refusal: 401 with the WWW-Authenticate value challenge(errCode) gives
// (errCode "" without credentials, "invalid_token" with bad ones), 429
// once the address has failed too often (auth.Throttle), 503 when the
// store cannot answer. It returns nil after writing a refusal.
func (s *Server) authenticateFor(w http.ResponseWriter, r *http.Request, authn func(*http.Request) (*auth.Principal, error), challenge func(errCode string) string) *auth.Principal {
	// Authenticate first: a valid credential is never refused because of
	// other requests' failures. Only invalid credentials count against
	// the address.
	p, err := authn(r)
	if err == nil {
		if li, _ := r.Context().Value(keyLogInfo).(*logInfo); li != nil {
			li.account = p.AccountID
		}
		return p
	}
	switch {
	case errors.Is(err, store.ErrUnavailable):
		s.fail(w, r, err)
	case errors.Is(err, auth.ErrNoCredentials), errors.Is(err, auth.ErrInvalidCredentials):
		msg, code := "authentication required: send Authorization: Bearer <token> or X-API-Key", ""
		if errors.Is(err, auth.ErrInvalidCredentials) {
			at, _ := s.auth.Throttle().Begin(r.Context(), clientIPOf(r.Context()), "")
			if terr := at.Failed(); terr != nil {
				w.Header().Set("Retry-After", strconv.Itoa(auth.RetryAfterSeconds(terr)))
				writeError(w, r, apiError(http.StatusTooManyRequests, CodeRateLimited, "too many failed authentication attempts; retry later"))
				return nil
			}
			msg, code = "the token or API key is not valid", "invalid_token"
		}
		w.Header().Set("WWW-Authenticate", challenge(code))
		s.log.InfoContext(r.Context(), "authentication failed", "request_id", requestID(r.Context()), "err", err)
		writeError(w, r, apiError(http.StatusUnauthorized, CodeUnauthorized, msg))
	default:
		s.fail(w, r, err)
	}
	return nil
}

// authenticateMCP authenticates a request to the MCP endpoint as the MCP
// authorization profile asks: bearer tokens bound to the endpoint by their
// audience (a token for /v1 or another resource is refused with
// invalid_token) or API keys (X-API-Key or as the bearer token); a 401
// names the protected resource metadata and the scope to ask for. A tool
// call that needs the write scope from a token without it is refused with
// 403 insufficient_scope and scope "read write", so the client can ask
// the user for more (step-up authorization); writeTool reports which
// tools write (nil: none known). An API key cannot be stepped up: its
// calls reach the tool, which refuses them as /v1 does. It returns nil
// after writing a refusal.
func (s *Server) authenticateMCP(w http.ResponseWriter, r *http.Request, writeTool func(name string) bool) *auth.Principal {
	if s.opts.DisableAuth {
		return &auth.Principal{AccountID: "anonymous", Permissions: []string{auth.ScopeRead, auth.ScopeWrite}}
	}
	p := s.authenticateFor(w, r, func(r *http.Request) (*auth.Principal, error) {
		return s.auth.AuthenticateResource(r, MCPPath)
	}, func(code string) string {
		return s.auth.ResourceChallenge(MCPPath, code, auth.ScopeRead+" "+auth.ScopeWrite, "")
	})
	if p == nil {
		return nil
	}
	if writeTool == nil || r.Method != http.MethodPost || p.Method == auth.MethodAPIKey || slices.Contains(p.Permissions, auth.ScopeWrite) {
		return p
	}
	name, ok := s.peekToolCall(r)
	if ok && writeTool(name) {
		w.Header().Set("WWW-Authenticate", s.auth.ResourceChallenge(MCPPath, "insufficient_scope", auth.ScopeRead+" "+auth.ScopeWrite,
			"the tool "+name+" needs the write scope"))
		writeError(w, r, apiError(http.StatusForbidden, CodeForbidden, "this credential lacks the write permission for the tool "+name))
		return nil
	}
	return p
}

// peekToolCall reads the JSON-RPC message of an MCP POST and, when it is a
// tools/call, returns the tool's name (see peekMessage).
func (s *Server) peekToolCall(r *http.Request) (string, bool) {
	method, name, ok := peekMessage(r)
	if !ok || method != "tools/call" {
		return "", false
	}
	return name, true
}

// peekMessage reads the JSON-RPC message of an MCP POST and returns its
// method and, for a tools/call, the tool's name. The body is put back for
// the MCP handler; a body past maxPeekBytes, or one that is not a single
// message, is not ok and left to the handler to refuse.
func peekMessage(r *http.Request) (method, tool string, ok bool) {
	if r.Body == nil {
		return "", "", false
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, maxPeekBytes+1))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(b), r.Body), r.Body}
	if err != nil || len(b) > maxPeekBytes {
		return "", "", false
	}
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if json.Unmarshal(b, &msg) != nil {
		return "", "", false
	}
	return msg.Method, msg.Params.Name, true
}
