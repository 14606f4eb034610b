package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"net/url"
	"strings"

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

// MaxResourceBytes bounds a report read as a resource.
const MaxResourceBytes = 64 << 20

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
		return nil, s.resourceError(conflictf("the report is too large to read as a resource; page it with site_findings and site_pages"))
	}
	rc, err := res.Open()
	if err != nil {
		return nil, s.resourceError(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, MaxResourceBytes+1))
	if err != nil {
		return nil, s.resourceError(err)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: string(b)}}}, nil
}

func (s *Server) readScreenshot(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
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
