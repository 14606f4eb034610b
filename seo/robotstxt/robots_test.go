package robotstxt

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestFromStatus(t *testing.T) {
	body := []byte("User-agent: *\nDisallow: /private/\n")
	tests := []struct {
		name       string
		status     int
		root, priv bool
	}{
		{"200 parsed", 200, true, false},
		{"204 parsed", 204, true, true},
		{"301 unfollowed redirect allows", 301, true, true},
		{"401 allows", 401, true, true},
		{"403 allows", 403, true, true},
		{"404 allows", 404, true, true},
		{"410 allows", 410, true, true},
		{"429 disallows", 429, false, false},
		{"500 disallows", 500, false, false},
		{"503 disallows", 503, false, false},
		{"0 disallows", 0, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := body
			if tc.status == 204 {
				b = nil
			}
			r := FromStatus(tc.status, b)
			if got := r.Allowed("seokit", "/"); got != tc.root {
				t.Errorf("Allowed(/) = %v, want %v", got, tc.root)
			}
			if got := r.Allowed("seokit", "/private/x"); got != tc.priv {
				t.Errorf("Allowed(/private/x) = %v, want %v", got, tc.priv)
			}
			if !r.Allowed("seokit", "/robots.txt") {
				t.Error("/robots.txt must always be allowed")
			}
			if r.Status() != tc.status {
				t.Errorf("Status() = %d, want %d", r.Status(), tc.status)
			}
		})
	}
	u := Unreachable()
	if u.Allowed("seokit", "/") || !u.DisallowsAll("seokit") || !u.Unavailable() {
		t.Error("Unreachable must disallow everything")
	}
}

func TestTruncation(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("User-agent: *\nDisallow: /early\n")
	for b.Len() < MaxSize-20 {
		b.WriteString("# padding padding padding padding padding\n")
	}
	// This rule straddles the 500 KiB mark and must be dropped, not cut to
	// "Disallow: /".
	b.WriteString("Disallow: /straddling-the-limit-rule\n")
	b.WriteString("Disallow: /late\n")
	for b.Len() < 10<<20 {
		b.WriteString("Disallow: /later\n")
	}
	start := time.Now()
	r := Parse(b.Bytes())
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("parsing a 10 MB body took %v", d)
	}
	if !r.Truncated() {
		t.Error("Truncated() = false for a 10 MB body")
	}
	if r.Size() != b.Len() {
		t.Errorf("Size() = %d, want %d", r.Size(), b.Len())
	}
	for path, want := range map[string]bool{"/early": false, "/late": true, "/later": true, "/x": true, "/straddling": true} {
		if got := r.Allowed("seokit", path); got != want {
			t.Errorf("Allowed(%s) = %v, want %v", path, got, want)
		}
	}
	small := Parse([]byte("User-agent: *\nDisallow: /a\n"))
	if small.Truncated() {
		t.Error("small file marked truncated")
	}
}

func TestTypoDirectives(t *testing.T) {
	tests := []struct {
		name, robots string
	}{
		{"useragent", "useragent: foo\ndisallow: /x\n"},
		{"user agent", "user agent: foo\ndisallow: /x\n"},
		{"dissallow", "user-agent: foo\ndissallow: /x\n"},
		{"dissalow", "user-agent: foo\ndissalow: /x\n"},
		{"disalow", "user-agent: foo\ndisalow: /x\n"},
		{"diasllow", "user-agent: foo\ndiasllow: /x\n"},
		{"disallaw", "user-agent: foo\ndisallaw: /x\n"},
		{"no colon", "user-agent foo\ndisallow /x\n"},
		{"leading whitespace", "  user-agent: foo\n\tdisallow: /x\n"},
		{"crlf", "user-agent: foo\r\ndisallow: /x\r\n"},
		{"cr only", "user-agent: foo\rdisallow: /x\r"},
		{"bom", "\xEF\xBB\xBFuser-agent: foo\ndisallow: /x\n"},
		{"partial bom", "\xEF\xBBuser-agent: foo\ndisallow: /x\n"},
		{"trailing comment", "user-agent: foo # the foo bot\ndisallow: /x # no x\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Parse([]byte(tc.robots))
			if r.Allowed("foo", "/x/y") {
				t.Error("/x/y allowed; the disallow line was not read")
			}
			if !r.Allowed("foo", "/y") {
				t.Error("/y disallowed")
			}
			if len(r.Issues()) != 0 {
				t.Errorf("issues: %+v", r.Issues())
			}
		})
	}
	// A typo Google does not accept is an unknown directive.
	r := Parse([]byte("user-agent: foo\ndisalloww: /x\nalow: /y\n"))
	if !r.Allowed("foo", "/y") {
		t.Error("alow must not be read as a rule")
	}
	if len(r.Issues()) != 1 || r.Issues()[0].Line != 3 {
		t.Errorf("issues = %+v, want one on line 3", r.Issues())
	}
}

