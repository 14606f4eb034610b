package service

import (
	"context"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/optimizer"
)

// Pages is the page analysis service: analyse one URL, raw or rendered.
// The API server implements it (httpapi.Server.Pages); POST
// /v1/analyze/page and the MCP server's analyze_page call it.
type Pages interface {
	// Analyze validates req against the address policy and the account's
	// plan (rendering), admits the analysis as the server's other work is
	// and analyses the page. Bad input is an *seo.InputError or a
	// *FieldError naming the field ("url", "options.depth"); a busy
	// server is a *BusyError, an account at its render units a
	// *LimitError.
	Analyze(ctx context.Context, accountID string, req PageRequest) (*analyzer.Report, error)
}

// Content is the content optimisation service (POST
// /v1/optimize/content).
type Content interface {
	// Optimize admits the optimisation by the size of req.Content, as the
	// server's other work is, and scores the content. Bad input is an
	// *seo.InputError naming the field.
	Optimize(ctx context.Context, accountID string, req optimizer.Request) (*optimizer.Report, error)
}

// PageOptions are the options of a page analysis request.
type PageOptions struct {
	// Depth is "basic", "standard" (default) or "complete".
	Depth         string `json:"depth,omitempty"`
	CheckLinks    bool   `json:"checkLinks,omitempty"`
	AnalyzeMobile bool   `json:"analyzeMobile,omitempty"`
	// SkipExternalLinks, with CheckLinks, requests no link target on
	// another host: links.broken_external and links.redirect_external are
	// turned off.
	SkipExternalLinks bool `json:"skipExternalLinks,omitempty"`
	// Mute lists check IDs or areas muted in this analysis, on top of the
	// list stored for the URL's domain (PUT /v1/mutes/{domain}).
	Mute []string `json:"mute,omitempty"`
	// UserAgent is a preset name (seo.UserAgentPresets) or a user agent
	// string for the page's fetch.
	UserAgent string `json:"userAgent,omitempty"`
	// Extract and Search are custom extractors and search rules run on
	// the page (analyzer.Options.Extract, Search).
	Extract []analyzer.Extractor  `json:"extract,omitempty"`
	Search  []analyzer.SearchRule `json:"search,omitempty"`
	// Render is "none" (default: the HTML the server sent), "auto"
	// (render pages whose raw HTML looks like an application shell) or
	// "always" (render with the server's browser and analyse the rendered
	// DOM; the report's render section compares it with the raw HTML).
	Render string `json:"render,omitempty"`
	// Screenshot is "none", "viewport" (default when rendering) or "full";
	// the report carries the PNG base64-encoded (render.screenshot).
	Screenshot string `json:"screenshot,omitempty"`
	// A11y audits the accessibility of the rendered page with axe-core
	// (the report's a11y section and a11y.* findings: the automated subset
	// of WCAG); it needs render "auto" or "always". Without axe-core on the
	// server the report says "not checked".
	A11y bool `json:"a11y,omitempty"`
}

// PageRequest is the body of POST /v1/analyze/page and POST /v1/analyze.
type PageRequest struct {
	URL     string      `json:"url"`
	Options PageOptions `json:"options"`
}
