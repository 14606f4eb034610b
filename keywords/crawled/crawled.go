// Package crawled feeds keyword ideas from a site's own pages: it crawls
// the site (package crawler) and counts the noun phrases of every HTML
// page's title, description, headings and body text in a
// keywords.SitePhrases, a keywords.Source whose ideas are phrases the
// site uses, each with the pages it is on.
package crawled

import (
	"context"
	"fmt"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/keywords"
)

// Check returns an analyzer check that adds each analysed HTML page's
// text to sp: title, meta description and the body's text, in the
// language the analyzer detected in the main text, else the declared
// <html lang>. The body's text is read block by block (paragraphs, list
// items, links, cells), so that no phrase spans two blocks. It reports no
// finding.
func Check(sp *keywords.SitePhrases) analyzer.Check {
	return analyzer.Check{Area: "keywords.site", Run: func(p *analyzer.Page, _ *analyzer.Reporter) {
		rep := p.Report
		page := keywords.SitePage{URL: rep.URL, Lang: rep.Language}
		if page.Lang == "" {
			page.Lang = rep.DeclaredLang
		}
		if rep.Title != nil {
			page.Texts = append(page.Texts, rep.Title.Text)
		}
		if rep.Description != nil {
			page.Texts = append(page.Texts, rep.Description.Text)
		}
		if p.BodyEl != nil {
			page.Texts = blockTexts(page.Texts, p.BodyEl, keywords.DefaultMaxSiteTextBytes)
		}
		sp.Add(page)
	}}
}

// inline are the elements whose text runs on with the text around them;
// every other element (a paragraph, a list item, a link, a cell) starts
// and ends a text of its own, so that no phrase spans two of them.
var inline = map[atom.Atom]bool{atom.B: true, atom.Strong: true, atom.Em: true, atom.I: true, atom.Span: true,
	atom.Abbr: true, atom.Mark: true, atom.Small: true, atom.Sub: true, atom.Sup: true, atom.Code: true, atom.U: true}

// skipped are the elements whose text is not the page's prose.
var skipped = map[atom.Atom]bool{atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Svg: true, atom.Math: true, atom.Nav: true, atom.Select: true, atom.Textarea: true}

// blockTexts appends the visible texts of n's blocks to texts, at most
// budget bytes in all.
func blockTexts(texts []string, n *html.Node, budget int) []string {
	var cur strings.Builder
	end := func() {
		if t := strings.TrimSpace(cur.String()); t != "" && budget > 0 {
			texts = append(texts, t[:min(len(t), budget)])
			budget -= len(t)
		}
		cur.Reset()
	}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil && budget > 0; c = c.NextSibling {
			switch {
			case c.Type == html.TextNode:
				cur.WriteString(c.Data)
				cur.WriteByte(' ')
			case c.Type != html.ElementNode || skipped[c.DataAtom]:
			case inline[c.DataAtom]:
				walk(c)
			default:
				end()
				walk(c)
				end()
			}
		}
	}
	walk(n)
	end()
	return texts
}

// Options configures Crawl. The zero value is usable.
type Options struct {
	// Crawler is the crawl's options (nil for the defaults); Crawl adds
	// Check to its analyzer's checks and leaves the rest as it is.
	Crawler *crawler.Options
	// Phrases configures the SitePhrases.
	Phrases *keywords.SitePhrasesOptions
}

// Crawl crawls domain and returns the noun phrases of its pages with the
// crawl's report. It honours ctx as the crawl does.
func Crawl(ctx context.Context, domain string, opts *Options) (*keywords.SitePhrases, *crawler.SiteReport, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	var co crawler.Options
	if o.Crawler != nil {
		co = *o.Crawler
	}
	var ao analyzer.Options
	if co.Analyzer != nil {
		ao = *co.Analyzer
	}
	sp := keywords.NewSitePhrases(o.Phrases)
	ao.Checks = append(append([]analyzer.Check(nil), ao.Checks...), Check(sp))
	co.Analyzer = &ao
	rep, err := crawler.New(&co).Run(ctx, domain)
	if err != nil {
		return nil, nil, fmt.Errorf("keywords: crawl %s: %w", domain, err)
	}
	return sp, rep, nil
}