func TestIssues(t *testing.T) {
	robots := "Disallow: /early\n" + // 1: before any user-agent
		"User-agent: *\n" + // 2
		"Disallow: private\n" + // 3: no leading slash
		"Disallow: /a$b\n" + // 4: $ inside
		"Disalow: /ok\n" + // 5: accepted typo
		"Noindex: /x\n" + // 6: known to some crawlers, ignored
		"Foo: bar\n" + // 7: unknown
		"just garbage here\n" + // 8: no field
		"Crawl-delay: soon\n" + // 9: bad number
		"Disallow: /*.pdf$\n" + // 10: fine
		"Sitemap: https://example.com/sitemap.xml\n" // 11
	r := Parse([]byte(robots))
	want := []Issue{
		{1, "Disallow: /early", ReasonOutsideGroup},
		{3, "Disallow: private", ReasonPathStart},
		{4, "Disallow: /a$b", ReasonDollarNotAtEnd},
		{7, "Foo: bar", ReasonUnknownDirective},
		{8, "just garbage here", ReasonUnknownDirective},
		{9, "Crawl-delay: soon", ReasonBadCrawlDelay},
	}
	if !reflect.DeepEqual(r.Issues(), want) {
		t.Errorf("Issues() =\n%+v\nwant\n%+v", r.Issues(), want)
	}
	if r.InvalidLines() != len(want) {
		t.Errorf("InvalidLines() = %d", r.InvalidLines())
	}
	if r.Allowed("x", "/a$b") {
		t.Error("a $ inside a path is literal")
	}
	if !r.Allowed("x", "/early") {
		t.Error("a rule outside any group must be ignored")
	}
}

func TestLineNumbers(t *testing.T) {
	for name, sep := range map[string]string{"lf": "\n", "crlf": "\r\n", "cr": "\r"} {
		t.Run(name, func(t *testing.T) {
			robots := strings.Join([]string{"User-Agent: foo", "Allow: /some/path", "User-Agent: bar", "", "", "Bad line"}, sep)
			r := Parse([]byte(robots))
			if is := r.Issues(); len(is) != 1 || is[0].Line != 6 {
				t.Errorf("issues = %+v, want one on line 6", is)
			}
		})
	}
}

func TestSitemaps(t *testing.T) {
	r := Parse([]byte("Sitemap: https://a.example/s1.xml\nUser-agent: *\nDisallow: /x\nsite-map: https://a.example/s2.xml\n\nSitemap: /relative.xml\n"))
	want := []string{"https://a.example/s1.xml", "https://a.example/s2.xml", "/relative.xml"}
	if !reflect.DeepEqual(r.Sitemaps(), want) {
		t.Errorf("Sitemaps() = %q, want %q", r.Sitemaps(), want)
	}
	if r.Allowed("foo", "/x") {
		t.Error("a sitemap line must not end the group")
	}
}

