package analyzer

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/seokit/seokit/seo"
)

func init() {
	register(Check{
		Area:  "headings",
		Depth: Basic,
		IDs: []seo.CheckInfo{
			{ID: "headings.h1_missing", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "The page has no <h1> element.",
				Source: "Google Search Central, SEO Starter Guide (https://developers.google.com/search/docs/fundamentals/seo-starter-guide); Screaming Frog SEO Spider, SEOnaut, PSA"},
			{ID: "headings.h1_empty", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "An <h1> holds neither text nor image alt text.",
				Source: "Google Search Central, SEO Starter Guide (https://developers.google.com/search/docs/fundamentals/seo-starter-guide); SEOnaut (counts it as a missing H1)"},
			{ID: "headings.h1_multiple", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "The page has more than one <h1>, which blurs its main topic.",
				Source:  "Screaming Frog SEO Spider; Yoast SEO single H1 assessment",
				Differs: "HTML allows several H1s; seokit keeps it a notice, where Yoast scores it down."},
			{ID: "headings.h1_too_long", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "The first H1 is longer than 70 characters.",
				Source: "Screaming Frog SEO Spider (H1 over 70 characters)"},
			{ID: "headings.h1_image_alt_only", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "The H1's only text is the alt text of an image inside it.",
				Source: "Screaming Frog SEO Spider (H1 from image alt text only)"},
			{ID: "headings.level_skipped", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "The outline jumps down more than one level, or does not start with an h1.",
				Source: "HTML Standard, headings (https://html.spec.whatwg.org/multipage/sections.html#headings-and-outlines); Screaming Frog SEO Spider, SEOnaut"},
			{ID: "headings.empty", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "An h2-h6 element holds neither text nor image alt text.",
				Source: "seokit's own rule, after HTML Standard, headings (https://html.spec.whatwg.org/multipage/sections.html#headings-and-outlines)"},
			{ID: "headings.h2_missing", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "A page of 600 or more words has no <h2>.",
				Source:  "Google Search Central, SEO Starter Guide (https://developers.google.com/search/docs/fundamentals/seo-starter-guide)",
				Differs: "Screaming Frog flags every page without an H2; seokit only pages of 600 words or more, where sections help readers."},
		},
		Run: checkHeadings,
	})
	registerExtractor(extractHeadings)
}

// headingLevel returns 1-6 for h1-h6 HTML elements and 0 otherwise.
func headingLevel(n *html.Node) int {
	if n.Type != html.ElementNode || n.Namespace != "" {
		return 0
	}
	switch n.DataAtom {
	case atom.H1:
		return 1
	case atom.H2:
		return 2
	case atom.H3:
		return 3
	case atom.H4:
		return 4
	case atom.H5:
		return 5
	case atom.H6:
		return 6
	}
	return 0
}

// headingText returns a heading's text with the alt text of images inside it
// in their place, whitespace collapsed.
func headingText(n *html.Node) string {
	if t, ok := soleText(n); ok {
		return Collapse(t)
	}
	var sb strings.Builder
	headingWalk(n, &sb, true)
	return Collapse(sb.String())
}

// headingParts returns a heading's own text and the alt text of its images
// separately, each whitespace collapsed.
func headingParts(n *html.Node) (text, alt string) {
	if t, ok := soleText(n); ok {
		return Collapse(t), ""
	}
	var ts, as strings.Builder
	headingWalk(n, &ts, false)
	headingAlts(n, &as)
	return Collapse(ts.String()), Collapse(as.String())
}

// soleText returns the text of an element whose only child is a text
// node, or "" for one without children (ok true), as headingWalk would
// write it: most headings are such, and their text is read by the
// outline, the checks of headings, title and content, so it is collapsed
// from the node's own string instead of a builder's copy each time.
func soleText(n *html.Node) (text string, ok bool) {
	c := n.FirstChild
	switch {
	case c == nil:
		return "", true
	case c.NextSibling == nil && c.Type == html.TextNode:
		return c.Data, true
	}
	return "", false
}

