package main

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"github.com/seokit/seokit/reports"
)

// fakeGoogle is a loopback stand-in for Google's OAuth 2.0 token endpoint,
// the Search Console API and the GA4 Data API. It answers with the
// drivers' fixtures (documented answer shapes) and checks credentials:
// a service-account JWT assertion signed with key, or a refresh token.
type fakeGoogle struct {
	srv *httptest.Server
	key *rsa.PrivateKey

	mu    sync.Mutex
	sites []string // Search Console properties asked for
	props []string // GA4 properties asked for
	auth  []string // Authorization headers of API calls
}

const (
	saEmail      = "reports@seokit-test.iam.gserviceaccount.com"
	refreshToken = "1//refresh-test"
)

func fixtureFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newFakeGoogle(t *testing.T) *fakeGoogle {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	g := &fakeGoogle{key: key}
	daily := fixtureFile(t, "../../reports/searchconsole/testdata/daily.json")
	forbidden := fixtureFile(t, "../../reports/searchconsole/testdata/error_403.json")
	ga := fixtureFile(t, "../../reports/ga4/testdata/report.json")
	mux := http.NewServeMux()
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch r.PostForm.Get("grant_type") {
		case "urn:ietf:params:oauth:grant-type:jwt-bearer":
			claims := jwt.MapClaims{}
			_, err := jwt.ParseWithClaims(r.PostForm.Get("assertion"), claims, func(*jwt.Token) (any, error) { return &key.PublicKey, nil },
				jwt.WithValidMethods([]string{"RS256"}), jwt.WithIssuer(saEmail), jwt.WithAudience(g.srv.URL+"/token"))
			if err != nil {
				w.WriteHeader(400)
				io.WriteString(w, `{"error":"invalid_grant","error_description":"bad assertion"}`)
				return
			}
			io.WriteString(w, `{"access_token":"sa-token `+claims["scope"].(string)+`","token_type":"Bearer","expires_in":3600}`)
		case "refresh_token":
			if r.PostForm.Get("refresh_token") != refreshToken || r.PostForm.Get("client_id") != "client-1" {
				w.WriteHeader(400)
				io.WriteString(w, `{"error":"invalid_grant","error_description":"Token has been expired or revoked."}`)
				return
			}
			// The scopes of a refresh token are those granted at login.
			io.WriteString(w, `{"access_token":"user-token `+scopeSearchConsole+`","token_type":"Bearer","expires_in":3600}`)
		default:
			w.WriteHeader(400)
			io.WriteString(w, `{"error":"unsupported_grant_type"}`)
		}
	})
	authorized := func(w http.ResponseWriter, r *http.Request, scope string) bool {
		a := r.Header.Get("Authorization")
		g.mu.Lock()
		g.auth = append(g.auth, a)
		g.mu.Unlock()
		if !strings.HasPrefix(a, "Bearer ") || !strings.HasSuffix(a, scope) {
			w.WriteHeader(401)
			w.Write(fixtureFile(t, "../../reports/searchconsole/testdata/error_401.json"))
			return false
		}
		return true
	}
	mux.HandleFunc("POST /webmasters/v3/sites/{site}/searchAnalytics/query", func(w http.ResponseWriter, r *http.Request) {
		if !authorized(w, r, scopeSearchConsole) {
			return
		}
		site := r.PathValue("site")
		g.mu.Lock()
		g.sites = append(g.sites, site)
		g.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if strings.Contains(site, "forbidden") {
			w.WriteHeader(403)
			w.Write(forbidden)
			return
		}
		w.Write(daily)
	})
	mux.HandleFunc("POST /v1beta/properties/{prop}", func(w http.ResponseWriter, r *http.Request) {
		if !authorized(w, r, scopeAnalytics) {
			return
		}
		g.mu.Lock()
		g.props = append(g.props, r.PathValue("prop"))
		g.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write(ga)
	})
	g.srv = httptest.NewServer(mux)
	t.Cleanup(g.srv.Close)
	return g
}

