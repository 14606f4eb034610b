package crawler

import (
	"fmt"
	"strings"

	"github.com/seokit/seokit/seo"
)

func init() {
	registerSite(
		siteCheck{
			Area: "aicrawlers",
			IDs: []seo.CheckInfo{
				{ID: "ai.search_crawlers_blocked", Severity: seo.Warning, Scope: seo.ScopeSite, Summary: "robots.txt disallows the home page to an AI search or user-initiated crawler, so the site cannot be cited in that product's answers.",
					Source:  "RFC 9309, Robots Exclusion Protocol (https://www.rfc-editor.org/rfc/rfc9309); the operators' documentation of each AI crawler token: " + aiTokenSources(),
					Differs: "Blocking training crawlers (GPTBot, ClaudeBot, CCBot, Google-Extended ...) is a choice of the site: the matrix shows it and no finding is reported. Not reported when robots.txt is unreachable (site.robots_txt_server_error says so)."},
				{ID: "ai.firewall_blocks", Severity: seo.Warning, Scope: seo.ScopeSite, Summary: "robots.txt lets an AI crawler fetch the home page or a sampled page (one per page template, up to three) but the server refuses its user agent there (error status, bot challenge or a much smaller body than a normal fetch).",
					Source: "seokit's own rule, after OpenAI, Overview of OpenAI crawlers (https://platform.openai.com/docs/bots) and Perplexity Crawlers (https://docs.perplexity.ai/guides/bots) (allow the crawlers' user agents and IP ranges in firewalls)"},
				{ID: "ai.content_needs_js", Severity: seo.Warning, Scope: seo.ScopeSite, Summary: "Rendered pages whose main text exists only after JavaScript runs (the raw HTML has under a third of the rendered words): AI crawlers, which do not render, see them nearly empty.",
					Source:  "Vercel, The rise of the AI crawler (https://vercel.com/blog/the-rise-of-the-ai-crawler) (the major AI crawlers fetch but do not execute JavaScript); Google Search Central, Understand the JavaScript SEO basics (https://developers.google.com/search/docs/crawling-indexing/javascript/javascript-seo-basics)",
					Differs: "Only computed for crawls that render pages (render auto or always), from each page's raw and rendered main-text word counts."},
				{ID: "ai.llms_txt_malformed", Severity: seo.Notice, Scope: seo.ScopeSite, Summary: "/llms.txt exists but does not follow the llms.txt format (H1 title first, optional blockquote summary, H2 sections of markdown link lists).",
					Source: "The /llms.txt file proposal (https://llmstxt.org)"},
			},
			Run: (*siteRun).aiChecks,
		},
	)
}

// aiChecks builds SiteReport.AICrawlers and its findings when the crawl
// gathered the AI readiness facts (Options.AICrawlers).
func (r *siteRun) aiChecks() {
	if r.facts.AI == nil || r.facts.AI.robots == nil {
		return
	}
	rep := r.aiReport()
	r.ai = rep
	var blocked, lines, walled, reasons []string
	for _, c := range rep.Crawlers {
		if rep.Status == "complete" && c.Purpose != AITraining && !c.Home.Allowed {
			blocked = append(blocked, c.Token)
			lines = append(lines, fmt.Sprintf("%s: line %d: %s", c.Token, c.Home.Line, c.Home.Rule))
		}
		refused := false
		if c.Home.Allowed && c.Probe != nil && c.Probe.Blocked {
			refused = true
			reasons = append(reasons, c.Token+": "+c.Probe.Reason)
		}
		for _, u := range c.URLProbes {
			if u.Allowed && u.Probe != nil && u.Probe.Blocked {
				refused = true
				reasons = append(reasons, c.Token+": "+u.URL+": "+u.Probe.Reason)
			}
		}
		if refused {
			walled = append(walled, c.Token)
		}
	}
	if len(blocked) > 0 {
		r.add("ai.search_crawlers_blocked", rep.HomeURL,
			"robots.txt disallows the home page to AI search and user-initiated crawlers: "+strings.Join(blocked, ", "),
			seo.Evidence{Element: "robots.txt", Value: strings.Join(blocked, ", "), URLs: lines}, nil, 0)
	}
	if len(walled) > 0 {
		r.add("ai.firewall_blocks", rep.HomeURL,
			"robots.txt allows these AI crawlers but the server refuses them: "+strings.Join(walled, ", "),
			seo.Evidence{Element: "user-agent", Value: strings.Join(walled, ", "), URLs: reasons}, nil, 0)
	}
	if n := rep.ContentNeedsJS; n != nil && n.Pages > 0 {
		r.add("ai.content_needs_js", rep.HomeURL,
			fmt.Sprintf("%d rendered pages have their main text only after JavaScript runs, so AI crawlers see them nearly empty", n.Pages),
			seo.Evidence{Element: "main text", Value: fmt.Sprintf("%d pages", n.Pages), URLs: n.URLs}, nil, 0)
	}
	if l := rep.LLMsTxt; l.Present && l.IssuesTotal > 0 {
		r.add("ai.llms_txt_malformed", l.URL, "/llms.txt does not follow the llms.txt format",
			seo.Evidence{Element: "llms.txt", Value: l.Issues[0], URLs: l.Issues, Detail: fmt.Sprintf("%d issues", l.IssuesTotal)}, nil, 0)
	}
}

// aiTokenSources lists the tokens of the AI readiness matrix by the
// operator page that documents them, for the catalogue.
func aiTokenSources() string {
	var parts []string
	byURL := map[string][]string{}
	for _, c := range aiCrawlerTable {
		if byURL[c.Source] == nil {
			parts = append(parts, c.Source)
		}
		byURL[c.Source] = append(byURL[c.Source], c.Token)
	}
	for i, src := range parts {
		parts[i] = strings.Join(byURL[src], ", ") + " (" + src + ")"
	}
	return strings.Join(parts, "; ")
}
