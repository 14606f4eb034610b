package logs

import (
	"context"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// knownAgent is a client of the generated logs with the verdict its
// requests must get: the operator's range files (testdata/ranges) and the
// loopback DNS of verifyDNS decide it.
type knownAgent struct {
	ip, ua string
	token  string // "" for a browser
	class  Class
	want   VerdictStatus
}

// knownAgents are real user agents, bots inside and outside their
// operators' published ranges, with and without forward-confirmed reverse
// DNS, and browsers.
var knownAgents = []knownAgent{
	{"66.249.64.5", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "Googlebot", ClassSearch, Verified},
	{"66.249.66.1", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Googlebot/2.1; +http://www.google.com/bot.html) Chrome/131.0.6778.139 Safari/537.36", "Googlebot", ClassSearch, Verified},
	{"203.0.113.9", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "Googlebot", ClassSearch, Spoofed},
	{"203.0.113.10", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "Googlebot", ClassSearch, Spoofed},
	{"203.0.113.12", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "Googlebot", ClassSearch, Unverifiable},
	{"157.55.39.1", "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)", "bingbot", ClassSearch, Verified},
	{"66.249.66.1", "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)", "bingbot", ClassSearch, Spoofed},
	{"20.15.240.70", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)", "GPTBot", ClassAITraining, Verified},
	{"198.51.100.7", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)", "GPTBot", ClassAITraining, Spoofed},
	{"18.97.14.80", "CCBot/2.0 (https://commoncrawl.org/faq/)", "CCBot", ClassAITraining, Verified},
	{"198.51.100.9", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)", "ClaudeBot", ClassAITraining, Unverifiable},
	{"192.0.2.10", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", "", "", ""},
	{"192.0.2.11", "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1", "", "", ""},
	{"192.0.2.12", "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", "", "", ""},
}

// knownFormats are the formats of the generated inputs, one input each.
var knownFormats = []Format{FormatCombined, FormatW3C, FormatJSON}

const w3cHeader = "#Software: Microsoft Internet Information Services 10.0\n" +
	"#Fields: date time s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip cs(User-Agent) cs(Referer) sc-status sc-substatus sc-win32-status time-taken\n"

// knownLine is what line i of an input is: its agent, path, status, or a
// malformed line (every 53rd).
func knownLine(i int) (a int, path string, status int, malformed bool) {
	if i%53 == 52 {
		return 0, "", 0, true
	}
	a = i % len(knownAgents)
	path = genPaths[(i/len(knownAgents))%len(genPaths)]
	status = 200
	switch {
	case i%89 == 0:
		status = 404
	case i%101 == 0:
		status = 503
	case i%7 == 0:
		status = 304
	}
	return a, path, status, false
}

// knownLog is an io.Reader of a generated input: n request lines (and
// the W3C header), never held whole.
type knownLog struct {
	f    Format
	n, i int
	buf  []byte
	t0   time.Time
}

func newKnownLog(f Format, n int) *knownLog {
	k := &knownLog{f: f, n: n, t0: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
	if f == FormatW3C {
		k.buf = append(k.buf, w3cHeader...)
	}
	return k
}

func (k *knownLog) appendLine(b []byte, i int) []byte {
	a, path, status, bad := knownLine(i)
	if bad {
		switch k.f {
		case FormatJSON:
			return append(b, "{\"ClientIP\": \"192.0.2.1\", \"EdgeResponseStatus\": 2\n"...)
		case FormatW3C:
			return append(b, "2026-11-01 garbage\n"...)
		}
		return append(b, "\x16\x03\x01 not a request line at all\n"...)
	}
	ag := knownAgents[a]
	t := k.t0.Add(time.Duration(i) * time.Second)
	switch k.f {
	case FormatCombined:
		b = append(b, ag.ip...)
		b = append(b, " - - ["...)
		b = t.AppendFormat(b, "02/Jan/2006:15:04:05 -0700")
		b = append(b, "] \"GET "...)
		b = append(b, path...)
		b = append(b, " HTTP/1.1\" "...)
		b = strconv.AppendInt(b, int64(status), 10)
		b = append(b, " 1234 \"-\" \""...)
		b = append(b, ag.ua...)
		return append(b, "\"\n"...)
	case FormatW3C:
		stem, query, _ := strings.Cut(path, "?")
		if query == "" {
			query = "-"
		}
		b = t.AppendFormat(b, "2006-01-02 15:04:05")
		b = append(b, " 10.0.0.1 GET "...)
		b = append(b, stem...)
		b = append(b, ' ')
		b = append(b, query...)
		b = append(b, " 443 - "...)
		b = append(b, ag.ip...)
		b = append(b, ' ')
		b = append(b, strings.ReplaceAll(ag.ua, " ", "+")...)
		b = append(b, " - "...)
		b = strconv.AppendInt(b, int64(status), 10)
		return append(b, " 0 0 120\n"...)
	default:
		b = append(b, `{"ClientIP":"`...)
		b = append(b, ag.ip...)
		b = append(b, `","ClientRequestHost":"www.example.com","ClientRequestMethod":"GET","ClientRequestURI":`...)
		b = strconv.AppendQuote(b, path)
		b = append(b, `,"ClientRequestUserAgent":`...)
		b = strconv.AppendQuote(b, ag.ua)
		b = append(b, `,"EdgeResponseStatus":`...)
		b = strconv.AppendInt(b, int64(status), 10)
		b = append(b, `,"EdgeResponseBytes":1234,"EdgeStartTimestamp":`...)
		b = strconv.AppendInt(b, t.UnixNano(), 10)
		return append(b, "}\n"...)
	}
}

func (k *knownLog) Read(p []byte) (int, error) {
	for len(k.buf) < len(p) && k.i < k.n {
		k.buf = k.appendLine(k.buf, k.i)
		k.i++
	}
	if len(k.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, k.buf)
	k.buf = k.buf[:copy(k.buf, k.buf[n:])]
	return n, nil
}

// knownAnswers are the counts the generated inputs must give, worked out
// from knownLine and knownAgents alone.
type knownAnswers struct {
	lines, requests, malformed int64
	perAgent                   []int64
	status                     StatusMix
}

func answers(perInput int) knownAnswers {
	k := knownAnswers{perAgent: make([]int64, len(knownAgents))}
	for range knownFormats {
		for i := range perInput {
			k.lines++
			a, _, status, bad := knownLine(i)
			if bad {
				k.malformed++
				continue
			}
			k.requests++
			k.perAgent[a]++
			k.status.add(status, 1)
		}
	}
	k.lines += 2 // the W3C header's directives are lines, neither requests nor malformed
	return k
}

// TestGeneratedKnownAnswers streams three generated logs (combined, W3C,
// Cloudflare JSON lines) with real user agents, bots inside and outside
// their operators' published ranges (local range files) and with and
// without forward-confirmed reverse DNS (a DNS server on loopback), and
// malformed lines, and checks every count and verdict against the answers
// worked out from the generator's table: spoofed Googlebot hits are not
// Googlebot's. SEOKIT_LOGS_5M=1 runs it on 5,000,000 lines; the default
// is 50,000.
func TestGeneratedKnownAnswers(t *testing.T) {
	total := 50_000
	if os.Getenv("SEOKIT_LOGS_5M") == "1" {
		total = 5_000_000
	}
	perInput := total / len(knownFormats)
	d := verifyDNS(t)
	v := NewVerifier(&VerifierOptions{Resolver: NewDNSResolver(d.addr), Ranges: DirRanges("testdata/ranges"), LookupTimeout: 10 * time.Second})
	inputs := make([]Input, len(knownFormats))
	for i, f := range knownFormats {
		inputs[i] = Reader(string(f), newKnownLog(f, perInput))
	}
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	rep, err := Analyze(context.Background(), inputs, &Options{Verifier: v})
	elapsed := time.Since(start)
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	want := answers(perInput)
	for i, in := range rep.Inputs {
		if in.Format != knownFormats[i] || in.Error != "" {
			t.Errorf("input %d read as %s (error %q), want %s", i, in.Format, in.Error, knownFormats[i])
		}
	}
	if rep.Lines != want.lines || rep.Requests != want.requests || rep.Malformed != want.malformed {
		t.Errorf("lines %d, requests %d, malformed %d; want %d, %d, %d", rep.Lines, rep.Requests, rep.Malformed, want.lines, want.requests, want.malformed)
	}
	// Verdicts per bot, and per class with spoofed hits in none.
	type counts struct{ verified, spoofed, unverifiable int64 }
	wantBot := map[string]*counts{}
	wantClass := map[Class]int64{}
	var botHits, verified, spoofed, unverifiable int64
	for a, ag := range knownAgents {
		n := want.perAgent[a]
		if ag.token == "" {
			wantClass[ClassNone] += n
			continue
		}
		c := wantBot[ag.token]
		if c == nil {
			c = &counts{}
			wantBot[ag.token] = c
		}
		botHits += n
		switch ag.want {
		case Verified:
			c.verified += n
			verified += n
		case Spoofed:
			c.spoofed += n
			spoofed += n
		case Unverifiable:
			c.unverifiable += n
			unverifiable += n
		}
		if ag.want != Spoofed {
			wantClass[ag.class] += n
		}
	}
	tot := rep.Totals
	if tot.Hits != want.requests || tot.BotHits != botHits || tot.VerifiedHits != verified || tot.SpoofedHits != spoofed || tot.UnverifiableHits != unverifiable {
		t.Errorf("totals %+v; want %d hits, %d bot hits: %d verified, %d spoofed, %d unverifiable", tot, want.requests, botHits, verified, spoofed, unverifiable)
	}
	if len(rep.Bots) != len(wantBot) {
		t.Errorf("%d bots in the report, want %d", len(rep.Bots), len(wantBot))
	}
	for _, b := range rep.Bots {
		c := wantBot[b.Bot.Token]
		if c == nil {
			t.Errorf("unexpected bot %s", b.Bot.Token)
			continue
		}
		if b.Verified != c.verified || b.Spoofed != c.spoofed || b.Unverifiable != c.unverifiable || b.Hits != c.verified+c.unverifiable {
			t.Errorf("%s: hits %d, verified %d, spoofed %d, unverifiable %d; want %d, %d, %d, %d", b.Bot.Token, b.Hits, b.Verified, b.Spoofed, b.Unverifiable,
				c.verified+c.unverifiable, c.verified, c.spoofed, c.unverifiable)
		}
	}
	for _, c := range rep.Classes {
		if c.Class == "none" {
			c.Class = ClassNone
		}
		if c.Hits != wantClass[c.Class] {
			t.Errorf("class %s: %d hits, want %d", c.Class, c.Hits, wantClass[c.Class])
		}
	}
	var days StatusMix
	for _, d := range rep.Days {
		days.S2xx += d.Status.S2xx
		days.S3xx += d.Status.S3xx
		days.S4xx += d.Status.S4xx
		days.S5xx += d.Status.S5xx
	}
	if days != want.status {
		t.Errorf("status mix over the days %+v, want %+v", days, want.status)
	}
	lookups := v.Lookups()
	if lookups > 10 {
		t.Errorf("%d DNS verifications for %d distinct bot addresses: the cache does not hold", lookups, 10)
	}
	t.Logf("%d lines (%d requests, %d malformed) in 3 formats in %v: %.0f lines/s; %d verified, %d spoofed, %d unverifiable bot hits; %d DNS verifications; %.1f MiB allocated",
		rep.Lines, rep.Requests, rep.Malformed, elapsed.Round(time.Millisecond), float64(rep.Lines)/elapsed.Seconds(),
		tot.VerifiedHits, tot.SpoofedHits, tot.UnverifiableHits, lookups, float64(after.TotalAlloc-before.TotalAlloc)/(1<<20))
	for _, b := range rep.Bots {
		t.Logf("  %-10s %-16s hits %9d  verified %9d  spoofed %9d  unverifiable %9d", b.Bot.Token, b.Class, b.Hits, b.Verified, b.Spoofed, b.Unverifiable)
	}

}
