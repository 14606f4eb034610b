package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/jwt"

	"github.com/seokit/seokit/reports"
	"github.com/seokit/seokit/reports/ga4"
	"github.com/seokit/seokit/reports/searchconsole"
)

// Environment variables of the measured-traffic sources.
const (
	// envCredentials is the standard Google variable naming a
	// credentials file: a service-account key or the authorized_user file
	// that "gcloud auth application-default login" writes.
	envCredentials = "GOOGLE_APPLICATION_CREDENTIALS"
	// envAccessToken is an OAuth 2.0 access token, such as
	// "gcloud auth print-access-token" prints; it wins over a file.
	envAccessToken = "GOOGLE_OAUTH_ACCESS_TOKEN"
	envGSCProperty = "GSC_PROPERTY"
	envGA4Property = "GA4_PROPERTY"
	// The API roots, for proxies and tests.
	envGSCBaseURL = "SEARCHCONSOLE_BASE_URL"
	envGA4BaseURL = "GA4_BASE_URL"
)

// OAuth 2.0 scopes of the two APIs (read only).
const (
	scopeSearchConsole = "https://www.googleapis.com/auth/webmasters.readonly"
	scopeAnalytics     = "https://www.googleapis.com/auth/analytics.readonly"
)

// googleTokenURL is Google's OAuth 2.0 token endpoint, used when a
// credentials file names none.
const googleTokenURL = "https://oauth2.googleapis.com/token"

const trafficUsage = `
Measured traffic (optional): -traffic searchconsole or -traffic ga4 adds the
clicks, impressions and CTR Search Console recorded, or the organic sessions GA4
recorded, next to the estimate. -gsc-property or -ga4-property alone selects the
source too. Credentials come from the environment, read only:
  GOOGLE_OAUTH_ACCESS_TOKEN        an access token ("gcloud auth print-access-token")
  GOOGLE_APPLICATION_CREDENTIALS   a service-account key file (add its e-mail as a user
                                   of the property), or the authorized_user file of
                                   "gcloud auth application-default login --scopes=..."
Scopes: ` + scopeSearchConsole + `, ` + scopeAnalytics + `.
GSC_PROPERTY and GA4_PROPERTY set the properties; SEARCHCONSOLE_BASE_URL and GA4_BASE_URL
override the API roots (proxies, tests). When the source fails, the report is still
printed, with the error, and the exit code is 1.
`

// trafficFlags are the report command's measured-traffic settings.
type trafficFlags struct {
	source      string // "", "none", "searchconsole" or "ga4"
	gscProperty string
	ga4Property string
	credentials string
}

// trafficLabel names the connected source for people.
func trafficLabel(source, property string) string {
	switch source {
	case searchconsole.Name:
		return "Search Console, property " + property
	case ga4.Name:
		return "GA4, property " + property
	}
	return source
}

// trafficSource returns the measured-traffic source the flags ask for
// (nil for none) and its label. Errors are usage errors naming the flag.
func (tf trafficFlags) trafficSource(ctx context.Context, domain string) (reports.TrafficSource, string, error) {
	src := strings.TrimSpace(tf.source)
	gsc, ga := strings.TrimSpace(tf.gscProperty), strings.TrimSpace(tf.ga4Property)
	switch src {
	case "":
		switch {
		case gsc != "" && ga != "":
			return nil, "", errors.New("-traffic: both -gsc-property and -ga4-property are set; choose with -traffic searchconsole or -traffic ga4")
		case gsc != "":
			src = searchconsole.Name
		case ga != "":
			src = ga4.Name
		default:
			return nil, "", nil
		}
	case "none":
		return nil, "", nil
	case searchconsole.Name, ga4.Name:
	default:
		return nil, "", fmt.Errorf("-traffic: unknown source %q (searchconsole, ga4 or none)", src)
	}
	host, err := reports.NormalizeDomain(domain)
	if err != nil {
		return nil, "", err
	}
	if i := strings.IndexByte(host, '/'); i >= 0 {
		host = host[:i] // a path-prefix target ("example.com/blog") reads its host's property
	}
	scope := scopeSearchConsole
	if src == ga4.Name {
		scope = scopeAnalytics
		if ga == "" {
			return nil, "", errors.New("-traffic ga4: set -ga4-property (or " + envGA4Property + ") to the GA4 property ID, such as 123456789")
		}
	}
	ts, err := googleTokenSource(ctx, tf.credentials, scope)
	if err != nil {
		return nil, "", err
	}
	if src == ga4.Name {
		s, err := ga4.New(map[string]string{host: ga}, &ga4.Options{TokenSource: ts, BaseURL: getenv(envGA4BaseURL)})
		if err != nil {
			return nil, "", fmt.Errorf("-ga4-property: %w", err)
		}
		return s, trafficLabel(src, strings.TrimPrefix(ga, "properties/")), nil
	}
	var props map[string]string
	if gsc != "" {
		props = map[string]string{host: gsc}
	}
	s, err := searchconsole.New(&searchconsole.Options{TokenSource: ts, BaseURL: getenv(envGSCBaseURL), Properties: props})
	if err != nil {
		return nil, "", fmt.Errorf("-gsc-property: %w", err)
	}
	prop, err := s.Property(host)
	if err != nil {
		return nil, "", err
	}
	return s, trafficLabel(src, prop), nil
}

