package mcpserver

import (
	"bytes"
	"context"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"reflect"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/seo"
)

// Services are the typed services the tools call. A nil one makes its
// tools answer "unavailable".
type Services struct {
	Analyses  service.Analyses
	Pages     service.Pages
	Content   service.Content
	Projects  service.Projects
	Schedules service.Schedules
	Alerts    service.Alerts
	Keywords  service.Keywords
	Rankings  service.Rankings
	Reports   service.Reports
}

// ToolError is the error of a refused tool call: the /v1 error envelope's
// fields, so an agent reads the same code, field and retry delay as a
// script on /v1 would. It is the structured content of the call's error
// result, under "error".
type ToolError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Status  int    `json:"status"`
	Field   string `json:"field,omitempty"`
	// RetryAfter is the /v1 answer's Retry-After in seconds; 0 when none.
	RetryAfter int `json:"retryAfter,omitempty"`
}

func (e *ToolError) Error() string { return "mcpserver: " + e.Code + ": " + e.Message }

// Options configures a Server. A nil *Options, and every zero field, means
// the documented default.
type Options struct {
	// Charge takes one request of the principal's daily limit and burst
	// for each tool call, as each /v1 request is, and returns the context
	// the services run in (with service.WithPaid). A refusal is an error
	// Errors maps (a 429 rate_limited with its Retry-After). Nil charges
	// nothing: the CLI's local server.
	Charge func(ctx context.Context, p *auth.Principal) (context.Context, error)
	// Admit admits a heavy read of the principal, as the API admits its
	// heavy operations (httpapi: the "report read" kind of its admission
	// control, one at a time per account, weighted by bytes in its memory
	// budget): a report read as a resource, or decoded for a tool when not
	// in the cache, holding about bytes of memory. It waits at most the
	// admission wait and while ctx lives, and returns the release, called
	// once a resource read's answer is written (over HTTP) or else its
	// handler returned (a tool's answer is a page), or a refusal Errors
	// maps (429 for the account's limit, 503 for a saturated server). Nil
	// admits every read (the CLI's local server).
	Admit func(ctx context.Context, p *auth.Principal, bytes int64) (release func(), err error)
	// Errors maps a service error to the /v1 envelope's fields: the API
	// server's one mapping (httpapi.Server.ToolError). Nil means a minimal
	// mapping of the service's error types.
	Errors func(error) *ToolError
	// Decode decodes a call's arguments as the API decodes request bodies
	// (httpapi.DecodeArguments), so a tool refuses what the matching /v1
	// endpoint refuses, naming the same field. Nil means strict decoding
	// of encoding/json.
	Decode func(args []byte, v any) error
	// Local is the principal of sessions without an authenticated HTTP
	// request (stdio, in-memory transports). Nil refuses them.
	Local *auth.Principal
	// PollInterval is how often wait_site_analysis reads the job's
	// progress; zero means one second.
	PollInterval time.Duration
	// PageBytes is the default size of a page of findings or pages, in
	// bytes of JSON; zero means DefaultPageBytes.
	PageBytes int
	// Checks is the catalogue explain_check reads; nil means Catalog().
	Checks []seo.CheckInfo
	// Logger receives the SDK's logs; nil means slog.Default().
	Logger *slog.Logger
	// Version is reported to clients in the server's implementation info.
	Version string
	// ReportCacheBytes bounds the cache of decoded site reports, in bytes
	// of the stored report JSON they were decoded from (a decoded report
	// takes a few times that in memory): paging through an analysis
	// decodes its report once. Zero means DefaultReportCacheBytes; a
	// negative value turns the cache off.
	ReportCacheBytes int
	// MaxSessionsPerAccount bounds the sessions one account holds open
	// over HTTP (HTTPHandler) at once, and so their standalone GET
	// streams (one per session): the next initialize is refused 429 until
	// one ends (a DELETE, SessionTimeout idle, Close). Zero means
	// DefaultMaxSessionsPerAccount; a negative value, none (a server
	// whose one principal stands for every client).
	MaxSessionsPerAccount int
	// SessionsOf, when set, returns the cap of p's account instead of
	// MaxSessionsPerAccount (its plan's); zero or less means
	// MaxSessionsPerAccount. An error refuses the session with it (the
	// error mapped by Errors).
	SessionsOf func(ctx context.Context, p *auth.Principal) (int, error)
	// MaxSessions bounds the sessions of every account together; the
	// next initialize past it is refused 503. Zero means
	// DefaultMaxSessions.
	MaxSessions int
	// TextCopy adds the JSON of each tool result as its text content for
	// every client, for clients that pass only text content to the model.
	// Without it, clients on protocol revisions with structured content
	// (2025-06-18 and later) get a one-line text and the result in
	// structuredContent only.
	TextCopy bool
}

