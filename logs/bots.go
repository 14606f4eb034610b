package logs

import (
	"strings"
	"sync"

	"github.com/seokit/seokit/crawler"
)

// Class is what a bot fetches pages for.
type Class string

// Classes of bots. A request whose user agent names no bot of the registry
// is ClassNone (people, monitoring, unknown clients).
const (
	ClassSearch      Class = "search"       // search-engine crawlers
	ClassAITraining  Class = "ai_training"  // crawlers collecting pages to train models
	ClassAISearch    Class = "ai_search"    // crawlers indexing for AI search answers
	ClassUserFetcher Class = "user_fetcher" // fetches triggered by a user of an assistant or tool
	ClassSEOTool     Class = "seo_tool"     // SEO and marketing crawlers
	ClassOther       Class = "other_bot"    // other declared bots (social previews, archives)
	ClassNone        Class = ""             // not a bot of the registry
)

// classes are the bot classes in report order.
var classes = [nClasses]Class{ClassSearch, ClassAISearch, ClassAITraining, ClassUserFetcher, ClassSEOTool, ClassOther}

// Classes returns the bot classes in report order.
func Classes() []Class { return append([]Class(nil), classes[:]...) }

// Bot is one user-agent token of the registry: the robots.txt product
// token its requests carry, its operator, class, documentation and how its
// requests can be verified.
type Bot struct {
	Token    string `json:"token"`
	Operator string `json:"operator"`
	Class    Class  `json:"class"`
	// Source is the operator's documentation of the token.
	Source string `json:"source,omitempty"`
	// RDNS lists the host-name suffixes a forward-confirmed reverse DNS
	// lookup must end in, as the operator documents them; empty when the
	// operator documents none.
	RDNS []string `json:"rdns,omitempty"`
	// Ranges names the operator's published IP-range files (keys of
	// RangeURLs) that hold the bot's addresses; empty when none is
	// published.
	Ranges []string `json:"ranges,omitempty"`
	// AI is true for bots of the AI-crawler matrix (crawler.AICrawlers).
	AI bool `json:"ai,omitempty"`
}

// Verifiable reports whether the operator documents a way to verify the
// bot's requests.
func (b *Bot) Verifiable() bool { return len(b.RDNS) > 0 || len(b.Ranges) > 0 }

// RangeURLs are the operators' published IP-range files, by name. Each
// is a JSON object {"creationTime": "...", "prefixes": [{"ipv4Prefix":
// "..."}, {"ipv6Prefix": "..."}]}, the format Google documents in
// "Verifying Googlebot and other Google crawlers"
// (https://developers.google.com/search/docs/crawling-indexing/verifying-googlebot)
// and Bing, OpenAI, Perplexity, Apple and Common Crawl reuse (ParseRanges).
var RangeURLs = map[string]string{
	// https://developers.google.com/search/docs/crawling-indexing/verifying-googlebot
	"google-common":  "https://developers.google.com/static/search/apis/ipranges/googlebot.json",
	"google-special": "https://developers.google.com/static/search/apis/ipranges/special-crawlers.json",
	"google-user":    "https://developers.google.com/static/search/apis/ipranges/user-triggered-fetchers.json",
	"google-user-g":  "https://developers.google.com/static/search/apis/ipranges/user-triggered-fetchers-google.json",
	// https://www.bing.com/webmasters/help/how-to-verify-bingbot-3905dc26
	"bing": "https://www.bing.com/toolbox/bingbot.json",
	// https://support.apple.com/en-us/119829
	"apple": "https://search.developer.apple.com/applebot.json",
	// https://platform.openai.com/docs/bots
	"openai-gptbot":    "https://openai.com/gptbot.json",
	"openai-searchbot": "https://openai.com/searchbot.json",
	"openai-user":      "https://openai.com/chatgpt-user.json",
	// https://docs.perplexity.ai/guides/bots
	"perplexity-bot":  "https://www.perplexity.com/perplexitybot.json",
	"perplexity-user": "https://www.perplexity.com/perplexity-user.json",
	// https://commoncrawl.org/ccbot
	"commoncrawl": "https://index.commoncrawl.org/ccbot.json",
}

