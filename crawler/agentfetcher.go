package crawler

import (
	"context"
	"net/http"
	"time"

	"github.com/seokit/seokit/seo"
)

// agentFetcher sends the crawl's user agent with requests that name none
// (robots.txt fetches), so a fetcher shared with other crawls or page
// analyses is not identified by its own default.
type agentFetcher struct {
	f  *seo.Fetcher
	ua string
	// header gives the crawl's access header for a URL (nil for none).
	header func(string) http.Header
	// timeout bounds each fetch (Options.RequestTimeout); zero leaves the
	// fetcher's own bound.
	timeout time.Duration
}

// Fetch fetches req with the crawl's user agent unless it has its own.
func (a agentFetcher) Fetch(ctx context.Context, req *seo.Request) (*seo.Response, error) {
	if req.UserAgent == "" || (req.Header == nil && a.header != nil) {
		r := *req
		if r.UserAgent == "" {
			r.UserAgent = a.ua
		}
		if r.Header == nil && a.header != nil {
			r.Header = a.header(r.URL)
		}
		req = &r
	}
	if a.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, a.timeout)
		defer cancel()
	}
	return a.f.Fetch(ctx, req)
}