// Defaults of Options.
const (
	DefaultPageBytes    = 6 << 10
	DefaultPollInterval = time.Second
	// MaxWait bounds wait_site_analysis's timeoutSeconds.
	MaxWait = 10 * time.Minute
)

// Server is seokit's MCP server: its tools and resources over Services.
type Server struct {
	svc     Services
	opts    Options
	mcp     *mcp.Server
	tools   []ToolInfo
	reports *reportCache // nil when turned off
	// sessions counts the HTTP sessions open.
	sessions *sessionGate
}

// ToolInfo describes a tool: its name, whether it writes, and its
// one-line description (the README's table, `cli mcp -tools`).
type ToolInfo struct {
	Name        string `json:"name"`
	Write       bool   `json:"write"`
	Description string `json:"description"`
}

// New returns a Server over svc.
func New(svc Services, opts *Options) *Server {
	s := &Server{svc: svc}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.PollInterval <= 0 {
		s.opts.PollInterval = DefaultPollInterval
	}
	if s.opts.PageBytes <= 0 {
		s.opts.PageBytes = DefaultPageBytes
	}
	if s.opts.Checks == nil {
		s.opts.Checks = Catalog()
	}
	if s.opts.Logger == nil {
		s.opts.Logger = slog.Default()
	}
	if s.opts.ReportCacheBytes == 0 {
		s.opts.ReportCacheBytes = DefaultReportCacheBytes
	}
	if s.opts.ReportCacheBytes > 0 {
		s.reports = newReportCache(s.opts.ReportCacheBytes)
	}
	s.sessions = newSessionGate(s.opts.MaxSessionsPerAccount, s.opts.MaxSessions)
	v := s.opts.Version
	if v == "" {
		v = "dev"
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "seokit", Title: "seokit SEO toolkit", Version: v}, &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       s.opts.Logger,
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}, Resources: &mcp.ResourceCapabilities{}},
	})
	s.mcp.AddReceivingMiddleware(s.recoverPanics)
	s.addTools()
	s.addResources()
	return s
}

// recoverPanics turns a panic in a method's handler into an error answer
// and logs it with its stack. The SDK runs handlers on goroutines of its
// own, outside net/http's recovery and the API's, so an unrecovered panic
// of one call would end the whole process. A tool call answers the /v1
// envelope of a 500; other methods a JSON-RPC internal error.
func (s *Server) recoverPanics(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			s.opts.Logger.ErrorContext(ctx, "mcpserver: panic", "method", method, "panic", v, "stack", string(debug.Stack()))
			if method == "tools/call" {
				res, err = errorResult(&ToolError{Code: "internal", Message: "internal server error", Status: http.StatusInternalServerError}), nil
				return
			}
			res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal server error"}
		}()
		return next(ctx, method, req)
	}
}

const instructions = `seokit audits web sites. Start with analyze_page for one URL, or start_site_analysis for a site, then wait_site_analysis (progress notifications) and fix_first for the highest-priority findings; page with site_findings and site_pages (cursor), explain_check for a rule's source. Answers are small by design: each says what it left out.`

