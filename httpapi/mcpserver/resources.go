package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/service"
)

// Resource URIs: a site analysis's stored report, and the screenshot of
// one of its rendered pages.
const (
	ReportURITemplate     = "seokit://analyses/{id}/report"
	ScreenshotURITemplate = "seokit://analyses/{id}/screenshot{?url}"
)

// MaxResourceBytes bounds a report read as a resource: such a read
// reserves reportReadFactor times its size (224 MiB at this bound) of the
// API's memory budget (512 MiB by default), so that two accounts' reads
// of the largest reports fit in it together. A larger report is paged
// with the tools (site_findings, site_pages) or streamed by GET
// /v1/analyze/site/{id}.
const MaxResourceBytes = 16 << 20

// reportReadFactor is the memory a report read as a resource takes, in
// bytes per byte of stored report, until its answer is written: the
// stored bytes as read, the text, and the SDK's two encodings of it (the
// result, then the JSON-RPC message around it), each JSON-escaped into a
// buffer grown by doubling. TestReportResourceAdmission measures the
// bytes one read allocates on the server, 12.50 per report byte for a
// 15 MiB report shaped as the crawler's (12.35 at 24 MiB: the buffers'
// doubling wastes more or less by size), and fails when a read allocates
// more than this.
const reportReadFactor = 14

// answerHoldKey is the key, in the SDK's token info, of the *answerHold
// of an HTTP request.
const answerHoldKey = "seokit.answerHold"

// answerHold holds the admissions of an HTTP request's handlers until
// its answer is written: an admission ends when both its handler returned
// and the answer was written (or the request ended).
type answerHold struct {
	// req is the HTTP request's context: the calls it carries end with
	// it (callContext).
	req   context.Context
	mu    sync.Mutex
	done  bool
	holds []func()
}

// keep returns the func the handler calls when it returns, in place of
// release, which then runs once that and the answer are both done.
func (h *answerHold) keep(release func()) func() {
	if h == nil {
		return release
	}
	var left atomic.Int32
	left.Store(2)
	end := func() {
		if left.Add(-1) == 0 {
			release()
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done {
		return release // the request ended already: the handler's return is the end
	}
	h.holds = append(h.holds, end)
	return end
}

// answered ends the hold of every admission kept: the answer is written.
func (h *answerHold) answered() {
	h.mu.Lock()
	hs := h.holds
	h.done, h.holds = true, nil
	h.mu.Unlock()
	for _, end := range hs {
		end()
	}
}

// holdOf returns the *answerHold of the HTTP request that carried a
// call; nil over stdio.
func holdOf(extra *mcp.RequestExtra) *answerHold {
	if extra == nil || extra.TokenInfo == nil {
		return nil
	}
	h, _ := extra.TokenInfo.Extra[answerHoldKey].(*answerHold)
	return h
}

// callContext returns ctx, ended too when the HTTP request that carried
// the call ends. The SDK runs the calls of a session in the session's
// context, which a client that disconnects does not end (its sessions
// leave that to a notifications/cancelled the client may never send),
// and an answer sent as JSON (StreamableHTTPOptions.JSONResponse, as
// Handler sets) cannot be resumed: the work of a call nobody can receive
// would hold its account's admission slots, and the server's, until it
// finished. Over stdio ctx is returned as it is. stop ends the binding.
func callContext(ctx context.Context, extra *mcp.RequestExtra) (_ context.Context, stop func()) {
	h := holdOf(extra)
	if h == nil || h.req == nil {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	unbind := context.AfterFunc(h.req, func() {
		cancel(fmt.Errorf("mcpserver: the HTTP request of the call ended: %w", context.Cause(h.req)))
	})
	return ctx, func() { unbind(); cancel(nil) }
}

// admitRead admits a read of bytes of stored report for p
// (Options.Admit) and returns what the handler defers: the release, held
// until the HTTP answer is written.
func (s *Server) admitRead(ctx context.Context, req *mcp.ReadResourceRequest, p *auth.Principal, bytes int) (func(), error) {
	if s.opts.Admit == nil {
		return func() {}, nil
	}
	release, err := s.opts.Admit(ctx, p, int64(bytes)*reportReadFactor)
	if err != nil {
		return nil, err
	}
	return holdOf(req.Extra).keep(release), nil
}

func (s *Server) addResources() {
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{Name: "site-analysis-report", URITemplate: ReportURITemplate, MIMEType: "application/json",
		Description: "The full stored report of a site analysis (crawler.SiteReport JSON); large: the tools page through it."}, s.readReport)
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{Name: "site-analysis-screenshot", URITemplate: ScreenshotURITemplate, MIMEType: "image/png",
		Description: "The viewport screenshot of a rendered page of a site analysis (url: the page's URL)."}, s.readScreenshot)
}

// resourcePrincipal authorises a resource read as a /v1 read of analyses
// and charges one request.
func (s *Server) resourcePrincipal(ctx context.Context, req *mcp.ReadResourceRequest) (context.Context, *auth.Principal, error) {
	var p *auth.Principal
	if req.Extra != nil && req.Extra.TokenInfo != nil {
		p, _ = req.Extra.TokenInfo.Extra[principalKey].(*auth.Principal)
	}
	if p == nil {
		p = s.opts.Local
	}
	if p == nil {
		return ctx, nil, s.resourceError(&ToolError{Code: "unauthorized", Message: "authentication required", Status: 401})
	}
	if s.opts.Charge != nil {
		var err error
		if ctx, err = s.opts.Charge(ctx, p); err != nil {
			return ctx, nil, s.resourceError(err)
		}
	}
	if !p.Allowed(auth.ScopeRead, auth.OpAnalyze) {
		return ctx, nil, s.resourceError(&ToolError{Code: "forbidden", Message: "this credential lacks the read permission for analyze", Status: 403})
	}
	return ctx, p, nil
}

// resourceError is a refused read as a JSON-RPC error whose data is the
// API's envelope; a missing resource is the protocol's "resource not
// found".
func (s *Server) resourceError(err error) error {
	te := s.toolError(err)
	if te.Status == 404 {
		return mcp.ResourceNotFoundError("")
	}
	data, _ := json.Marshal(map[string]any{"error": te})
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: te.Message, Data: data}
}

