package crawler

import (
	"context"

	"github.com/seokit/seokit/seo"
)

// agentFetcher sends the crawl's user agent with requests that name none
// (robots.txt fetches), so a fetcher shared with other crawls or page
// analyses is not identified by its own default.
type agentFetcher struct {
	f  *seo.Fetcher
	ua string
}

// Fetch fetches req with the crawl's user agent unless it has its own.
func (a agentFetcher) Fetch(ctx context.Context, req *seo.Request) (*seo.Response, error) {
	if req.UserAgent == "" {
		r := *req
		r.UserAgent = a.ua
		req = &r
	}
	return a.f.Fetch(ctx, req)
}