// serviceAccountFile writes a service-account key file for g.
func (g *fakeGoogle) serviceAccountFile(t *testing.T) string {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(g.key)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]string{
		"type": "service_account", "project_id": "seokit-test", "private_key_id": "k1",
		"private_key":  string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email": saEmail, "client_id": "123", "token_uri": g.srv.URL + "/token",
	})
	return writeTemp(t, "sa.json", b)
}

func (g *fakeGoogle) authorizedUserFile(t *testing.T, refresh string) string {
	t.Helper()
	b, _ := json.Marshal(map[string]string{
		"type": "authorized_user", "client_id": "client-1", "client_secret": "secret-1",
		"refresh_token": refresh, "token_uri": g.srv.URL + "/token",
	})
	return writeTemp(t, "adc.json", b)
}

func writeTemp(t *testing.T, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// The fixtures' totals: daily.json has 30+42+18 clicks over 1200+1500+800
// impressions on three days; report.json 123+140+97 organic sessions.
func TestReportMeasuredTraffic(t *testing.T) {
	fixedClock(t, "2024-09-10")
	g := newFakeGoogle(t)
	db := filepath.Join(t.TempDir(), "data.db")
	sa := g.serviceAccountFile(t)
	base := map[string]string{envGSCBaseURL: g.srv.URL, envGA4BaseURL: g.srv.URL}
	with := func(extra map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	rng := []string{"report", "-db", db, "-domain", "www.example.com", "-start", "2024-09-01", "-end", "2024-09-04"}
	cases := []struct {
		name     string
		env      map[string]string
		args     []string
		code     int
		contains []string
		site     string // Search Console property asked for
		prop     string // GA4 property asked for
	}{
		{"search console, service account", with(nil), []string{"-traffic", "searchconsole", "-google-credentials", sa}, 0,
			[]string{"Measured      90 clicks, 3500 impressions, CTR 2.57%, 3 days with data (measured by Search Console, property sc-domain:example.com)",
				"Traffic       no traffic estimate"}, "sc-domain:example.com", ""},
		{"property from the environment, authorized user", with(map[string]string{envGSCProperty: "https://www.example.com/", envCredentials: g.authorizedUserFile(t, refreshToken)}), nil, 0,
			[]string{"(measured by Search Console, property https://www.example.com/)"}, "https://www.example.com/", ""},
		{"ga4 with an access token", with(map[string]string{envAccessToken: "static-token " + scopeAnalytics}), []string{"-ga4-property", "123456789"}, 0,
			[]string{"Measured      360 organic sessions, 3 days with data (measured by GA4, property 123456789)"}, "", "123456789:runReport"},
		{"source refuses", with(nil), []string{"-gsc-property", "sc-domain:forbidden.example", "-google-credentials", sa}, 1,
			[]string{"Measured      not available: searchconsole:", "report printed without measured traffic"}, "sc-domain:forbidden.example", ""},
		{"revoked refresh token", with(map[string]string{envCredentials: g.authorizedUserFile(t, "1//revoked")}), []string{"-traffic", "searchconsole"}, 1,
			[]string{"Measured      not available:", "invalid_grant"}, "", ""},
		{"none", with(map[string]string{envGSCProperty: "sc-domain:example.com"}), []string{"-traffic", "none"}, 0, nil, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fakeEnv(t, c.env)
			g.mu.Lock()
			g.sites, g.props = nil, nil
			g.mu.Unlock()
			code, out, errOut := runCLI(t, append(append([]string{}, rng...), c.args...)...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.code, out, errOut)
			}
			for _, want := range c.contains {
				if !strings.Contains(out+errOut, want) {
					t.Errorf("output lacks %q:\n%s\n%s", want, out, errOut)
				}
			}
			g.mu.Lock()
			defer g.mu.Unlock()
			if c.site != "" && (len(g.sites) != 1 || g.sites[0] != c.site) {
				t.Errorf("Search Console properties asked for: %q, want [%q]", g.sites, c.site)
			}
			if c.prop != "" && (len(g.props) != 1 || g.props[0] != c.prop) {
				t.Errorf("GA4 calls: %q, want [%q]", g.props, c.prop)
			}
			if c.name == "none" && (len(g.sites)+len(g.props) != 0 || strings.Contains(out, "Measured")) {
				t.Errorf("-traffic none called the APIs (%q %q) or printed measured traffic:\n%s", g.sites, g.props, out)
			}
		})
	}

	t.Run("json", func(t *testing.T) {
		fakeEnv(t, base)
		code, out, errOut := runCLI(t, append(append([]string{}, rng...), "-json", "-traffic", "searchconsole", "-google-credentials", sa)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var rep reports.Report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		m := rep.Metrics.Traffic.Measured
		if m == nil || m.Source != "searchconsole" || m.Clicks == nil || *m.Clicks != 90 || *m.Impressions != 3500 || len(m.Daily) != 3 {
			t.Errorf("measured traffic in JSON: %+v", m)
		}
		if !rep.Metrics.Traffic.Estimated {
			t.Error("the estimate is no longer labelled estimated")
		}
	})
}

func TestReportTrafficBadInput(t *testing.T) {
	fixedClock(t, "2024-09-10")
	db := filepath.Join(t.TempDir(), "data.db")
	notJSON := writeTemp(t, "x.json", []byte("not json"))
	oddType := writeTemp(t, "o.json", []byte(`{"type":"external_account","token_uri":"https://sts.googleapis.com/v1/token"}`))
	badURI := writeTemp(t, "u.json", []byte(`{"type":"authorized_user","client_id":"c","refresh_token":"r","token_uri":"file:///etc/passwd"}`))
	big := writeTemp(t, "big.json", []byte(strings.Repeat(" ", maxCredentialsFile+1)))
	for _, c := range []struct {
		name string
		env  map[string]string
		args []string
		msg  string
	}{
		{"unknown source", nil, []string{"-traffic", "bing"}, `unknown source "bing"`},
		{"both properties", nil, []string{"-gsc-property", "sc-domain:example.com", "-ga4-property", "1"}, "choose with -traffic"},
		{"no credentials", nil, []string{"-traffic", "searchconsole"}, "no Google credentials"},
		{"ga4 without property", map[string]string{envAccessToken: "t"}, []string{"-traffic", "ga4"}, "set -ga4-property"},
		{"bad ga4 property", map[string]string{envAccessToken: "t"}, []string{"-ga4-property", "UA-1234-1"}, "-ga4-property: seo: invalid properties: a GA4 property ID is a number"},
		{"bad gsc property", map[string]string{envAccessToken: "t"}, []string{"-gsc-property", "example.com"}, "-gsc-property: seo: invalid properties: must be sc-domain:example.com or a URL prefix"},
		{"missing file", nil, []string{"-traffic", "searchconsole", "-google-credentials", "testdata/none.json"}, "no such file"},
		{"not json", nil, []string{"-traffic", "searchconsole", "-google-credentials", notJSON}, "not a JSON credentials file"},
		{"unsupported type", nil, []string{"-traffic", "searchconsole", "-google-credentials", oddType}, `type "external_account" are not supported`},
		{"bad token uri", nil, []string{"-traffic", "searchconsole", "-google-credentials", badURI}, "is not an http(s) URL"},
		{"huge file", map[string]string{envCredentials: big}, []string{"-traffic", "searchconsole"}, "not a credentials file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fakeEnv(t, c.env)
			code, _, errOut := runCLI(t, append([]string{"report", "-db", db, "-domain", "example.com", "-start", "2024-09-01", "-end", "2024-09-04"}, c.args...)...)
			if code != 2 || !strings.Contains(errOut, c.msg) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut, c.msg)
			}
		})
	}
}

func TestReportTrafficUsage(t *testing.T) {
	t.Parallel()
	_, _, errOut := runCLI(t, "report", "-h")
	for _, want := range []string{"-traffic", "-gsc-property", "-ga4-property", envCredentials, envAccessToken, defaultDataDB} {
		if !strings.Contains(errOut, want) {
			t.Errorf("report -h lacks %q", want)
		}
	}
	if u, err := url.Parse(googleTokenURL); err != nil || u.Scheme != "https" {
		t.Errorf("googleTokenURL %q", googleTokenURL)
	}
}
