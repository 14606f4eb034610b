package logs_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/seokit/seokit/logs"
)

func ExampleAnalyze() {
	log := `66.249.66.1 - - [01/Nov/2026:08:00:00 +0000] "GET / HTTP/1.1" 200 5120 "-" "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
192.0.2.7 - - [01/Nov/2026:08:00:02 +0000] "GET /private/ HTTP/1.1" 200 900 "-" "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)"
192.0.2.8 - - [01/Nov/2026:08:00:03 +0000] "GET / HTTP/1.1" 200 5120 "-" "Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0"
not a log line
`
	rep, err := logs.Analyze(context.Background(), []logs.Input{logs.Reader("access.log", strings.NewReader(log))}, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println("format:", rep.Inputs[0].Format, "requests:", rep.Requests, "malformed:", rep.Malformed)
	for _, b := range rep.Bots {
		fmt.Println(b.Bot.Token, b.Bot.Class, b.Hits, b.UnverifiableReasons)
	}
	// Output:
	// format: combined requests: 3 malformed: 1
	// Claude-User user_fetcher 1 map[verification off:1]
	// Googlebot search 1 map[verification off:1]
}

func ExampleMatchBot() {
	for _, ua := range []string{
		"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)",
		"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)",
		"Googlebot-Image/1.0",
	} {
		b := logs.MatchBot(ua)
		fmt.Println(b.Token, b.Operator, b.Class)
	}
	// Output:
	// ClaudeBot Anthropic ai_training
	// Claude-User Anthropic user_fetcher
	// Googlebot-Image Google search
}
