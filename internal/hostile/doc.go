// Package hostile generates web sites written to exhaust the programs
// that read them: a page of a million links, a site where every page links
// to thousands of URLs never seen before, sitemaps of a million URLs, gzip
// bombs, slow drips, deep nesting, huge headers and huge robots.txt files,
// and pages whose text holds terminal escape bytes.
//
// Every generator is an http.Handler that streams its answer, so a test
// serving one on loopback (httptest.NewServer) keeps a small working set
// however large the answer; only GzipBomb keeps its compressed body (about
// a thousandth of the page). The examples/server hostile-input suite and
// the crawler benchmarks use them.
package hostile
