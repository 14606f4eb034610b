package analyzer

import (
	"context"
	"crypto/tls"
	"net"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/seokit/seokit/seo"
)

// tlsProber is the optional capability of a Fetcher that can test whether a
// server completes a TLS handshake limited to maxVersion (tls.VersionTLS11
// for the old-TLS probe). It must apply the same address guard as the
// fetches. The security.tls_old_version probe runs only when the Fetcher
// has it.
type tlsProber interface {
	ProbeTLS(ctx context.Context, hostport string, maxVersion uint16) (bool, error)
}

// securityProbeTimeout bounds each security probe (the http:// fetch and
// the old-TLS handshake).
const securityProbeTimeout = 5 * time.Second

func init() {
	register(
		Check{
			Area:         "security",
			Depth:        Standard,
			AllDocuments: true,
			IDs: []seo.CheckInfo{
				{ID: "security.http_page", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "The page's final URL is served over plain http.",
					Source: "Lighthouse is-on-https; Google Search Central, Page experience, HTTPS (https://developers.google.com/search/docs/appearance/page-experience); Screaming Frog SEO Spider, SEOnaut"},
				{ID: "security.hsts_missing", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "An https response has no valid Strict-Transport-Security header.", Minor: true,
					Source: "RFC 6797, HTTP Strict Transport Security (https://www.rfc-editor.org/rfc/rfc6797); SEOnaut, Screaming Frog SEO Spider"},
				{ID: "security.hsts_short", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "The HSTS max-age is shorter than one year.",
					Source: "seokit's own rule, after RFC 6797 (https://www.rfc-editor.org/rfc/rfc6797) and the one-year max-age that https://hstspreload.org asks for"},
				{ID: "security.csp_missing", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "No Content-Security-Policy, neither as header nor as meta.", Minor: true,
					Source: "W3C Content Security Policy Level 3 (https://www.w3.org/TR/CSP3/); Lighthouse best practices csp-xss; SEOnaut, Screaming Frog SEO Spider"},
				{ID: "security.nosniff_missing", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "No X-Content-Type-Options: nosniff header.", Minor: true,
					Source: "Fetch Standard, X-Content-Type-Options (https://fetch.spec.whatwg.org/#x-content-type-options-header); SEOnaut, Screaming Frog SEO Spider"},
				{ID: "security.frame_protection_missing", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "Neither X-Frame-Options nor a CSP frame-ancestors directive protects against framing.", Minor: true,
					Source: "RFC 7034, X-Frame-Options (https://www.rfc-editor.org/rfc/rfc7034), and CSP frame-ancestors; Screaming Frog SEO Spider"},
				{ID: "security.referrer_policy_missing", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "No Referrer-Policy, or one that leaks full URLs (unsafe-url, no-referrer-when-downgrade).", Minor: true,
					Source: "W3C Referrer Policy (https://www.w3.org/TR/referrer-policy/); Screaming Frog SEO Spider"},
				{ID: "security.tls_expired", Severity: seo.Error, Scope: seo.ScopePage, Summary: "The server certificate is expired or not yet valid.",
					Source: "seokit's own rule, after RFC 5280 certificate validity (https://www.rfc-editor.org/rfc/rfc5280)"},
				{ID: "security.tls_expiring", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "The server certificate expires soon.",
					Source: "seokit's own rule, after RFC 5280 certificate validity (https://www.rfc-editor.org/rfc/rfc5280)"},
				{ID: "security.tls_hostname_mismatch", Severity: seo.Error, Scope: seo.ScopePage, Summary: "The server certificate does not name the host.",
					Source: "seokit's own rule, after RFC 9525, service identity in TLS (https://www.rfc-editor.org/rfc/rfc9525)"},
				{ID: "security.tls_untrusted", Severity: seo.Error, Scope: seo.ScopePage, Summary: "The certificate chain does not verify against the system roots.",
					Source: "seokit's own rule, after RFC 5280 path validation (https://www.rfc-editor.org/rfc/rfc5280)"},
			},
			Run: checkSecurityHeaders,
		},
		Check{
			Area:  "security",
			Depth: Standard,
			IDs: []seo.CheckInfo{
				{ID: "security.mixed_content_active", Severity: seo.Error, Scope: seo.ScopePage, Summary: "An https page loads a script, stylesheet, iframe, font, plugin (<object>, <embed>) or text track over http, and no CSP upgrade-insecure-requests upgrades it.",
					Source: "W3C Mixed Content, blockable content (https://www.w3.org/TR/mixed-content/); W3C Upgrade Insecure Requests (https://www.w3.org/TR/upgrade-insecure-requests/); Lighthouse is-on-https; Screaming Frog SEO Spider"},
				{ID: "security.mixed_content_passive", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "An https page loads an image (src or srcset), an icon (<link rel=icon>, apple-touch-icon), audio or video over http, and no CSP upgrade-insecure-requests upgrades it.",
					Source: "W3C Mixed Content, upgradeable content (https://www.w3.org/TR/mixed-content/); W3C Upgrade Insecure Requests (https://www.w3.org/TR/upgrade-insecure-requests/); Lighthouse is-on-https; Screaming Frog SEO Spider"},
				{ID: "security.form_insecure_action", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "A form submits to an http URL, and no CSP upgrade-insecure-requests upgrades it.",
					Source: "W3C Mixed Content (https://www.w3.org/TR/mixed-content/); W3C Upgrade Insecure Requests (https://w3c.github.io/webappsec-upgrade-insecure-requests/#upgrade-request); Screaming Frog SEO Spider, SEOnaut"},
				{ID: "security.form_on_http", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "An http page contains a form.",
					Source: "Google Search Central, Page experience, HTTPS (https://developers.google.com/search/docs/appearance/page-experience); Screaming Frog SEO Spider, SEOnaut"},
				{ID: "security.protocol_relative", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "A resource or link URL starts with // and inherits the page's scheme.",
					Source: "RFC 3986, network-path references (https://www.rfc-editor.org/rfc/rfc3986#section-4.2); Screaming Frog SEO Spider"},
			},
			Run: checkSecurityContent,
		},
	)
	registerProbe(
		probe{
			Area:  "security",
			Depth: Complete,
			IDs: []seo.CheckInfo{
				{ID: "security.http_not_redirected", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "The http:// form of an https page answers 200 instead of redirecting.",
					Source: "Google Search Central, Page experience, HTTPS (https://developers.google.com/search/docs/appearance/page-experience); Google Search Central, Redirects and Google Search (https://developers.google.com/search/docs/crawling-indexing/301-redirects) (redirect http to https permanently)"},
			},
			Run: probeHTTPNotRedirected,
		},
		probe{
			Area:  "security",
			Depth: Complete,
			IDs: []seo.CheckInfo{
				{ID: "security.tls_old_version", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "The server still completes a handshake limited to TLS 1.0 or 1.1.",
					Source: "seokit's own rule, after RFC 8996, which deprecates TLS 1.0 and 1.1 (https://www.rfc-editor.org/rfc/rfc8996)"},
			},
			Run: probeTLSOldVersion,
		},
	)
	registerExtractor(extractSecurity)
}

