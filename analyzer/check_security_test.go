package analyzer

import (
	"context"
	"crypto/tls"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/seo"
)

func TestSecurityHeaderChecks(t *testing.T) {
	t.Parallel()
	doc := `<!DOCTYPE html><html lang="en"><head><title>x</title></head><body><p>text</p></body></html>`
	good := func(extra ...string) http.Header {
		h := httpTestHeader("Content-Type", "text/html",
			"Strict-Transport-Security", "max-age=63072000; includeSubDomains; preload",
			"Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'",
			"X-Content-Type-Options", "nosniff",
			"Referrer-Policy", "strict-origin-when-cross-origin")
		for i := 0; i+1 < len(extra); i += 2 {
			if extra[i+1] == "" {
				h.Del(extra[i])
			} else {
				h.Set(extra[i], extra[i+1])
			}
		}
		return h
	}
	headerIDs := []string{"security.http_page", "security.hsts_missing", "security.hsts_short", "security.csp_missing",
		"security.nosniff_missing", "security.frame_protection_missing", "security.referrer_policy_missing"}
	tests := []struct {
		name   string
		url    string
		doc    string
		header http.Header
		want   []string
		absent []string
	}{
		{name: "all headers", header: good(), absent: headerIDs},
		{name: "no headers", header: httpTestHeader("Content-Type", "text/html"),
			want:   []string{"security.hsts_missing", "security.csp_missing", "security.nosniff_missing", "security.frame_protection_missing", "security.referrer_policy_missing"},
			absent: []string{"security.http_page", "security.hsts_short"}},
		{name: "http page", url: "http://example.com/page", header: httpTestHeader("Content-Type", "text/html"),
			want: []string{"security.http_page"}, absent: []string{"security.hsts_missing", "security.hsts_short"}},
		{name: "hsts short", header: good("Strict-Transport-Security", "max-age=86400"), want: []string{"security.hsts_short"}, absent: []string{"security.hsts_missing"}},
		{name: "hsts max-age not first", header: good("Strict-Transport-Security", "includeSubDomains; MAX-AGE=\"600\""), want: []string{"security.hsts_short"}},
		{name: "hsts max-age not first and long", header: good("Strict-Transport-Security", "preload ; max-age=31536000"), absent: []string{"security.hsts_short", "security.hsts_missing"}},
		{name: "hsts invalid", header: good("Strict-Transport-Security", "max-age=forever"), want: []string{"security.hsts_missing"}, absent: []string{"security.hsts_short"}},
		{name: "csp in meta", header: good("Content-Security-Policy", "", "X-Frame-Options", "DENY"),
			doc:    `<html><head><meta http-equiv="Content-Security-Policy" content="default-src 'self'"></head><body>x</body></html>`,
			absent: []string{"security.csp_missing", "security.frame_protection_missing"}},
		{name: "csp removed", header: good("Content-Security-Policy", ""), want: []string{"security.csp_missing", "security.frame_protection_missing"}},
		{name: "x-frame-options only", header: good("Content-Security-Policy", "default-src 'self'", "X-Frame-Options", "SAMEORIGIN"),
			absent: []string{"security.frame_protection_missing"}},
		{name: "nosniff wrong value", header: good("X-Content-Type-Options", "sniff"), want: []string{"security.nosniff_missing"}},
		{name: "referrer unsafe", header: good("Referrer-Policy", "unsafe-url"), want: []string{"security.referrer_policy_missing"}},
		{name: "referrer downgrade", header: good("Referrer-Policy", "no-referrer-when-downgrade"), want: []string{"security.referrer_policy_missing"}},
		{name: "referrer fallback list", header: good("Referrer-Policy", "unsafe-url, strict-origin-when-cross-origin"), absent: []string{"security.referrer_policy_missing"}},
		{name: "referrer meta", header: good("Referrer-Policy", ""),
			doc: `<html><head><meta name="referrer" content="origin"></head><body>x</body></html>`, absent: []string{"security.referrer_policy_missing"}},
		{name: "image without headers", url: "https://example.com/a.png", doc: "\x89PNG\r\n\x1a\n", header: httpTestHeader("Content-Type", "image/png"),
			want: []string{"security.hsts_missing", "security.nosniff_missing"}, absent: []string{"security.mixed_content_active"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.doc
			if d == "" {
				d = doc
			}
			resp := seo.Response{URL: tc.url, Header: tc.header}
			rep := httpAnalyzeResponse(t, &resp, d, nil)
			assertIDs(t, rep, tc.want, tc.absent)
		})
	}
}

