package seo_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/seokit/seokit/seo"
)

func TestResolveUserAgent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, uaPart, token, errField string
	}{
		{"", "seokit", "seokit", ""},
		{"seokit", "seokit", "seokit", ""},
		{"googlebot-smartphone", "Mobile Safari/537.36 (compatible; Googlebot/2.1", "Googlebot", ""},
		{"Googlebot-Desktop", "compatible; Googlebot/2.1", "Googlebot", ""},
		{"bingbot", "bingbot/2.0", "bingbot", ""},
		{"MyBot/1.0", "MyBot/1.0", "seokit", ""},
		{"bad\nagent", "", "", "userAgent"},
		{strings.Repeat("a", seo.MaxUserAgentLength+1), "", "", "userAgent"},
	}
	for _, tt := range tests {
		ua, token, err := seo.ResolveUserAgent(tt.in)
		if tt.errField != "" {
			if ie, ok := seo.AsInputError(err); !ok || ie.Field != tt.errField {
				t.Errorf("ResolveUserAgent(%.20q) err = %v, want field %s", tt.in, err, tt.errField)
			}
			continue
		}
		if err != nil || !strings.Contains(ua, tt.uaPart) || token != tt.token {
			t.Errorf("ResolveUserAgent(%q) = %q, %q, %v", tt.in, ua, token, err)
		}
	}
}

func TestValidateRequestHeader(t *testing.T) {
	t.Parallel()
	big := http.Header{}
	for i := range seo.MaxRequestHeaders + 1 {
		big.Set("X-H"+strings.Repeat("a", i), "v")
	}
	tests := []struct {
		h     http.Header
		field string
	}{
		{http.Header{"X-Staging": {"1"}, "Authorization": {"Bearer x"}}, ""},
		{http.Header{"Host": {"a"}}, "header.Host"},
		{http.Header{"Content-Length": {"1"}}, "header.Content-Length"},
		{http.Header{"Transfer-Encoding": {"chunked"}}, "header.Transfer-Encoding"},
		{http.Header{"Connection": {"close"}}, "header.Connection"},
		{http.Header{"User-Agent": {"x"}}, "header.User-Agent"},
		{http.Header{"Bad Name": {"x"}}, "header.Bad Name"},
		{http.Header{"X-A": {"a\r\nb"}}, "header.X-A"},
		{http.Header{"X-A": {strings.Repeat("a", seo.MaxRequestHeaderBytes)}}, "header.X-A"},
		{big, "header"},
	}
	for _, tt := range tests {
		err := seo.ValidateRequestHeader("header", tt.h)
		if tt.field == "" {
			if err != nil {
				t.Errorf("%v: %v", tt.h, err)
			}
			continue
		}
		if ie, ok := seo.AsInputError(err); !ok || ie.Field != tt.field {
			t.Errorf("err = %v, want field %s", err, tt.field)
		}
	}
}

func TestRedactHeader(t *testing.T) {
	t.Parallel()
	h := http.Header{"Authorization": {"Basic x"}, "X-Api-Key": {"k"}, "Cookie": {"a=b"}, "X-Auth-Token": {"t"}, "X-Staging": {"1"}}
	r := seo.RedactHeader(h)
	for k := range h {
		want := seo.Redacted
		if k == "X-Staging" {
			want = "1"
		}
		if r.Get(k) != want {
			t.Errorf("%s = %q, want %q", k, r.Get(k), want)
		}
	}
	if h.Get("X-Api-Key") != "k" {
		t.Error("RedactHeader changed its argument")
	}
	if seo.RedactHeader(nil) != nil {
		t.Error("RedactHeader(nil) != nil")
	}
}