// analysisURI parses seokit://analyses/{id}/...
func analysisURI(uri, suffix string) (string, url.Values, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "seokit" || u.Host != "analyses" {
		return "", nil, false
	}
	id, ok := strings.CutSuffix(strings.TrimPrefix(u.Path, "/"), "/"+suffix)
	if !ok || id == "" || strings.Contains(id, "/") {
		return "", nil, false
	}
	return id, u.Query(), true
}

func (s *Server) readReport(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	ctx, stop := callContext(ctx, req.Extra)
	defer stop()
	id, _, ok := analysisURI(req.Params.URI, "report")
	if !ok {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	ctx, p, err := s.resourcePrincipal(ctx, req)
	if err != nil {
		return nil, err
	}
	if err := s.need(s.svc.Analyses); err != nil {
		return nil, s.resourceError(err)
	}
	j, res, err := s.svc.Analyses.Get(ctx, p.AccountID, id)
	if err != nil {
		return nil, s.resourceError(err)
	}
	if res == nil {
		return nil, s.resourceError(conflictf("the analysis has no report yet: it is " + j.Status))
	}
	if res.Size() > MaxResourceBytes {
		return nil, s.resourceError(conflictf(fmt.Sprintf("the report (%d MiB) is larger than the %d MiB a resource read may hold; page it with site_findings and site_pages, or stream it with GET /v1/analyze/site/%s",
			res.Size()>>20, MaxResourceBytes>>20, id)))
	}
	done, err := s.admitRead(ctx, req, p, res.Size())
	if err != nil {
		return nil, s.resourceError(err)
	}
	defer done()
	rc, err := res.Open()
	if err != nil {
		return nil, s.resourceError(err)
	}
	defer rc.Close()
	// Read into the text at once: no buffer grown by doubling, no copy
	// into a string.
	var text strings.Builder
	text.Grow(res.Size())
	if _, err := io.Copy(&text, io.LimitReader(rc, int64(res.Size()))); err != nil {
		return nil, s.resourceError(err)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: text.String()}}}, nil
}

func (s *Server) readScreenshot(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	ctx, stop := callContext(ctx, req.Extra)
	defer stop()
	id, q, ok := analysisURI(req.Params.URI, "screenshot")
	if !ok || q.Get("url") == "" {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	ctx, p, err := s.resourcePrincipal(ctx, req)
	if err != nil {
		return nil, err
	}
	if err := s.need(s.svc.Analyses); err != nil {
		return nil, s.resourceError(err)
	}
	png, err := s.svc.Analyses.Screenshot(ctx, p.AccountID, id, q.Get("url"))
	if err != nil {
		return nil, s.resourceError(err)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "image/png", Blob: png}}}, nil
}

func conflictf(msg string) error { return &service.ConflictError{Message: msg} }