func TestSecurityTLSFacts(t *testing.T) {
	t.Parallel()
	now := time.Date(2027, 3, 1, 12, 0, 0, 0, time.UTC)
	tlsIDs := []string{"security.tls_expired", "security.tls_expiring", "security.tls_hostname_mismatch", "security.tls_untrusted"}
	base := func() *seo.TLSInfo {
		return &seo.TLSInfo{Version: "TLS 1.3", Subject: "CN=example.com", Issuer: "CN=Test CA", DNSNames: []string{"example.com"},
			NotBefore: now.AddDate(0, -2, 0), NotAfter: now.AddDate(0, 2, 0), Verified: true}
	}
	tests := []struct {
		name   string
		mod    func(*seo.TLSInfo)
		want   []string
		absent []string
	}{
		{name: "valid", mod: func(*seo.TLSInfo) {}, absent: tlsIDs},
		{name: "expired flag", mod: func(c *seo.TLSInfo) { c.Expired = true }, want: []string{"security.tls_expired"}, absent: []string{"security.tls_expiring"}},
		{name: "expired by date", mod: func(c *seo.TLSInfo) { c.NotAfter = now.Add(-time.Hour) }, want: []string{"security.tls_expired"}},
		{name: "not yet valid", mod: func(c *seo.TLSInfo) { c.NotBefore = now.Add(time.Hour) }, want: []string{"security.tls_expired"}},
		{name: "expiring", mod: func(c *seo.TLSInfo) { c.NotAfter = now.Add(5 * 24 * time.Hour) }, want: []string{"security.tls_expiring"}, absent: []string{"security.tls_expired"}},
		{name: "expiring in 15 days", mod: func(c *seo.TLSInfo) { c.NotAfter = now.Add(15 * 24 * time.Hour) }, absent: []string{"security.tls_expiring"}},
		{name: "hostname mismatch", mod: func(c *seo.TLSInfo) { c.HostnameMismatch, c.DNSNames = true, []string{"other.test"} }, want: []string{"security.tls_hostname_mismatch"}},
		{name: "untrusted", mod: func(c *seo.TLSInfo) {
			c.Untrusted, c.VerifyError = true, "x509: certificate signed by unknown authority"
		}, want: []string{"security.tls_untrusted"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			info := base()
			tc.mod(info)
			resp := seo.Response{TLS: info}
			rep := httpAnalyzeResponse(t, &resp, "http/plain.html", &Options{Depth: Standard, Now: func() time.Time { return now }})
			assertIDs(t, rep, tc.want, tc.absent)
		})
	}
	// Page data.
	info := base()
	resp := seo.Response{TLS: info, Header: httpTestHeader("Content-Type", "text/html", "Strict-Transport-Security", "max-age=10",
		"Content-Security-Policy", "default-src 'self'", "X-Content-Type-Options", "nosniff", "X-Frame-Options", "DENY", "Referrer-Policy", "no-referrer")}
	resp.Header.Add("Content-Security-Policy", "img-src *")
	rep := httpAnalyzeResponse(t, &resp, "http/plain.html", &Options{Now: func() time.Time { return now }})
	s := rep.Security
	if s.HSTS != "max-age=10" || s.CSP != "default-src 'self', img-src *" || s.ContentTypeOptions != "nosniff" ||
		s.FrameOptions != "DENY" || s.ReferrerPolicy != "no-referrer" || s.TLSVersion != "TLS 1.3" ||
		s.CertificateNotAfter == nil || !s.CertificateNotAfter.Equal(info.NotAfter) {
		t.Errorf("Security = %+v", s)
	}
	if f := finding(rep, "security.hsts_short"); f == nil || *f.Evidence.Measured != 10 || *f.Evidence.Threshold != 31536000 {
		t.Errorf("hsts_short evidence: %+v", f)
	}
	// Non-HTML documents get the security page data too.
	resp = seo.Response{URL: "https://example.com/a.pdf", TLS: base(), Header: httpTestHeader("Content-Type", "application/pdf", "X-Frame-Options", "DENY")}
	rep = httpAnalyzeResponse(t, &resp, "%PDF-1.4\n", nil)
	if rep.Security.FrameOptions != "DENY" || rep.Security.TLSVersion != "TLS 1.3" {
		t.Errorf("non-HTML Security = %+v", rep.Security)
	}
}

