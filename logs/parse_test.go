package logs

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/seo"
)

func TestParsers(t *testing.T) {
	ts := time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC)
	googleUA := "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
	cases := []struct {
		name   string
		p      func() (Parser, error)
		lines  []string // all but the last prepare the parser (W3C directives)
		want   Entry
		reason string // the malformed reason, when the last line is malformed
	}{
		{name: "combined", p: nginx(CombinedFormat),
			lines: []string{`66.249.66.1 - - [01/Nov/2026:09:00:00 +0100] "GET /a?b=c HTTP/1.1" 200 512 "https://ref.example/" "` + googleUA + `"`},
			want:  Entry{Time: ts, IP: ip("66.249.66.1"), Method: "GET", Target: "/a?b=c", Status: 200, Bytes: 512, Referer: "https://ref.example/", UserAgent: googleUA, Duration: -1}},
		{name: "combined with escaped quotes", p: nginx(CombinedFormat),
			lines: []string{`192.0.2.1 - - [01/Nov/2026:08:00:00 +0000] "GET / HTTP/1.1" 200 - "-" "say \"hi\" bot"`},
			want:  Entry{Time: ts, IP: ip("192.0.2.1"), Method: "GET", Target: "/", Status: 200, UserAgent: `say \"hi\" bot`, Duration: -1}},
		{name: "common", p: nginx(CommonFormat),
			lines: []string{`2001:db8::1 - frank [01/Nov/2026:08:00:00 +0000] "POST /form HTTP/1.0" 302 0`},
			want:  Entry{Time: ts, IP: ip("2001:db8::1"), Method: "POST", Target: "/form", Status: 302, Duration: -1}},
		{name: "vhost combined", p: nginx(VhostCombinedFormat),
			lines: []string{`www.example.com:443 192.0.2.1 - - [01/Nov/2026:08:00:00 +0000] "GET / HTTP/2.0" 200 10 "-" "ua"`},
			want:  Entry{Time: ts, Host: "www.example.com", IP: ip("192.0.2.1"), Method: "GET", Target: "/", Status: 200, Bytes: 10, UserAgent: "ua", Duration: -1}},
		{name: "nginx custom with ISO time and request time", p: nginx(`$host $remote_addr [$time_iso8601] "$request_method $request_uri" $status $bytes_sent $request_time "$http_user_agent"`),
			lines: []string{`shop.example 192.0.2.1 [2026-11-01T08:00:00+00:00] "GET /p/1" 404 99 0.250 "ua"`},
			want:  Entry{Time: ts, Host: "shop.example", IP: ip("192.0.2.1"), Method: "GET", Target: "/p/1", Status: 404, Bytes: 99, UserAgent: "ua", Duration: 250 * time.Millisecond}},
		{name: "nginx msec epoch", p: nginx(`$msec $remote_addr "$request" $status`),
			lines: []string{`1793520000.125 192.0.2.1 "GET / HTTP/1.1" 200`},
			want:  Entry{Time: ts.Add(125 * time.Millisecond), IP: ip("192.0.2.1"), Method: "GET", Target: "/", Status: 200, Duration: -1}},
		{name: "apache LogFormat with %D", p: nginx(`%v %h %l %u %t \"%r\" %>s %b \"%{Referer}i\" \"%{User-Agent}i\" %D`),
			lines: []string{`www.example.com 192.0.2.1 - - [01/Nov/2026:08:00:00 +0000] "GET / HTTP/1.1" 200 10 "-" "ua" 1500`},
			want:  Entry{Time: ts, Host: "www.example.com", IP: ip("192.0.2.1"), Method: "GET", Target: "/", Status: 200, Bytes: 10, UserAgent: "ua", Duration: 1500 * time.Microsecond}},
		{name: "w3c iis", p: w3c,
			lines: []string{"#Software: Microsoft Internet Information Services 10.0", "#Fields: date time s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip cs(User-Agent) cs(Referer) sc-status sc-substatus sc-win32-status time-taken",
				"2026-11-01 08:00:00 10.0.0.1 GET /a b=c 443 - 192.0.2.1 Mozilla/5.0+(compatible;+bingbot/2.0) - 200 0 0 15"},
			want: Entry{Time: ts, IP: ip("192.0.2.1"), Method: "GET", Target: "/a?b=c", Status: 200, UserAgent: "Mozilla/5.0 (compatible; bingbot/2.0)", Duration: 15 * time.Millisecond}},
		{name: "w3c cloudfront (tabs, seconds, percent-encoded)", p: w3c,
			lines: []string{"#Version: 1.0", "#Fields: date time x-edge-location sc-bytes c-ip cs-method cs(Host) cs-uri-stem sc-status cs(Referer) cs(User-Agent) cs-uri-query time-taken",
				"2026-11-01\t08:00:00\tFRA56-C1\t2048\t192.0.2.1\tGET\td111.cloudfront.net\t/index.html\t200\t-\tMozilla/5.0%20(compatible;%20GPTBot/1.1)\t-\t0.002"},
			want: Entry{Time: ts, Host: "d111.cloudfront.net", IP: ip("192.0.2.1"), Method: "GET", Target: "/index.html", Status: 200, Bytes: 2048, UserAgent: "Mozilla/5.0 (compatible; GPTBot/1.1)", Duration: 2 * time.Millisecond}},
		{name: "cloudflare logpush (unix nanoseconds)", p: jsonP(nil),
			lines: []string{`{"ClientIP":"192.0.2.1","ClientRequestHost":"example.com","ClientRequestMethod":"GET","ClientRequestURI":"/x?y=1","ClientRequestUserAgent":"ua","EdgeResponseStatus":200,"EdgeResponseBytes":77,"EdgeStartTimestamp":1793520000000000000,"EdgeTimeToFirstByteMs":5}`},
			want:  Entry{Time: ts, Host: "example.com", IP: ip("192.0.2.1"), Method: "GET", Target: "/x?y=1", Status: 200, Bytes: 77, UserAgent: "ua", Duration: 5 * time.Millisecond}},
		{name: "generic json, epoch ms, full URL", p: jsonP(nil),
			lines: []string{`{"ts":1793520000000,"remote_addr":"192.0.2.1","method":"GET","url":"https://example.com/p?q=1","status":"301","bytes":0,"user_agent":"ua","duration":0.5}`},
			want:  Entry{Time: ts, Host: "example.com", IP: ip("192.0.2.1"), Method: "GET", Target: "/p?q=1", Status: 301, UserAgent: "ua", Duration: 500 * time.Millisecond}},
		{name: "json with a nested field map", p: jsonP(&FieldMap{Time: "t", IP: "client.ip", Target: "req.path", Status: "res.code", UserAgent: "req.headers.ua"}),
			lines: []string{`{"t":"2026-11-01T08:00:00Z","client":{"ip":"192.0.2.1"},"req":{"path":"/n","headers":{"ua":"ua"}},"res":{"code":204}}`},
			want:  Entry{Time: ts, IP: ip("192.0.2.1"), Target: "/n", Status: 204, UserAgent: "ua", Duration: -1}},

		{name: "not the format", p: nginx(CombinedFormat), lines: []string{"hello"}, reason: "line does not match the format"},
		{name: "bad status", p: nginx(CombinedFormat), lines: []string{`192.0.2.1 - - [01/Nov/2026:08:00:00 +0000] "GET / HTTP/1.1" 2000 1 "-" "ua"`}, reason: "status is not a 3-digit code"},
		{name: "bad date", p: nginx(CombinedFormat), lines: []string{`192.0.2.1 - - [41/Nov/2026:08:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "ua"`}, reason: "timestamp is not a CLF date"},
		{name: "bad address", p: nginx(CombinedFormat), lines: []string{`not-an-ip - - [01/Nov/2026:08:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "ua"`}, reason: "client address is not an IP address"},
		{name: "unterminated quote", p: nginx(CombinedFormat), lines: []string{`192.0.2.1 - - [01/Nov/2026:08:00:00 +0000] "GET / HTTP/1.1`}, reason: "unterminated quoted field $request"},
		{name: "tls handshake as request", p: nginx(CombinedFormat), lines: []string{`192.0.2.1 - - [01/Nov/2026:08:00:00 +0000] "\x16\x03\x01" 400 0 "-" "-"`}, reason: "request line is not METHOD TARGET PROTOCOL"},
		{name: "w3c before fields", p: w3c, lines: []string{"2026-11-01 08:00:00 GET /"}, reason: "W3C line before any #Fields directive"},
		{name: "w3c wrong field count", p: w3c, lines: []string{"#Fields: date time cs-uri-stem sc-status", "2026-11-01 08:00:00 /"}, reason: "W3C line has 3 fields, #Fields names 4"},
		{name: "json not an object", p: jsonP(nil), lines: []string{`[1,2]`}, reason: "JSON line is not an object"},
		{name: "json without timestamp", p: jsonP(nil), lines: []string{`{"status":200,"uri":"/"}`}, reason: "JSON line has no timestamp field"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := c.p()
			if err != nil {
				t.Fatal(err)
			}
			var e Entry
			for _, l := range c.lines[:len(c.lines)-1] {
				if ok, err := p.Parse(l, &e); ok || err != nil {
					t.Fatalf("directive %q: ok %v, err %v", l, ok, err)
				}
			}
			ok, err := p.Parse(c.lines[len(c.lines)-1], &e)
			if c.reason != "" {
				if ok || !errors.Is(err, ErrMalformed) || err.Error() != "logs: "+c.reason {
					t.Fatalf("ok %v, err %v; want malformed %q", ok, err, c.reason)
				}
				return
			}
			if !ok || err != nil {
				t.Fatalf("ok %v, err %v", ok, err)
			}
			if !e.Time.Equal(c.want.Time) {
				t.Errorf("time %v, want %v", e.Time, c.want.Time)
			}
			e.Time, c.want.Time = time.Time{}, time.Time{}
			if e != c.want {
				t.Errorf("entry\n got %+v\nwant %+v", e, c.want)
			}
		})
	}
}

