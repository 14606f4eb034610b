package seo

import (
	"context"
	"errors"
	"net/url"
	"reflect"
	"testing"
	"time"
)

func TestParseLocale(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in, want string
		ok       bool
	}{
		{"en-US", "en-US", true},
		{"de_de", "de-DE", true},
		{" pt-BR ", "pt-BR", true},
		{"EN-gb", "en-GB", true},
		{"en", "", false},
		{"english", "", false},
		{"en-USA", "", false},
		{"xx-US", "", false},
		{"en-XX", "", false},
		{"e1-US", "", false},
		{"", "", false},
		{"en-001", "", false},
	} {
		t.Run(tt.in, func(t *testing.T) {
			l, err := ParseLocale(tt.in)
			if tt.ok {
				if err != nil || l.String() != tt.want {
					t.Fatalf("ParseLocale(%q) = %v, %v; want %s", tt.in, l, err, tt.want)
				}
				return
			}
			ie, isInput := AsInputError(err)
			if !isInput || ie.Field != "locale" || !errors.Is(err, ErrInvalidInput) {
				t.Fatalf("ParseLocale(%q) error = %v; want InputError for locale", tt.in, err)
			}
		})
	}
}

func TestParseURL(t *testing.T) {
	t.Parallel()
	long := "https://example.com/" + string(make([]byte, 0))
	for len(long) <= MaxURLLength {
		long += "a"
	}
	for _, tt := range []struct {
		name, in, want string
	}{
		{"plain", "https://Example.COM/a?b=c", "https://example.com/a?b=c"},
		{"idn", "https://Bücher.example/x", "https://xn--bcher-kva.example/x"},
		{"port", "http://example.com:8080/", "http://example.com:8080/"},
		{"ipv6", "http://[::1]:8080/", "http://[::1]:8080/"},
		{"default port", "http://[::1]:80/", "http://[::1]/"},
		{"ipv4 number", "http://0x7f.1/", "http://127.0.0.1/"},
		{"space in query", "https://example.com/s?q=blue shoes", "https://example.com/s?q=blue%20shoes"},
		{"lone percent", "https://example.com/100%", "https://example.com/100%"},
		{"relative", "/path", ""},
		{"no host", "http:///path", ""},
		{"ftp", "ftp://example.com/", ""},
		{"javascript", "javascript:alert(1)", ""},
		{"userinfo", "https://user:pass@example.com/", ""},
		{"too long", long, ""},
		{"empty", "", ""},
		{"bad port", "http://example.com:99999/", ""},
		{"space host", "http://exa mple.com/", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			u, err := ParseURL(tt.in)
			if tt.want == "" {
				ie, ok := AsInputError(err)
				if !ok || ie.Field != "url" {
					t.Fatalf("ParseURL(%q) = %v, %v; want InputError for url", tt.in, u, err)
				}
				return
			}
			if err != nil || u.String() != tt.want {
				t.Fatalf("ParseURL(%q) = %v, %v; want %s", tt.in, u, err, tt.want)
			}
		})
	}
}

func TestParseDomain(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"example.com", "https://example.com/"},
		{"Shop.Example.co.uk:8443", "https://shop.example.co.uk:8443/"},
		{"http://example.com", "http://example.com/"},
		{"https://example.com/blog/", "https://example.com/blog/"},
		{"localhost:8080", "https://localhost:8080/"},
		{"example.com/path", ""},
		{"example", ""},
		{"", ""},
		{"user@example.com", ""},
		{"ftp://example.com", ""},
	} {
		t.Run(tt.in, func(t *testing.T) {
			u, err := ParseDomain(tt.in)
			if tt.want == "" {
				if ie, ok := AsInputError(err); !ok || ie.Field != "domain" {
					t.Fatalf("ParseDomain(%q) = %v, %v; want InputError for domain", tt.in, u, err)
				}
				return
			}
			if err != nil || u.String() != tt.want {
				t.Fatalf("ParseDomain(%q) = %v, %v; want %s", tt.in, u, err, tt.want)
			}
		})
	}
}

func TestRegistrableDomain(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ host, want string }{
		{"www.example.com", "example.com"},
		{"a.b.example.co.uk", "example.co.uk"},
		{"example.com:8080", "example.com"},
		{"foo.github.io", "foo.github.io"},
		{"127.0.0.1", "127.0.0.1"},
		{"[::1]:80", "::1"},
		{"localhost", "localhost"},
		{"co.uk", "co.uk"},
	} {
		if got := RegistrableDomain(tt.host); got != tt.want {
			t.Errorf("RegistrableDomain(%q) = %q; want %q", tt.host, got, tt.want)
		}
	}
}

func TestHostInScope(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		host, root string
		subdomains bool
		want       bool
	}{
		{"example.com", "example.com", false, true},
		{"www.example.com", "example.com", false, true},
		{"example.com", "www.example.com", false, true},
		{"blog.example.com", "example.com", false, false},
		{"blog.example.com", "example.com", true, true},
		{"notexample.com", "example.com", true, false},
		{"example.com.evil.net", "example.com", true, false},
		{"bob.github.io", "alice.github.io", true, false},
		{"EXAMPLE.com:443", "example.com", false, true},
	} {
		if got := HostInScope(tt.host, tt.root, tt.subdomains); got != tt.want {
			t.Errorf("HostInScope(%q, %q, %v) = %v; want %v", tt.host, tt.root, tt.subdomains, got, tt.want)
		}
	}
}

