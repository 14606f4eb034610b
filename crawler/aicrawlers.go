package crawler

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/seokit/seokit/seo"
	"github.com/seokit/seokit/seo/robotstxt"
)

// AIPurpose is why an AI crawler fetches pages.
type AIPurpose string

// Purposes of AI crawlers, as their operators document them.
const (
	// AITraining crawlers collect pages to train models. Blocking them is
	// a choice of the site, not a defect.
	AITraining AIPurpose = "training"
	// AISearch crawlers index pages for an AI search product's answers
	// and citations.
	AISearch AIPurpose = "search"
	// AIUser fetchers get a page when a user of an assistant asks for it.
	AIUser AIPurpose = "user"
)

// AICrawler is one AI crawler of the readiness matrix: its robots.txt
// product token, its operator, purpose, the user agent the firewall probe
// sends, and the operator's documentation of the token.
type AICrawler struct {
	Token    string    `json:"token"`
	Operator string    `json:"operator"`
	Purpose  AIPurpose `json:"purpose"`
	// ControlOnly is true for a robots.txt control token that has no
	// fetcher of its own (Google-Extended, Applebot-Extended): the
	// operator's ordinary crawler fetches the pages, and the token only
	// says whether they may be used for AI. Such tokens are not probed.
	ControlOnly bool `json:"controlOnly,omitempty"`
	// UserAgent is the full user-agent string the probe sends.
	UserAgent string `json:"-"`
	// Source is the operator's documentation URL of the token.
	Source string `json:"source"`
}