func TestSecurityContentChecks(t *testing.T) {
	t.Parallel()
	rep := analyzeFixture(t, "security/mixed.html", "", nil, nil)
	assertIDs(t, rep, []string{"security.mixed_content_active", "security.mixed_content_passive", "security.form_insecure_action", "security.protocol_relative"},
		[]string{"security.form_on_http", "security.http_page"})
	count := map[string]int{}
	for _, f := range rep.Findings {
		count[f.ID] += f.Count
	}
	// script, stylesheet, font preload, iframe; image, video; form action, formaction; script and link.
	if count["security.mixed_content_active"] != 4 || count["security.mixed_content_passive"] != 2 ||
		count["security.form_insecure_action"] != 2 || count["security.protocol_relative"] != 2 {
		t.Errorf("finding counts = %v", count)
	}
	if f := finding(rep, "security.mixed_content_active"); f == nil || f.Evidence.URLs[0] != "http://cdn.example.net/app.js" || !strings.HasPrefix(f.Evidence.Element, "<script") {
		t.Errorf("mixed active evidence: %+v", f)
	}

	// Mixed Content Level 2 upgrades images, audio and video only: an
	// <object>, an <embed> and a <track> over http are blocked.
	rep = analyzeFixture(t, "security/mixed_media.html", "", nil, nil)
	active, passive := finding(rep, "security.mixed_content_active"), finding(rep, "security.mixed_content_passive")
	if active == nil || active.Occurrences() != 3 || active.Evidence.URLs[0] != "http://cdn.example.net/player.swf" ||
		active.Message != "the https page loads a plugin resource (<object>) over http, which browsers block" {
		t.Errorf("mixed active = %+v, want the object, the embed and the track", active)
	}
	if passive == nil || passive.Occurrences() != 2 || passive.Message != "the https page loads audio or video over http" {
		t.Errorf("mixed passive = %+v, want the video source and the audio", passive)
	}

	// Every srcset candidate of an <img> or a <picture>'s <source> may be
	// the one fetched.
	rep = analyzeFixture(t, "security/mixed_srcset.html", "", nil, nil)
	if f := finding(rep, "security.mixed_content_passive"); f == nil || f.Occurrences() != 2 || f.Evidence.URLs[0] != "http://img.example.net/harbour@2x.jpg" {
		t.Errorf("mixed passive from srcset = %+v, want the 2x candidate and the webp source", f)
	}

	// The browser fetches icons as images: upgradeable, so passive.
	rep = analyzeFixture(t, "security/mixed_icon.html", "", nil, nil)
	assertIDs(t, rep, []string{"security.mixed_content_passive"}, []string{"security.mixed_content_active"})
	if f := finding(rep, "security.mixed_content_passive"); f == nil || f.Occurrences() != 3 || f.Evidence.URLs[0] != "http://static.example.net/favicon.ico" ||
		f.Message != "the https page loads an icon over http" {
		t.Errorf("mixed passive from icons = %+v, want the icon, the shortcut icon and the apple-touch-icon", f)
	}

	// upgrade-insecure-requests in a meta CSP upgrades the requests after
	// it; in the header, every request.
	rep = analyzeFixture(t, "security/mixed_upgraded.html", "", nil, nil)
	assertIDs(t, rep, []string{"security.mixed_content_active"}, []string{"security.mixed_content_passive"})
	if f := finding(rep, "security.mixed_content_active"); f == nil || f.Occurrences() != 1 || f.Evidence.URLs[0] != "http://cdn.example.net/early.js" {
		t.Errorf("mixed active under a meta upgrade-insecure-requests = %+v, want the script before the meta alone", f)
	}
	uir := http.Header{"Content-Type": {"text/html; charset=utf-8"}, "Content-Security-Policy": {"default-src https:; upgrade-insecure-requests"}}
	rep = analyzeFixture(t, "security/mixed.html", "", uir, nil)
	assertIDs(t, rep, nil, []string{"security.mixed_content_active", "security.mixed_content_passive"})

	// upgrade-insecure-requests upgrades every form submission, same-origin
	// or not; on an http page too.
	rep = analyzeFixture(t, "security/form_upgraded.html", "", nil, nil)
	assertIDs(t, rep, nil, []string{"security.form_insecure_action"})
	rep = analyzeFixture(t, "security/mixed.html", "http://example.com/page", uir, nil)
	assertIDs(t, rep, []string{"security.form_on_http"}, []string{"security.form_insecure_action"})

	rep = analyzeFixture(t, "security/clean.html", "", nil, nil)
	assertIDs(t, rep, nil, []string{"security.mixed_content_active", "security.mixed_content_passive", "security.form_insecure_action",
		"security.protocol_relative", "security.form_on_http", "security.csp_missing"})

	// The same mixed page served over http has no mixed content, but its forms are on http.
	rep = analyzeFixture(t, "security/mixed.html", "http://example.com/page", nil, nil)
	assertIDs(t, rep, []string{"security.form_on_http", "security.form_insecure_action", "security.http_page"},
		[]string{"security.mixed_content_active", "security.mixed_content_passive"})

	rep = analyzeFixture(t, "security/login.html", "http://example.com/login", nil, nil)
	assertIDs(t, rep, []string{"security.form_on_http"}, []string{"security.form_insecure_action"})
	if f := finding(rep, "security.form_on_http"); !strings.Contains(f.Evidence.Detail, "password") || f.Severity != seo.Warning {
		t.Errorf("form_on_http evidence: %+v", f)
	}
	rep = analyzeFixture(t, "security/login.html", "https://example.com/login", nil, nil)
	assertIDs(t, rep, nil, []string{"security.form_on_http", "security.form_insecure_action"})
}

