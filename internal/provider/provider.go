package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"

	"golang.org/x/oauth2"

	"github.com/seokit/seokit/seo"
)

// Defaults and caps of a Client.
const (
	// DefaultTimeout bounds one request when Options.Timeout is zero.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxBody caps a successful answer's body when Options.MaxBody
	// is zero.
	DefaultMaxBody = 32 << 20
	// MaxErrorBody caps how much of an error answer is read.
	MaxErrorBody = 64 << 10
	// MaxRetryAfter caps the wait of a rate-limit error: longer than a day
	// means a quota that a retry loop should not sleep through.
	MaxRetryAfter = 24 * time.Hour
	// UserAgent is sent with every request unless Options.UserAgent is set.
	UserAgent = "seokit (+https://github.com/seokit/seokit)"
)

// Options configures a Client. The zero value is usable.
type Options struct {
	// HTTPClient sends the requests; nil means http.DefaultClient.
	HTTPClient *http.Client
	// Timeout bounds one request, answer body included; zero means
	// DefaultTimeout.
	Timeout time.Duration
	// MaxBody caps a successful answer's body; zero means DefaultMaxBody.
	MaxBody int64
	// UserAgent replaces the User-Agent header; "" means UserAgent.
	UserAgent string
	// Format names the answer format in decoding errors ("SerpApi" gives
	// "answer is not SerpApi JSON"); "" means "the documented".
	Format string
	// ParseError reads the provider's error format from an error answer,
	// filling its Code, Message, RateLimited, RetryAfter and Err; nil
	// leaves the message as the HTTP status line.
	ParseError func(*ErrorAnswer)
}

// ErrorAnswer is a non-2xx answer, as given to Options.ParseError.
type ErrorAnswer struct {
	// Status is the HTTP status code.
	Status int
	// Header is the answer's header.
	Header http.Header
	// Body is the start of the body, at most MaxErrorBody bytes.
	Body []byte

	// Code is the provider's status name or code, if any.
	Code string
	// Message is the provider's message; it starts as the status line
	// ("500 Internal Server Error"). The client cleans and clips it.
	Message string
	// RateLimited marks a quota refusal the body reveals (a status such as
	// RESOURCE_EXHAUSTED) whatever the HTTP status.
	RateLimited bool
	// RetryAfter is a delay given in the body; a Retry-After header wins.
	RetryAfter time.Duration
	// Err is a more precise cause for the *seo.ProviderError (seo.ErrNotFound).
	Err error
}

// Client calls one provider's API. It is safe for concurrent use.
type Client struct {
	name string
	o    Options
}

// New returns a client whose errors name the driver name ("serpapi").
func New(name string, opts *Options) *Client {
	c := &Client{name: name}
	if opts != nil {
		c.o = *opts
	}
	if c.o.HTTPClient == nil {
		c.o.HTTPClient = http.DefaultClient
	}
	if c.o.Timeout <= 0 {
		c.o.Timeout = DefaultTimeout
	}
	if c.o.MaxBody <= 0 {
		c.o.MaxBody = DefaultMaxBody
	}
	if c.o.UserAgent == "" {
		c.o.UserAgent = UserAgent
	}
	if c.o.Format == "" {
		c.o.Format = "the documented"
	}
	return c
}

// Name returns the driver name used in errors.
func (c *Client) Name() string { return c.name }

// Request is one API call.
type Request struct {
	// Method is the HTTP method; "" means GET, or POST when Body is set.
	Method string
	// URL is the absolute request URL.
	URL string
	// Header holds extra headers (credentials, API options).
	Header http.Header
	// Body, when not nil, is sent encoded as JSON.
	Body any
}

