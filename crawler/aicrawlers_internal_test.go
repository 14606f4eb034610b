package crawler

import (
	"fmt"
	"strings"
	"testing"

	"github.com/seokit/seokit/seo/robotstxt"
)

// aiFixture is the "ai" part of a site fixture: the answers of robots.txt,
// /llms.txt and the probes. A crawler absent from Probes answers like
// Baseline.
type aiFixture struct {
	RobotsStatus int                `json:"robotsStatus"`
	Robots       string             `json:"robots"`
	LLMsStatus   int                `json:"llmsStatus"`
	LLMs         string             `json:"llms"`
	Baseline     aiFetch            `json:"baseline"`
	Probes       map[string]aiFetch `json:"probes"`
}

// facts returns the aiFacts of x; nil for nil.
func (x *aiFixture) facts() *aiFacts {
	if x == nil {
		return nil
	}
	af := &aiFacts{robots: robotstxt.FromStatus(x.RobotsStatus, []byte(x.Robots)), robotsURL: siteOrigin + "/robots.txt",
		home: siteOrigin + "/", llmsURL: siteOrigin + "/llms.txt", llms: aiFetch{Status: x.LLMsStatus}, baseline: x.Baseline,
		probes: map[string]aiFetch{}}
	if x.LLMsStatus == 200 {
		af.llmsBody = []byte(x.LLMs)
	}
	for _, c := range aiCrawlerTable {
		if f, ok := x.Probes[c.Token]; ok {
			af.probes[c.Token] = f
		} else {
			af.probes[c.Token] = x.Baseline
		}
	}
	return af
}

// aiMatrix builds the report of a site of three pages with robots.txt
// answering status and body, and returns its AI rows by token.
func aiMatrix(t *testing.T, status int, body string) (*AICrawlerReport, map[string]AICrawlerStatus) {
	t.Helper()
	s := testSite{pages: []PageSummary{pg("/blog/a"), pg("/private/b"), pg("/private/open/c")}, linked: []string{"/blog/a"},
		ai: (&aiFixture{RobotsStatus: status, Robots: body, LLMsStatus: 404, Baseline: aiFetch{Status: 200, Bytes: 5000}}).facts()}
	rep := s.build(t).AICrawlers
	if rep == nil {
		t.Fatal("no AICrawlers report")
	}
	rows := map[string]AICrawlerStatus{}
	for _, c := range rep.Crawlers {
		rows[c.Token] = c
	}
	if len(rows) != len(aiCrawlerTable) {
		t.Fatalf("%d rows, want %d", len(rows), len(aiCrawlerTable))
	}
	return rep, rows
}

