// Package hostile generates web pages and bodies written to exhaust the
// programs that read them: a page of a million links, gzip bombs, slow
// drips, deep nesting, huge headers and huge robots.txt files, pages whose
// text holds terminal escape bytes, and endless plain text for request
// bodies. Hostile whole sites (thousands of new links per page, sitemaps
// of a million URLs) are crawlertest.NewHostileSite.
//
// Every generator is an http.Handler that streams its answer, so a test
// serving one on loopback (httptest.NewServer) keeps a small working set
// however large the answer; only GzipBomb keeps its compressed body (about
// a thousandth of the page). The examples/server hostile-input suite uses
// them.
package hostile