// secTestFetcher fetches through an http.Client, routing https://site.test
// to a TLS test server and http://site.test to a plain one. With probe set
// it also implements tlsProber by dialling the TLS server.
type secTestFetcher struct {
	client       *http.Client
	https, plain *httptest.Server
	mu           sync.Mutex
	fetched      []string
}

func (f *secTestFetcher) Fetch(ctx context.Context, req *seo.Request) (*seo.Response, error) {
	u, err := url.Parse(req.URL)
	if err != nil {
		return nil, err
	}
	target := f.plain
	if u.Scheme == "https" {
		target = f.https
	}
	f.mu.Lock()
	f.fetched = append(f.fetched, req.URL)
	f.mu.Unlock()
	real := target.URL + u.RequestURI()
	hreq, err := http.NewRequestWithContext(ctx, http.MethodGet, real, nil)
	if err != nil {
		return nil, err
	}
	client := *f.client
	if req.NoFollow {
		client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	}
	res, err := client.Do(hreq)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	return &seo.Response{RequestedURL: req.URL, URL: req.URL, Status: res.StatusCode, Header: res.Header, Body: body,
		BodyBytes: int64(len(body)), ContentType: res.Header.Get("Content-Type")}, nil
}

// secProbingFetcher adds ProbeTLS to secTestFetcher.
type secProbingFetcher struct{ *secTestFetcher }

