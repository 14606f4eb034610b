package crawler

import (
	"strings"
	"testing"
)

// TestFactsVariantProblems covers the http/https side of
// site.host_variants_not_consolidated. A crawl on loopback cannot reach it:
// the test server has an explicit port, and the prober only tries the start
// scheme on an explicit port (https and http cannot share one), while the
// default ports 80 and 443 are not available to tests.
func TestFactsVariantProblems(t *testing.T) {
	const (
		hw = "https://www.example.com/"
		hb = "https://example.com/"
		pw = "http://www.example.com/"
		pb = "http://example.com/"
	)
	ok := func(u string) variantAnswer { return variantAnswer{url: u, status: 200} }
	redir := func(u string, status int, loc string) variantAnswer {
		return variantAnswer{url: u, status: status, location: loc}
	}
	tests := []struct {
		name    string
		answers []variantAnswer
		want    []string // substrings of the problems; nil means none
	}{
		{
			name: "every variant 301s to https www",
			answers: []variantAnswer{ok(hw), redir(hb, 301, hw), redir(pw, 301, hw),
				redir(pb, 301, hw+"some/page?x=1")},
		},
		{
			name:    "308 is a permanent redirect too",
			answers: []variantAnswer{ok(hb), redir(hw, 308, hb), redir(pb, 308, hb), redir(pw, 308, hb)},
		},
		{
			name:    "target with the default port and other case",
			answers: []variantAnswer{ok(hw), redir(pw, 301, "HTTPS://WWW.Example.com:443/"), redir(hb, 301, "https://www.example.com./")},
		},
		{
			name:    "http answers 200 beside https",
			answers: []variantAnswer{ok(hw), ok(pw)},
			want:    []string{"several variants answer 200: https://www.example.com, http://www.example.com"},
		},
		{
			name:    "http redirects with 302",
			answers: []variantAnswer{ok(hw), redir(pw, 302, hw)},
			want:    []string{"http://www.example.com/ answers 302"},
		},
		{
			name:    "http bare host takes two hops",
			answers: []variantAnswer{ok(hw), redir(pb, 301, pw), redir(pw, 301, hw)},
			want:    []string{"http://example.com/ redirects to http://www.example.com/, not to https://www.example.com"},
		},
		{
			name:    "relative redirect stays on the variant",
			answers: []variantAnswer{ok(hw), redir(hb, 301, "/home")},
			want:    []string{"https://example.com/ redirects to /home"},
		},
		{
			name:    "redirect without Location",
			answers: []variantAnswer{ok(hw), redir(hb, 301, "")},
			want:    []string{"https://example.com/ redirects to , not to https://www.example.com"},
		},
		{
			name:    "variant answers 404",
			answers: []variantAnswer{ok(hw), {url: hb, status: 404}},
			want:    []string{"https://example.com/ answers 404"},
		},
		{
			name:    "no variant answers 200",
			answers: []variantAnswer{redir(hw, 301, hb), redir(hb, 301, hw)},
			want:    []string{"no variant answers 200"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := variantProblems(tc.answers)
			if len(got) != len(tc.want) {
				t.Fatalf("problems %q, want %d matching %q", got, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d = %q, want it to contain %q", i, got[i], w)
				}
			}
		})
	}
}

func TestFactsOrigin(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "https://example.com/a?b", "https://example.com"},
		{"case", "HTTP://WWW.Example.COM/", "http://www.example.com"},
		{"default https port", "https://example.com:443/", "https://example.com"},
		{"default http port", "http://example.com:80/", "http://example.com"},
		{"other port", "https://example.com:8443/", "https://example.com:8443"},
		{"https on port 80", "https://example.com:80/", "https://example.com:80"},
		{"trailing dot", "https://example.com./", "https://example.com"},
		{"ipv6 default port", "http://[::1]:80/", "http://[::1]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := origin(tc.in); got != tc.want {
				t.Errorf("origin(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
