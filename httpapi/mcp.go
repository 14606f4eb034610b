package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/mcpserver"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
)

// MCP returns the server's MCP server: every /v1 operation as a tool over
// the same services, charged and authorised as /v1 requests are. It is
// served at /mcp; `cli mcp` runs one over stdio.
func (s *Server) MCP() *mcpserver.Server {
	s.mcpOnce.Do(func() {
		perAccount := s.adm.cfg.MCPSessionsPerAccount
		if s.opts.DisableAuth {
			perAccount = -1 // one principal for every client
		}
		s.mcp = mcpserver.New(s.MCPServices(), &mcpserver.Options{
			Charge: s.chargeCall, Errors: s.ToolError, Decode: DecodeArguments, Logger: s.log,
			Admit: func(ctx context.Context, p *auth.Principal, bytes int64) (func(), error) {
				return s.adm.acquireSlot(ctx, KindReport, p.AccountID, bytes, false)
			},
			MaxSessionsPerAccount: perAccount, MaxSessions: s.adm.cfg.MCPSessions,
			SessionsOf: func(ctx context.Context, p *auth.Principal) (int, error) {
				if s.opts.DisableAuth {
					return 0, nil
				}
				l, err := s.accountPlan(ctx, p.AccountID)
				return l.MCPSessions, err
			},
		})
		s.mcpBuilt.Store(s.mcp)
	})
	return s.mcp
}

// MCPServices are the server's services as the MCP server takes them.
func (s *Server) MCPServices() mcpserver.Services {
	return mcpserver.Services{
		Analyses: s.Analyses(), Pages: s.Pages(), Content: s.Content(), Projects: s.Projects(),
		Schedules: s.Schedules(), Alerts: s.Alerts(), Keywords: s.Keywords(), Rankings: s.Rankings(), Reports: s.Reports(),
	}
}

// mcpHandler is the MCP endpoint (Streamable HTTP) behind the MCP
// authorization profile (authenticateMCP): tokens bound to /mcp by their
// audience or API keys, 401 challenges naming the protected resource
// metadata, 403 insufficient_scope when a read-only token calls a writing
// tool. The MCP server (its tools' schemas) is built on the first
// request, so a server that never serves /mcp does not pay for it.
func (s *Server) mcpHandler() http.Handler {
	var (
		once sync.Once
		h    http.Handler
	)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() {
			m := s.MCP()
			writes := map[string]bool{}
			for _, t := range m.Tools() {
				writes[t.Name] = t.Write
			}
			h = m.HTTPHandler(func(w http.ResponseWriter, r *http.Request) *auth.Principal {
				p := s.authenticateMCP(w, r, func(name string) bool { return writes[name] })
				if p == nil || !s.chargeRequest(w, r, p) {
					return nil
				}
				return p
			})
		})
		ew := &sdkErrorWriter{ResponseWriter: w}
		h.ServeHTTP(ew, r)
		ew.finish(r)
	})
}

// sdkErrorWriter turns the MCP SDK's plain-text refusals (http.Error: 403
// for a session of another account, 404 for an unknown or ended session,
// 400 for a bad header or body, 405, 406 for a missing Accept type...)
// into the API's error envelope, with the SDK's status and its message,
// so that every error of /mcp reads as every /v1 error does. JSON answers
// (JSON-RPC errors included) and streams pass through untouched.
type sdkErrorWriter struct {
	http.ResponseWriter
	status int    // the refusal being rewritten, or 0
	msg    []byte // its text, clipped to maxSDKErrorText
}

// maxSDKErrorText is the most of a refusal's text kept as its message.
const maxSDKErrorText = 300

func (e *sdkErrorWriter) WriteHeader(code int) {
	if code >= 400 && strings.HasPrefix(e.Header().Get("Content-Type"), "text/plain") {
		e.status = code
		return
	}
	e.ResponseWriter.WriteHeader(code)
}

func (e *sdkErrorWriter) Write(p []byte) (int, error) {
	if e.status == 0 {
		return e.ResponseWriter.Write(p)
	}
	if room := maxSDKErrorText - len(e.msg); room > 0 {
		e.msg = append(e.msg, p[:min(len(p), room)]...)
	}
	return len(p), nil
}

