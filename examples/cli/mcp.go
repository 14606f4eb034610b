package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/mcpserver"
	"github.com/seokit/seokit/httpapi/store"
	apisql "github.com/seokit/seokit/httpapi/store/sqlstore"
	"github.com/seokit/seokit/keywords"
	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/reports"
)

// stdin is what `cli mcp` reads its protocol messages from (tests replace
// it).
var stdin io.Reader = os.Stdin

// localEmail is the account of the local MCP server.
const localEmail = "local@localhost"

// runMCP serves seokit's MCP tools over stdio for a local client (Claude
// Desktop, an IDE): an API server runs in-process over the local data
// file, without a listener, and every call acts as the file's local
// account. -tools prints the tool list as a Markdown table instead.
func runMCP(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	db := fs.String("db", defaultDB(), "data file: SQLite path of the keyword table, ranking history and the local account's analyses and projects (env "+dataDBEnv+")")
	allowPrivate := fs.Bool("allow-private", false, "let analyses reach loopback and private addresses (intranet audits)")
	tools := fs.Bool("tools", false, "print the tool list as a Markdown table and exit")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr(fmt.Errorf("mcp takes no arguments, got %q", fs.Arg(0)))
	}
	if *tools {
		writeToolTable(stdout, mcpserver.New(mcpserver.Services{}, nil).Tools())
		return nil
	}
	if strings.TrimSpace(*db) == "" || strings.Contains(*db, "://") {
		return usageErr(errors.New("-db: cli mcp needs an SQLite data file path"))
	}
	ks, err := openKeywords(ctx, *db)
	if err != nil {
		return err
	}
	defer ks.Close()
	rs, err := openRankings(ctx, *db)
	if err != nil {
		return err
	}
	defer rs.Close()
	st, err := apisql.Open(ctx, *db, nil)
	if err != nil {
		return usageErr(fmt.Errorf("open %s: %w", *db, err))
	}
	defer st.Close()
	// Logs go to stderr: stdout carries the protocol.
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv, err := httpapi.New(ctx, &httpapi.Options{
		Store: st, AllowPrivate: *allowPrivate, Logger: log,
		Suggester: keywords.NewSuggester([]keywords.Source{ks}, nil),
		Tracker:   rankings.NewTracker(nil, rs, nil),
		Reports:   reports.New(rs, ks, nil),
	})
	if err != nil {
		return err
	}
	defer srv.Close()
	if err := srv.Start(ctx); err != nil {
		return err
	}
	acct, err := localAccount(ctx, srv)
	if err != nil {
		return err
	}
	p := &auth.Principal{AccountID: acct.ID, Permissions: []string{auth.ScopeRead, auth.ScopeWrite}}
	m := mcpserver.New(srv.MCPServices(), &mcpserver.Options{Local: p, Errors: srv.ToolError, Decode: httpapi.DecodeArguments, Logger: log})
	err = m.MCP().Run(ctx, mcpserver.Stdio(stdin, stdout))
	if err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// localAccount returns the data file's local account, creating it on
// first use, on the Pro plan. Tool calls are not counted as requests (the
// server is the user's own); the services still charge their actions
// (site analyses, research) against the plan's limits.
func localAccount(ctx context.Context, srv *httpapi.Server) (*store.Account, error) {
	a, err := srv.Accounts().AccountByEmail(ctx, localEmail)
	if err == nil {
		return a, nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	return srv.Accounts().CreateAccount(ctx, localEmail, "local", "", store.Pro)
}

// writeToolTable prints tools as the README's Markdown table.
func writeToolTable(w io.Writer, tools []mcpserver.ToolInfo) {
	fmt.Fprintln(w, "| Tool | Access | What it does |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, t := range tools {
		access := "read"
		if t.Write {
			access = "write"
		}
		fmt.Fprintf(w, "| `%s` | %s | %s |\n", t.Name, access, t.Description)
	}
}