// MCP returns the SDK server, to run over any transport
// (mcp.StdioTransport, in-memory transports in tests).
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Tools lists the tools, sorted by name.
func (s *Server) Tools() []ToolInfo {
	out := append([]ToolInfo(nil), s.tools...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// principalKey is the key of the principal in the SDK's token info.
const principalKey = "seokit.principal"

// TokenInfo is the SDK token info that carries p to the tools of an HTTP
// session: the API's authentication middleware authenticates the request
// and hands this to the SDK (see HTTPHandler). UserID binds the session to
// the account, so another account's credential cannot use it.
func TokenInfo(p *auth.Principal) *sdkauth.TokenInfo {
	return &sdkauth.TokenInfo{UserID: p.AccountID, Scopes: p.Permissions, Extra: map[string]any{principalKey: p}}
}

// HTTPHandler returns the Streamable HTTP handler of the server. authn
// authenticates each request and returns its principal, or writes the
// refusal and returns nil (the API's authentication middleware). A POST
// without a session ID, which opens a session, is refused past the caps
// of Options.MaxSessionsPerAccount (or SessionsOf) and MaxSessions, with Retry-After and
// a text/plain message, as the SDK's own refusals are.
func (s *Server) HTTPHandler(authn func(w http.ResponseWriter, r *http.Request) *auth.Principal) http.Handler {
	// Sessions are stateful, so that a call's progress notifications and
	// its cancellation (notifications/cancelled, a POST of its own) reach
	// the call. Answers are plain JSON rather than a one-event SSE stream:
	// that spares the stream's goroutine hand-offs and framing on every
	// call; notifications travel on the session's standalone SSE stream
	// (the GET the client opens after initializing).
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		Logger:         s.opts.Logger,
		SessionTimeout: SessionTimeout,
		JSONResponse:   true,
	})
	verify := sdkauth.RequireBearerToken(func(ctx context.Context, _ string, r *http.Request) (*sdkauth.TokenInfo, error) {
		p, _ := r.Context().Value(principalCtxKey{}).(*auth.Principal)
		if p == nil {
			return nil, sdkauth.ErrInvalidToken
		}
		ti := TokenInfo(p)
		if h, _ := r.Context().Value(answerHoldCtxKey{}).(*answerHold); h != nil {
			ti.Extra[answerHoldKey] = h
		}
		return ti, nil
	}, &sdkauth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := authn(w, r)
		if p == nil {
			return
		}
		// A call may stream progress for up to MaxWait: the server's
		// write timeout, sized for /v1 answers, must not cut it.
		http.NewResponseController(w).SetWriteDeadline(time.Now().Add(MaxWait + time.Minute))
		// The memory a resource read was admitted for is held until its
		// answer is written: encoding and writing it copies the report.
		hold := &answerHold{req: r.Context()}
		defer hold.answered()
		r = r.WithContext(context.WithValue(context.WithValue(r.Context(), principalCtxKey{}, p), answerHoldCtxKey{}, hold))
		if r.Header.Get("Authorization") == "" {
			// An API key sent as X-API-Key: the SDK reads the token info
			// from its bearer middleware, whose verifier above takes the
			// principal authenticated here, not the header's value.
			// A copy of the map, not of its values (which nothing here
			// changes), keeps the request the outer handlers see as it was.
			h := make(http.Header, len(r.Header)+1)
			maps.Copy(h, r.Header)
			h.Set("Authorization", "Bearer x-api-key")
			r.Header = h
		}
		if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" {
			s.serveNew(w, r, p, verify)
			return
		}
		verify.ServeHTTP(w, r)
	})
}

type principalCtxKey struct{}

// answerHoldCtxKey is the key of a request's *answerHold in its context.
type answerHoldCtxKey struct{}

// principalOf returns the principal of a call.
func (s *Server) principalOf(req *mcp.CallToolRequest) *auth.Principal {
	if req != nil && req.Extra != nil && req.Extra.TokenInfo != nil {
		if p, ok := req.Extra.TokenInfo.Extra[principalKey].(*auth.Principal); ok {
			return p
		}
	}
	return s.opts.Local
}

// toolError maps err through Options.Errors.
func (s *Server) toolError(err error) *ToolError {
	var te *ToolError
	if errors.As(err, &te) {
		return te
	}
	if s.opts.Errors != nil {
		if te := s.opts.Errors(err); te != nil {
			return te
		}
	}
	return basicError(err)
}