var (
	googleRDNS  = []string{"googlebot.com", "google.com", "googleusercontent.com"}
	googleRange = []string{"google-common", "google-special", "google-user", "google-user-g"}
	googleDoc   = "https://developers.google.com/search/docs/crawling-indexing/overview-google-crawlers"
)

// otherBots are the bots of the registry that are not in the AI-crawler
// matrix: search engines, SEO tools and other declared crawlers.
var otherBots = []Bot{
	{Token: "Googlebot", Operator: "Google", Class: ClassSearch, Source: googleDoc, RDNS: googleRDNS, Ranges: googleRange},
	{Token: "Googlebot-Image", Operator: "Google", Class: ClassSearch, Source: googleDoc, RDNS: googleRDNS, Ranges: googleRange},
	{Token: "Googlebot-Video", Operator: "Google", Class: ClassSearch, Source: googleDoc, RDNS: googleRDNS, Ranges: googleRange},
	{Token: "Googlebot-News", Operator: "Google", Class: ClassSearch, Source: googleDoc, RDNS: googleRDNS, Ranges: googleRange},
	{Token: "Storebot-Google", Operator: "Google", Class: ClassSearch, Source: googleDoc, RDNS: googleRDNS, Ranges: googleRange},
	{Token: "Google-InspectionTool", Operator: "Google", Class: ClassSearch, Source: googleDoc, RDNS: googleRDNS, Ranges: googleRange},
	{Token: "GoogleOther", Operator: "Google", Class: ClassOther, Source: googleDoc, RDNS: googleRDNS, Ranges: googleRange},
	{Token: "AdsBot-Google", Operator: "Google", Class: ClassOther, Source: googleDoc, RDNS: googleRDNS, Ranges: googleRange},
	{Token: "Mediapartners-Google", Operator: "Google", Class: ClassOther, Source: googleDoc, RDNS: googleRDNS, Ranges: googleRange},
	{Token: "FeedFetcher-Google", Operator: "Google", Class: ClassUserFetcher, Source: googleDoc, RDNS: googleRDNS, Ranges: googleRange},
	{Token: "Google-Read-Aloud", Operator: "Google", Class: ClassUserFetcher, Source: googleDoc, RDNS: googleRDNS, Ranges: googleRange},
	{Token: "bingbot", Operator: "Microsoft", Class: ClassSearch, Source: "https://www.bing.com/webmasters/help/which-crawlers-does-bing-use-8c184ec0", RDNS: []string{"search.msn.com"}, Ranges: []string{"bing"}},
	{Token: "AdIdxBot", Operator: "Microsoft", Class: ClassOther, Source: "https://www.bing.com/webmasters/help/which-crawlers-does-bing-use-8c184ec0", RDNS: []string{"search.msn.com"}, Ranges: []string{"bing"}},
	{Token: "BingPreview", Operator: "Microsoft", Class: ClassOther, Source: "https://www.bing.com/webmasters/help/which-crawlers-does-bing-use-8c184ec0", RDNS: []string{"search.msn.com"}, Ranges: []string{"bing"}},
	{Token: "Applebot", Operator: "Apple", Class: ClassSearch, Source: "https://support.apple.com/en-us/119829", RDNS: []string{"applebot.apple.com"}, Ranges: []string{"apple"}},
	{Token: "YandexBot", Operator: "Yandex", Class: ClassSearch, Source: "https://yandex.com/support/webmaster/robot-workings/check-yandex-robots.html", RDNS: []string{"yandex.ru", "yandex.net", "yandex.com"}},
	{Token: "YandexImages", Operator: "Yandex", Class: ClassSearch, Source: "https://yandex.com/support/webmaster/robot-workings/check-yandex-robots.html", RDNS: []string{"yandex.ru", "yandex.net", "yandex.com"}},
	{Token: "Baiduspider", Operator: "Baidu", Class: ClassSearch, Source: "https://www.baidu.com/search/robots_english.html", RDNS: []string{"baidu.com", "baidu.jp"}},
	{Token: "DuckDuckBot", Operator: "DuckDuckGo", Class: ClassSearch, Source: "https://duckduckgo.com/duckduckgo-help-pages/results/duckduckbot"},
	{Token: "Slurp", Operator: "Yahoo", Class: ClassSearch, Source: "https://help.yahoo.com/kb/SLN22600.html", RDNS: []string{"crawl.yahoo.net"}},
	{Token: "SeznamBot", Operator: "Seznam", Class: ClassSearch, Source: "https://o-seznam.cz/napoveda/vyhledavani/en/seznambot-crawler/", RDNS: []string{"seznam.cz"}},
	{Token: "PetalBot", Operator: "Huawei", Class: ClassSearch, Source: "https://webmaster.petalsearch.com/site/petalbot", RDNS: []string{"petalsearch.com"}},
	{Token: "Amazonbot", Operator: "Amazon", Class: ClassAITraining, Source: "https://developer.amazon.com/amazonbot", RDNS: []string{"crawl.amazonbot.amazon"}},
	{Token: "Meta-ExternalFetcher", Operator: "Meta", Class: ClassUserFetcher, Source: "https://developers.facebook.com/docs/sharing/webmasters/web-crawlers"},
	{Token: "MistralAI-User", Operator: "Mistral", Class: ClassUserFetcher, Source: "https://docs.mistral.ai/robots"},
	{Token: "DuckAssistBot", Operator: "DuckDuckGo", Class: ClassAISearch, Source: "https://duckduckgo.com/duckduckgo-help-pages/results/duckassistbot"},
	{Token: "cohere-ai", Operator: "Cohere", Class: ClassAITraining, Source: "https://darkvisitors.com/agents/cohere-ai"},
	{Token: "AhrefsBot", Operator: "Ahrefs", Class: ClassSEOTool, Source: "https://ahrefs.com/robot"},
	{Token: "AhrefsSiteAudit", Operator: "Ahrefs", Class: ClassSEOTool, Source: "https://ahrefs.com/robot/site-audit"},
	{Token: "SemrushBot", Operator: "Semrush", Class: ClassSEOTool, Source: "https://www.semrush.com/bot/"},
	{Token: "MJ12bot", Operator: "Majestic", Class: ClassSEOTool, Source: "https://mj12bot.com/"},
	{Token: "DotBot", Operator: "Moz", Class: ClassSEOTool, Source: "https://moz.com/help/moz-procedures/crawlers/dotbot"},
	{Token: "rogerbot", Operator: "Moz", Class: ClassSEOTool, Source: "https://moz.com/help/moz-procedures/crawlers/rogerbot"},
	{Token: "Screaming Frog SEO Spider", Operator: "Screaming Frog", Class: ClassSEOTool, Source: "https://www.screamingfrog.co.uk/seo-spider/user-guide/configuration/#user-agent"},
	{Token: "seokit", Operator: "seokit", Class: ClassSEOTool},
	{Token: "facebookexternalhit", Operator: "Meta", Class: ClassOther, Source: "https://developers.facebook.com/docs/sharing/webmasters/web-crawlers"},
	{Token: "Twitterbot", Operator: "X", Class: ClassOther, Source: "https://developer.x.com/en/docs/x-for-websites/cards/guides/getting-started"},
	{Token: "LinkedInBot", Operator: "LinkedIn", Class: ClassOther},
	{Token: "Slackbot", Operator: "Slack", Class: ClassOther, Source: "https://api.slack.com/robots"},
	{Token: "ia_archiver", Operator: "Internet Archive", Class: ClassOther},
	{Token: "archive.org_bot", Operator: "Internet Archive", Class: ClassOther},
}

