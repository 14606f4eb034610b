package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler/crawlertest"
	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/service"
)

// reportPages answers every analysis with one report.
type reportPages struct{ rep *analyzer.Report }

func (p reportPages) Analyze(context.Context, string, service.PageRequest) (*analyzer.Report, error) {
	return p.rep, nil
}

// sdkEncode encodes res as the SDK answers a tools/call: the result
// marshalled without HTML escaping (jsonrpc2's marshalToRaw), then the
// JSON-RPC response around it (EncodeMessage, which compacts the result
// again).
func sdkEncode(tb testing.TB, res *mcp.CallToolResult) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res); err != nil {
		tb.Fatal(err)
	}
	id, err := jsonrpc.MakeID(float64(1))
	if err != nil {
		tb.Fatal(err)
	}
	b, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Result: bytes.TrimSuffix(buf.Bytes(), []byte("\n"))})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// BenchmarkResultEncoding compares the forms analyze_page's answer on the
// typical page (a 60 KB crawlertest article) can take as structured
// content: "value", the Go value the server passes, which the SDK encodes
// by reflection and then compacts twice; "raw", the answer encoded first
// (its cost included) and passed as json.RawMessage, which the SDK
// compacts three times; and, for scale, "shape" (analyze_page's own work
// on the report, its findings sized against the page budget), "marshal"
// and "compact" of the answer alone:
//
//	go test ./httpapi/mcpserver -run '^$' -bench ResultEncoding -count 5
func BenchmarkResultEncoding(b *testing.B) {
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 10, PageBytes: 60_000, NoRequestLog: true})
	b.Cleanup(site.Close)
	resp, err := http.Get(site.ArticleURL(3))
	if err != nil {
		b.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		b.Fatal(err)
	}
	rep, err := analyzer.AnalyzeHTML(context.Background(), site.ArticleURL(3), resp.Header, body, nil)
	if err != nil {
		b.Fatal(err)
	}
	s := New(Services{Pages: reportPages{rep}}, nil)
	p := &auth.Principal{AccountID: "a"}
	in := AnalyzePageInput{URL: site.ArticleURL(3)}
	out, err := s.analyzePage(context.Background(), nil, p, in)
	if err != nil {
		b.Fatal(err)
	}
	raw, err := json.Marshal(out)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("answer: %d bytes, %d findings", len(raw), len(out.Findings))
	text := []mcp.Content{&mcp.TextContent{Text: "analyze_page answered in structuredContent."}}
	b.Run("shape", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.analyzePage(context.Background(), nil, p, in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("value", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sdkEncode(b, &mcp.CallToolResult{StructuredContent: out, Content: text})
		}
	})
	b.Run("raw", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r, err := json.Marshal(out)
			if err != nil {
				b.Fatal(err)
			}
			sdkEncode(b, &mcp.CallToolResult{StructuredContent: json.RawMessage(r), Content: text})
		}
	})
	b.Run("marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(out); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("compact", func(b *testing.B) {
		b.ReportAllocs()
		var dst bytes.Buffer
		for b.Loop() {
			dst.Reset()
			if err := json.Compact(&dst, raw); err != nil {
				b.Fatal(err)
			}
		}
	})
}