// basicError maps the service's error types without the API server.
func basicError(err error) *ToolError {
	var (
		fe *service.FieldError
		nf *service.NotFoundError
		ce *service.ConflictError
		fb *service.ForbiddenError
		le *service.LimitError
		be *service.BusyError
		nc *service.NotConfiguredError
	)
	switch {
	case errors.As(err, &fe):
		return &ToolError{Code: "invalid_request", Message: fe.Message, Status: 400, Field: fe.Field}
	case errors.As(err, &nf):
		return &ToolError{Code: "not_found", Message: nf.Message, Status: 404}
	case errors.As(err, &ce):
		return &ToolError{Code: "conflict", Message: ce.Message, Status: 409}
	case errors.As(err, &fb):
		return &ToolError{Code: "forbidden", Message: fb.Message, Status: 403}
	case errors.As(err, &le):
		return &ToolError{Code: "rate_limited", Message: le.Message, Status: 429, RetryAfter: retrySeconds(le.RetryAfter)}
	case errors.As(err, &be):
		return &ToolError{Code: "unavailable", Message: be.Message, Status: 503, RetryAfter: retrySeconds(be.RetryAfter)}
	case errors.As(err, &nc):
		return &ToolError{Code: "unavailable", Message: nc.PublicMessage(), Status: 503, RetryAfter: 5}
	}
	if ie, ok := seo.AsInputError(err); ok {
		return &ToolError{Code: "invalid_request", Message: strings.TrimPrefix(ie.Error(), "seo: "), Status: 400, Field: ie.Field}
	}
	if errors.Is(err, seo.ErrNotFound) {
		return &ToolError{Code: "not_found", Message: "no such resource", Status: 404}
	}
	return &ToolError{Code: "internal", Message: "internal server error", Status: 500}
}

func retrySeconds(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return int(max((d+time.Second-1)/time.Second, 1))
}

// invalid is a refusal of input naming field, as the API words it.
func invalid(field, msg string) error { return &service.FieldError{Field: field, Message: msg} }

// errorResult is the result of a refused call: IsError, the envelope as
// structured content and as text.
func errorResult(te *ToolError) *mcp.CallToolResult {
	body := map[string]any{"error": te}
	b, _ := json.Marshal(body)
	return &mcp.CallToolResult{IsError: true, StructuredContent: json.RawMessage(b), Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}
}

// spec is a tool's declaration: what it needs of the principal.
type spec struct {
	name, desc string
	write      bool   // needs auth.ScopeWrite; else auth.ScopeRead
	op         string // the operation of the permission table
	free       bool   // charges no request (reads of the server's own catalogue)
}

// schemaFor infers the JSON Schema of T from its Go type, as the SDK does
// for typed tools, with the types that encode themselves described by
// what they encode: a encoding.TextMarshaler (seo.Severity, time.Time) is
// a string, a json.Marshaler any JSON value.
func schemaFor[T any]() *jsonschema.Schema {
	t := reflect.TypeFor[T]()
	overrides := map[reflect.Type]*jsonschema.Schema{}
	marshalerTypes(t, overrides, map[reflect.Type]bool{})
	sc, err := jsonschema.ForType(t, &jsonschema.ForOptions{IgnoreInvalidTypes: true, TypeSchemas: overrides})
	if err != nil {
		panic(fmt.Sprintf("mcpserver: schema of %v: %v", t, err))
	}
	return sc
}

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

// marshalerTypes records the schema of every type reachable from t that
// encodes itself.
func marshalerTypes(t reflect.Type, m map[reflect.Type]*jsonschema.Schema, seen map[reflect.Type]bool) {
	if seen[t] {
		return
	}
	seen[t] = true
	pt := reflect.PointerTo(t)
	switch {
	case t.Implements(jsonMarshaler) || pt.Implements(jsonMarshaler):
		if t.Implements(textMarshaler) || pt.Implements(textMarshaler) {
			m[t] = &jsonschema.Schema{Type: "string"} // time.Time
		} else {
			m[t] = &jsonschema.Schema{} // any JSON value
		}
		return
	case t.Implements(textMarshaler) || pt.Implements(textMarshaler):
		m[t] = &jsonschema.Schema{Type: "string"}
		return
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		marshalerTypes(t.Elem(), m, seen)
	case reflect.Map:
		marshalerTypes(t.Key(), m, seen)
		marshalerTypes(t.Elem(), m, seen)
	case reflect.Struct:
		for i := range t.NumField() {
			marshalerTypes(t.Field(i).Type, m, seen)
		}
	}
}

