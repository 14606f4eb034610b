package crawler_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/seo"
)

// A start the fetcher refuses is an input error naming the domain, with
// nothing fetched, not a crawl whose robots.txt and pages all fail.
func TestRunRefusesForbiddenStart(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	rep, err := crawler.New(&crawler.Options{MaxPages: 5}).Run(context.Background(), srv.URL)
	ie, ok := seo.AsInputError(err)
	if rep != nil || !ok || ie.Field != "domain" || !errors.Is(err, seo.ErrForbiddenAddress) {
		t.Fatalf("Run(%s) without AllowPrivate: %v, %v; want an input error for domain wrapping ErrForbiddenAddress", srv.URL, rep, err)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests reached the site", n)
	}
	t.Logf("error: %v", err)
}