func TestCrawlDelay(t *testing.T) {
	r := Parse([]byte("User-agent: *\nCrawl-delay: 2.5\nDisallow: /tmp\nUser-agent: slowbot\nCrawl-delay: 10\nUser-agent: otherbot\nDisallow: /x\nUser-agent: fastbot\nDisallow: /y\n"))
	tests := []struct {
		agent string
		want  time.Duration
		ok    bool
	}{
		{"anybot", 2500 * time.Millisecond, true},
		{"slowbot", 10 * time.Second, true},
		// otherbot shares slowbot's group: a crawl-delay line does not end
		// the run of user-agent lines, as in Google's parser.
		{"otherbot", 10 * time.Second, true},
		{"fastbot", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.agent, func(t *testing.T) {
			d, ok := r.CrawlDelay(tc.agent)
			if d != tc.want || ok != tc.ok {
				t.Errorf("CrawlDelay(%s) = %v, %v; want %v, %v", tc.agent, d, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestAgentSelection(t *testing.T) {
	robots := "User-agent: *\nDisallow: /star\n\nUser-agent: Googlebot\nDisallow: /google\n\nUser-agent: Googlebot-News\nDisallow: /news\n\nUser-agent: googlebot\nDisallow: /merged\n"
	r := Parse([]byte(robots))
	tests := []struct {
		name, agent, path string
		want              bool
	}{
		{"exact", "Googlebot", "/google", false},
		{"merged same name", "googlebot", "/merged", false},
		{"not merged with star", "Googlebot", "/star", true},
		{"most specific", "Googlebot-News", "/news", false},
		{"most specific only", "Googlebot-News", "/google", true},
		{"prefix at hyphen", "Googlebot-Image", "/google", false},
		{"no prefix without hyphen", "GooglebotX", "/star", false},
		{"full UA string", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "/google", false},
		{"token with version", "Googlebot/2.1", "/google", false},
		{"fallback to star", "seokit", "/star", false},
		{"star only for others", "seokit", "/google", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := r.Allowed(tc.agent, tc.path); got != tc.want {
				t.Errorf("Allowed(%q, %q) = %v, want %v", tc.agent, tc.path, got, tc.want)
			}
		})
	}
}

func TestToken(t *testing.T) {
	tests := map[string]string{
		"seokit":     "seokit",
		"seokit/1.0": "seokit",
		"Mozilla/5.0 (compatible; seokit/1.0; +https://github.com/seokit/seokit)": "seokit",
		"Foo Bar":        "Foo Bar",
		"  Claude-User ": "Claude-User",
		"":               "",
	}
	for in, want := range tests {
		if got := Token(in); got != want {
			t.Errorf("Token(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDisallowsAllAndAICrawlers(t *testing.T) {
	robots := "User-agent: GPTBot\nDisallow: /\n\nUser-agent: ClaudeBot\nUser-agent: CCBot\nDisallow: /\n\nUser-agent: PerplexityBot\nDisallow: /\nAllow: /public/\n\nUser-agent: Bytespider\nDisallow: /*\n\nUser-agent: *\nDisallow: /admin\n"
	r := Parse([]byte(robots))
	got := r.BlockedAICrawlers()
	want := []string{"GPTBot", "ClaudeBot", "CCBot", "Bytespider"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("BlockedAICrawlers() = %q, want %q", got, want)
	}
	if r.DisallowsAll("seokit") {
		t.Error("DisallowsAll(seokit) with only /admin disallowed")
	}
	if !Parse([]byte("User-agent: *\nDisallow: /\n")).DisallowsAll("OAI-SearchBot") {
		t.Error("the * group disallowing / must apply to AI crawlers without a group")
	}
	if FromStatus(404, nil).DisallowsAll("GPTBot") {
		t.Error("404 disallows nothing")
	}
}

func TestRequestPath(t *testing.T) {
	tests := map[string]string{
		"":                          "/",
		"/a?b=c#frag":               "/a?b=c",
		"https://x.example":         "/",
		"https://x.example?q":       "/?q",
		"http://x.example:8080/p/q": "/p/q",
		"//double/slash":            "//double/slash",
	}
	for in, want := range tests {
		if got := requestPath(in); got != want {
			t.Errorf("requestPath(%q) = %q, want %q", in, got, want)
		}
	}
}
