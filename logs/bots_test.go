package logs

import (
	"testing"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/seo/robotstxt"
)

func TestMatchBot(t *testing.T) {
	cases := []struct{ ua, want string }{
		{"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "Googlebot"},
		{"Googlebot-Image/1.0", "Googlebot-Image"},
		{"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)", "Claude-User"},
		{"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)", "ClaudeBot"},
		{"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot", "ChatGPT-User"},
		{"Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)", "bingbot"},
		{"Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)", "Baiduspider"},
		{"meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)", "meta-externalagent"},
		{"Screaming Frog SEO Spider/21.0", "Screaming Frog SEO Spider"},
		{"Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)", "AhrefsBot"},
		// Whole tokens only: a token inside another is not a match.
		{"NotGooglebot/1.0", ""},
		{"Googlebotx/1.0", ""},
		{"Mozilla/5.0 ClaudeBotanist/1.0", ""},
		{"Screaming Frog SEO Spiderling", ""},
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", ""},
		// Control tokens fetch nothing: a user agent naming one is not a bot.
		{"Google-Extended", ""},
		{"", ""},
	}
	for _, c := range cases {
		got := ""
		if b := MatchBot(c.ua); b != nil {
			got = b.Token
		}
		if got != c.want {
			t.Errorf("MatchBot(%q) = %q, want %q", c.ua, got, c.want)
		}
	}
}

func TestClassifyUndeclared(t *testing.T) {
	cases := map[string]*Bot{
		"Mozilla/5.0 (compatible; FooBot/1.0; +https://foo.example/bot)": Undeclared,
		"my-site-crawler/2.1":    Undeclared,
		"Baiduspider-render/2.0": Undeclared,
		"curl/8.5.0":             nil,
		"Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0": nil,
		"Mozilla/5.0 (compatible; bingbot/2.0)":                                  MatchBot("bingbot"),
		"Robotics/1.0":                                                           nil,
	}
	for ua, want := range cases {
		if got := classify(ua); got != want {
			t.Errorf("classify(%q) = %v, want %v", ua, got, want)
		}
	}
}

// TestRegistrySharesMatrix checks that every fetching AI crawler of the
// readiness matrix is in the registry with the matrix's operator and
// purpose, so the two never disagree.
func TestRegistrySharesMatrix(t *testing.T) {
	reg := map[string]Bot{}
	for _, b := range Registry() {
		if _, dup := reg[b.Token]; dup {
			t.Errorf("token %s twice in the registry", b.Token)
		}
		reg[b.Token] = b
	}
	for _, a := range crawler.AICrawlers() {
		b, ok := reg[a.Token]
		if a.ControlOnly {
			if ok {
				t.Errorf("control token %s is in the registry", a.Token)
			}
			continue
		}
		if !ok || b.Operator != a.Operator || b.Class != aiClass[a.Purpose] || !b.AI || b.Source != a.Source {
			t.Errorf("matrix crawler %+v is registry bot %+v", a, b)
		}
		if got := MatchBot(a.UserAgent); got == nil || got.Token != a.Token {
			t.Errorf("the probe's user agent of %s matches %v", a.Token, got)
		}
	}
	// Every AI token robots.txt checks name (robotstxt.AICrawlers) is an AI
	// bot of the registry, except the control tokens.
	for _, tok := range robotstxt.AICrawlers {
		if tok == "Google-Extended" || tok == "Applebot-Extended" {
			continue
		}
		if b, ok := reg[tok]; !ok || !b.AI {
			t.Errorf("robots.txt AI token %s is not an AI bot of the registry (%+v)", tok, b)
		}
	}
	for name := range RangeURLs {
		used := false
		for _, b := range reg {
			for _, r := range b.Ranges {
				used = used || r == name
			}
		}
		if !used {
			t.Errorf("range file %s is used by no bot", name)
		}
	}
}
