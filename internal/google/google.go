package google

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/oauth2"

	"github.com/seokit/seokit/seo"
)

// DefaultTimeout bounds one request (connect, send, answer and body) when
// Config.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// DefaultMaxBody caps a successful answer's body, in bytes, when
// Config.MaxBody is zero. One Search Analytics page of 25,000 rows with two
// long keys stays well under it.
const DefaultMaxBody = 32 << 20

// maxErrorBody caps how much of an error answer is read.
const maxErrorBody = 64 << 10

// maxMessage caps how much of Google's error message is repeated in ours.
const maxMessage = 300

// UserAgent is sent with every request unless Config.UserAgent is set.
const UserAgent = "seokit (+https://github.com/seokit/seokit)"

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
	// UserAgent replaces the User-Agent header; empty means UserAgent.
	UserAgent string
}

// Client calls one Google JSON API. It is safe for concurrent use.
type Client struct {
	name    string
	base    string
	hc      *http.Client
	timeout time.Duration
	maxBody int64
	ua      string
}

// New returns a client for the API at defaultBase (scheme and host, such as
// "https://searchconsole.googleapis.com"). Missing credentials or a bad
// BaseURL is an *seo.InputError naming "credentials" or "baseURL".
func New(c Config, defaultBase string) (*Client, error) {
	cl := &Client{name: c.Name, base: defaultBase, hc: c.HTTPClient, timeout: c.Timeout, maxBody: c.MaxBody, ua: c.UserAgent}
	if cl.name == "" {
		cl.name = "google"
	}
	if c.BaseURL != "" {
		u, err := url.Parse(c.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return nil, &seo.InputError{Field: "baseURL", Value: c.BaseURL, Reason: "must be an absolute http or https URL without query or fragment"}
		}
		cl.base = c.BaseURL
	}
	cl.base = strings.TrimSuffix(cl.base, "/")
	if cl.hc == nil {
		if c.TokenSource == nil {
			return nil, &seo.InputError{Field: "credentials", Reason: "set an OAuth 2.0 HTTPClient or a TokenSource"}
		}
		cl.hc = &http.Client{Transport: &oauth2.Transport{Source: c.TokenSource, Base: http.DefaultTransport}}
	}
	if cl.timeout <= 0 {
		cl.timeout = DefaultTimeout
	}
	if cl.maxBody <= 0 {
		cl.maxBody = DefaultMaxBody
	}
	if cl.ua == "" {
		cl.ua = UserAgent
	}
	return cl, nil
}

// Name returns the driver name used in error messages.
func (c *Client) Name() string { return c.name }

// Post sends in as JSON to path (already escaped, starting with "/") and
// decodes a 2xx answer into out. Failures are errors wrapping
// seo.ErrUnavailable or seo.ErrRateLimited (an *APIError when Google
// answered with an error status); a cancelled ctx gives an error wrapping
// context.Canceled.
func (c *Client) Post(ctx context.Context, path string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("%s: encode request: %w", c.name, err)
	}
	rctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, c.base+path, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%s: build request: %w", c.name, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.ua)
	resp, err := c.hc.Do(req)
	if err != nil {
		return c.transportError(ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return parseError(c.name, resp, data)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBody+1))
	if err != nil {
		return c.transportError(ctx, err)
	}
	if int64(len(data)) > c.maxBody {
		return fmt.Errorf("%s: %w: answer larger than %d bytes: %w", c.name, seo.ErrUnavailable, c.maxBody, seo.ErrTooLarge)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s: %w: answer is not the documented JSON (%v): %q", c.name, seo.ErrUnavailable, err, clip(string(data), 80))
	}
	return nil
}

