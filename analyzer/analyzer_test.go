package analyzer

import (
	"context"
	"net/http"
	"testing"

	"github.com/seokit/seokit/seo"
)

// TestNonSuccessDocuments: redirect and error bodies get the checks every
// response gets (status, headers, URL), never content checks.
func TestNonSuccessDocuments(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		status int
		want   []string
	}{
		{301, []string{"http.redirect"}},
		{404, []string{"http.status_4xx"}},
		{503, []string{"http.status_5xx"}},
	} {
		resp := &seo.Response{
			RequestedURL: "https://example.com/old", URL: "https://example.com/old", Status: tt.status,
			Header: http.Header{"Content-Type": {"text/html"}, "Location": {"/new"}},
			Body:   []byte("<html><body>Moved</body></html>"),
		}
		if tt.status == 301 {
			resp.Redirects = []seo.Redirect{{URL: "https://example.com/old", Status: 301, Location: "https://example.com/new"}}
			resp.URL = "https://example.com/new"
		}
		rep, err := AnalyzeResponse(context.Background(), resp, &Options{Depth: Complete})
		if err != nil {
			t.Fatal(err)
		}
		assertIDs(t, rep, tt.want, []string{"title.missing", "description.missing", "headings.h1_missing", "content.lang_missing", "mobile.viewport_missing"})
	}
}
