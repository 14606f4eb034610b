package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/mcpserver"
)

// Example runs the server over in-memory transports, as `cli mcp` runs it
// over stdio for a local account, and asks it to explain a check.
func Example() {
	local := &auth.Principal{AccountID: "local", Permissions: []string{auth.ScopeRead, auth.ScopeWrite}}
	srv := mcpserver.New(mcpserver.Services{}, &mcpserver.Options{Local: local})
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		panic(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "explain_check", Arguments: map[string]any{"id": "title.missing"}})
	if err != nil {
		panic(err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var check struct {
		ID       string `json:"id"`
		Severity string `json:"severity"`
	}
	json.Unmarshal(b, &check)
	fmt.Println(check.ID, check.Severity)
	// A tool whose service the server lacks says so, with the API's code.
	res, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_projects"})
	b, _ = json.Marshal(res.StructuredContent)
	fmt.Println(res.IsError, string(b))
	// Output:
	// title.missing error
	// true {"error":{"code":"unavailable","message":"the services of this tool are not configured on this server","retryAfter":5,"status":503}}
}