// add registers a tool whose input is In and whose output, the structured
// content, is Out; both schemas are inferred from the Go types. The
// arguments are decoded strictly (an unknown field is refused naming it,
// as the API's decoder does), the principal's permission checked and one
// request charged before h runs; h's error is mapped to the API's envelope.
func add[In, Out any](s *Server, sp spec, h func(ctx context.Context, req *mcp.CallToolRequest, p *auth.Principal, in In) (Out, error)) {
	in := schemaFor[In]()
	if in.Type == "" {
		in.Type = "object"
	}
	outS := schemaFor[Out]()
	if outS.Type == "" && len(outS.Types) > 0 {
		outS.Type, outS.Types = "object", nil
	}
	inC, err := compactSchema(in, false)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: input schema of %s: %v", sp.name, err))
	}
	outC, err := compactSchema(outS, true)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: output schema of %s: %v", sp.name, err))
	}
	tool := &mcp.Tool{Name: sp.name, Description: sp.desc, InputSchema: inC, OutputSchema: outC,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: !sp.write}}
	if sp.write {
		f := false
		tool.Annotations.DestructiveHint = &f
	}
	s.tools = append(s.tools, ToolInfo{Name: sp.name, Write: sp.write, Description: sp.desc})
	note := sp.name + " answered in structuredContent (JSON; the tool's outputSchema describes it)."
	s.mcp.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx, stop := callContext(ctx, req.Extra)
		defer stop()
		p := s.principalOf(req)
		if p == nil {
			return errorResult(&ToolError{Code: "unauthorized", Message: "authentication required", Status: 401}), nil
		}
		scope := auth.ScopeRead
		if sp.write {
			scope = auth.ScopeWrite
		}
		if !sp.free && s.opts.Charge != nil {
			var err error
			if ctx, err = s.opts.Charge(ctx, p); err != nil {
				return errorResult(s.toolError(err)), nil
			}
		}
		if !p.Allowed(scope, sp.op) {
			return errorResult(&ToolError{Code: "forbidden", Message: "this credential lacks the " + scope + " permission for " + sp.op, Status: 403}), nil
		}
		var args In
		if err := s.decode(req.Params.Arguments, &args); err != nil {
			return errorResult(s.toolError(err)), nil
		}
		out, err := h(ctx, req, p, args)
		if err != nil {
			return errorResult(s.toolError(err)), nil
		}
		// The result goes to the SDK as a Go value, which it encodes by
		// reflection and then compacts twice. Bytes encoded beforehand
		// (a json.RawMessage, or any MarshalJSON returning them) would
		// be compacted three times, and compacting an answer costs
		// about what encoding it does, so they cost more in all
		// (BenchmarkResultEncoding).
		text, err := s.textOf(req, note, out)
		if err != nil {
			return nil, fmt.Errorf("mcpserver: encoding %s: %w", sp.name, err)
		}
		return &mcp.CallToolResult{StructuredContent: out, Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
	})
}

// structuredSince is the first protocol revision with structured tool
// results.
const structuredSince = "2025-06-18"

// textOf is the text content of a result whose structured content is out.
// A client on a revision with structured content reads out there: the
// text is note, one line saying so (built once per tool), since a JSON copy as text doubles what the
// answer costs to encode, send, decode and, in clients that show both,
// the model's context. Older clients, and every client when
// Options.TextCopy is set, get the JSON as text.
func (s *Server) textOf(req *mcp.CallToolRequest, note string, out any) (string, error) {
	if !s.opts.TextCopy && req != nil && req.Session != nil {
		if ip := req.Session.InitializeParams(); ip != nil && ip.ProtocolVersion >= structuredSince {
			return note, nil
		}
	}
	b, err := json.Marshal(out)
	return string(b), err
}

// decode decodes a call's arguments into v; absent arguments are {}.
func (s *Server) decode(args json.RawMessage, v any) error {
	if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
		args = json.RawMessage("{}")
	}
	if s.opts.Decode != nil {
		return s.opts.Decode(args, v)
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return invalid("arguments", "the arguments are not valid: "+clip(err.Error()))
	}
	return nil
}