// extractSecurity fills Report.Security with the headers as served (several
// fields of one header joined with ", ") and the TLS facts.
func extractSecurity(p *Page) {
	s := &p.Report.Security
	get := func(name string) string { return strings.Join(p.Header.Values(name), ", ") }
	s.HSTS = get("Strict-Transport-Security")
	s.CSP = get("Content-Security-Policy")
	s.ContentTypeOptions = get("X-Content-Type-Options")
	s.FrameOptions = get("X-Frame-Options")
	s.ReferrerPolicy = get("Referrer-Policy")
	if t := p.Response.TLS; t != nil {
		s.TLSVersion = t.Version
		if !t.NotAfter.IsZero() {
			na := t.NotAfter
			s.CertificateNotAfter = &na
		}
	}
}

// secHSTSMaxAge parses a Strict-Transport-Security value and returns its
// max-age, wherever the directive sits; ok is false when there is none or
// it is not a non-negative integer.
func secHSTSMaxAge(v string) (int64, bool) {
	for d := range strings.SplitSeq(v, ";") {
		name, val, _ := strings.Cut(strings.TrimSpace(d), "=")
		if !strings.EqualFold(strings.TrimSpace(name), "max-age") {
			continue
		}
		val = strings.Trim(strings.TrimSpace(val), `"`)
		n, err := strconv.ParseInt(val, 10, 64)
		if err != nil || n < 0 {
			return 0, false
		}
		return n, true
	}
	return 0, false
}

