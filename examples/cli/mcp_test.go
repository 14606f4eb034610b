package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPStdio runs `cli mcp` over pipes with the Go SDK's client, as a
// local agent runs it: the tools are listed, a loopback page analysed, a
// site analysis started, waited for and its findings paged, its report
// read as a resource; closing stdin ends the command. A second run over
// the same data file sees the first one's analysis (the same local
// account).
func TestMCPStdio(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html lang=en><head><title>Stdio page %s</title></head><body><h1>Hi</h1><a href="/b">b</a></body></html>`, r.URL.Path)
	}))
	defer site.Close()
	db := filepath.Join(t.TempDir(), "data.db")

	session := func(f func(cs *mcp.ClientSession)) string {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		old := stdin
		stdin = inR
		defer func() { stdin = old }()
		var stderr bytes.Buffer
		done := make(chan error, 1)
		go func() {
			done <- run(context.Background(), []string{"mcp", "-db", db, "-allow-private"}, outW, &stderr)
			outW.Close()
		}()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
		if err != nil {
			t.Fatal(err, stderr.String())
		}
		f(cs)
		cs.Close()
		inW.Close()
		if err := <-done; err != nil {
			t.Fatalf("cli mcp: %v\n%s", err, stderr.String())
		}
		return stderr.String()
	}
	callJSON := func(cs *mcp.ClientSession, name string, args map[string]any, out any) {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res.StructuredContent)
		if res.IsError {
			t.Fatalf("%s refused: %s", name, b)
		}
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatal(err)
		}
	}
	var id string
	session(func(cs *mcp.ClientSession) {
		tl, err := cs.ListTools(context.Background(), nil)
		if err != nil || len(tl.Tools) < 20 {
			t.Fatalf("tools: %v %d", err, len(tl.Tools))
		}
		var page struct {
			Status int    `json:"status"`
			Title  string `json:"title"`
		}
		callJSON(cs, "analyze_page", map[string]any{"url": site.URL + "/"}, &page)
		if page.Status != 200 || page.Title != "Stdio page /" {
			t.Fatalf("analyze_page %+v", page)
		}
		var job struct{ ID string }
		callJSON(cs, "start_site_analysis", map[string]any{"url": site.URL + "/", "options": map[string]any{"maxPages": 3}}, &job)
		id = job.ID
		var st struct {
			Analysis struct{ Status string }
			Summary  *struct{ Pages, Checks int }
		}
		callJSON(cs, "wait_site_analysis", map[string]any{"id": id, "timeoutSeconds": 120}, &st)
		if st.Analysis.Status != "succeeded" || st.Summary == nil || st.Summary.Pages != 2 {
			t.Fatalf("wait %+v", st)
		}
		var fl struct {
			Page struct{ Total int }
		}
		callJSON(cs, "site_findings", map[string]any{"id": id}, &fl)
		if fl.Page.Total != st.Summary.Checks {
			t.Fatalf("findings total %d, summary %d", fl.Page.Total, st.Summary.Checks)
		}
		rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "seokit://analyses/" + id + "/report"})
		if err != nil || len(rr.Contents) != 1 || !strings.Contains(rr.Contents[0].Text, site.URL+"/b") {
			t.Fatalf("report resource: %v", err)
		}
	})
	session(func(cs *mcp.ClientSession) {
		var list struct {
			Analyses []struct{ ID string }
		}
		callJSON(cs, "list_site_analyses", map[string]any{}, &list)
		if len(list.Analyses) != 1 || list.Analyses[0].ID != id {
			t.Fatalf("second run lists %+v, want %s", list, id)
		}
	})
}

// TestMCPToolTableInDocs checks that docs/mcp.md's tool table is the one
// `cli mcp -tools` prints from the code.
func TestMCPToolTableInDocs(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"mcp", "-tools"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../docs/mcp.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(readme, out.Bytes()) {
		t.Fatalf("docs/mcp.md does not hold the tool table of `cli mcp -tools`; paste it:\n%s", out.String())
	}
}