// aiRanges are the published range files of the AI crawlers of the
// matrix, by token.
var aiRanges = map[string][]string{
	"GPTBot":          {"openai-gptbot"},
	"OAI-SearchBot":   {"openai-searchbot"},
	"ChatGPT-User":    {"openai-user"},
	"PerplexityBot":   {"perplexity-bot"},
	"Perplexity-User": {"perplexity-user"},
	"CCBot":           {"commoncrawl"},
}

// aiClass maps the matrix's purposes to classes.
var aiClass = map[crawler.AIPurpose]Class{
	crawler.AITraining: ClassAITraining,
	crawler.AISearch:   ClassAISearch,
	crawler.AIUser:     ClassUserFetcher,
}

var (
	registryOnce sync.Once
	registry     []Bot
	byToken      map[string]int // lower-case token -> index in registry
	multiWord    []int          // bots whose token holds a space, matched as a phrase
)

func loadRegistry() {
	registryOnce.Do(func() {
		// The AI crawlers come from the readiness matrix, so that the
		// matrix and the log report name the same bots; robots.txt
		// control tokens (Google-Extended) fetch nothing and are left out.
		for _, a := range crawler.AICrawlers() {
			if a.ControlOnly {
				continue
			}
			registry = append(registry, Bot{Token: a.Token, Operator: a.Operator, Class: aiClass[a.Purpose],
				Source: a.Source, Ranges: aiRanges[a.Token], AI: true})
		}
		for _, b := range otherBots {
			if b.Class == ClassAITraining || b.Class == ClassAISearch || (b.Class == ClassUserFetcher && b.Operator != "Google") {
				b.AI = true
			}
			registry = append(registry, b)
		}
		byToken = make(map[string]int, len(registry))
		for i, b := range registry {
			k := strings.ToLower(b.Token)
			if _, dup := byToken[k]; dup {
				continue
			}
			if strings.Contains(k, " ") {
				multiWord = append(multiWord, i)
				continue
			}
			byToken[k] = i
		}
	})
}

