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
// [Report.WriteHTML] writes the report as one self-contained HTML page
// (the findings by priority, then the page facts, with sortable,
// filterable tables of findings, links and images) that opens offline.
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
// Link-scope checks (broken, redirected and noindex targets of links and
// of a refresh, images, canonical, hreflang and og:image) run when [Options.CheckLinks]
// is set, at any depth, within [Options.LinkCheckBudget]: the targets not
// checked by then are reported not checked ([NotCheckedTimeBudget]), not
// broken. Mobile parity checks run when [Options.AnalyzeMobile] is
// set. [Catalog] lists every ID with its severity and scope and, where
// known, the standard or tool the rule follows and how seokit deliberately
// differs from it (links.uncrawlable and links.non_descriptive_text against
// Lighthouse's crawlable-anchors and link-text audits, for instance).
//
// # Rendering with JavaScript
//
// [Options.Render] renders pages in a browser ([Options.Renderer], such as
// render/chromium's Pool) before their page checks run: render.None (the
// default) renders nothing, render.Always renders every HTML page answered
// with status 200, render.Auto only those whose raw HTML looks like the
// shell of a client-rendered application ([LooksLikeAppShell]): at least
// one <script>, fewer than Thresholds.JSShellMaxWords (50) words of main
// text, and an empty mount element (a <div> with an id such as root, app,
// __next or __nuxt, <app-root>, an element with ng-version), or a
// <noscript> asking for JavaScript, or inline scripts 20 times the size of
// the text. The renderer's requests obey robots.txt for its user agent.
//
// A rendered page is parsed once per view. Page checks and page data are
// the rendered DOM's, as users and Google see it; the raw HTML is kept and
// compared: [Report.Render] lists the raw and rendered value of each field
// that changed, the links found only after rendering, both word counts,
// JavaScript errors, failed and blocked requests, page weight, lab Web
// Vitals with the device profile and screenshots. The render.* checks
// report fields present only after rendering or changed by JavaScript, a
// canonical that differs (an error, as Sitebulb ranks it), a raw noindex
// that JavaScript removes (Google does not render such a page, so the raw
// noindex decides Robots.Indexable), errors, failed and robots-blocked
// subresources, a timeout and a failed rendering (the raw analysis then
// stands); the vitals.* checks judge lab LCP, CLS and TBT by web.dev's
// thresholds. Report.Render is absent when rendering is off, and says
// rendered false with the reason when a page was not rendered.
//
// # Extending
//
// Checks are plain functions over a [Page]: the parsed tree with indexes by
// tag, the resolved links and subresources, the main text and the response.
// [Options.Checks] adds checks of your own; [Options.Disable] turns off IDs
// or whole areas; [Options.Mute] keeps them running but leaves their
// findings out of the findings and score, counted in [Report.Muted] (both
// refuse unknown IDs, see [ValidateIDs]); [Options.Severity] re-weights
// IDs; [Options.Thresholds] changes the numbers the checks compare against.
//
// # Custom extraction and search
//
// [Options.Extract] pulls named values out of every HTML page answered with
// a 2xx status, from the one parsed tree: CSS selectors for the text,
// inner or outer HTML, an attribute or the count of matches; XPath
// expressions (antchfx/xpath over the same x/net/html tree); and regular
// expressions on the raw body. [Options.Search] runs contains /
// does-not-contain rules (text or regex, in the raw HTML or the main
// text). Results are [Report.Extracted] and [Report.Search].
//
// Every matcher comes from users and runs on a budget, and stops when the
// analysis's context ends; one that does not finish gets an error in its
// [Extraction] or [SearchMatch] instead of a result. CSS selectors give
// cascadia's results, but only compound selectors are tested with
// cascadia: combinators, :not(), :has() and :haschild() run in one
// memoised pass over the tree (cascadia backtracks, depth to the power of
// the combinators per element), within [CSSBudget] node visits, with at
// most [MaxCSSCompounds] compounds nested [MaxCSSNesting] deep. XPath
// stops after [XPathBudget] node visits (//*//*//* on a deep page). Go's
// regexp is RE2, linear in the input but with the program's size as
// factor: a program has at most [MaxRegexInsts] instructions and its
// searches read runes against [RegexBudget].
// Both lists are capped (MaxExtractors, MaxSearchRules, MaxPatternLen,
// Extractor.MaxValues with an exact Count and Omitted, MaxValueChars per
// value); [ParseExtractor] and [ParseSearchRule] read the command-line
// forms, and [CompileExtractors] and [CompileSearchRules] validate (errors
// name the field, "extract[i].expr") and compile once for many analyses.
//
// # Template fingerprints
//
// [Report.Template] ([TemplateFingerprint]) tells which page template an
// HTML page was built from, so that a crawl can group its product pages,
// category pages and articles without a URL pattern. It is read from the
// one parsed tree (the rendered DOM when the page was rendered) and is 12
// hex digits of a 64-bit FNV-1a hash of the layout skeleton under <body>:
//
//   - each element is its tag name, its id and its first four class
//     tokens, digits removed ("post-123" counts as "post-"); text, comments
//     and every other attribute are ignored;
//   - the skeleton keeps the elements that have a class or id, and the
//     layout blocks div, header, nav, main, article, section, aside,
//     footer and form even without one; an element it does not keep (an
//     unclassed p, h2, ul, table, a, img, span ...) is ignored with its
//     content, so the text of an article, its lists and tables included,
//     does not change its template;
//   - script, style, noscript, template, link, meta, svg and math are
//     ignored with their content;
//   - consecutive siblings with the same tag, id and classes count once
//     (twelve product cards or three are one run), and the items of lists
//     (ul, ol, dl, table, select, datalist) are not read, only the list;
//   - the walk stops 12 levels below <body> and after 2,000 elements.
//
// Two pages of one template that differ only in their text, their number
// of list items or numbered classes share a fingerprint; a product page and
// a category page differ when their layouts have different blocks or
// classes. A template that varies its layout per page (a builder whose
// classes name the content) gets several fingerprints.
//
// # Scores
//
// The page score (seo.PageScore: 100 minus 10 per distinct error ID, 4 per
// warning ID, 1 per notice ID) rates a document, so only an HTML page
// answered with a 2xx status gets one. Otherwise [Report.Score] is nil
// (JSON "score": null) and [Report.ScoreReason] says why: "not_fetched"
// (no response), "error_status" (400 or more), "redirect" (a redirect the
// fetch did not follow, as in a crawl) or "not_html". The findings
// (http.unreachable, http.status_4xx ...) are reported either way; a
// number for a page that does not exist would only hide them.
//
// # Bounded reports and memory
//
// A report's size does not grow with the page: each list of page data
// keeps its first [Options.MaxListItems] items (1000 by default), each
// check ID one finding whose Count counts every occurrence, with the
// evidence of the first and of [Options.MaxExamples] more (5), and each
// evidence its first [Options.MaxEvidenceURLs] URLs (20). Counts such as
// Links.Internal, Images.Total and the score are computed over everything.
// [Report.Truncated] (JSON "truncated") names every list that was cut with
// its total and omitted count, e.g. "truncated": {"links": {"total":
// 629143, "omitted": 628143}}; it is absent when the report is complete.
//
// The parsed tree is bounded too: a document with more than
// [Options.MaxElements] elements (100,000 by default; real pages hold a
// few thousand) is parsed only up to its first element over that budget,
// and the rest is read by a streaming tokenizer that counts its elements,
// links, images and headings, so those counts stay exact while checks and
// lists cover the parsed part. The report then has "truncated":
// {"document": {"total": elements in the body, "omitted": elements not
// parsed}} and the finding content.document_too_large. A document nested
// deeper than [MaxNesting] (512) elements, which the parser refuses, is
// parsed up to its first element too deep and the rest counted the same
// way, with the finding content.nesting_too_deep.
//
// The working set is a part per body byte plus the parsed elements;
// [EstimateMemory] gives the peak for a body size (about 170 MB at the
// 15 MiB fetch cap), measured on pages of dense links, images, headings,
// text and bare elements. [Options.Memory]
// reserves that estimate from a shared budget before parsing and releases
// it when the report is built; a refusal is an error wrapping
// seo.ErrUnavailable.
//
// # Findings and priority
//
// Occurrences of one check ID on a page are grouped into one finding (see
// seo.GroupFindings): "count" says how many there were, "evidence" shows
// the first and "examples" a few more, so thirteen uncrawlable links make
// one finding ×13 instead of thirteen lines. Each finding has a "priority"
// from 0 to 100 (seo.Priority): its severity sets the band (errors 70-100,
// warnings 40-69, notices 10-39) and its occurrences the place within it
// (seo.PageReach), and Report.Findings is sorted by it, highest first,
// then by ID. The low-value notices marked Minor in the catalogue (the
// security.*_missing hardening headers and the social.* preview tags,
// which fire on most pages) rank 0-9, below every other finding.
//
// # Errors
//
// A bad URL, or one whose host resolves only to refused addresses, is an
// error wrapping seo.ErrInvalidInput; a memory reservation refused by
// Options.Memory wraps seo.ErrUnavailable. A page that cannot be fetched is
// not an error: its report carries http.unreachable (or http.redirect_loop).
// Options.Render other than none without an Options.Renderer is an error
// wrapping render.ErrUnavailable.
package analyzer
