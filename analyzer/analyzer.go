package analyzer

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"

	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/seo"
)

// Analyze fetches rawURL with the safe fetcher and analyses it. A bad URL,
// or one whose host is or resolves only to a refused address, is an error
// wrapping seo.ErrInvalidInput. A page that cannot be fetched is not an
// error: the report carries http.unreachable (or http.redirect_loop), the
// reason in Report.Error and, when no response came at all, its kind in
// Report.Unreachable. Such a page, like one answering 4xx or 5xx, has no
// score: Report.Score is nil and Report.ScoreReason says why, so test
// Score before reading it. With Options.Memory set, a refused memory
// reservation is an error wrapping seo.ErrUnavailable. A ctx that ends
// while the fetching parts run (site probes, link checks, mobile parity)
// is ctx's error, not a report missing those parts; Options.LinkCheckBudget
// bounds the link checks within it.
func Analyze(ctx context.Context, rawURL string, opts *Options) (*Report, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	u, err := seo.ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	f := cfg.fetcher()
	resp, err := f.Fetch(ctx, &seo.Request{URL: u.String(), UserAgent: cfg.UserAgent})
	if err != nil {
		if errors.Is(err, seo.ErrInvalidInput) {
			return nil, err
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return failedReport(u.String(), resp, err, cfg), nil
	}
	env := &fetchEnv{Fetcher: f, Robots: cfg.Robots, UserAgent: cfg.UserAgent}
	if env.Robots == nil && cfg.Depth.Includes(Standard) {
		env.Robots = newRobotsPolicy(f)
	}
	return analyze(ctx, resp, cfg, env, true)
}

// AnalyzeHTML analyses a document already fetched: body as served for
// rawURL with the given response header (status 200 is assumed). It fetches
// nothing unless Options.CheckLinks or Options.AnalyzeMobile ask for it;
// robots checks use Options.Robots when set. Options.Memory applies as in
// Analyze.
func AnalyzeHTML(ctx context.Context, rawURL string, header http.Header, body []byte, opts *Options) (*Report, error) {
	u, err := seo.ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	if header == nil {
		header = http.Header{}
	}
	resp := &seo.Response{
		RequestedURL: u.String(), URL: u.String(), Status: http.StatusOK, Header: header, Body: body,
		BodyBytes: int64(len(body)), TransferredBytes: int64(len(body)),
		ContentType: header.Get("Content-Type"), ContentEncoding: header.Get("Content-Encoding"),
	}
	return AnalyzeResponse(ctx, resp, opts)
}

// AnalyzeResponse analyses a response fetched elsewhere (the crawler's).
// Probes that need fetches of their own are skipped; robots checks use
// Options.Robots when set.
func AnalyzeResponse(ctx context.Context, resp *seo.Response, opts *Options) (*Report, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	if resp == nil {
		return nil, &seo.InputError{Field: "response", Reason: "is nil"}
	}
	env := &fetchEnv{Robots: cfg.Robots, UserAgent: cfg.UserAgent}
	if cfg.CheckLinks || cfg.AnalyzeMobile {
		env.Fetcher = cfg.fetcher()
	}
	return analyze(ctx, resp, cfg, env, false)
}

func (c *config) fetcher() Fetcher {
	if c.Fetcher != nil {
		return c.Fetcher
	}
	return seo.NewFetcher(&seo.FetcherOptions{AllowPrivate: c.AllowPrivate, UserAgent: c.UserAgent})
}

// analyze parses once, extracts page data, runs checks, then the fetching
// phases (probes, link checks, mobile) concurrently, and scores. Its
// errors are a refused memory reservation and ctx's (during the rendering
// or the fetching phases).
func analyze(ctx context.Context, resp *seo.Response, cfg *config, env *fetchEnv, probes bool) (*Report, error) {
	release, err := cfg.reserve(ctx, len(resp.Body))
	if err != nil {
		return nil, err
	}
	defer release()
	p := newPage(resp, cfg)
	prepare(ctx, p, resp, cfg, env)
	if cfg.Render != render.None {
		var releaseRendered func()
		p, releaseRendered, err = renderPage(ctx, p, cfg, env)
		if err != nil {
			return nil, err
		}
		defer releaseRendered()
	}
	rep := p.Report
	r := newReporter(cfg, resp.URL)

	// Document checks read a page's content, which only a successful
	// response has; a redirect's or error page's body gets the checks that
	// apply to every response (status, headers, URL).
	document := p.IsHTML && resp.Status/100 == 2
	noteDocumentCut(p, r, document)
	if document {
		runExtractors(ctx, p)
		runSearch(ctx, p)
	}
	for _, list := range [][]Check{builtinChecks, cfg.Checks} {
		for _, c := range list {
			if (document || c.AllDocuments) && cfg.runs(c.Depth, c.IDs) && c.Run != nil {
				c.Run(p, r)
			}
		}
	}

	var wg sync.WaitGroup
	fetching := false // parts of the report wait for fetches below
	if probes {
		for _, pr := range builtinProbes {
			if cfg.runs(pr.Depth, pr.IDs) {
				wg.Add(1)
				fetching = true
				go func() {
					defer wg.Done()
					pr.Run(ctx, p, env, r)
				}()
			}
		}
	}
	if cfg.CheckLinks && env.Fetcher != nil && document {
		wg.Add(1)
		fetching = true
		go func() {
			defer wg.Done()
			runLinkChecks(ctx, p, env, r)
		}()
	}
	if cfg.AnalyzeMobile && env.Fetcher != nil && document {
		wg.Add(1)
		fetching = true
		go func() {
			defer wg.Done()
			runMobile(ctx, p, env, r)
		}()
	}
	wg.Wait()
	if fetching && ctx.Err() != nil {
		// The link checks, the mobile fetch or the probes were cut short:
		// their parts of the report are missing, not fine. A report that
		// said nothing of them would read as a success.
		return nil, ctx.Err()
	}

	capLists(rep, cfg.MaxListItems)
	rep.Findings = r.Findings()
	rep.Muted = r.Muted()
	r.noteTruncation(&rep.Truncated)
	rep.Score, rep.ScoreReason = scoring(rep.Status, rep.IsHTML, rep.Findings)
	return rep, nil
}

// prepare fills the response data and the page data of a freshly parsed
// page: robots.txt's verdict and every extractor's output.
func prepare(ctx context.Context, p *Page, resp *seo.Response, cfg *config, env *fetchEnv) {
	rep := p.Report
	fillResponseData(rep, resp, p.IsHTML)
	rep.Depth = cfg.Depth
	rep.AnalyzedAt = cfg.now().UTC()
	if env.Robots != nil {
		if allowed, known := env.Robots.Allowed(ctx, resp.URL, robotsVerdictAgent); known {
			p.RobotsTxt = &allowed
		}
	}
	for _, x := range builtinExtractors {
		x(p)
	}
}

func fillResponseData(rep *Report, resp *seo.Response, isHTML bool) {
	rep.URL = resp.RequestedURL
	if rep.URL == "" {
		rep.URL = resp.URL
	}
	rep.FinalURL = resp.URL
	rep.Status = resp.Status
	rep.Redirects = resp.Redirects
	rep.Timings = resp.Timings
	rep.IsHTML = isHTML
	rep.Sizes = Sizes{
		Transferred: resp.TransferredBytes, HTML: resp.BodyBytes,
		ContentType: resp.ContentType, ContentEncoding: resp.ContentEncoding, Truncated: resp.Truncated,
	}
	if rep.Sizes.ContentType == "" && resp.Header != nil {
		rep.Sizes.ContentType = resp.Header.Get("Content-Type")
	}
}

// failedReport is the report of a page that could not be fetched.
func failedReport(rawURL string, resp *seo.Response, err error, cfg *config) *Report {
	if resp == nil {
		resp = &seo.Response{RequestedURL: rawURL, URL: rawURL}
	}
	rep := &Report{Depth: cfg.Depth, AnalyzedAt: cfg.now().UTC(), Error: err.Error()}
	fillResponseData(rep, resp, false)
	if rep.Status == 0 {
		rep.Unreachable = seo.NewUnreachable(rawURL, err)
	}
	r := newReporter(cfg, rawURL)
	switch {
	case errors.Is(err, seo.ErrRedirectLoop), errors.Is(err, seo.ErrTooManyRedirects):
		chain := make([]string, 0, len(resp.Redirects))
		for _, h := range resp.Redirects {
			chain = append(chain, h.URL)
		}
		r.Add("http.redirect_loop", "the redirect chain loops or exceeds 10 hops", seo.Evidence{URLs: chain, Detail: err.Error()})
	default:
		r.Add("http.unreachable", "the page could not be fetched: "+unwrapMessage(err), seo.Evidence{Detail: err.Error()})
	}
	if cfg.Render != render.None {
		rep.Render = &RenderReport{Mode: cfg.Render, Reason: "not fetched", VitalsReason: "not rendered"}
	}
	rep.Findings = r.Findings()
	rep.Muted = r.Muted()
	r.noteTruncation(&rep.Truncated)
	rep.ScoreReason = ScoreNotFetched
	return rep
}

// unwrapMessage strips package prefixes for a readable reason.
func unwrapMessage(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 && i+2 < len(msg) {
		return msg[i+2:]
	}
	return msg
}