// secCSPDirective reports whether any of the CSP policies has a directive.
func secCSPDirective(policies []string, name string) bool {
	for _, pol := range policies {
		for d := range strings.SplitSeq(pol, ";") {
			f := strings.Fields(d)
			if len(f) > 0 && strings.EqualFold(f[0], name) {
				return true
			}
		}
	}
	return false
}

// secReferrerPolicy returns the effective policy of a Referrer-Policy list:
// the last token browsers know.
func secReferrerPolicy(v string) string {
	eff := ""
	for t := range strings.SplitSeq(v, ",") {
		t = strings.ToLower(strings.TrimSpace(t))
		switch t {
		case "no-referrer", "no-referrer-when-downgrade", "origin", "origin-when-cross-origin",
			"same-origin", "strict-origin", "strict-origin-when-cross-origin", "unsafe-url":
			eff = t
		}
	}
	return eff
}

func checkSecurityHeaders(p *Page, r *Reporter) {
	th := p.Thresholds()
	https := p.URL.Scheme == "https"
	if p.URL.Scheme == "http" {
		r.Add("security.http_page", "the page is served over plain http", seo.Evidence{Element: "URL", Value: p.URL.String()})
	}
	if https {
		sts := p.Header.Get("Strict-Transport-Security")
		switch maxAge, ok := secHSTSMaxAge(sts); {
		case !ok:
			ev := seo.Evidence{Element: "Strict-Transport-Security", Value: sts}
			if sts != "" {
				ev.Detail = "no valid max-age directive"
			}
			r.Add("security.hsts_missing", "the https response has no valid Strict-Transport-Security header", ev)
		case maxAge < th.HSTSMinMaxAge:
			ev := seo.Measure("Strict-Transport-Security max-age", float64(maxAge), float64(th.HSTSMinMaxAge))
			ev.Value = sts
			r.Add("security.hsts_short", "HSTS max-age is "+strconv.FormatInt(maxAge, 10)+" s, shorter than a year", ev)
		}
	}

	csp := p.Header.Values("Content-Security-Policy")
	metaCSP := false
	metaReferrer := ""
	if p.IsHTML {
		for _, m := range p.ByTag(atom.Meta) {
			if eq, _ := Attr(m, "http-equiv"); strings.EqualFold(strings.TrimSpace(eq), "content-security-policy") {
				if c, _ := Attr(m, "content"); strings.TrimSpace(c) != "" {
					metaCSP = true
				}
			}
			if name, _ := Attr(m, "name"); strings.EqualFold(strings.TrimSpace(name), "referrer") {
				metaReferrer, _ = Attr(m, "content")
			}
		}
	}
	if !metaCSP && strings.TrimSpace(strings.Join(csp, "")) == "" {
		r.Add("security.csp_missing", "no Content-Security-Policy restricts what the page may load", seo.Evidence{Element: "Content-Security-Policy"})
	}
	if xcto := p.Header.Get("X-Content-Type-Options"); !strings.EqualFold(strings.TrimSpace(xcto), "nosniff") {
		r.Add("security.nosniff_missing", "X-Content-Type-Options: nosniff is not sent", seo.Evidence{Element: "X-Content-Type-Options", Value: xcto})
	}
	if strings.TrimSpace(p.Header.Get("X-Frame-Options")) == "" && !secCSPDirective(csp, "frame-ancestors") {
		r.Add("security.frame_protection_missing", "nothing stops other sites from framing the page",
			seo.Evidence{Element: "X-Frame-Options", Detail: "no CSP frame-ancestors either"})
	}
	rp := p.Header.Get("Referrer-Policy")
	el := "Referrer-Policy"
	if strings.TrimSpace(rp) == "" && metaReferrer != "" {
		rp, el = metaReferrer, `<meta name="referrer">`
	}
	switch eff := secReferrerPolicy(rp); eff {
	case "":
		r.Add("security.referrer_policy_missing", "no Referrer-Policy is set", seo.Evidence{Element: el, Value: rp})
	case "unsafe-url", "no-referrer-when-downgrade":
		r.Add("security.referrer_policy_missing", "the Referrer-Policy "+eff+" sends full URLs to other sites", seo.Evidence{Element: el, Value: rp})
	}

	t := p.Response.TLS
	if t == nil {
		return
	}
	now := p.cfg.now()
	host := p.URL.Hostname()
	expired := t.Expired || (!t.NotAfter.IsZero() && now.After(t.NotAfter)) || (!t.NotBefore.IsZero() && now.Before(t.NotBefore))
	if expired {
		r.Add("security.tls_expired", "the server certificate is outside its validity period",
			seo.Evidence{Element: "certificate", Value: t.Subject,
				Detail: "valid " + t.NotBefore.UTC().Format(time.RFC3339) + " to " + t.NotAfter.UTC().Format(time.RFC3339)})
	} else if !t.NotAfter.IsZero() && t.NotAfter.Sub(now) < th.TLSExpiryWarning {
		left := t.NotAfter.Sub(now)
		ev := seo.Measure("certificate days left", left.Hours()/24, th.TLSExpiryWarning.Hours()/24)
		ev.Value = t.NotAfter.UTC().Format(time.RFC3339)
		r.Add("security.tls_expiring", "the server certificate expires in "+strconv.Itoa(int(left.Hours()/24))+" days", ev)
	}
	if t.HostnameMismatch {
		r.Add("security.tls_hostname_mismatch", "the certificate does not name "+host,
			seo.Evidence{Element: "certificate", Value: strings.Join(t.DNSNames, ", "), Detail: t.VerifyError})
	}
	if t.Untrusted {
		r.Add("security.tls_untrusted", "the certificate chain does not verify against trusted roots",
			seo.Evidence{Element: "certificate", Value: t.Issuer, Detail: t.VerifyError})
	}
}

