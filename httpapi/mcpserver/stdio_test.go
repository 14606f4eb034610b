package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/seokit/seokit/httpapi/mcpserver"
)

// TestStdioMalformedLines: over Stdio, a line that is not a JSON-RPC
// message gets a JSON-RPC error answer and the session goes on; with the
// SDK's transport alone the first such line ended it. Each case's answer
// comes in order, then the session initialises and answers a ping.
func TestStdioMalformedLines(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- mcpserver.New(mcpserver.Services{}, nil).MCP().Run(context.Background(), mcpserver.Stdio(inR, outW))
		outW.Close()
	}()
	answers := bufio.NewReader(outR)
	next := func() map[string]any {
		t.Helper()
		line, err := answers.ReadBytes('\n')
		if err != nil {
			t.Fatalf("no answer: %v", err)
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("answer %q: %v", line, err)
		}
		return m
	}
	send := func(s string) {
		t.Helper()
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		line string
		code float64
		id   any
		want string
	}{
		{"not json", -32700, nil, "line 1: Parse error: not JSON"},
		{"{}", -32600, nil, "line 3: Invalid Request"}, // line 2 is blank, skipped
		{`{"id":5,"method":"ping"}`, -32600, 5.0, "line 4: Invalid Request"},
		{`{"jsonrpc":"2.0","id":"x"`, -32700, nil, "line 5: Parse error"},
		{"[]", -32600, nil, "line 6: Invalid Request: an empty batch"},
		{`[{"jsonrpc":"2.0","method":"ping","id":1},42]`, -32600, nil, "line 7: Invalid Request: batch element 1"},
		{strings.Repeat("x", mcpserver.MaxStdioLine+10), -32600, nil, "line 8: Invalid Request: longer than"},
	}
	for i, c := range cases {
		if i == 1 {
			send("   ")
		}
		send(c.line)
		m := next()
		e, _ := m["error"].(map[string]any)
		if e == nil || e["code"] != c.code || m["id"] != c.id || !strings.HasPrefix(e["message"].(string), c.want) {
			t.Errorf("%.40q: answered %v; want code %v, id %v, a message starting %q", c.line, m, c.code, c.id, c.want)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := next(); m["id"] != 1.0 || m["result"] == nil {
		t.Fatalf("initialize answered %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if m := next(); m["id"] != 2.0 || m["result"] == nil {
		t.Fatalf("ping answered %v", m)
	}
	inW.Close()
	if err := <-done; err != nil && err != io.EOF {
		t.Logf("Run ended with %v", err)
	}
}