func TestAIMatrix(t *testing.T) {
	type verdict struct {
		token   string
		home    bool
		line    int
		rule    string
		blocked int
	}
	tests := []struct {
		name, robots string
		status       int
		wantStatus   string
		want         []verdict
	}{
		{name: "blocked all", status: 200, robots: "User-agent: *\nDisallow: /\n", wantStatus: "complete",
			want: []verdict{{"GPTBot", false, 2, "Disallow: /", 4}, {"OAI-SearchBot", false, 2, "Disallow: /", 4}, {"Google-Extended", false, 2, "Disallow: /", 4}}},
		{name: "training only", status: 200, robots: "User-agent: GPTBot\nUser-agent: ClaudeBot\nUser-agent: CCBot\nDisallow: /\n\nUser-agent: *\nAllow: /\n", wantStatus: "complete",
			want: []verdict{{"GPTBot", false, 4, "Disallow: /", 4}, {"ClaudeBot", false, 4, "Disallow: /", 4}, {"Claude-SearchBot", true, 7, "Allow: /", 0}, {"OAI-SearchBot", true, 7, "Allow: /", 0}}},
		{name: "specific group beats wildcard", status: 200, robots: "User-agent: *\nDisallow: /\n\nUser-agent: OAI-SearchBot\nDisallow: /private\n", wantStatus: "complete",
			want: []verdict{{"OAI-SearchBot", true, 0, robotstxt.DecisionNoRule, 2}, {"GPTBot", false, 2, "Disallow: /", 4}}},
		{name: "longest match", status: 200, robots: "User-agent: *\nDisallow: /private\nAllow: /private/open\n", wantStatus: "complete",
			want: []verdict{{"PerplexityBot", true, 0, robotstxt.DecisionNoRule, 1}}},
		{name: "no group for the crawler", status: 200, robots: "User-agent: Googlebot\nDisallow: /\n", wantStatus: "complete",
			want: []verdict{{"GPTBot", true, 0, robotstxt.DecisionNoGroup, 0}}},
		{name: "no robots.txt", status: 404, wantStatus: "complete",
			want: []verdict{{"GPTBot", true, 0, robotstxt.DecisionNoFile, 0}}},
		{name: "robots.txt 5xx", status: 503, wantStatus: "robots_unreachable",
			want: []verdict{{"OAI-SearchBot", false, 0, robotstxt.DecisionUnreachable, 4}, {"Claude-User", false, 0, robotstxt.DecisionUnreachable, 4}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, rows := aiMatrix(t, tt.status, tt.robots)
			if rep.Status != tt.wantStatus || (tt.wantStatus != "complete") != (rep.Reason != "") {
				t.Errorf("status %q (%q), want %q", rep.Status, rep.Reason, tt.wantStatus)
			}
			if rep.CrawledURLs != 4 {
				t.Errorf("crawledUrls %d, want 4", rep.CrawledURLs)
			}
			for _, w := range tt.want {
				c := rows[w.token]
				if c.Home.Allowed != w.home || c.Home.Line != w.line || c.Home.Rule != w.rule {
					t.Errorf("%s home = %+v, want allowed %v line %d %q", w.token, c.Home, w.home, w.line, w.rule)
				}
				if c.BlockedURLs != w.blocked || c.AllowedURLs != 4-w.blocked {
					t.Errorf("%s blocked %d allowed %d, want %d blocked", w.token, c.BlockedURLs, c.AllowedURLs, w.blocked)
				}
				if len(c.Sample) != 4 || (w.blocked > 0 && c.Sample[0].Allowed) {
					t.Errorf("%s sample %+v: want 4, disallowed first", w.token, c.Sample)
				}
			}
			for _, tok := range []string{"Google-Extended", "Applebot-Extended"} {
				if c := rows[tok]; !c.ControlOnly || c.Probe != nil || c.ProbeReason == "" {
					t.Errorf("%s: control token not said so: %+v", tok, c)
				}
			}
			if rep.ContentNeedsJS != nil || rep.ContentNeedsJSReason == "" {
				t.Errorf("contentNeedsJs %v %q: want null with a reason", rep.ContentNeedsJS, rep.ContentNeedsJSReason)
			}
		})
	}
}

func TestAISampleCap(t *testing.T) {
	s := testSite{ai: (&aiFixture{RobotsStatus: 200, Robots: "User-agent: *\nDisallow: /x\n", Baseline: aiFetch{Status: 200}}).facts()}
	for i := range 50 {
		s.pages = append(s.pages, pg(fmt.Sprintf("/x/%d", i)), pg(fmt.Sprintf("/y/%d", i)))
	}
	c := s.build(t).AICrawlers.Crawlers[0]
	if len(c.Sample) != MaxAISampleURLs || c.BlockedURLs != 50 || c.AllowedURLs != 51 {
		t.Fatalf("sample %d, blocked %d, allowed %d", len(c.Sample), c.BlockedURLs, c.AllowedURLs)
	}
}

func TestAIProbeCompare(t *testing.T) {
	base := aiFetch{Status: 200, Bytes: 10000}
	tests := []struct {
		name    string
		f, base aiFetch
		blocked bool
	}{
		{"same", aiFetch{Status: 200, Bytes: 9800}, base, false},
		{"403", aiFetch{Status: 403, Bytes: 9800}, base, true},
		{"429", aiFetch{Status: 429}, base, true},
		{"challenge", aiFetch{Status: 200, Bytes: 9800, Challenge: true}, base, true},
		{"small body", aiFetch{Status: 200, Bytes: 3000}, base, true},
		{"small page, small body", aiFetch{Status: 200, Bytes: 100}, aiFetch{Status: 200, Bytes: 500}, false},
		{"failed", aiFetch{Err: "connection reset"}, base, true},
		{"normal fetch failed", aiFetch{Status: 403}, aiFetch{Status: 503}, false},
	}
	for _, tt := range tests {
		p := tt.f.compare(tt.base)
		if p.Blocked != tt.blocked || (p.Blocked && p.Reason == "") {
			t.Errorf("%s: blocked %v (%q), want %v", tt.name, p.Blocked, p.Reason, tt.blocked)
		}
	}
}

