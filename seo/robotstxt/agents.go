package robotstxt

// AICrawlers are the product tokens of crawlers that fetch pages for AI
// search, answer retrieval or model training, as their operators document
// them. A site that disallows them from "/" is invisible to those products.
var AICrawlers = []string{
	"OAI-SearchBot",
	"ChatGPT-User",
	"GPTBot",
	"PerplexityBot",
	"Perplexity-User",
	"ClaudeBot",
	"Claude-User",
	"Claude-SearchBot",
	"Google-Extended",
	"Applebot-Extended",
	"CCBot",
	"Bytespider",
	"Amazonbot",
	"meta-externalagent",
	"Meta-ExternalFetcher",
	"MistralAI-User",
	"DuckAssistBot",
	"cohere-ai",
}

// BlockedAICrawlers returns the tokens of [AICrawlers] that r shuts out of
// the whole site (see [Robots.DisallowsAll]), in the order of AICrawlers.
func (r *Robots) BlockedAICrawlers() []string {
	var out []string
	for _, a := range AICrawlers {
		if r.DisallowsAll(a) {
			out = append(out, a)
		}
	}
	return out
}
