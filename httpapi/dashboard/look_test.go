package dashboard_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/seokit/seokit/httpapi/auth"
)

var styleRE = regexp.MustCompile(`(?s)<style>(.*?)</style>`)

// TestConsentPageSharesTheLook checks that the OAuth consent page carries
// the dashboard's stylesheet byte for byte, allowed by its CSP hash, and
// the dashboard's accessible structure.
func TestConsentPageSharesTheLook(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	_, cl, err := e.au.CreateClient(ctx, e.acct.ID, "Report <i>tool</i>", []string{"https://app.example.com/cb"}, []string{auth.ScopeRead})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("verifier"))
	q := url.Values{"client_id": {cl.ID}, "redirect_uri": {"https://app.example.com/cb"}, "response_type": {"code"},
		"scope": {"read"}, "state": {"s"}, "code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"}}
	c := e.client(t)
	resp, page := get(t, c, e.srv.URL+"/v1/oauth/authorize?"+q.Encode())
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("consent page: %d\n%s", resp.StatusCode, page)
	}
	_, css := get(t, c, e.srv.URL+"/dashboard/static/app.css")
	m := styleRE.FindStringSubmatch(page)
	if m == nil || m[1] != css {
		t.Fatal("consent page does not inline the dashboard's stylesheet verbatim")
	}
	h := sha256.Sum256([]byte(m[1]))
	csp := resp.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "style-src 'sha256-"+base64.StdEncoding.EncodeToString(h[:])+"'") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("CSP %q does not allow exactly the inlined stylesheet", csp)
	}
	for _, want := range []string{`<meta name="viewport" content="width=device-width, initial-scale=1">`, `<header class="top">`,
		`<section class="card narrow"`, `<label for="email">`, `<label for="password">`, `class="primary" name="action" value="allow"`,
		"Report &lt;i&gt;tool&lt;/i&gt;"} {
		if !strings.Contains(page, want) {
			t.Errorf("consent page lacks %q", want)
		}
	}

	// A wrong password marks both fields and announces the error.
	form := url.Values{}
	for _, m := range regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`).FindAllStringSubmatch(page, -1) {
		form.Set(m[1], strings.ReplaceAll(m[2], "&#43;", "+"))
	}
	form.Set("email", testEmail)
	form.Set("password", "wrong")
	form.Set("action", "allow")
	resp, page = post(t, c, e.srv.URL+"/v1/oauth/authorize", form)
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(page, `role="alert"`) || strings.Count(page, `aria-invalid="true"`) != 2 {
		t.Errorf("wrong password: status %d\n%s", resp.StatusCode, page)
	}

	// Signed in to the dashboard, the page asks only for consent.
	e.login(t, c)
	_, page = get(t, c, e.srv.URL+"/v1/oauth/authorize?"+q.Encode())
	if strings.Contains(page, `name="password"`) || !strings.Contains(page, "signed in") {
		t.Errorf("signed-in consent page still asks for the password:\n%s", page)
	}
}
