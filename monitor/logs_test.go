package monitor_test

import (
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/logs"
	"github.com/seokit/seokit/monitor"
)

// botDays is a bot's status mix on consecutive days from 2026-12-01.
func botDays(mixes ...logs.StatusMix) []logs.DayStats {
	out := make([]logs.DayStats, len(mixes))
	for i, m := range mixes {
		out[i] = logs.DayStats{Date: time.Date(2026, 12, 1+i, 0, 0, 0, 0, time.UTC).Format(time.DateOnly), Status: m,
			Hits: m.S2xx + m.S3xx + m.S4xx + m.S5xx}
	}
	return out
}

func logBot(token string, class logs.Class, verified int64, days []logs.DayStats) logs.BotStats {
	b := logs.BotStats{Bot: logs.Bot{Token: token, Class: class}, Verified: verified}
	b.Class, b.Days = class, days
	return b
}

// TestBotErrorsRising: bot_5xx_rising fires for a verified search bot
// whose 5xx share on the last day rose by the rule's points, and not for
// a small rise, a day of too few hits, an unverified bot or an AI
// crawler; evaluating the same log twice gives the same fingerprint.
func TestBotErrorsRising(t *testing.T) {
	rep := &logs.Report{First: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Last: time.Date(2026, 12, 3, 23, 0, 0, 0, time.UTC), Requests: 900,
		Bots: []logs.BotStats{
			// 2% then 30%: rose 28 points.
			logBot("Googlebot", logs.ClassSearch, 300, botDays(logs.StatusMix{S2xx: 98, S5xx: 2}, logs.StatusMix{S2xx: 98, S5xx: 2}, logs.StatusMix{S2xx: 70, S5xx: 30})),
			// 2% then 6%: rose 4 points, under the default 5.
			logBot("bingbot", logs.ClassSearch, 300, botDays(logs.StatusMix{S2xx: 98, S5xx: 2}, logs.StatusMix{S2xx: 94, S5xx: 6})),
			// 0% then 50% on 10 hits: too few.
			logBot("YandexBot", logs.ClassSearch, 300, botDays(logs.StatusMix{S2xx: 100}, logs.StatusMix{S2xx: 5, S5xx: 5})),
			// Rose, but never verified.
			logBot("Applebot", logs.ClassSearch, 0, botDays(logs.StatusMix{S2xx: 100}, logs.StatusMix{S2xx: 50, S5xx: 50})),
			// Rose, but not a search bot.
			logBot("GPTBot", logs.ClassAITraining, 300, botDays(logs.StatusMix{S2xx: 100}, logs.StatusMix{S2xx: 50, S5xx: 50})),
		}}
	in := &monitor.Input{Domain: "example.com", Logs: rep}
	a := monitor.Evaluate(rule(t, "bot_5xx_rising", ""), in)
	if a == nil || a.Count != 1 || a.Changes[0].Subject != "Googlebot" || a.Changes[0].Old != "2.0%" || a.Changes[0].New != "30.0%" ||
		!strings.Contains(a.Changes[0].What, "rose 28.0 points on 2026-12-03") {
		t.Fatalf("alert %+v", a)
	}
	if b := monitor.Evaluate(rule(t, "bot_5xx_rising", ""), in); b.Fingerprint != a.Fingerprint {
		t.Error("the same log gave another fingerprint")
	}
	if b := monitor.Evaluate(rule(t, "bot_5xx_rising", `{"points":3}`), in); b == nil || b.Count != 2 {
		t.Errorf("points 3: %+v; want Googlebot and bingbot", b)
	}
	if b := monitor.Evaluate(rule(t, "bot_5xx_rising", `{"points":30}`), in); b != nil {
		t.Errorf("points 30: %+v; want none", b)
	}
	if b := monitor.Evaluate(rule(t, "bot_5xx_rising", ""), &monitor.Input{Domain: "example.com"}); b != nil {
		t.Errorf("no log: %+v", b)
	}
}

// TestBotDisallowed: bot_disallowed fires per bot that fetched at least
// minPages disallowed URLs, with the URLs as examples, and needs a join.
func TestBotDisallowed(t *testing.T) {
	rep := &logs.Report{Requests: 10, Join: &logs.Join{Disallowed: []logs.Disallowed{
		{Token: "GPTBot", Class: logs.ClassAITraining, AI: true, URLList: logs.URLList{URLs: 3, Hits: 7, Sample: []logs.JoinURL{{URL: "/private/a", Hits: 4}, {URL: "/private/b", Hits: 2}, {URL: "/private/c", Hits: 1}}}},
		{Token: "Googlebot", Class: logs.ClassSearch, URLList: logs.URLList{URLs: 1, Hits: 1, Sample: []logs.JoinURL{{URL: "/cart", Hits: 1}}}},
	}}}
	in := &monitor.Input{Domain: "example.com", Logs: rep}
	a := monitor.Evaluate(rule(t, "bot_disallowed", ""), in)
	if a == nil || a.Count != 2 || a.Changes[0].Subject != "GPTBot" || a.Changes[0].What != "fetched 3 disallowed URL(s) 7 time(s)" ||
		strings.Join(a.Changes[0].Examples, " ") != "/private/a /private/b /private/c" {
		t.Fatalf("alert %+v", a)
	}
	if b := monitor.Evaluate(rule(t, "bot_disallowed", `{"minPages":2}`), in); b == nil || b.Count != 1 || b.Changes[0].Subject != "GPTBot" {
		t.Errorf("minPages 2: %+v; want GPTBot only", b)
	}
	if b := monitor.Evaluate(rule(t, "bot_disallowed", ""), &monitor.Input{Logs: &logs.Report{}}); b != nil {
		t.Errorf("a log without a join: %+v", b)
	}
}