// Registry returns the bots the log analysis recognises: the AI crawlers
// of crawler.AICrawlers (their robots.txt control tokens left out) and the
// search engines, SEO tools and other declared crawlers.
func Registry() []Bot {
	loadRegistry()
	out := make([]Bot, len(registry))
	copy(out, registry)
	return out
}

// isTokenByte reports whether c belongs to a user-agent product token.
// Letters, digits and "-", "_", "." do; "/", ";", "(", ")", "+", spaces
// and the rest separate tokens.
func isTokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
}

// MatchBot returns the bot a user agent names, matching whole tokens
// case-insensitively ("Claude-User/1.0" is Claude-User, not ClaudeBot;
// "Googlebot-Image" is not Googlebot), or nil. When several bots are
// named, the first token in the user agent wins.
func MatchBot(userAgent string) *Bot {
	loadRegistry()
	var buf [64]byte
	for i := 0; i < len(userAgent); {
		if !isTokenByte(userAgent[i]) {
			i++
			continue
		}
		j := i
		for j < len(userAgent) && isTokenByte(userAgent[j]) {
			j++
		}
		if n := j - i; n <= len(buf) && n >= 3 {
			low := buf[:n]
			for k := 0; k < n; k++ {
				c := userAgent[i+k]
				if c >= 'A' && c <= 'Z' {
					c += 'a' - 'A'
				}
				low[k] = c
			}
			if idx, ok := byToken[string(low)]; ok {
				return &registry[idx]
			}
		}
		i = j
	}
	for _, idx := range multiWord {
		if containsFold(userAgent, registry[idx].Token) {
			return &registry[idx]
		}
	}
	return nil
}

// containsFold reports whether s holds sub, ASCII case folded, as whole
// tokens.
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) &&
			(i == 0 || !isTokenByte(s[i-1])) && (i+len(sub) == len(s) || !isTokenByte(s[i+len(sub)])) {
			return true
		}
	}
	return false
}

// Undeclared stands for requests whose user agent names no bot of the
// registry but calls itself one: a product token ending in "bot", or
// holding "crawler" or "spider" ("FooBot/1.0", "my-crawler"). They are
// counted as one bot of ClassOther and are unverifiable.
var Undeclared = &Bot{Token: "(undeclared bot)", Operator: "unknown", Class: ClassOther}

// classify returns the registry bot a user agent names, else Undeclared
// when it calls itself a bot, else nil.
func classify(userAgent string) *Bot {
	if b := MatchBot(userAgent); b != nil {
		return b
	}
	for i := 0; i < len(userAgent); {
		if !isTokenByte(userAgent[i]) {
			i++
			continue
		}
		j := i
		for j < len(userAgent) && isTokenByte(userAgent[j]) {
			j++
		}
		tok := strings.ToLower(userAgent[i:j])
		if strings.HasSuffix(tok, "bot") || strings.Contains(tok, "crawler") || strings.Contains(tok, "spider") {
			return Undeclared
		}
		i = j
	}
	return nil
}
