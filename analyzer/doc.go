// Package analyzer analyses one web page: it fetches the page with the safe
// fetcher (or takes bytes already fetched), parses it once, runs the page
// checks of the catalogue and returns a [Report] with findings, a 0-100
// score and the page data the checks read.
//
//	rep, err := analyzer.Analyze(ctx, "https://example.com/", &analyzer.Options{
//		Depth:         analyzer.Complete,
//		CheckLinks:    true,
//		AnalyzeMobile: true,
//	})
//
// # Depths
//
// [Options.Depth] selects the areas that run; each depth includes the one
// before it.
//
//   - basic: http, indexability, title, description, headings, canonical.
//   - standard (the default): adds content, links, images, hreflang, social,
//     url, mobile viewport, security headers and TLS facts, and the robots.txt
//     verdict (Analyze fetches robots.txt once per host).
//   - complete: adds structured data, performance, and the security probes
//     that fetch again (the http:// form of an https page, a TLS 1.0/1.1
//     handshake).
//
// Link-scope checks (broken, redirected and noindex targets of links,
// images, canonical, hreflang and og:image) run when [Options.CheckLinks]
// is set, at any depth; mobile parity checks when [Options.AnalyzeMobile] is
// set. [Catalog] lists every ID with its severity and scope.
//
// # Extending
//
// Checks are plain functions over a [Page]: the parsed tree with indexes by
// tag, the resolved links and subresources, the main text and the response.
// [Options.Checks] adds checks of your own; [Options.Disable] turns off IDs
// or whole areas; [Options.Severity] re-weights IDs; [Options.Thresholds]
// changes the numbers the checks compare against.
//
// # Errors
//
// A bad URL, or one whose host resolves only to refused addresses, is an
// error wrapping seo.ErrInvalidInput. A page that cannot be fetched is not
// an error: its report carries http.unreachable (or http.redirect_loop).
package analyzer