func TestSniff(t *testing.T) {
	cases := map[string]Format{
		`192.0.2.1 - - [01/Nov/2026:08:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "ua"`:         FormatCombined,
		`host:80 192.0.2.1 - - [01/Nov/2026:08:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "ua"`: FormatCombined,
		`192.0.2.1 - - [01/Nov/2026:08:00:00 +0000] "GET / HTTP/1.1" 200 1`:                  FormatCommon,
		`{"time":"2026-11-01T08:00:00Z"}`:                                                    FormatJSON,
		"#Software: Microsoft Internet Information Services 10.0":                            FormatW3C,
		"random text": FormatAuto,
	}
	for line, want := range cases {
		if got, _ := Sniff([]string{line}); got != want {
			t.Errorf("Sniff(%q) = %s, want %s", line, got, want)
		}
	}
}

func TestNginxFormatErrors(t *testing.T) {
	for _, f := range []string{"no variables", "$remote_addr$status", "${remote_addr", strings.Repeat("$a ", 65)} {
		if _, err := NewNginxParser(f); err == nil {
			t.Errorf("NewNginxParser(%q) accepted", f)
		}
	}
}

func nginx(f string) func() (Parser, error) {
	return func() (Parser, error) { return NewNginxParser(f) }
}
func w3c() (Parser, error) { return NewW3CParser(), nil }
func jsonP(fm *FieldMap) func() (Parser, error) {
	return func() (Parser, error) { return NewJSONParser(fm), nil }
}
func ip(s string) netip.Addr { return netip.MustParseAddr(s) }

func TestFormatErrorsAreInputErrors(t *testing.T) {
	if _, err := NewNginxParser("no variables"); !errors.Is(err, seo.ErrInvalidInput) {
		t.Fatalf("err %v does not wrap seo.ErrInvalidInput", err)
	}
}

func TestAnalyzeRejectsBadOptions(t *testing.T) {
	cases := []struct {
		opts  Options
		field string
	}{
		{Options{Format: "csv"}, "format"},
		{Options{Format: FormatNginx}, "logFormat"},
		{Options{LogFormat: "no variables"}, "logFormat"},
	}
	for _, c := range cases {
		rep, err := Analyze(context.Background(), []Input{Reader("x", strings.NewReader(""))}, &c.opts)
		ie, ok := seo.AsInputError(err)
		if rep != nil || !ok || ie.Field != c.field || !errors.Is(err, seo.ErrInvalidInput) {
			t.Errorf("Analyze(%+v) = %v, %v; want an input error on %s", c.opts, rep, err, c.field)
		}
	}
}
