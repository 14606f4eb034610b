// Package mcpserver is seokit's Model Context Protocol server: every
// operation of the /v1 API as an MCP tool, over the typed services of
// package service, so an agent can analyse a page, start and follow a site
// analysis, page through its findings, explain a check, compare two
// analyses, and manage projects, schedules and alert rules.
//
// Each tool's input and output JSON Schemas are inferred from the Go types
// the API uses (service.SiteRequest, service.PageOptions, crawler's
// report types) and written compactly (repeated subschemas under $defs);
// the answer is the tool's structured content, with a one-line text for
// clients that read structured content and the JSON as text for older
// ones (Options.TextCopy: for all). Answers are small by design: lists are paged with an opaque
// cursor and a default page of about DefaultPageBytes of JSON, pages come
// with the fields asked for, fix_first summarises before site_findings
// details, and every answer says what it left out (PageInfo, Capped's
// Omitted, PageAnalysis.Omitted). The full report and the screenshots of a
// site analysis are resources (ReportURITemplate, ScreenshotURITemplate).
//
// A tool call is charged and authorised as a /v1 request: Options.Charge
// takes one request of the account's daily limit and burst (the services
// charge the rest of an action's cost), each tool declares the read or
// write permission and the operation it needs, checked against the
// principal as /v1 checks a route, and a refusal is an error result whose
// structured content is the /v1 error envelope (code, message, field,
// retryAfter), mapped by the API server's one mapping (Options.Errors).
//
// Transports: httpapi.Server mounts HTTPHandler at /mcp (Streamable HTTP,
// stateful sessions answered with JSON, notifications on the session's
// standalone SSE stream) behind the API's authentication; `cli mcp` runs the server over stdio
// (Stdio: a malformed line is answered with a JSON-RPC error, not the end
// of the session) for a local account over the local data file.
package mcpserver