// googleCredentials is the part of a Google credentials file used here.
type googleCredentials struct {
	Type         string `json:"type"`
	ClientEmail  string `json:"client_email"`
	PrivateKey   string `json:"private_key"`
	PrivateKeyID string `json:"private_key_id"`
	TokenURI     string `json:"token_uri"`
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
	RefreshToken string `json:"refresh_token"`
}

// maxCredentialsFile bounds the credentials file read (a service-account
// key is about 2.3 kB).
const maxCredentialsFile = 64 << 10

// googleTokenSource returns OAuth 2.0 tokens for scope: the access token
// in GOOGLE_OAUTH_ACCESS_TOKEN, else from file (or
// GOOGLE_APPLICATION_CREDENTIALS when file is "").
func googleTokenSource(ctx context.Context, file, scope string) (oauth2.TokenSource, error) {
	if tok := strings.TrimSpace(getenv(envAccessToken)); tok != "" {
		return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: tok, TokenType: "Bearer"}), nil
	}
	if file == "" {
		file = strings.TrimSpace(getenv(envCredentials))
	}
	if file == "" {
		return nil, errors.New("-traffic: no Google credentials: set " + envAccessToken + ", or " + envCredentials + " (or -google-credentials) to a service-account key or authorized_user file")
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("-google-credentials: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxCredentialsFile+1))
	if err != nil {
		return nil, fmt.Errorf("-google-credentials: %w", err)
	}
	if len(data) > maxCredentialsFile {
		return nil, fmt.Errorf("-google-credentials: %s is larger than %d bytes: not a credentials file", file, maxCredentialsFile)
	}
	var c googleCredentials
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("-google-credentials: %s is not a JSON credentials file: %v", file, err)
	}
	tokenURL := c.TokenURI
	if tokenURL == "" {
		tokenURL = googleTokenURL
	}
	if u, err := url.Parse(tokenURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("-google-credentials: token_uri %q is not an http(s) URL", c.TokenURI)
	}
	switch c.Type {
	case "service_account":
		if c.ClientEmail == "" || c.PrivateKey == "" {
			return nil, fmt.Errorf("-google-credentials: service-account file %s lacks client_email or private_key", file)
		}
		cfg := &jwt.Config{Email: c.ClientEmail, PrivateKey: []byte(c.PrivateKey), PrivateKeyID: c.PrivateKeyID,
			Scopes: []string{scope}, TokenURL: tokenURL}
		return cfg.TokenSource(ctx), nil
	case "authorized_user":
		if c.ClientID == "" || c.RefreshToken == "" {
			return nil, fmt.Errorf("-google-credentials: authorized_user file %s lacks client_id or refresh_token", file)
		}
		cfg := &oauth2.Config{ClientID: c.ClientID, ClientSecret: c.ClientSecret, Scopes: []string{scope},
			Endpoint: oauth2.Endpoint{TokenURL: tokenURL, AuthStyle: oauth2.AuthStyleInParams}}
		return cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: c.RefreshToken}), nil
	case "":
		return nil, fmt.Errorf("-google-credentials: %s has no \"type\" (want service_account or authorized_user)", file)
	}
	return nil, fmt.Errorf("-google-credentials: credentials of type %q are not supported (service_account or authorized_user)", c.Type)
}

// printMeasured prints the measured-traffic lines of a text report.
func printMeasured(w io.Writer, t *reports.TrafficMetrics, label string) {
	if t.MeasuredError != "" {
		fmt.Fprintf(w, "Measured      not available: %s\n", clean(t.MeasuredError))
		return
	}
	m := t.Measured
	if m == nil {
		return
	}
	if label == "" {
		label = m.Source
	}
	var parts []string
	if m.Clicks != nil {
		parts = append(parts, fmt.Sprintf("%d clicks", *m.Clicks))
	}
	if m.Impressions != nil {
		parts = append(parts, fmt.Sprintf("%d impressions", *m.Impressions))
	}
	if m.CTR != nil {
		parts = append(parts, fmt.Sprintf("CTR %.2f%%", 100**m.CTR))
	}
	if m.Sessions != nil {
		parts = append(parts, fmt.Sprintf("%d organic sessions", *m.Sessions))
	}
	if len(parts) == 0 {
		parts = append(parts, "no data for the range")
	}
	fmt.Fprintf(w, "Measured      %s, %d days with data (measured by %s)\n", strings.Join(parts, ", "), len(m.Daily), clean(label))
}