// secActiveKinds are the resource kinds browsers block as mixed content.
var secActiveKinds = map[string]bool{"script": true, "stylesheet": true, "iframe": true, "font": true}

// secMixedKind returns how an http resource of an https page is mixed
// content: blockable (browsers refuse it), or upgradeable (browsers fetch
// it over https instead), and what it is for the message; ok is false for
// a kind that is neither (a preload of no known type). Mixed Content
// Level 2 makes images, audio and video upgradeable and everything else
// blockable (https://www.w3.org/TR/mixed-content/#category-upgradeable),
// so an <object>, an <embed> and a <track>, whose kind is "media" like
// <audio> and <video>, are blocked.
func secMixedKind(res Resource) (label string, blockable, ok bool) {
	switch {
	case secActiveKinds[res.Kind]:
		return "a " + res.Kind, true, true
	case res.Kind == "image":
		return "an image", false, true
	case res.Kind != "media":
		return "", false, false
	}
	switch res.Node.DataAtom {
	case atom.Object, atom.Embed:
		return "a plugin resource (<" + res.Node.Data + ">)", true, true
	case atom.Track:
		return "a text track", true, true
	}
	return "audio or video", false, true
}

// secUpgraded returns whether browsers upgrade the request of a resource
// element, or the submission of a form, to https before sending it, under
// a Content-Security-Policy with upgrade-insecure-requests (W3C Upgrade
// Insecure Requests, https://www.w3.org/TR/upgrade-insecure-requests/):
// every one under the header; under a <meta http-equiv> in <head>, which
// applies from when the parser inserts it, those after it (every form, as
// a form is in <body>). Nil means none is.
func secUpgraded(p *Page) func(*html.Node) bool {
	if secCSPDirective(p.Header.Values("Content-Security-Policy"), "upgrade-insecure-requests") {
		return func(*html.Node) bool { return true }
	}
	if !p.IsHTML {
		return nil
	}
	for _, m := range p.ByTag(atom.Meta) {
		eq, _ := Attr(m, "http-equiv")
		c, _ := Attr(m, "content")
		if m.Parent == nil || m.Parent.DataAtom != atom.Head || !strings.EqualFold(strings.TrimSpace(eq), "content-security-policy") ||
			!secCSPDirective([]string{c}, "upgrade-insecure-requests") {
			continue
		}
		before := map[*html.Node]bool{}
		for _, e := range p.Elements {
			if e == m {
				break
			}
			before[e] = true
		}
		return func(n *html.Node) bool { return !before[n] }
	}
	return nil
}