// Do sends r and decodes a 2xx answer's JSON into out (nil skips decoding).
// Its errors are described in the package documentation.
func (c *Client) Do(ctx context.Context, r *Request, out any) error {
	method := r.Method
	var body io.Reader
	if r.Body != nil {
		b, err := json.Marshal(r.Body)
		if err != nil {
			return fmt.Errorf("%s: encoding request: %w", c.name, err)
		}
		body = bytes.NewReader(b)
		if method == "" {
			method = http.MethodPost
		}
	}
	if method == "" {
		method = http.MethodGet
	}
	rctx, cancel := context.WithTimeout(ctx, c.o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, method, r.URL, body)
	if err != nil {
		return fmt.Errorf("%s: %w: building request: %v", c.name, seo.ErrUnavailable, unwrapURL(err))
	}
	for k, vs := range r.Header {
		req.Header[k] = vs
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.o.UserAgent)
	resp, err := c.o.HTTPClient.Do(req)
	if err != nil {
		return c.transportError(ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, MaxErrorBody))
		return c.statusError(resp, raw)
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, c.o.MaxBody+1))
	if err != nil {
		return c.transportError(ctx, err)
	}
	if int64(len(raw)) > c.o.MaxBody {
		return fmt.Errorf("%s: %w: answer larger than the %d-byte cap: %w", c.name, seo.ErrUnavailable, c.o.MaxBody, seo.ErrTooLarge)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s: %w: answer is not %s JSON: %v", c.name, seo.ErrUnavailable, c.o.Format, err)
	}
	return nil
}

// transportError maps a failure to get or read an answer; ctx is the
// caller's context, to tell its cancellation from the client's timeout.
func (c *Client) transportError(ctx context.Context, err error) error {
	var re *oauth2.RetrieveError
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		return fmt.Errorf("%s: request cancelled: %w", c.name, ctx.Err())
	case errors.As(err, &re):
		code := 0
		if re.Response != nil {
			code = re.Response.StatusCode
		}
		return fmt.Errorf("%s: %w: credentials rejected: token endpoint answered HTTP %d %s", c.name, seo.ErrUnavailable, code, Clean(re.ErrorCode, 60))
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s: %w: no answer within %s: %w", c.name, seo.ErrUnavailable, c.o.Timeout, context.DeadlineExceeded)
	}
	return fmt.Errorf("%s: %w: %w", c.name, seo.ErrUnavailable, unwrapURL(err))
}

// unwrapURL drops the *url.Error layer, whose message repeats the request
// URL and with it any API key in the query.
func unwrapURL(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}

// statusError maps a non-2xx answer.
func (c *Client) statusError(resp *http.Response, raw []byte) error {
	a := &ErrorAnswer{Status: resp.StatusCode, Header: resp.Header, Body: raw, Message: resp.Status}
	if c.o.ParseError != nil {
		c.o.ParseError(a)
	}
	wait, hasHeader := RetryAfter(resp.Header, time.Now())
	if hasHeader {
		a.RetryAfter = wait
	}
	a.RetryAfter = min(max(a.RetryAfter, 0), MaxRetryAfter)
	msg := Clean(a.Message, seo.MaxEvidenceValue)
	if a.Status == http.StatusTooManyRequests || a.RateLimited || (a.Status == http.StatusServiceUnavailable && hasHeader) {
		return &seo.RateLimitError{Provider: c.name, Status: a.Status, Message: msg, RetryAfter: a.RetryAfter}
	}
	return &seo.ProviderError{Provider: c.name, Status: a.Status, Code: Clean(a.Code, 60), Message: msg, Err: a.Err}
}

// RetryAfter reads the Retry-After header of h (delay seconds or an HTTP
// date, as seo.ParseRetryAfter does), rounded to the second and capped at
// MaxRetryAfter; ok is false when there is none or it is unreadable.
func RetryAfter(h http.Header, now time.Time) (wait time.Duration, ok bool) {
	wait, ok = seo.ParseRetryAfter(h.Get("Retry-After"), now)
	return min(wait.Round(time.Second), MaxRetryAfter), ok
}

// Clean makes a provider's text safe to repeat in an error: valid UTF-8,
// control characters and runs of spaces folded to one space, at most n
// runes (an ellipsis marks a cut).
func Clean(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + "…"
		}
		i++
	}
	return s
}
