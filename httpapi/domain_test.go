package httpapi

import (
	"strings"
	"testing"

	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/seo"
)

// TestDomainParsers: the rankings and reports query, site analyses and
// mute lists parse domains with seo.ParseHost; the rows are the inputs on
// which their former copies differed. The query refuses a port (it used
// to drop it); all check the DNS's lengths and empty labels.
func TestDomainParsers(t *testing.T) {
	label64 := strings.Repeat("a", 64) + ".com"
	tests := []struct {
		in          string
		query, site string // host of researchDomain and of service.ParseTarget; "" for an error
		mute        string // muteDomain's project key; "" for an error
	}{
		{"www.Example.com", "www.example.com", "www.example.com", "example.com"},
		{"example.com:8443", "", "example.com:8443", "example.com:8443"},
		{"example.com:", "", "", ""},
		{"https://example.com", "", "", ""},
		{"example.com/blog", "", "", ""},
		{label64, "", "", ""},
		{"a..example.com", "", "", ""},
		{"example", "", "", ""},
		{"", "", "", ""},
	}
	check := func(t *testing.T, what, in, got string, err error, want string) {
		t.Helper()
		if want == "" {
			if ie, ok := seo.AsInputError(err); !ok || ie.Field != "domain" {
				t.Errorf("%s(%q) = %q, %v; want an input error on domain", what, in, got, err)
			}
			return
		}
		if err != nil || got != want {
			t.Errorf("%s(%q) = %q, %v; want %q", what, in, got, err, want)
		}
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := researchDomain(tc.in)
			check(t, "researchDomain", tc.in, got, err, tc.query)
			st, err := service.ParseTarget(tc.in, "")
			got = ""
			if err == nil {
				got = st.Host()
				if st.URL.String() != "https://"+st.Host()+"/" || st.Field != "domain" {
					t.Errorf("ParseTarget(%q) = %s (%s), want the https root of domain", tc.in, st.URL, st.Field)
				}
			}
			check(t, "ParseTarget", tc.in, got, err, tc.site)
			got, err = muteDomain(tc.in)
			check(t, "muteDomain", tc.in, got, err, tc.mute)
		})
	}
}

// TestQueryDomainPortRefused: a port on a rankings or reports domain is a
// 400 naming domain, not silently dropped.
func TestQueryDomainPortRefused(t *testing.T) {
	a := newTestAPI(t, nil)
	for _, path := range []string{
		"/v1/rankings?domain=example.com:8080&keywords[]=oak",
		"/v1/reports?domain=example.com:8080&start=2026-11-01&end=2026-11-02",
	} {
		e := apiErr(t, a.call("GET", path, a.key, ""), 400, CodeInvalidRequest)
		if e.Field != "domain" || !strings.Contains(e.Message, "port") {
			t.Errorf("%s: %+v, want a 400 on domain about the port", path, e)
		}
	}
}