func checkSecurityContent(p *Page, r *Reporter) {
	https := p.URL.Scheme == "https"
	upgraded := secUpgraded(p)
	// The evidence (the element's markup, the URL's text) is built only
	// for the occurrences a finding keeps.
	for _, res := range p.Resources {
		if https && res.URL != nil && res.URL.Scheme == "http" && (upgraded == nil || !upgraded(res.Node)) {
			ev := func() seo.Evidence {
				return seo.Evidence{Element: Outer(res.Node), Value: res.Raw, URLs: []string{res.URL.String()}}
			}
			switch label, blockable, ok := secMixedKind(res); {
			case ok && blockable:
				r.addLazy("security.mixed_content_active", "the https page loads "+label+" over http, which browsers block", ev)
			case ok:
				r.addLazy("security.mixed_content_passive", "the https page loads "+label+" over http", ev)
			}
		}
		if secProtocolRelative(res.Raw) {
			r.addLazy("security.protocol_relative", "a "+res.Kind+" URL is protocol-relative", func() seo.Evidence {
				return seo.Evidence{Element: Outer(res.Node), Value: res.Raw}
			})
		}
	}
	// The srcset candidates of an <img> and of a <picture>'s <source>
	// elements are images too: the browser fetches the one it picks, which
	// may be any.
	if https {
		srcset := func(n *html.Node) {
			ss, ok := Attr(n, "srcset")
			if !ok || (upgraded != nil && upgraded(n)) {
				return
			}
			for cand := range SrcsetCandidates(ss) {
				if u := p.Resolve(cand); u != nil && u.Scheme == "http" {
					r.addLazy("security.mixed_content_passive", "the https page loads an image (srcset candidate) over http", func() seo.Evidence {
						return seo.Evidence{Element: Outer(n), Value: cand, URLs: []string{u.String()}}
					})
				}
			}
		}
		for _, n := range p.ByTag(atom.Img) {
			srcset(n)
		}
		for _, n := range p.ByTag(atom.Source) {
			if n.Parent != nil && n.Parent.DataAtom == atom.Picture {
				srcset(n)
			}
		}
		// The browser fetches the page's icons too, though nothing in the
		// page shows them (they are no Resource): the HTML Standard fetches
		// an icon link with the destination "image"
		// (https://html.spec.whatwg.org/multipage/links.html#rel-icon), which
		// Mixed Content Level 2 makes upgradeable like an <img>
		// (https://www.w3.org/TR/mixed-content/#category-upgradeable).
		// Safari's apple-touch-icon, which the Standard does not define, is
		// the same image request.
		for _, n := range p.ByTag(atom.Link) {
			rel, _ := Attr(n, "rel")
			if !spaceTokenLower(rel, "icon") && !spaceTokenLower(rel, "apple-touch-icon") && !spaceTokenLower(rel, "apple-touch-icon-precomposed") {
				continue
			}
			href, ok := Attr(n, "href")
			if !ok || strings.TrimSpace(href) == "" || (upgraded != nil && upgraded(n)) {
				continue
			}
			if u := p.Resolve(href); u != nil && u.Scheme == "http" {
				r.addLazy("security.mixed_content_passive", "the https page loads an icon over http", func() seo.Evidence {
					return seo.Evidence{Element: Outer(n), Value: href, URLs: []string{u.String()}}
				})
			}
		}
	}
	for _, l := range p.Links {
		if l.HasHref && secProtocolRelative(l.Href) {
			r.addLazy("security.protocol_relative", "a link URL is protocol-relative", func() seo.Evidence {
				return seo.Evidence{Element: Outer(l.Node), Value: l.Href}
			})
		}
	}

	forms := p.ByTag(atom.Form)
	insecure := func(n *html.Node, attr string) {
		raw, ok := Attr(n, attr)
		if !ok {
			return
		}
		u := p.Resolve(raw)
		if u == nil || u.Scheme != "http" {
			return
		}
		// Upgrade Insecure Requests upgrades every form submission, to the
		// page's origin or to another one, unlike the other navigations,
		// which it upgrades to the page's own host and port only
		// (https://w3c.github.io/webappsec-upgrade-insecure-requests/#upgrade-request,
		// step 2.1), so under the policy no form data leaves over http.
		if upgraded != nil && upgraded(n) {
			return
		}
		if !https && !strings.HasPrefix(strings.ToLower(strings.TrimSpace(raw)), "http:") {
			return // inherits the http page's scheme: form_on_http covers it
		}
		r.Add("security.form_insecure_action", "a form submits over http", seo.Evidence{Element: Outer(n), Value: raw, URLs: []string{u.String()}})
	}
	for _, f := range forms {
		insecure(f, "action")
	}
	for _, tag := range []atom.Atom{atom.Button, atom.Input} {
		for _, n := range p.ByTag(tag) {
			insecure(n, "formaction")
		}
	}
	if p.URL.Scheme == "http" && len(forms) > 0 {
		var pw *html.Node
		for _, in := range p.ByTag(atom.Input) {
			if t, _ := Attr(in, "type"); strings.EqualFold(strings.TrimSpace(t), "password") {
				pw = in
				break
			}
		}
		ev := seo.Evidence{Element: Outer(forms[0]), Detail: strconv.Itoa(len(forms)) + " form(s)"}
		msg := "the http page contains a form; its data travels unencrypted"
		if pw != nil {
			ev.Element = Outer(pw)
			ev.Detail += ", with a password field"
			msg = "the http page asks for a password over an unencrypted connection"
		}
		r.Add("security.form_on_http", msg, ev)
	}
}

