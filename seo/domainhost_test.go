package seo_test

import (
	"strings"
	"testing"

	"github.com/seokit/seokit/seo"
)

func TestParseHost(t *testing.T) {
	t.Parallel()
	label64 := strings.Repeat("a", 64) + ".com"
	long := strings.Repeat(strings.Repeat("a", 60)+".", 5) + "com" // 308 characters
	cases := []struct {
		in        string
		allowPort bool
		want      string // "" for an error
	}{
		{"example.com", false, "example.com"},
		{" Example.COM ", false, "example.com"},
		{"shop.example.co.uk", false, "shop.example.co.uk"},
		{"localhost", false, "localhost"},
		{"127.0.0.1", false, "127.0.0.1"},
		{"example.com.", false, "example.com"},
		{"https://example.com", false, ""},
		{"https://example.com", true, ""},
		{"example.com/blog", false, ""},
		{"example.com?x=1", false, ""},
		{"user@example.com", false, ""},
		{"example", false, ""},
		{"", false, ""},
		{"   ", true, ""},
		// Where the copies this replaces differed: a port was dropped
		// by the rankings and reports query, kept by site analyses;
		// DNS lengths and empty labels were checked by site analyses
		// only.
		{"example.com:8443", false, ""},
		{"Example.com:8443", true, "example.com:8443"},
		{"example.com:", false, ""},
		{"example.com:", true, ""},
		{"example.com:0", true, ""},
		{"[::1]:8080", true, "[::1]:8080"},
		{label64, false, ""},
		{label64, true, ""},
		{long, true, ""},
		{"a..example.com", false, ""},
		{".example.com", true, ""},
	}
	for _, tc := range cases {
		got, err := seo.ParseHost(tc.in, &seo.DomainOptions{AllowPort: tc.allowPort})
		if tc.want == "" {
			if ie, ok := seo.AsInputError(err); !ok || ie.Field != "domain" || ie.Value != tc.in {
				t.Errorf("ParseHost(%q, port %v) = %q, %v; want an InputError on domain carrying the input", tc.in, tc.allowPort, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseHost(%q, port %v) = %q, %v; want %q", tc.in, tc.allowPort, got, err, tc.want)
		}
	}
	if _, err := seo.ParseHost("example.com:8443", nil); err == nil {
		t.Error("nil options accept a port")
	}
}

func TestCheckHostName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		host string
		ok   bool
	}{
		{"example.com", true},
		{strings.Repeat("a", 63) + ".com", true},
		{strings.Repeat("a", 64) + ".com", false},
		{strings.Repeat("a.", 126) + "com", false}, // 255 characters
		{"a..com", false},
		{"::1", true},
		{"[::1]", true},
	} {
		err := seo.CheckHostName("url", tc.host)
		if ie, isInput := seo.AsInputError(err); tc.ok != (err == nil) || (!tc.ok && (!isInput || ie.Field != "url")) {
			t.Errorf("CheckHostName(%q) = %v, want ok %v", tc.host, err, tc.ok)
		}
	}
}

// A URL's host is held to the DNS's lengths as a domain's is.
func TestParseURLHostName(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 64)
	for _, tc := range []struct {
		raw string
		ok  bool
	}{
		{"http://example.com/", true},
		{"http://example.com./", true},
		{"http://" + strings.Repeat("a", 63) + ".com/", true},
		{"http://a..b/", false},
		{"http://" + long + ".com/", false},
		{"http://" + strings.Repeat("abcdefghi.", 26) + "com/", false},
		{"http://[::1]:8080/", true},
	} {
		_, err := seo.ParseURL(tc.raw)
		if ie, isInput := seo.AsInputError(err); (err == nil) != tc.ok || (err != nil && (!isInput || ie.Field != "url")) {
			t.Errorf("ParseURL(%.40q): %v, want ok=%v (an input error for url otherwise)", tc.raw, err, tc.ok)
		}
	}
}