func headingWalk(n *html.Node, sb *strings.Builder, withAlt bool) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			sb.WriteString(c.Data)
		case html.ElementNode:
			if inertTemplate(c) {
				continue
			}
			switch c.DataAtom {
			case atom.Script, atom.Style:
				continue
			case atom.Img:
				if withAlt && c.Namespace == "" {
					if a, ok := Attr(c, "alt"); ok {
						sb.WriteByte(' ')
						sb.WriteString(a)
						sb.WriteByte(' ')
					}
				}
				continue
			}
			headingWalk(c, sb, withAlt)
		}
	}
}

func headingAlts(n *html.Node, sb *strings.Builder) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		if c.DataAtom == atom.Img && c.Namespace == "" {
			if a, ok := Attr(c, "alt"); ok {
				sb.WriteString(a)
				sb.WriteByte(' ')
			}
			continue
		}
		headingAlts(c, sb)
	}
}

// extractHeadings fills Report.Headings with the first MaxListItems
// headings of the h1-h6 outline.
func extractHeadings(p *Page) {
	total := 0
	for _, n := range p.headingEls {
		if lvl := headingLevel(n); lvl > 0 {
			if total++; total <= p.cfg.MaxListItems {
				p.Report.Headings = append(p.Report.Headings, Heading{Level: lvl, Text: headingText(n)})
			}
		}
	}
	if p.tail != nil {
		total += p.tail.headings
	}
	p.Report.Truncated.Note("headings", total, len(p.Report.Headings))
}

func checkHeadings(p *Page, r *Reporter) {
	th := p.Thresholds()
	h1s := p.ByTag(atom.H1)
	if len(h1s) == 0 {
		r.Add("headings.h1_missing", "the page has no <h1> naming its main topic", seo.Evidence{Element: "<h1>"})
	}
	if len(h1s) > 1 {
		ev := seo.Measure("<h1>", float64(len(h1s)), 1)
		vals := make([]string, 0, len(h1s))
		for _, h := range h1s {
			vals = append(vals, headingText(h))
		}
		ev.Value = strings.Join(vals, " | ")
		r.Add("headings.h1_multiple", "the page has more than one <h1>", ev)
	}
	for i, h := range h1s {
		text, alt := headingParts(h)
		switch {
		case text == "" && alt == "":
			r.Add("headings.h1_empty", "an <h1> has no text", seo.Evidence{Element: Outer(h)})
		case text == "":
			r.Add("headings.h1_image_alt_only", "the <h1> text comes only from an image's alt text",
				seo.Evidence{Element: "<h1>", Value: alt})
		}
		if i == 0 {
			full := headingText(h)
			if n := Length(full); n > th.H1MaxChars {
				ev := seo.Measure("<h1>", float64(n), float64(th.H1MaxChars))
				ev.Value = full
				r.Add("headings.h1_too_long", "the first <h1> is too long to read as a headline", ev)
			}
		}
	}

	prev, hasH2 := 0, false
	for _, n := range p.headingEls {
		lvl := headingLevel(n)
		if lvl == 0 {
			continue
		}
		if lvl == 2 {
			hasH2 = true
		}
		switch {
		case prev == 0 && lvl != 1:
			r.Add("headings.level_skipped", "the first heading is not an <h1>",
				seo.Evidence{Element: "<" + n.Data + ">", Value: headingText(n), Detail: "first heading of the page"})
		case prev > 0 && lvl > prev+1:
			r.Add("headings.level_skipped", "a heading skips a level of the outline",
				seo.Evidence{Element: "<" + n.Data + ">", Value: headingText(n), Detail: "follows <h" + string(rune('0'+prev)) + ">"})
		}
		prev = lvl
		if lvl > 1 {
			if text, alt := headingParts(n); text == "" && alt == "" {
				r.Add("headings.empty", "a heading has no text", seo.Evidence{Element: Outer(n)})
			}
		}
	}
	if !hasH2 && p.Words >= th.H2MinWords {
		ev := seo.Measure("<h2>", float64(p.Words), float64(th.H2MinWords))
		ev.Detail = "words of main text without an <h2>"
		r.Add("headings.h2_missing", "a long page has no <h2> subheadings to structure it", ev)
	}
}
