package logs

import (
	"fmt"
	"slices"

	"github.com/seokit/seokit/seo"
)

// Thresholds of the log checks.
const (
	// MalformedShare is the share of malformed lines above which
	// logs.malformed_lines is reported.
	MalformedShare = 0.01
	// Search5xxShare is the share of 5xx answers to verified or
	// unverifiable search-bot hits above which logs.search_bot_5xx is
	// reported.
	Search5xxShare = 0.01
	// WasteShare is the share of search-bot hits on crawled URLs that
	// cannot rank above which logs.crawl_waste is reported.
	WasteShare = 0.2
)

var catalog = []seo.CheckInfo{
	{ID: "logs.spoofed_bot", Severity: seo.Warning, Scope: seo.ScopeSite,
		Summary: "Requests claim a bot's user agent from addresses its operator's published ranges or forward-confirmed reverse DNS reject; they are not counted as the bot.",
		Source:  "Google Search Central, Verifying Googlebot and other Google crawlers (https://developers.google.com/search/docs/crawling-indexing/verifying-googlebot); Bing, Verifying Bingbot (https://www.bing.com/webmasters/help/how-to-verify-bingbot-3905dc26); OpenAI bots (https://platform.openai.com/docs/bots)"},
	{ID: "logs.ai_bot_ignores_robots", Severity: seo.Warning, Scope: seo.ScopeSite,
		Summary: "An AI crawler or AI user fetcher fetched URLs the site's robots.txt disallows for its token.",
		Source:  "RFC 9309 Robots Exclusion Protocol; ai-robots-txt/ai.robots.txt robots.json (records which agents do not respect robots.txt)",
		Differs: "User-triggered fetchers (ChatGPT-User, Perplexity-User, Meta-ExternalFetcher) are documented by some operators as not bound by robots.txt; they are reported too, since the site's policy says no."},
	{ID: "logs.search_bot_ignores_robots", Severity: seo.Warning, Scope: seo.ScopeSite,
		Summary: "A search-engine crawler fetched URLs robots.txt disallows for it: the file is not what the crawler read (changed, cached, or served differently).",
		Source:  "RFC 9309 Robots Exclusion Protocol; Google Search Central, How Google interprets the robots.txt specification (https://developers.google.com/search/docs/crawling-indexing/robots/robots_txt) (caching up to 24 hours)"},
	{ID: "logs.orphan_urls", Severity: seo.Notice, Scope: seo.ScopeSite,
		Summary: "Bots fetch URLs answering 2xx that the crawl did not find: no internal link or sitemap leads to them.",
		Source:  "Screaming Frog Log File Analyser, orphan URLs (https://www.screamingfrog.co.uk/22-ways-to-analyse-logs-using-the-log-file-analyser/)"},
	{ID: "logs.indexable_not_crawled", Severity: seo.Notice, Scope: seo.ScopeSite,
		Summary: "Indexable URLs of the crawl that no search bot fetched in the log's period.",
		Source:  "Screaming Frog Log File Analyser, URLs not crawled (https://www.screamingfrog.co.uk/22-ways-to-analyse-logs-using-the-log-file-analyser/)"},
	{ID: "logs.crawl_waste", Severity: seo.Notice, Scope: seo.ScopeSite,
		Summary: "More than 20% of search-bot hits on crawled URLs go to URLs that cannot rank: non-indexable, redirecting, 4xx or 5xx.",
		Source:  "Google Search Central, Crawl budget management for large sites (https://developers.google.com/search/docs/crawling-indexing/large-site-managing-crawl-budget)"},
	{ID: "logs.search_bot_5xx", Severity: seo.Warning, Scope: seo.ScopeSite,
		Summary: "More than 1% of search-bot hits were answered 5xx; Google slows crawling of sites that answer errors.",
		Source:  "Google Search Central, How HTTP status codes affect Google's crawlers (https://developers.google.com/search/docs/crawling-indexing/http-network-errors)"},
	{ID: "logs.malformed_lines", Severity: seo.Notice, Scope: seo.ScopeSite,
		Summary: "More than 1% of the log's lines did not parse in its format; the counts leave them out.",
		Source:  "seokit's own notice, after GoAccess's count of invalid requests (https://goaccess.io/man)"},
}

// Catalog returns the log checks, sorted by ID.
func Catalog() []seo.CheckInfo {
	out := slices.Clone(catalog)
	slices.SortFunc(out, func(x, y seo.CheckInfo) int {
		if x.ID < y.ID {
			return -1
		}
		if x.ID > y.ID {
			return 1
		}
		return 0
	})
	return out
}