func secProtocolRelative(raw string) bool {
	return strings.HasPrefix(strings.TrimSpace(raw), "//")
}

// probeHTTPNotRedirected fetches the http:// form of an https page without
// following redirects; a 200 answer means http is served alongside https.
func probeHTTPNotRedirected(ctx context.Context, p *Page, env *fetchEnv, r *Reporter) {
	if env.Fetcher == nil || p.URL.Scheme != "https" {
		return
	}
	u := *p.URL
	u.Scheme = "http"
	u.Host = secBracket(u.Hostname()) // the http form lives on the default port
	u.Fragment, u.RawFragment = "", ""
	ctx, cancel := context.WithTimeout(ctx, securityProbeTimeout)
	defer cancel()
	resp, err := env.Fetcher.Fetch(ctx, &seo.Request{URL: u.String(), UserAgent: env.UserAgent, NoFollow: true, DiscardBody: true})
	if err != nil || resp == nil {
		return
	}
	if resp.Status == 200 {
		r.Add("security.http_not_redirected", "the http:// form of the page answers 200 instead of redirecting to https",
			seo.Evidence{Element: "status", Value: "200", URLs: []string{u.String()}})
	}
}

// secBracket puts an IPv6 literal in brackets for use as a URL host.
func secBracket(host string) string {
	if strings.IndexByte(host, ':') >= 0 {
		return "[" + host + "]"
	}
	return host
}

// probeTLSOldVersion makes one handshake limited to TLS 1.1 through the
// fetcher's tlsProber; success means the server still accepts old TLS.
func probeTLSOldVersion(ctx context.Context, p *Page, env *fetchEnv, r *Reporter) {
	if p.URL.Scheme != "https" {
		return
	}
	pr, ok := env.Fetcher.(tlsProber)
	if !ok {
		return
	}
	port := p.URL.Port()
	if port == "" {
		port = "443"
	}
	hostport := net.JoinHostPort(p.URL.Hostname(), port)
	ctx, cancel := context.WithTimeout(ctx, securityProbeTimeout)
	defer cancel()
	accepted, err := pr.ProbeTLS(ctx, hostport, tls.VersionTLS11)
	if err != nil || !accepted {
		return
	}
	r.Add("security.tls_old_version", "the server still accepts TLS 1.1 or older",
		seo.Evidence{Element: "TLS", Value: hostport, Detail: "handshake limited to TLS 1.1 succeeded"})
}
