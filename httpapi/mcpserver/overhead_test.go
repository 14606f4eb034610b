package mcpserver_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/store"
)

// TestOverheadAnalyzePage compares analyze_page over /mcp with the same
// POST /v1/analyze/page, 200 calls each, alternating, in one run on
// loopback: it prints both medians and their ratio (target: within 10%).
// Set SEOKIT_MCP_OVERHEAD=1 to run it.
func TestOverheadAnalyzePage(t *testing.T) {
	if os.Getenv("SEOKIT_MCP_OVERHEAD") == "" {
		t.Skip("set SEOKIT_MCP_OVERHEAD=1 to measure the MCP overhead")
	}
	const calls = 200
	e := newEnv(t, &httpapi.Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Free: 10 * calls}, BurstRate: 1e6, Burst: 1e6})
	site := newGatedSite(t)
	site.open()
	cs := e.connect(e.key, nil)
	body := fmt.Sprintf(`{"url":%q}`, site.URL+"/a")
	mcpTimes, v1Times := make([]time.Duration, 0, calls), make([]time.Duration, 0, calls)
	for i := range calls + 10 {
		t0 := time.Now()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "analyze_page", Arguments: map[string]any{"url": site.URL + "/a"}})
		d := time.Since(t0)
		if err != nil || res.IsError {
			t.Fatalf("analyze_page: %v %+v", err, res)
		}
		t0 = time.Now()
		code, b := e.v1("POST", "/v1/analyze/page", e.key, body)
		dv := time.Since(t0)
		if code != 200 {
			t.Fatalf("/v1: %d %s", code, b)
		}
		if i >= 10 { // the first calls warm the connections
			mcpTimes, v1Times = append(mcpTimes, d), append(v1Times, dv)
		}
	}
	slices.Sort(mcpTimes)
	slices.Sort(v1Times)
	m, v := mcpTimes[calls/2], v1Times[calls/2]
	t.Logf("analyze_page median over %d calls: MCP %v, /v1 %v, ratio %.3f", calls, m, v, float64(m)/float64(v))
}