func (f secProbingFetcher) ProbeTLS(ctx context.Context, hostport string, maxVersion uint16) (bool, error) {
	if hostport != "site.test:443" {
		return false, nil
	}
	d := tls.Dialer{NetDialer: &net.Dialer{}, Config: &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS10, MaxVersion: maxVersion}}
	conn, err := d.DialContext(ctx, "tcp", f.https.Listener.Addr().String())
	if err != nil {
		return false, nil // handshake refused: not an error of the probe
	}
	conn.Close()
	return true, nil
}

func TestSecurityProbes(t *testing.T) {
	t.Parallel()
	page := `<!DOCTYPE html><html lang="en"><head><title>probe page</title></head><body><p>hello</p></body></html>`
	newTLS := func(minVersion uint16) *httptest.Server {
		s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/page" {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, page)
		}))
		s.TLS = &tls.Config{MinVersion: minVersion}
		s.Config.ErrorLog = log.New(io.Discard, "", 0) // refused old handshakes are expected
		s.StartTLS()
		t.Cleanup(s.Close)
		return s
	}
	newPlain := func(redirect bool) *httptest.Server {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if redirect {
				http.Redirect(w, r, "https://site.test"+r.URL.RequestURI(), http.StatusMovedPermanently)
				return
			}
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, page)
		}))
		t.Cleanup(s.Close)
		return s
	}
	tests := []struct {
		name        string
		redirect    bool
		minTLS      uint16
		probe       bool
		depth       Depth
		want        []string
		absent      []string
		httpFetched bool
	}{
		{name: "http answers 200 and old TLS accepted", minTLS: tls.VersionTLS10, probe: true, depth: Complete,
			want: []string{"security.http_not_redirected", "security.tls_old_version"}, httpFetched: true},
		{name: "http redirects and TLS 1.2 minimum", redirect: true, minTLS: tls.VersionTLS12, probe: true, depth: Complete,
			absent: []string{"security.http_not_redirected", "security.tls_old_version"}, httpFetched: true},
		{name: "fetcher cannot probe TLS", minTLS: tls.VersionTLS10, probe: false, depth: Complete,
			want: []string{"security.http_not_redirected"}, absent: []string{"security.tls_old_version"}, httpFetched: true},
		{name: "standard depth runs no probes", minTLS: tls.VersionTLS10, probe: true, depth: Standard,
			absent: []string{"security.http_not_redirected", "security.tls_old_version"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ts, ps := newTLS(tc.minTLS), newPlain(tc.redirect)
			base := &secTestFetcher{client: ts.Client(), https: ts, plain: ps}
			var f Fetcher = base
			if tc.probe {
				f = secProbingFetcher{base}
			}
			rep, err := Analyze(context.Background(), "https://site.test/page", &Options{Depth: tc.depth, Fetcher: f})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Status != 200 || rep.Error != "" {
				t.Fatalf("page fetch: status %d, error %q", rep.Status, rep.Error)
			}
			assertIDs(t, rep, tc.want, tc.absent)
			fetchedHTTP := false
			for _, u := range base.fetched {
				if u == "http://site.test/page" {
					fetchedHTTP = true
				}
			}
			if fetchedHTTP != tc.httpFetched {
				t.Errorf("http:// form fetched = %v, want %v (fetched %v)", fetchedHTTP, tc.httpFetched, base.fetched)
			}
			if f := finding(rep, "security.http_not_redirected"); f != nil && f.Evidence.URLs[0] != "http://site.test/page" {
				t.Errorf("evidence: %+v", f)
			}
		})
	}
}