// aiCrawlerTable lists the crawlers of the matrix, by operator.
var aiCrawlerTable = []AICrawler{
	{Token: "GPTBot", Operator: "OpenAI", Purpose: AITraining, Source: "https://platform.openai.com/docs/bots",
		UserAgent: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.1; +https://openai.com/gptbot)"},
	{Token: "OAI-SearchBot", Operator: "OpenAI", Purpose: AISearch, Source: "https://platform.openai.com/docs/bots",
		UserAgent: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot"},
	{Token: "ChatGPT-User", Operator: "OpenAI", Purpose: AIUser, Source: "https://platform.openai.com/docs/bots",
		UserAgent: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot"},
	{Token: "ClaudeBot", Operator: "Anthropic", Purpose: AITraining, Source: "https://support.anthropic.com/en/articles/8896518-does-anthropic-crawl-data-from-the-web-and-how-can-site-owners-block-the-crawler",
		UserAgent: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)"},
	{Token: "Claude-SearchBot", Operator: "Anthropic", Purpose: AISearch, Source: "https://support.anthropic.com/en/articles/8896518-does-anthropic-crawl-data-from-the-web-and-how-can-site-owners-block-the-crawler",
		UserAgent: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-SearchBot/1.0; +https://www.anthropic.com)"},
	{Token: "Claude-User", Operator: "Anthropic", Purpose: AIUser, Source: "https://support.anthropic.com/en/articles/8896518-does-anthropic-crawl-data-from-the-web-and-how-can-site-owners-block-the-crawler",
		UserAgent: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)"},
	{Token: "PerplexityBot", Operator: "Perplexity", Purpose: AISearch, Source: "https://docs.perplexity.ai/guides/bots",
		UserAgent: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)"},
	{Token: "Perplexity-User", Operator: "Perplexity", Purpose: AIUser, Source: "https://docs.perplexity.ai/guides/bots",
		UserAgent: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)"},
	{Token: "Google-Extended", Operator: "Google", Purpose: AITraining, ControlOnly: true, Source: "https://developers.google.com/search/docs/crawling-indexing/google-common-crawlers#google-extended"},
	{Token: "Applebot-Extended", Operator: "Apple", Purpose: AITraining, ControlOnly: true, Source: "https://support.apple.com/en-us/119829"},
	{Token: "CCBot", Operator: "Common Crawl", Purpose: AITraining, Source: "https://commoncrawl.org/ccbot",
		UserAgent: "CCBot/2.0 (https://commoncrawl.org/faq/)"},
	{Token: "Bytespider", Operator: "ByteDance", Purpose: AITraining, Source: "https://darkvisitors.com/agents/bytespider", // ByteDance publishes no page of its own
		UserAgent: "Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)"},
	{Token: "meta-externalagent", Operator: "Meta", Purpose: AITraining, Source: "https://developers.facebook.com/docs/sharing/webmasters/web-crawlers",
		UserAgent: "meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)"},
}

// AICrawlers returns the crawlers of the AI readiness matrix, with the
// documentation URL of each token.
func AICrawlers() []AICrawler { return slices.Clone(aiCrawlerTable) }

// AI readiness caps.
const (
	// MaxAISampleURLs caps AICrawlerStatus.Sample; the counts cover every
	// crawled URL.
	MaxAISampleURLs = 20
	// MaxLLMsTxtBytes caps the /llms.txt body read.
	MaxLLMsTxtBytes = 256 << 10
	// maxLLMsIssues caps LLMsTxtReport.Issues.
	maxLLMsIssues = 20
	// aiSmallBody: a probe body under half the normal body is a block
	// page when the normal body has at least this many bytes.
	aiSmallBody = 1024
	// MaxAIProbeURLs caps the crawled URLs the firewall probe fetches
	// besides the home page (AICrawlerReport.ProbeURLs).
	MaxAIProbeURLs = 3
	// maxAIProbeGroups caps the page templates probeSample counts.
	maxAIProbeGroups = 10_000
)

// AICrawlerReport is the AI crawler readiness of a site
// (SiteReport.AICrawlers, Options.AICrawlers): what robots.txt lets each
// AI crawler fetch, what the server answers each of them (the firewall
// probe) and the site's /llms.txt.
type AICrawlerReport struct {
	// Status is "complete", or "robots_unreachable" when robots.txt
	// answered 5xx or 429 or could not be fetched: RFC 9309 then
	// disallows everything to every crawler, and Reason says why.
	Status       string `json:"status"`
	Reason       string `json:"reason,omitempty"`
	RobotsURL    string `json:"robotsUrl"`
	RobotsStatus int    `json:"robotsStatus"`
	HomeURL      string `json:"homeUrl"`
	// CrawledURLs is the number of crawled URLs the counts cover.
	CrawledURLs int `json:"crawledUrls"`
	// Baseline is the normal fetch of the home page the probes compare
	// with; null when the probe did not run (ProbeSkipped says why).
	Baseline     *AIProbe `json:"baseline"`
	ProbeSkipped string   `json:"probeSkipped,omitempty"`
	// ProbeURLs are the crawled URLs the probe fetched besides the home
	// page, normally and as each crawler (AICrawlerStatus.URLProbes): at
	// most MaxAIProbeURLs HTML pages answered 200, one per page template,
	// the templates with the most pages first, each by its first URL in
	// sort order. Empty when the probe did not run (ProbeSkipped) or
	// skipped them (ProbeURLsReason says why).
	ProbeURLs       []AIProbeURL `json:"probeUrls"`
	ProbeURLsReason string       `json:"probeUrlsReason,omitempty"`
	// ProbeRequests counts the requests of the probe and of /llms.txt,
	// each sent through the host's rate limit like a page of the crawl.
	ProbeRequests int `json:"probeRequests"`
	// Crawlers is the matrix, in the order of AICrawlers().
	Crawlers []AICrawlerStatus `json:"crawlers"`
	LLMsTxt  LLMsTxtReport     `json:"llmsTxt"`
	// ContentNeedsJS counts pages whose main text exists only after
	// rendering, which AI crawlers do not do; null until the crawl
	// renders pages, with ContentNeedsJSReason saying why.
	ContentNeedsJS       *AINeedsJS `json:"contentNeedsJs"`
	ContentNeedsJSReason string     `json:"contentNeedsJsReason,omitempty"`
}

// AICrawlerStatus is one row of the matrix.
type AICrawlerStatus struct {
	AICrawler
	// Home is the robots.txt verdict on the home page, with the deciding
	// line.
	Home robotstxt.Decision `json:"home"`
	// AllowedURLs and BlockedURLs count the crawled URLs robots.txt
	// allows and disallows to the crawler.
	AllowedURLs int `json:"allowedUrls"`
	BlockedURLs int `json:"blockedUrls"`
	// Sample holds at most MaxAISampleURLs verdicts on crawled URLs, the
	// disallowed ones first.
	Sample []AIURLDecision `json:"sample"`
	// Probe is how the server answered the home page fetched with the
	// crawler's user agent; null when not probed (ProbeReason says why).
	Probe       *AIProbe `json:"probe"`
	ProbeReason string   `json:"probeReason,omitempty"`
	// URLProbes are the probes of AICrawlerReport.ProbeURLs with the
	// crawler's user agent, in their order; empty when the crawler was not
	// probed (ProbeReason says why).
	URLProbes []AIURLProbe `json:"urlProbes"`
}

// AIProbeURL is a crawled URL of the firewall probe and its normal fetch.
type AIProbeURL struct {
	URL string `json:"url"`
	// Template is the page's template fingerprint (PageSummary.Template).
	Template string `json:"template,omitempty"`
	// Baseline is the normal fetch the crawlers' fetches are compared
	// with; null when it was not made (Reason says why). When it did not
	// answer 2xx, the URL is not fetched as the crawlers.
	Baseline *AIProbe `json:"baseline"`
	Reason   string   `json:"reason,omitempty"`
}

// AIURLProbe is how the server answered one crawler on one URL of
// AICrawlerReport.ProbeURLs.
type AIURLProbe struct {
	URL string `json:"url"`
	// Allowed is robots.txt's verdict on URL for the crawler: a refusal
	// of a URL robots.txt allows is what ai.firewall_blocks reports.
	Allowed bool `json:"allowed"`
	// Probe is the fetch with the crawler's user agent and its verdict;
	// null when it was not made (Reason says why).
	Probe  *AIProbe `json:"probe"`
	Reason string   `json:"reason,omitempty"`
}

// AIURLDecision is the robots.txt verdict on one URL.
type AIURLDecision struct {
	URL string `json:"url"`
	robotstxt.Decision
}

// AIProbe is one fetch of the home page.
type AIProbe struct {
	Status int    `json:"status"`
	Bytes  int64  `json:"bytes"`
	Error  string `json:"error,omitempty"`
	// Challenge is true when the response says it is a bot challenge
	// (a "cf-mitigated: challenge" header).
	Challenge bool `json:"challenge,omitempty"`
	// Blocked is true when the server refuses the agent while it serves
	// the normal fetch: an error status, a challenge, a failed fetch or a
	// body less than half the normal one. Reason says which.
	Blocked bool   `json:"blocked"`
	Reason  string `json:"reason,omitempty"`
}

// LLMsTxtReport describes /llms.txt (https://llmstxt.org): an H1 title
// first, an optional blockquote summary, then H2 sections of markdown link
// lists.
type LLMsTxtReport struct {
	URL    string `json:"url"`
	Status int    `json:"status"`
	Error  string `json:"error,omitempty"`
	// Present is true when the file answered 200.
	Present   bool   `json:"present"`
	Bytes     int    `json:"bytes"`
	Truncated bool   `json:"truncated,omitempty"`
	Title     string `json:"title,omitempty"`
	Summary   bool   `json:"summary,omitempty"`
	Sections  int    `json:"sections"`
	Links     int    `json:"links"`
	// Issues say how a present file departs from the format (at most 20;
	// IssuesTotal counts them all).
	Issues      []string `json:"issues,omitempty"`
	IssuesTotal int      `json:"issuesTotal,omitempty"`
}

// AINeedsJS counts pages whose main text needs JavaScript.
type AINeedsJS struct {
	Pages int `json:"pages"`
	// URLs lists at most MaxAISampleURLs of them.
	URLs []string `json:"urls"`
}

// ContentNeedsJS reports whether a page whose raw HTML has rawWords words
// of main text and whose rendered DOM has renderedWords is readable only
// after rendering: its raw text is under a third of the rendered text, and
// the rendered text has at least 50 words.
func ContentNeedsJS(rawWords, renderedWords int) bool {
	return renderedWords >= 50 && rawWords*3 < renderedWords
}

// pageNeedsJS tells whether p's main text exists only after rendering;
// known is false when the page was not rendered.
func pageNeedsJS(p *PageSummary) (needs, known bool) {
	if p.RawWordCount == nil || p.Rendered == nil || !*p.Rendered {
		return false, false
	}
	return ContentNeedsJS(*p.RawWordCount, p.WordCount), true
}

// aiFacts is what the crawl fetched for the AI readiness report.
type aiFacts struct {
	robots    *robotstxt.Robots
	robotsURL string
	home      string
	// probeSkipped says why there are no probes; else baseline and probes
	// (by token) hold the fetches.
	probeSkipped string
	baseline     aiFetch
	probes       map[string]aiFetch
	// urls are the crawled URLs probed besides the home page; urlsReason
	// says why there are none when the probe ran.
	urls       []aiProbedURL
	urlsReason string
	requests   int
	llmsURL    string
	llms       aiFetch
	llmsBody   []byte
}

// aiProbedURL is the probe of one crawled URL.
type aiProbedURL struct {
	url, template string
	// skipped says why the URL was not fetched at all, or not as the
	// crawlers (its normal fetch did not answer 2xx, the crawl was
	// stopped).
	skipped  string
	baseline *aiFetch
	probes   map[string]aiFetch
}

// aiFetch is one fetch's outcome.
type aiFetch struct {
	Status    int    `json:"status"`
	Bytes     int64  `json:"bytes"`
	Err       string `json:"error"`
	Truncated bool   `json:"truncated"`
	Challenge bool   `json:"challenge"`
}

// aiFacts fetches /llms.txt and, unless Options.SkipAICrawlerProbe, the
// home page and up to MaxAIProbeURLs crawled pages (probeSample) once
// normally and once as each AI crawler with a fetcher of its own: at most
// 1+(1+MaxAIProbeURLs)*(1+11) requests, each through the host's
// politeness gate. The crawled pages are not probed when the crawl ran out
// of its time or byte budget.
func (cr *crawl) aiFacts(ctx context.Context, rb *robotstxt.Robots) *aiFacts {
	home := cr.root.String()
	llms := *cr.root
	llms.Path, llms.RawPath, llms.RawQuery, llms.Opaque = "/llms.txt", "", "", ""
	af := &aiFacts{robots: rb, robotsURL: robotsURL(cr.root), home: home, llmsURL: llms.String()}
	var body []byte
	af.llms, body = cr.aiFetch(ctx, af.llmsURL, cr.o.UserAgent, MaxLLMsTxtBytes)
	if af.llms.Status == http.StatusOK {
		af.llmsBody = body
	}
	if cr.o.SkipAICrawlerProbe {
		af.probeSkipped = "the probe is off (Options.SkipAICrawlerProbe)"
		return af
	}
	af.baseline, _ = cr.aiFetch(ctx, home, cr.o.UserAgent, 0)
	af.requests++
	af.probes = cr.aiProbeAll(ctx, home, &af.requests)
	if ctx.Err() != nil {
		af.probeSkipped = "the crawl was stopped before the probe ended"
		return af
	}
	switch {
	case cr.o.TimeBudget > 0 && time.Since(cr.start) >= cr.o.TimeBudget:
		af.urlsReason = "the crawl's time budget ran out: only the home page was probed"
	case cr.o.ByteBudget > 0 && cr.bytes.Load() >= cr.o.ByteBudget:
		af.urlsReason = "the crawl's byte budget ran out: only the home page was probed"
	default:
		for _, s := range cr.builder.probeSample(MaxAIProbeURLs, home) {
			pu := aiProbedURL{url: s.url, template: s.template}
			switch {
			case ctx.Err() != nil:
				pu.skipped = "the crawl was stopped before the probe ended"
			default:
				b, _ := cr.aiFetch(ctx, s.url, cr.o.UserAgent, 0)
				af.requests++
				pu.baseline = &b
				if b.Err != "" || b.Status/100 != 2 {
					pu.skipped = "the normal fetch did not answer 2xx, so the URL was not fetched as the crawlers"
					break
				}
				pu.probes = cr.aiProbeAll(ctx, s.url, &af.requests)
			}
			af.urls = append(af.urls, pu)
		}
		if len(af.urls) == 0 {
			af.urlsReason = "no crawled HTML page answered 200 besides the home page"
		}
	}
	return af
}

// aiProbeAll fetches u as each AI crawler with a fetcher of its own,
// counting the requests in n; it stops when ctx ends.
func (cr *crawl) aiProbeAll(ctx context.Context, u string, n *int) map[string]aiFetch {
	out := map[string]aiFetch{}
	for _, c := range aiCrawlerTable {
		if c.ControlOnly || ctx.Err() != nil {
			continue
		}
		out[c.Token], _ = cr.aiFetch(ctx, u, c.UserAgent, 0)
		*n++
	}
	return out
}

// aiFetch fetches u as userAgent through the politeness gate of its host.
// maxBody above zero caps the body read and returns it.
func (cr *crawl) aiFetch(ctx context.Context, u, userAgent string, maxBody int64) (aiFetch, []byte) {
	pu, err := seo.ParseHref(u)
	if err != nil {
		return aiFetch{Err: err.Error()}, nil
	}
	release, err := cr.pol.acquire(ctx, pu.Host)
	if err != nil {
		return aiFetch{Err: err.Error()}, nil
	}
	defer release()
	ctx, cancel := context.WithTimeout(ctx, min(probeTimeout, cr.o.RequestTimeout))
	defer cancel()
	resp, err := cr.fetcher.Fetch(ctx, &seo.Request{URL: u, UserAgent: userAgent, MaxBodyBytes: maxBody})
	var f aiFetch
	if resp != nil {
		f.Status, f.Bytes, f.Truncated = resp.Status, resp.BodyBytes, resp.Truncated
		f.Challenge = strings.EqualFold(resp.Header.Get("Cf-Mitigated"), "challenge")
	}
	if err != nil {
		f.Err = seo.Clip(err.Error())
		return f, nil
	}
	return f, resp.Body
}

// aiReport builds the AI readiness report over the crawled pages.
func (r *siteRun) aiReport() *AICrawlerReport {
	af := r.facts.AI
	rb := af.robots
	rep := &AICrawlerReport{Status: "complete", RobotsURL: af.robotsURL, RobotsStatus: rb.Status(), HomeURL: af.home,
		ProbeSkipped: af.probeSkipped, CrawledURLs: r.npages, ProbeURLs: []AIProbeURL{}, ProbeURLsReason: af.urlsReason,
		ProbeRequests: af.requests + 1}
	for _, pu := range af.urls {
		p := AIProbeURL{URL: pu.url, Template: pu.template, Reason: pu.skipped}
		if pu.baseline != nil {
			b := pu.baseline.probe()
			p.Baseline = &b
		}
		rep.ProbeURLs = append(rep.ProbeURLs, p)
	}
	if rb.Unavailable() {
		rep.Status = "robots_unreachable"
		rep.Reason = fmt.Sprintf("robots.txt answered %d, so RFC 9309 disallows everything to every crawler", rb.Status())
		if err := rb.Err(); err != nil {
			rep.Reason = "robots.txt could not be fetched (" + seo.Clip(err.Error()) + "), so RFC 9309 disallows everything to every crawler"
		}
	}
	if af.probeSkipped == "" {
		b := af.baseline.probe()
		rep.Baseline = &b
	}
	home := requestURI(af.home)
	for _, c := range aiCrawlerTable {
		st := AICrawlerStatus{AICrawler: c, Home: rb.Decide(c.Token, home), Sample: []AIURLDecision{}, URLProbes: []AIURLProbe{}}
		var allowed []AIURLDecision
		for i := range r.npages {
			u := r.b.urls[r.nodeOf[i]]
			d := rb.Decide(c.Token, requestURI(u))
			if d.Allowed {
				st.AllowedURLs++
				if len(allowed) < MaxAISampleURLs {
					allowed = append(allowed, AIURLDecision{URL: u, Decision: d})
				}
				continue
			}
			st.BlockedURLs++
			if len(st.Sample) < MaxAISampleURLs {
				st.Sample = append(st.Sample, AIURLDecision{URL: u, Decision: d})
			}
		}
		st.Sample = append(st.Sample, allowed[:min(len(allowed), MaxAISampleURLs-len(st.Sample))]...)
		switch {
		case c.ControlOnly:
			st.ProbeReason = "a control token without a fetcher of its own: " + c.Operator + "'s ordinary crawler fetches the pages"
		case af.probeSkipped != "":
			st.ProbeReason = af.probeSkipped
		default:
			if f, ok := af.probes[c.Token]; ok {
				p := f.compare(af.baseline)
				st.Probe = &p
			} else {
				st.ProbeReason = "not probed"
			}
			st.URLProbes = urlProbes(c.Token, rb, af.urls)
		}
		rep.Crawlers = append(rep.Crawlers, st)
	}
	rep.LLMsTxt = parseLLMsTxt(af.llmsURL, af.llms, af.llmsBody)
	var njs AINeedsJS
	known := false
	for _, p := range r.pages() {
		needs, ok := pageNeedsJS(p)
		known = known || ok
		if needs {
			njs.Pages++
			if len(njs.URLs) < MaxAISampleURLs {
				njs.URLs = append(njs.URLs, p.URL)
			}
		}
	}
	if known {
		rep.ContentNeedsJS = &njs
	} else {
		rep.ContentNeedsJSReason = "pages were not rendered, so raw and rendered text cannot be compared"
	}
	return rep
}

// urlProbes returns the probes of the crawled URLs urls as the crawler
// token, with robots.txt's verdict on each.
func urlProbes(token string, rb *robotstxt.Robots, urls []aiProbedURL) []AIURLProbe {
	out := make([]AIURLProbe, 0, len(urls))
	for _, pu := range urls {
		p := AIURLProbe{URL: pu.url, Allowed: rb.Decide(token, requestURI(pu.url)).Allowed}
		switch f, ok := pu.probes[token]; {
		case pu.skipped != "":
			p.Reason = pu.skipped
		case !ok:
			p.Reason = "the crawl was stopped before the probe ended"
		default:
			v := f.compare(*pu.baseline)
			p.Probe = &v
		}
		out = append(out, p)
	}
	return out
}

// requestURI returns the path and query of u ("/" for none).
func requestURI(u string) string {
	pu, err := seo.ParseHref(u)
	if err != nil {
		return u
	}
	return seo.RequestTarget(pu)
}

// probe returns f as an AIProbe, without a verdict.
func (f aiFetch) probe() AIProbe {
	return AIProbe{Status: f.Status, Bytes: f.Bytes, Error: f.Err, Challenge: f.Challenge}
}

// compare returns f as an AIProbe with its verdict against the normal
// fetch base. Nothing is blocked when the normal fetch itself failed.
func (f aiFetch) compare(base aiFetch) AIProbe {
	p := f.probe()
	if base.Err != "" || base.Status/100 != 2 {
		p.Reason = "the normal fetch did not answer 2xx, so there is nothing to compare with"
		return p
	}
	switch {
	case f.Err != "":
		p.Blocked, p.Reason = true, "the fetch failed: "+f.Err
	case f.Challenge:
		p.Blocked, p.Reason = true, "the server answers a bot challenge"
	case f.Status/100 != 2:
		p.Blocked, p.Reason = true, fmt.Sprintf("status %d where the normal fetch answers %d", f.Status, base.Status)
	case base.Bytes >= aiSmallBody && f.Bytes*2 < base.Bytes:
		p.Blocked, p.Reason = true, fmt.Sprintf("a body of %d bytes where the normal fetch has %d (a challenge or block page)", f.Bytes, base.Bytes)
	}
	return p
}

// parseLLMsTxt checks an /llms.txt answer against the llmstxt.org format.
func parseLLMsTxt(u string, f aiFetch, body []byte) LLMsTxtReport {
	rep := LLMsTxtReport{URL: u, Status: f.Status, Error: f.Err, Present: f.Status == http.StatusOK && f.Err == "",
		Bytes: len(body), Truncated: f.Truncated}
	if !rep.Present {
		return rep
	}
	issue := func(s string) {
		rep.IssuesTotal++
		if len(rep.Issues) < maxLLMsIssues {
			rep.Issues = append(rep.Issues, s)
		}
	}
	if len(body) > MaxLLMsTxtBytes {
		body = body[:MaxLLMsTxtBytes]
	}
	text := strings.ReplaceAll(string(body), "\r\n", "\n")
	if strings.TrimSpace(text) == "" {
		issue("the file is empty")
		return rep
	}
	if head := strings.TrimSpace(text[:min(len(text), 512)]); strings.HasPrefix(strings.ToLower(head), "<!doctype") || strings.HasPrefix(strings.ToLower(head), "<html") {
		issue("the file is an HTML page, not markdown")
		return rep
	}
	first := true
	section := ""
	sectionLinks := 0
	endSection := func(n int) {
		if section != "" && sectionLinks == 0 {
			issue(fmt.Sprintf("line %d: the section %q lists no links", n, seo.Clip(section)))
		}
	}
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		n := i + 1
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		switch {
		case first:
			first = false
			if !strings.HasPrefix(t, "# ") {
				issue(fmt.Sprintf("line %d: the file does not start with an H1 title (\"# Name\")", n))
			} else {
				rep.Title = seo.Clip(strings.TrimSpace(t[2:]))
			}
			continue
		case strings.HasPrefix(t, "# "):
			issue(fmt.Sprintf("line %d: a second H1 title", n))
		case strings.HasPrefix(t, "> "), t == ">":
			if rep.Sections > 0 {
				issue(fmt.Sprintf("line %d: the blockquote summary must come before the sections", n))
			}
			rep.Summary = true
		case strings.HasPrefix(t, "## "):
			endSection(n)
			rep.Sections++
			section, sectionLinks = strings.TrimSpace(t[3:]), 0
		case strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* "):
			if section == "" {
				continue // lists before the sections are free text
			}
			if isMarkdownLink(strings.TrimSpace(t[2:])) {
				sectionLinks++
				rep.Links++
			} else {
				issue(fmt.Sprintf("line %d: a list item of a section is not a markdown link (\"- [name](url): notes\")", n))
			}
		}
	}
	endSection(len(lines))
	if rep.Title != "" && rep.Sections == 0 {
		issue("the file has no H2 section of links")
	}
	return rep
}

// isMarkdownLink reports whether s starts with "[name](url)".
func isMarkdownLink(s string) bool {
	if !strings.HasPrefix(s, "[") {
		return false
	}
	i := strings.Index(s, "](")
	if i < 2 {
		return false
	}
	j := strings.IndexByte(s[i+2:], ')')
	return j > 0
}

// probeCandidate is a crawled page the AI firewall probe may fetch.
type probeCandidate struct {
	url, template string
	pages         int
}

// probeSample returns up to n crawled pages for the AI firewall probe:
// HTML pages answered 200 that robots.txt does not block, other than skip,
// one per page template, the templates with the most pages first (ties by
// fingerprint), each by its first URL in sort order, so the sample does
// not depend on the order pages were crawled in. At most maxAIProbeGroups
// templates are counted.
func (b *siteBuilder) probeSample(n int, skip string) []probeCandidate {
	b.mu.Lock()
	defer b.mu.Unlock()
	groups := map[string]*probeCandidate{}
	offer := func(u, tpl string, status int, html, blocked bool) {
		if status != http.StatusOK || !html || blocked || tpl == "" || u == skip {
			return
		}
		g := groups[tpl]
		if g == nil {
			if len(groups) >= maxAIProbeGroups {
				return
			}
			g = &probeCandidate{url: u, template: tpl}
			groups[tpl] = g
		}
		g.pages++
		if u < g.url {
			g.url = u
		}
	}
	for _, chunk := range b.recs.chunks {
		for i := range chunk {
			r := &chunk[i]
			if p := r.more; p != nil {
				offer(p.URL, p.Template, p.Status, p.IsHTML, p.RobotsBlocked)
				continue
			}
			offer(b.urls[r.node], b.template(r.template), int(r.status), r.flags&recHTML != 0, r.flags&recRobotsBlocked != 0)
		}
	}
	out := make([]probeCandidate, 0, len(groups))
	for _, g := range groups {
		out = append(out, *g)
	}
	slices.SortFunc(out, func(a, b probeCandidate) int {
		if a.pages != b.pages {
			return b.pages - a.pages
		}
		return strings.Compare(a.template, b.template)
	})
	return out[:min(n, len(out))]
}
