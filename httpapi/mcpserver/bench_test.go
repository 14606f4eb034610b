package mcpserver_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler/crawlertest"
	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/store"
)

// BenchmarkAnalyzePage sends analyze_page as a plain HTTP tools/call over
// one MCP session, and the same POST /v1/analyze/page, on a tiny page and
// on a page of typical size (a 60 KB crawlertest article), for profiling
// the server's side of each path apart:
//
//	go test ./httpapi/mcpserver -run '^$' -bench AnalyzePage/typical/mcp -cpuprofile cpu.prof -memprofile mem.prof
//
// Each sub-benchmark logs the percentiles of its calls' wall time.
func BenchmarkAnalyzePage(b *testing.B) {
	e := newEnv(b, &httpapi.Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Free: 1 << 30}, BurstRate: 1e9, Burst: 1e9})
	site := newGatedSite(b)
	site.open()
	pageURL := site.URL + "/a"
	tr := &http.Transport{MaxIdleConnsPerHost: 4}
	b.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr}
	cs := e.connectLong(e.key, tr)
	run := func(b *testing.B, pageURL, path, body string, hdr ...string) {
		b.ReportAllocs()
		var ds []time.Duration
		for b.Loop() {
			t0 := time.Now()
			if data := e.post(b, client, path, body, hdr...); !strings.Contains(string(data), pageURL) {
				b.Fatalf("%s: %.300s", path, data)
			}
			ds = append(ds, time.Since(t0))
		}
		slices.Sort(ds)
		b.Logf("%d calls: p10 %v, median %v, p90 %v", len(ds), ds[len(ds)/10], ds[len(ds)/2], ds[len(ds)*9/10])
	}
	typical := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 10, PageBytes: 60_000, NoRequestLog: true})
	b.Cleanup(typical.Close)
	for _, page := range []struct{ name, url string }{{"tiny", pageURL}, {"typical", typical.ArticleURL(3)}} {
		b.Run(page.name+"/mcp", func(b *testing.B) {
			run(b, page.url, "/mcp", fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"analyze_page","arguments":{"url":%q}}}`, page.url),
				"Accept", "application/json, text/event-stream", "Mcp-Session-Id", cs.ID(), "Mcp-Protocol-Version", cs.InitializeResult().ProtocolVersion)
		})
		b.Run(page.name+"/v1", func(b *testing.B) {
			run(b, page.url, "/v1/analyze/page", fmt.Sprintf(`{"url":%q}`, page.url))
		})
	}
}
