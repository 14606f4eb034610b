package analyzer

import (
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/seokit/seokit/seo"
)

func init() {
	register(Check{
		Area:  "performance",
		Depth: Complete,
		IDs: []seo.CheckInfo{
			{ID: "performance.dom_too_large", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "The document has more element nodes than the threshold.",
				Source:  "SEOnaut (1500 elements); Lighthouse dom-size (https://developer.chrome.com/docs/lighthouse/performance/dom-size)",
				Differs: "Lighthouse warns from about 800 body elements; seokit uses SEOnaut's 1,500 over the whole document, as a notice."},
			{ID: "performance.render_blocking_scripts", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "Too many external scripts in <head> load without async, defer, nomodule or type=module.",
				Source:  "seokit's own rule, after Lighthouse render-blocking-resources (https://developer.chrome.com/docs/lighthouse/performance/render-blocking-resources); HTML Standard, prepare the script element (https://html.spec.whatwg.org/multipage/scripting.html#prepare-the-script-element)",
				Differs: "Lighthouse measures the delay in a lab load; seokit counts scripts in <head> without async, defer, nomodule or type=module in the served HTML."},
			{ID: "performance.inline_size", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "Inline scripts and styles together are large, or over half of the HTML.",
				Source: "seokit's own rule: large inline scripts and styles are re-sent with every page and cannot be cached"},
			{ID: "performance.too_many_requests", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "The page references more subresources than the threshold.",
				Source: "seokit's own rule: many subresources slow the first load and use crawl budget"},
		},
		Run: checkPerformance,
	})
}

// checkPerformance runs the performance checks. The DOM size counts every
// element node of the parsed tree, including html, head and body (also when
// the parser implied them) and elements inside SVG or MathML, as a
// browser's DOM does.
func checkPerformance(p *Page, r *Reporter) {
	th := p.Thresholds()
	if n := p.ElementCount(); n > th.MaxDOMElements {
		r.Add("performance.dom_too_large", "the document has "+strconv.Itoa(n)+" elements",
			seo.Measure("elements", float64(n), float64(th.MaxDOMElements)))
	}

	var blocking []string
	var inline int64
	for _, s := range p.ByTag(atom.Script) {
		src, hasSrc := Attr(s, "src")
		if !hasSrc {
			inline += perfTextBytes(s)
			continue
		}
		if !InHead(s) || strings.TrimSpace(src) == "" || !perfClassicScript(s) {
			continue
		}
		if _, ok := Attr(s, "async"); ok {
			continue
		}
		if _, ok := Attr(s, "defer"); ok {
			continue
		}
		// A browser that runs module scripts neither fetches nor runs a
		// classic script marked nomodule (HTML Standard, prepare the
		// script element), so a legacy fallback blocks nothing.
		if _, ok := Attr(s, "nomodule"); ok {
			continue
		}
		if u := p.Resolve(src); u != nil {
			src = u.String()
		}
		blocking = append(blocking, src)
	}
	for _, s := range p.ByTag(atom.Style) {
		inline += perfTextBytes(s)
	}
	if len(blocking) > th.MaxBlockingScripts {
		ev := seo.Measure("<script src> in <head>", float64(len(blocking)), float64(th.MaxBlockingScripts))
		ev.URLs = blocking
		r.Add("performance.render_blocking_scripts", strconv.Itoa(len(blocking))+" scripts in <head> block rendering; use async, defer or type=module", ev)
	}
	htmlBytes := int64(len(p.Body))
	switch {
	case inline > th.MaxInlineBytes:
		r.Add("performance.inline_size", "inline scripts and styles hold "+strconv.FormatInt(inline, 10)+" bytes",
			seo.Measure("inline <script>/<style> bytes", float64(inline), float64(th.MaxInlineBytes)))
	case htmlBytes > 0 && inline*2 > htmlBytes:
		ev := seo.Measure("inline <script>/<style> bytes", float64(inline), float64(htmlBytes/2))
		ev.Detail = "over half of the " + strconv.FormatInt(htmlBytes, 10) + " HTML bytes"
		r.Add("performance.inline_size", "inline scripts and styles make up over half of the HTML", ev)
	}

	// Subresources are counted by distinct URL: a browser fetches each once.
	// Fewer references than the threshold cannot exceed it, so most pages
	// skip the count.
	if len(p.Resources) <= th.MaxSubresources {
		return
	}
	seen := make(map[string]struct{}, len(p.Resources))
	for _, res := range p.Resources {
		key := res.Raw
		if res.URL != nil {
			key = res.URL.String()
		}
		seen[key] = struct{}{}
	}
	if n := len(seen); n > th.MaxSubresources {
		r.Add("performance.too_many_requests", "the page references "+strconv.Itoa(n)+" subresources",
			seo.Measure("subresources", float64(n), float64(th.MaxSubresources)))
	}
}

// perfClassicScript reports whether a script is a classic script that blocks
// the parser: no type, or a JavaScript MIME type (type="module" defers, and
// data blocks such as JSON-LD do not run).
func perfClassicScript(s *html.Node) bool {
	t, ok := Attr(s, "type")
	if !ok {
		return true
	}
	t = strings.ToLower(strings.TrimSpace(strings.SplitN(t, ";", 2)[0]))
	return t == "" || perfJSMIMETypes[t]
}

// perfJSMIMETypes are the JavaScript MIME type essences of the MIME
// Sniffing Standard (https://mimesniff.spec.whatwg.org/#javascript-mime-type),
// the types under which a browser runs a script as classic JavaScript.
var perfJSMIMETypes = map[string]bool{
	"application/ecmascript": true, "application/javascript": true, "application/x-ecmascript": true,
	"application/x-javascript": true, "text/ecmascript": true, "text/javascript": true,
	"text/javascript1.0": true, "text/javascript1.1": true, "text/javascript1.2": true,
	"text/javascript1.3": true, "text/javascript1.4": true, "text/javascript1.5": true,
	"text/jscript": true, "text/livescript": true, "text/x-ecmascript": true, "text/x-javascript": true,
}

// perfTextBytes sums the bytes of the text children of a script or style.
func perfTextBytes(n *html.Node) int64 {
	var total int64
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode {
			total += int64(len(c.Data))
		}
	}
	return total
}