func TestNormalizeURL(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in, want string
		opts     *NormalizeOptions
	}{
		{"HTTP://Example.COM:80/a/./b/../c#frag", "http://example.com/a/c", nil},
		{"https://example.com:443", "https://example.com/", nil},
		{"https://example.com:8443/x/", "https://example.com:8443/x/", nil},
		{"https://example.com/a/b/..", "https://example.com/a/", nil},
		{"https://example.com/?b=2&a=1", "https://example.com/?b=2&a=1", nil},
		{"https://example.com/?b=2&a=1&a=0", "https://example.com/?a=1&a=0&b=2", &NormalizeOptions{SortQuery: true}},
		{"https://example.com/?utm_source=x&id=3&gclid=9", "https://example.com/?id=3", &NormalizeOptions{StripParams: TrackingParams}},
		{"https://example.com/?utm_source=x", "https://example.com/", &NormalizeOptions{StripParams: TrackingParams}},
		{"https://example.com/%7euser", "https://example.com/~user", nil},
		{"https://example.com/a%2Fb", "https://example.com/a%2Fb", nil},
		{"https://example.com/caf%C3%A9", "https://example.com/caf%C3%A9", nil},
	} {
		u, err := url.Parse(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := NormalizeURL(u, tt.opts).String(); got != tt.want {
			t.Errorf("NormalizeURL(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func TestScores(t *testing.T) {
	t.Parallel()
	f := func(id string, s Severity) Finding { return Finding{ID: id, Severity: s} }
	page := PageScore([]Finding{
		f("title.missing", Error),
		f("images.alt_missing", Warning), f("images.alt_missing", Warning), f("images.alt_missing", Warning),
		f("url.underscore", Notice),
	})
	if page.Value != 100-10-4-1 || page.Counts != (Counts{Errors: 1, Warnings: 1, Notices: 1}) {
		t.Errorf("PageScore = %+v; want 85 with one of each", page)
	}
	var many []Finding
	for i := range 20 {
		many = append(many, f(string(rune('a'+i))+".x", Error))
	}
	if got := PageScore(many).Value; got != 0 {
		t.Errorf("PageScore of 20 errors = %d; want 0 (floored)", got)
	}
	site := SiteScore([]int{90, 81}, []Finding{f("site.orphan", Warning)})
	if site.Value != 86-4 {
		t.Errorf("SiteScore = %d; want 82 (mean 85.5 rounds to 86, minus 4)", site.Value)
	}
	if got := SiteScore(nil, nil).Value; got != 100 {
		t.Errorf("SiteScore of nothing = %d; want 100", got)
	}
}

func TestSeverityText(t *testing.T) {
	t.Parallel()
	for _, s := range []Severity{Notice, Warning, Error} {
		b, err := s.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Severity
		if err := back.UnmarshalText(b); err != nil || back != s {
			t.Errorf("round trip of %v gave %v, %v", s, back, err)
		}
	}
	if _, err := Severity(0).MarshalText(); err == nil {
		t.Error("zero severity marshalled without error")
	}
	if _, err := ParseSeverity("fatal"); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("ParseSeverity(fatal) = %v; want ErrInvalidInput", err)
	}
}

func TestInputError(t *testing.T) {
	t.Parallel()
	err := error(&InputError{Field: "url", Value: "x", Reason: "is bad", Err: ErrForbiddenAddress})
	if !errors.Is(err, ErrInvalidInput) || !errors.Is(err, ErrForbiddenAddress) {
		t.Fatal("InputError does not wrap both sentinels")
	}
	if got := err.Error(); got != `seo: invalid url: is bad (got "x")` {
		t.Errorf("Error() = %q", got)
	}
	if ie, _ := AsInputError(err); ie.WithField("callbackUrl").Field != "callbackUrl" || ie.Field != "url" {
		t.Error("WithField changed the original or did not rename")
	}
}
func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name string
		in   string
		want time.Duration
		ok   bool
	}{
		{"seconds", "30", 30 * time.Second, true},
		{"http date", "Fri, 02 Jan 2026 03:05:05 GMT", time.Minute, true},
		{"past date", "Fri, 02 Jan 2026 03:00:00 GMT", 0, true},
		{"empty", "", 0, false},
		{"negative", "-5", 0, false},
		{"garbage", "soon", 0, false},
		{"huge", "99999999999999999", 366 * 24 * time.Hour, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ParseRetryAfter(tt.in, now)
			if got != tt.want || ok != tt.ok {
				t.Errorf("ParseRetryAfter(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestTruncatedNote(t *testing.T) {
	t.Parallel()
	var tr Truncated
	tr.Note("links", 10, 10)
	if tr != nil {
		t.Fatalf("complete list noted: %v", tr)
	}
	tr.Note("links", 1000, 100)
	if got := tr["links"]; got != (Truncation{Total: 1000, Omitted: 900}) {
		t.Fatalf("links = %+v", got)
	}
}

func TestTruncatedCuts(t *testing.T) {
	t.Parallel()
	var tr Truncated
	if got := tr.Cuts(); len(got) != 0 {
		t.Fatalf("nil Truncated: %v", got)
	}
	tr.Note("links", 10, 4)
	tr.Note("findings", 7, 2)
	tr.Note("images", 3, 3) // not cut
	want := []Cut{{Name: "findings", Shown: 2, Total: 7}, {Name: "links", Shown: 4, Total: 10}}
	if got := tr.Cuts(); !reflect.DeepEqual(got, want) {
		t.Errorf("Cuts() = %v, want %v", got, want)
	}
}

func TestSleep(t *testing.T) {
	if err := Sleep(context.Background(), time.Millisecond); err != nil {
		t.Errorf("Sleep of 1 ms: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if err := Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) || time.Since(start) > 10*time.Second {
		t.Errorf("Sleep of an hour with a canceled context: %v after %v", err, time.Since(start))
	}
}