// Flush passes a flush on to the connection, but for a plain JSON
// answer (not a stream), which is whole when the handler returns: net/http
// then sends it in one write with its Content-Length, where a flush before
// the end makes it chunked, in three writes.
func (e *sdkErrorWriter) Flush() {
	if e.status != 0 || strings.HasPrefix(e.Header().Get("Content-Type"), "application/json") {
		return
	}
	http.NewResponseController(e.ResponseWriter).Flush()
}

// Unwrap gives http.ResponseController the connection's writer: the
// SDK's flushes of its streams and the write deadline reach it as they
// would without this writer.
func (e *sdkErrorWriter) Unwrap() http.ResponseWriter { return e.ResponseWriter }

// finish writes the rewritten refusal, if there is one.
func (e *sdkErrorWriter) finish(r *http.Request) {
	if e.status == 0 {
		return
	}
	h := e.Header()
	h.Del("Content-Type")
	h.Del("X-Content-Type-Options")
	msg := strings.TrimSpace(strings.ToValidUTF8(string(e.msg), "\uFFFD"))
	if msg == "" {
		msg = strings.ToLower(http.StatusText(e.status))
	}
	writeError(e.ResponseWriter, r, apiError(e.status, sdkErrorCode(e.status), msg))
}

// sdkErrorCode is the envelope's code for a refusal of the SDK's.
func sdkErrorCode(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return CodeUnauthorized
	case http.StatusForbidden:
		return CodeForbidden
	case http.StatusNotFound:
		return CodeNotFound
	case http.StatusMethodNotAllowed:
		return CodeMethodNotAllowed
	case http.StatusConflict:
		return CodeConflict
	case http.StatusTooManyRequests:
		return CodeRateLimited
	case http.StatusServiceUnavailable:
		return CodeUnavailable
	}
	if status >= 500 {
		return CodeInternal
	}
	return CodeInvalidRequest
}

// ToolError maps a service error to the /v1 envelope's fields for the MCP
// server, through toAPIError, the one mapping of the API.
func (s *Server) ToolError(err error) *mcpserver.ToolError {
	e, logIt := toAPIError(err)
	if logIt {
		s.log.Error("tool call failed", "code", e.Code, "err", err)
	}
	ra, _ := strconv.Atoi(retryAfter(e))
	return &mcpserver.ToolError{Code: e.Code, Message: e.Message, Status: e.Status, Field: e.Field, RetryAfter: ra}
}

// chargeRequest charges an MCP request as protect charges every /v1
// request, GETs included: one request of the account's daily limit and
// burst; a refusal is written as /v1 writes it (429 with Retry-After) and
// reported false. Charged so: opening a session (initialize, which the
// server then holds for up to 30 minutes), every other request the
// server answers (tools/list, about 56 KB; ping; resources/list ...), and
// the session's GET stream; a POST that does not parse as a single
// message too. A tools/call or resources/read is charged by its handler
// (Options.Charge of the MCP server), once; a client's notifications and
// answers, which the server does not answer, and the DELETE that ends a
// session are not charged.
func (s *Server) chargeRequest(w http.ResponseWriter, r *http.Request, p *auth.Principal) bool {
	if s.opts.DisableAuth {
		return true
	}
	switch r.Method {
	case http.MethodPost:
		method, _, ok := peekMessage(r)
		if ok && (method == "tools/call" || method == "resources/read" || method == "" || strings.HasPrefix(method, "notifications/")) {
			return true
		}
	case http.MethodGet:
	default:
		return true
	}
	if _, err := s.chargeCall(r.Context(), p); err != nil {
		s.fail(w, r, err)
		return false
	}
	return true
}

// chargeCall charges a tool call as protect charges a /v1 request: one
// request of the account's daily limit and burst, which the services
// count as paid.
func (s *Server) chargeCall(ctx context.Context, p *auth.Principal) (context.Context, error) {
	if s.opts.DisableAuth {
		return service.WithPaid(ctx, 1), nil
	}
	q, err := s.take(ctx, p.AccountID)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return ctx, apiError(http.StatusUnauthorized, CodeUnauthorized, "the token or API key is not valid")
		}
		return ctx, err
	}
	if e := q.refusal(); e != nil {
		return ctx, e
	}
	return service.WithPaid(ctx, 1), nil
}