func TestLLMsTxt(t *testing.T) {
	const good = "# Shop\n\n> A shop of things.\n\nNotes.\n\n## Docs\n\n- [Guide](https://example.com/g): start here\n- [FAQ](https://example.com/faq)\n\n## Optional\n\n- [About](https://example.com/about)\n"
	tests := []struct {
		name     string
		status   int
		body     string
		present  bool
		sections int
		links    int
		issues   int
	}{
		{"good", 200, good, true, 2, 3, 0},
		{"absent", 404, "", false, 0, 0, 0},
		{"no title", 200, "Shop\n\n## Docs\n- [a](/a)\n", true, 1, 1, 1},
		{"html page", 200, "<!DOCTYPE html><html><body>hi</body></html>", true, 0, 0, 1},
		{"empty", 200, " \n", true, 0, 0, 1},
		{"no sections", 200, "# Shop\n\n> A shop.\n", true, 0, 0, 1},
		{"bad items and late summary", 200, "# Shop\n## Docs\n- guide at /g\n## Empty\n> late\n", true, 2, 0, 4},
	}
	for _, tt := range tests {
		var body []byte
		if tt.status == 200 {
			body = []byte(tt.body)
		}
		rep := parseLLMsTxt(siteOrigin+"/llms.txt", aiFetch{Status: tt.status}, body)
		if rep.Present != tt.present || rep.Sections != tt.sections || rep.Links != tt.links || rep.IssuesTotal != tt.issues {
			t.Errorf("%s: %+v, want present %v, %d sections, %d links, %d issues", tt.name, rep, tt.present, tt.sections, tt.links, tt.issues)
		}
	}
	var many strings.Builder
	many.WriteString("# T\n## S\n")
	for range 1000 {
		many.WriteString("- x\n")
	}
	rep := parseLLMsTxt("u", aiFetch{Status: 200}, []byte(many.String()))
	if len(rep.Issues) != maxLLMsIssues || rep.IssuesTotal != 1001 {
		t.Errorf("issues %d of %d, want %d of 1001 (1,000 items and the empty section)", len(rep.Issues), rep.IssuesTotal, maxLLMsIssues)
	}
}

func TestContentNeedsJS(t *testing.T) {
	for _, tt := range []struct {
		raw, rendered int
		want          bool
	}{{0, 400, true}, {100, 400, true}, {200, 400, false}, {0, 20, false}, {500, 500, false}} {
		if got := ContentNeedsJS(tt.raw, tt.rendered); got != tt.want {
			t.Errorf("ContentNeedsJS(%d, %d) = %v", tt.raw, tt.rendered, got)
		}
	}
}

func TestAIHTMLSection(t *testing.T) {
	s := testSite{ai: (&aiFixture{RobotsStatus: 200, Robots: "User-agent: GPTBot\nDisallow: /\n", LLMsStatus: 404,
		Baseline: aiFetch{Status: 200, Bytes: 5000}, Probes: map[string]aiFetch{"CCBot": {Status: 403}}}).facts()}
	var buf strings.Builder
	if err := writeHTML(&buf, s.build(t)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="ai-crawlers"`, "GPTBot", "line 2: ", "<code>Disallow: /</code>", "<strong>refused</strong>: status 403", "absent (status 404)", "control token", "not computed: "} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("HTML report lacks %q", want)
		}
	}
	buf.Reset()
	if err := writeHTML(&buf, (testSite{}).build(t)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), `id="ai-crawlers"`) {
		t.Error("AI crawlers section without a report")
	}
}
