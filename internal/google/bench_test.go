package google

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"golang.org/x/oauth2"
)

// BenchmarkSearchAnalyticsFullPage measures one full 25,000-row page of
// query+page rows: request, transfer over loopback, decode and checks.
func BenchmarkSearchAnalyticsFullPage(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"rows":[`)
	for i := range MaxRowLimit {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"keys":["keyword number %d","https://www.example.com/page/%d"],"clicks":%d,"impressions":%d,"ctr":0.01,"position":%d.5}`, i, i, i%7, 100+i%13, 1+i%50)
	}
	sb.WriteString(`],"responseAggregationType":"byPage"}`)
	page := []byte(sb.String())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(page) }))
	defer srv.Close()
	c, err := New(Config{Name: "bench", BaseURL: srv.URL, TokenSource: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "x"})}, SearchConsoleBase)
	if err != nil {
		b.Fatal(err)
	}
	req := SearchAnalyticsRequest{Dimensions: []string{"query", "page"}}
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		rows, _, err := SearchAnalytics(context.Background(), c, "sc-domain:example.com", req, MaxRowLimit)
		if err != nil || len(rows) != MaxRowLimit {
			b.Fatalf("%d rows, %v", len(rows), err)
		}
	}
}