func checkInfo(id string) seo.CheckInfo {
	for _, c := range catalog {
		if c.ID == id {
			return c
		}
	}
	panic("logs: unknown check " + id)
}

func finding(id, msg string, count int64, ev ...seo.Evidence) seo.Finding {
	c := checkInfo(id)
	f := seo.Finding{ID: id, Severity: c.Severity, Message: msg, Count: int(min(count, 1<<31-1))}
	if len(ev) > 0 {
		f.Evidence, f.Examples = ev[0], ev[1:]
	}
	return f
}

func (a *aggregator) findings() []seo.Finding {
	r := &a.rep
	out := []seo.Finding{}
	for _, b := range r.Bots {
		if b.Spoofed == 0 {
			continue
		}
		var ev []seo.Evidence
		for _, s := range b.SpoofedSample {
			ev = append(ev, seo.Evidence{Value: s.IP + ": " + s.Reason})
			if len(ev) == 3 {
				break
			}
		}
		out = append(out, finding("logs.spoofed_bot", fmt.Sprintf("%d hits claim to be %s from %d addresses that fail %s's verification.",
			b.Spoofed, b.Bot.Token, b.SpoofedIPs.Value, b.Bot.Operator), b.Spoofed, ev...))
	}
	if j := r.Join; j != nil {
		for _, d := range j.Disallowed {
			id := "logs.search_bot_ignores_robots"
			if d.AI {
				id = "logs.ai_bot_ignores_robots"
			} else if d.Class != ClassSearch {
				continue
			}
			var ev []seo.Evidence
			for _, u := range d.Sample[:min(3, len(d.Sample))] {
				ev = append(ev, seo.Evidence{Value: u.URL + " (" + u.Rule + ")"})
			}
			out = append(out, finding(id, fmt.Sprintf("%s fetched %d URLs robots.txt disallows for it, %d hits.", d.Token, d.URLs, d.Hits), d.URLs, ev...))
		}
		if j.Orphans.URLs > 0 {
			out = append(out, finding("logs.orphan_urls", fmt.Sprintf("Bots fetched %d URLs the crawl did not find (%d hits).", j.Orphans.URLs, j.Orphans.Hits), j.Orphans.URLs, sampleEv(j.Orphans)...))
		}
		if j.NeverFetched.URLs > 0 {
			out = append(out, finding("logs.indexable_not_crawled", fmt.Sprintf("%d indexable URLs of the crawl were not fetched by a search bot.", j.NeverFetched.URLs), j.NeverFetched.URLs, sampleEv(j.NeverFetched)...))
		}
		waste := j.NonIndexable.Hits + j.Redirecting.Hits + j.ClientErrors.Hits + j.ServerErrors.Hits
		var onCrawl int64
		if g := a.classes[ClassSearch]; g != nil {
			onCrawl = g.hits
		}
		if onCrawl > 0 && float64(waste)/float64(onCrawl) > WasteShare {
			out = append(out, finding("logs.crawl_waste", fmt.Sprintf("%d of %d search-bot hits (%.0f%%) went to non-indexable, redirecting or error URLs.",
				waste, onCrawl, 100*float64(waste)/float64(onCrawl)), waste))
		}
	}
	if g := a.classes[ClassSearch]; g != nil && g.hits > 0 && float64(g.status.S5xx)/float64(g.hits) > Search5xxShare {
		out = append(out, finding("logs.search_bot_5xx", fmt.Sprintf("%d of %d search-bot hits (%.1f%%) were answered 5xx.",
			g.status.S5xx, g.hits, 100*float64(g.status.S5xx)/float64(g.hits)), g.status.S5xx))
	}
	if r.Lines > 0 && float64(r.Malformed)/float64(r.Lines) > MalformedShare {
		out = append(out, finding("logs.malformed_lines", fmt.Sprintf("%d of %d lines (%.1f%%) did not parse.", r.Malformed, r.Lines, 100*float64(r.Malformed)/float64(r.Lines)), r.Malformed))
	}
	return out
}

func sampleEv(l URLList) []seo.Evidence {
	var ev []seo.Evidence
	for _, u := range l.Sample[:min(3, len(l.Sample))] {
		ev = append(ev, seo.Evidence{Value: u.URL})
	}
	return ev
}
