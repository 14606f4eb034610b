package seo_test

import (
	"testing"

	"github.com/seokit/seokit/seo"
)

func TestParseDomainHost(t *testing.T) {
	cases := []struct {
		in, want string // want "" for an error
	}{
		{"example.com", "example.com"},
		{" Example.COM ", "example.com"},
		{"shop.example.co.uk", "shop.example.co.uk"},
		{"localhost", "localhost"},
		{"127.0.0.1", "127.0.0.1"},
		{"https://example.com", ""},
		{"example.com:8443", ""},
		{"example.com/blog", ""},
		{"example.com?x=1", ""},
		{"example", ""},
		{"", ""},
	}
	for _, tc := range cases {
		got, err := seo.ParseDomainHost(tc.in)
		if tc.want == "" {
			if ie, ok := seo.AsInputError(err); !ok || ie.Field != "domain" {
				t.Errorf("ParseDomainHost(%q) = %q, %v; want an InputError on domain", tc.in, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseDomainHost(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}
