package google

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/seokit/seokit/internal/provider"
	"github.com/seokit/seokit/seo"
)

// DefaultTimeout bounds one request (connect, send, answer and body) when
// Config.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// DefaultMaxBody caps a successful answer's body, in bytes, when
// Config.MaxBody is zero. One Search Analytics page of 25,000 rows with two
// long keys stays well under it.
const DefaultMaxBody = 32 << 20

// Config configures a Client. Credentials are required: HTTPClient or
// TokenSource.
type Config struct {
	// Name is the driver name used as the error prefix ("searchconsole").
	Name string
	// BaseURL replaces the API's scheme and host (tests, proxies); the API
	// path is appended to it.
	BaseURL string
	// HTTPClient sends the requests and must add the credentials, as the
	// client from oauth2.Config.Client or google.DefaultClient does.
	HTTPClient *http.Client
	// TokenSource supplies OAuth 2.0 access tokens when HTTPClient is nil;
	// they are sent as a Bearer token over http.DefaultTransport.
	TokenSource oauth2.TokenSource
	// Timeout bounds one request; zero means DefaultTimeout.
	Timeout time.Duration
	// MaxBody caps a successful answer's body; zero means DefaultMaxBody.
	MaxBody int64
	// UserAgent replaces the User-Agent header; empty means
	// provider.UserAgent.
	UserAgent string
}

// Client calls one Google JSON API. It is safe for concurrent use.
type Client struct {
	name string
	base string
	c    *provider.Client
}

// New returns a client for the API at defaultBase (scheme and host, such as
// "https://searchconsole.googleapis.com"). Missing credentials or a bad
// BaseURL is an *seo.InputError naming "credentials" or "baseURL".
func New(c Config, defaultBase string) (*Client, error) {
	cl := &Client{name: cmp.Or(c.Name, "google"), base: defaultBase}
	if c.BaseURL != "" {
		u, err := url.Parse(c.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return nil, &seo.InputError{Field: "baseURL", Value: c.BaseURL, Reason: "must be an absolute http or https URL without query or fragment"}
		}
		cl.base = c.BaseURL
	}
	cl.base = strings.TrimSuffix(cl.base, "/")
	hc := c.HTTPClient
	if hc == nil {
		if c.TokenSource == nil {
			return nil, &seo.InputError{Field: "credentials", Reason: "set an OAuth 2.0 HTTPClient or a TokenSource"}
		}
		hc = &http.Client{Transport: &oauth2.Transport{Source: c.TokenSource, Base: http.DefaultTransport}}
	}
	cl.c = provider.New(cl.name, &provider.Options{
		HTTPClient: hc, Timeout: cmp.Or(c.Timeout, DefaultTimeout), MaxBody: c.MaxBody,
		UserAgent: c.UserAgent, ParseError: parseError,
	})
	return cl, nil
}

// Name returns the driver name used in error messages.
func (c *Client) Name() string { return c.name }

// Post sends in as JSON to path (already escaped, starting with "/") and
// decodes a 2xx answer into out. Failures are described in the package
// documentation; a cancelled ctx gives an error wrapping context.Canceled.
func (c *Client) Post(ctx context.Context, path string, in, out any) error {
	return c.c.Do(ctx, &provider.Request{Method: http.MethodPost, URL: c.base + path, Body: in}, out)
}

type rpcStatus struct {
	Error *struct {
		Code    int               `json:"code"`
		Message string            `json:"message"`
		Status  string            `json:"status"`
		Details []json.RawMessage `json:"details"`
		Errors  []struct {
			Reason string `json:"reason"`
		} `json:"errors"` // legacy webmasters v3 shape
	} `json:"error"`
}

type rpcDetail struct {
	Type       string `json:"@type"`
	Reason     string `json:"reason"`
	RetryDelay string `json:"retryDelay"`
}

// rateReasons are ErrorInfo and legacy reasons that mean a quota refusal.
var rateReasons = map[string]bool{
	"RATE_LIMIT_EXCEEDED":   true,
	"rateLimitExceeded":     true,
	"userRateLimitExceeded": true,
	"quotaExceeded":         true,
	"dailyLimitExceeded":    true,
}

// parseError reads a google.rpc.Status error answer: its status name, its
// message, a RetryInfo delay, and whether a status or reason means a quota
// refusal. A 404 also wraps seo.ErrNotFound.
func parseError(a *provider.ErrorAnswer) {
	if a.Status == http.StatusNotFound {
		a.Err = seo.ErrNotFound
	}
	var st rpcStatus
	if err := json.Unmarshal(a.Body, &st); err != nil || st.Error == nil {
		a.Message = "answer is not a google.rpc error: " + strconv.Quote(provider.Clean(string(a.Body), 80))
		return
	}
	a.Code, a.Message = st.Error.Status, st.Error.Message
	a.RateLimited = a.Code == "RESOURCE_EXHAUSTED"
	for _, raw := range st.Error.Details {
		var d rpcDetail
		if json.Unmarshal(raw, &d) != nil {
			continue
		}
		a.RateLimited = a.RateLimited || rateReasons[d.Reason]
		if v, err := time.ParseDuration(d.RetryDelay); err == nil && v > 0 {
			a.RetryAfter = v
		}
	}
	for _, le := range st.Error.Errors {
		a.RateLimited = a.RateLimited || rateReasons[le.Reason]
	}
}