func (c *Client) transportError(ctx context.Context, err error) error {
	var re *oauth2.RetrieveError
	switch {
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.Canceled):
		return fmt.Errorf("%s: request cancelled: %w", c.name, ctx.Err())
	case errors.As(err, &re):
		code := 0
		if re.Response != nil {
			code = re.Response.StatusCode
		}
		return fmt.Errorf("%s: %w: credentials rejected: token endpoint answered HTTP %d %s", c.name, seo.ErrUnavailable, code, clip(re.ErrorCode, 60))
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s: %w: no answer within %s: %w", c.name, seo.ErrUnavailable, c.timeout, context.DeadlineExceeded)
	}
	return fmt.Errorf("%s: %w: %w", c.name, seo.ErrUnavailable, err)
}

// APIError is an error answer from a Google API in the google.rpc.Status
// shape {"error":{"code","message","status","details"}}. It wraps
// seo.ErrRateLimited (HTTP 429, RESOURCE_EXHAUSTED or a quota reason) or
// seo.ErrUnavailable (everything else, including rejected credentials), and
// seo.ErrNotFound for HTTP 404.
type APIError struct {
	// API is the driver name.
	API string
	// HTTPStatus is the HTTP status code of the answer.
	HTTPStatus int
	// Status is the google.rpc status name ("RESOURCE_EXHAUSTED"), if given.
	Status string
	// Reason is the first ErrorInfo reason or legacy errors[].reason, if given.
	Reason string
	// Message is Google's message, clipped.
	Message string
	// RetryAfter is how long Google asked to wait (Retry-After header or
	// RetryInfo.retryDelay); zero when not said.
	RetryAfter time.Duration
	kinds      []error
	label      string
}

// Error returns "<api>: <label> (HTTP <code> <status>): <message>".
func (e *APIError) Error() string {
	s := fmt.Sprintf("%s: %s (HTTP %d", e.API, e.label, e.HTTPStatus)
	if e.Status != "" {
		s += " " + e.Status
	}
	s += ")"
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.RetryAfter > 0 {
		s += fmt.Sprintf("; retry after %s", e.RetryAfter)
	}
	return s
}

// Unwrap returns the seo sentinels the error belongs to.
func (e *APIError) Unwrap() []error { return e.kinds }

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

func parseError(api string, resp *http.Response, body []byte) error {
	e := &APIError{API: api, HTTPStatus: resp.StatusCode}
	var st rpcStatus
	if err := json.Unmarshal(body, &st); err == nil && st.Error != nil {
		e.Status = st.Error.Status
		e.Message = clip(st.Error.Message, maxMessage)
		for _, raw := range st.Error.Details {
			var d rpcDetail
			if json.Unmarshal(raw, &d) != nil {
				continue
			}
			if d.Reason != "" && e.Reason == "" {
				e.Reason = d.Reason
			}
			if d.RetryDelay != "" {
				if v, err := time.ParseDuration(d.RetryDelay); err == nil && v > 0 {
					e.RetryAfter = v
				}
			}
		}
		for _, le := range st.Error.Errors {
			if le.Reason != "" && e.Reason == "" {
				e.Reason = le.Reason
			}
		}
	} else {
		e.Message = "answer is not a google.rpc error: " + strconv.Quote(clip(strings.TrimSpace(string(body)), 80))
	}
	if d, ok := seo.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now()); ok && d > 0 {
		e.RetryAfter = d.Round(time.Second)
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests || e.Status == "RESOURCE_EXHAUSTED" || rateReasons[e.Reason]:
		e.label, e.kinds = "rate limited", []error{seo.ErrRateLimited}
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		e.label, e.kinds = "credentials rejected", []error{seo.ErrUnavailable}
	case resp.StatusCode == http.StatusNotFound:
		e.label, e.kinds = "not found", []error{seo.ErrUnavailable, seo.ErrNotFound}
	case resp.StatusCode >= 500:
		e.label, e.kinds = "provider error", []error{seo.ErrUnavailable}
	default:
		e.label, e.kinds = "request rejected", []error{seo.ErrUnavailable}
	}
	return e
}

// clip shortens s to at most n runes, keeping valid UTF-8.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + "…"
		}
		i++
	}
	return s
}
