package robotstxt

import "testing"

func TestDecide(t *testing.T) {
	const file = "User-agent: *\nDisallow: /private\nAllow: /private/open\n\nUser-agent: GPTBot\nDisallow: /\n\nUser-agent: Claude\nAllow: /\n"
	r := Parse([]byte(file))
	tests := []struct {
		agent, path string
		want        Decision
	}{
		{"PerplexityBot", "/", Decision{Allowed: true, Group: "*", Rule: DecisionNoRule}},
		{"PerplexityBot", "/private/x", Decision{Allowed: false, Group: "*", Line: 2, Rule: "Disallow: /private"}},
		{"PerplexityBot", "/private/open/1", Decision{Allowed: true, Group: "*", Line: 3, Rule: "Allow: /private/open"}},
		{"Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)", "/a", Decision{Allowed: false, Group: "gptbot", Line: 6, Rule: "Disallow: /"}},
		{"Claude-User", "/private", Decision{Allowed: true, Group: "claude", Line: 9, Rule: "Allow: /"}},
		{"x", "/robots.txt", Decision{Allowed: true, Rule: DecisionRobotsTxt}},
	}
	for _, tt := range tests {
		if got := r.Decide(tt.agent, tt.path); got != tt.want {
			t.Errorf("Decide(%q, %q) = %+v, want %+v", tt.agent, tt.path, got, tt.want)
		}
		if got := r.Allowed(tt.agent, tt.path); got != tt.want.Allowed {
			t.Errorf("Allowed(%q, %q) = %v, Decide says %v", tt.agent, tt.path, got, tt.want.Allowed)
		}
	}
	if got := Parse([]byte("User-agent: Googlebot\nDisallow: /\n")).Decide("GPTBot", "/"); got != (Decision{Allowed: true, Rule: DecisionNoGroup}) {
		t.Errorf("no group: %+v", got)
	}
	if got := FromStatus(503, nil).Decide("GPTBot", "/"); got != (Decision{Rule: DecisionUnreachable}) {
		t.Errorf("5xx: %+v", got)
	}
	if got := FromStatus(404, nil).Decide("GPTBot", "/"); got != (Decision{Allowed: true, Rule: DecisionNoFile}) {
		t.Errorf("404: %+v", got)
	}
}
