// Package dataforseo is the DataForSEO v3 plumbing shared by the keyword and
// rankings drivers: HTTP Basic auth, the array-of-tasks request body, the
// response envelope with its request- and task-level status codes, and the
// mapping of provider failures to seo errors.
package dataforseo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/seokit/seokit/keywords"
	"github.com/seokit/seokit/seo"
)

// DefaultBaseURL is the DataForSEO API root.
const DefaultBaseURL = "https://api.dataforseo.com"

// DefaultTimeout bounds one API call when Client.Timeout is zero.
const DefaultTimeout = 60 * time.Second

// DefaultMaxBody caps a response body when Client.MaxBody is zero.
const DefaultMaxBody = 32 << 20

// Status codes DataForSEO reports in status_code (appendix/errors).
const (
	StatusOK          = 20000 // "Ok."
	StatusTaskCreated = 20100 // "Task Created."
)

// Client calls DataForSEO Live endpoints.
type Client struct {
	// Name prefixes error messages ("dataforseo").
	Name            string
	Login, Password string
	// BaseURL defaults to DefaultBaseURL.
	BaseURL string
	// HTTPClient defaults to a client without its own timeout.
	HTTPClient *http.Client
	// Timeout bounds one call; 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxBody caps the response body; 0 means DefaultMaxBody.
	MaxBody int64
}

// Envelope is a DataForSEO response.
type Envelope struct {
	Version       string `json:"version"`
	StatusCode    int    `json:"status_code"`
	StatusMessage string `json:"status_message"`
	TasksCount    int    `json:"tasks_count"`
	TasksError    int    `json:"tasks_error"`
	Tasks         []Task `json:"tasks"`
}

// Task is one task of a response.
type Task struct {
	ID            string          `json:"id"`
	StatusCode    int             `json:"status_code"`
	StatusMessage string          `json:"status_message"`
	ResultCount   int             `json:"result_count"`
	Result        json.RawMessage `json:"result"`
}

// RateLimitError is a provider's "slow down" answer. It wraps
// seo.ErrRateLimited.
type RateLimitError struct {
	// Provider names the driver ("dataforseo", "serpapi" ...).
	Provider string
	// Message is the provider's message.
	Message string
	// Wait is the provider's Retry-After; zero when it gave none.
	Wait time.Duration
}

// Error describes the refusal.
func (e *RateLimitError) Error() string {
	msg := fmt.Sprintf("%s: rate limited by provider: %s", e.Provider, seo.Clip(e.Message))
	if e.Wait > 0 {
		msg += fmt.Sprintf(" (retry after %s)", e.Wait)
	}
	return msg
}

// Unwrap returns seo.ErrRateLimited.
func (e *RateLimitError) Unwrap() error { return seo.ErrRateLimited }

// RetryAfter returns how long the provider asked to wait (zero if unknown).
func (e *RateLimitError) RetryAfter() time.Duration { return e.Wait }

// Location returns the location_code and language_code of loc, or an
// *seo.InputError for "locale" when DataForSEO has no code for it.
func Location(loc seo.Locale) (int, string, error) {
	code, ok := keywords.LocationCode(loc)
	if !ok {
		return 0, "", &seo.InputError{Field: "locale", Value: loc.String(), Reason: "no DataForSEO location code for this region"}
	}
	lang := strings.ToLower(loc.Language)
	if len(lang) != 2 {
		return 0, "", &seo.InputError{Field: "locale", Value: loc.String(), Reason: "a two-letter language is required"}
	}
	// DataForSEO spells Chinese by script, like Google Ads.
	if lang == "zh" {
		lang = "zh-CN"
		switch strings.ToUpper(loc.Region) {
		case "TW", "HK", "MO":
			lang = "zh-TW"
		}
	}
	return code, lang, nil
}

// Live posts one task to a Live endpoint (path such as
// "/v3/dataforseo_labs/google/keyword_suggestions/live") and returns that
// task's result. fields maps DataForSEO field names to the caller's field
// names for input errors ("keyword" -> "query").
func (c *Client) Live(ctx context.Context, path string, task any, fields map[string]string) (json.RawMessage, error) {
	tasks, err := c.Post(ctx, path, []any{task}, fields)
	if err != nil {
		return nil, err
	}
	if len(tasks) != 1 {
		return nil, fmt.Errorf("%s: %w: expected 1 task in the answer, got %d", c.name(), seo.ErrUnavailable, len(tasks))
	}
	return tasks[0].Result, nil
}

// Post sends tasks to path and returns the tasks of the answer, each with
// status 20000; the first failed task is returned as an error.
func (c *Client) Post(ctx context.Context, path string, tasks []any, fields map[string]string) ([]Task, error) {
	name := c.name()
	body, err := json.Marshal(tasks)
	if err != nil {
		return nil, fmt.Errorf("%s: encoding request: %w", name, err)
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	base := c.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(base, "/")+path, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%s: %w: building request: %v", name, seo.ErrUnavailable, err)
	}
	req.SetBasicAuth(c.Login, c.Password)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	hc := c.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", name, seo.ErrUnavailable, err)
	}
	defer resp.Body.Close()
	max := c.MaxBody
	if max <= 0 {
		max = DefaultMaxBody
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w: reading answer: %w", name, seo.ErrUnavailable, err)
	}
	if int64(len(raw)) > max {
		return nil, fmt.Errorf("%s: %w: answer larger than %d bytes: %w", name, seo.ErrUnavailable, max, seo.ErrTooLarge)
	}
	if err := httpError(name, resp, raw); err != nil {
		return nil, err
	}
	var env Envelope
	if err := json.Unmarshal(raw, &env); err != nil {
		return nil, fmt.Errorf("%s: %w: answer is not DataForSEO JSON: %v", name, seo.ErrUnavailable, err)
	}
	if env.StatusCode == 0 {
		return nil, fmt.Errorf("%s: %w: answer has no status_code", name, seo.ErrUnavailable)
	}
	if !ok(env.StatusCode) {
		return nil, StatusError(name, env.StatusCode, env.StatusMessage, fields)
	}
	if len(env.Tasks) != len(tasks) {
		return nil, fmt.Errorf("%s: %w: sent %d tasks, answer has %d", name, seo.ErrUnavailable, len(tasks), len(env.Tasks))
	}
	for _, t := range env.Tasks {
		if !ok(t.StatusCode) {
			return nil, StatusError(name, t.StatusCode, t.StatusMessage, fields)
		}
	}
	return env.Tasks, nil
}

func (c *Client) name() string {
	if c.Name == "" {
		return "dataforseo"
	}
	return c.Name
}

func ok(code int) bool { return code == StatusOK || code == StatusTaskCreated }

// httpError maps the HTTP statuses DataForSEO documents (401, 402, 404,
// 500) and any other non-200 answer.
func httpError(name string, resp *http.Response, raw []byte) error {
	if resp.StatusCode == http.StatusOK {
		return nil
	}
	msg := resp.Status
	var env Envelope
	if json.Unmarshal(raw, &env) == nil && env.StatusMessage != "" {
		msg = env.StatusMessage
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return fmt.Errorf("%s: %w: credentials rejected (HTTP %d): %s", name, seo.ErrUnavailable, resp.StatusCode, seo.Clip(msg))
	case resp.StatusCode == http.StatusPaymentRequired:
		return fmt.Errorf("%s: %w: payment required, check the account balance (HTTP 402): %s", name, seo.ErrUnavailable, seo.Clip(msg))
	case resp.StatusCode == http.StatusTooManyRequests:
		wait, _ := seo.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
		return &RateLimitError{Provider: name, Message: msg, Wait: wait}
	default:
		return fmt.Errorf("%s: %w: HTTP %d: %s", name, seo.ErrUnavailable, resp.StatusCode, seo.Clip(msg))
	}
}

var quotedField = regexp.MustCompile(`'([a-z_][a-z0-9_.]*)'`)

// StatusError maps a DataForSEO internal status code to a seo error:
//   - 40100-40199 (auth and search-engine failures such as 40101 "Internal
//     SE Server Error.") and 5xxxx: seo.ErrUnavailable;
//   - messages about rate limits or too many requests: seo.ErrRateLimited;
//   - 402xx (billing, account): seo.ErrUnavailable;
//   - 40500-40599 (invalid fields, invalid POST data): an *seo.InputError for
//     the field named in the message when fields maps it, else an error
//     wrapping seo.ErrInvalidInput;
//   - any other 4xxxx: seo.ErrUnavailable (a problem of the driver's request
//     or the account, not of the caller's input).
func StatusError(name string, code int, message string, fields map[string]string) error {
	low := strings.ToLower(message)
	switch {
	case strings.Contains(low, "rate limit") || strings.Contains(low, "rate-limit") || strings.Contains(low, "too many requests"):
		return &RateLimitError{Provider: name, Message: fmt.Sprintf("%d %s", code, message)}
	case code >= 40100 && code < 40200 && (strings.Contains(low, "auth") || strings.Contains(low, "credential")):
		return fmt.Errorf("%s: %w: credentials rejected (status %d): %s", name, seo.ErrUnavailable, code, seo.Clip(message))
	case code >= 40500 && code < 40600:
		if m := quotedField.FindStringSubmatch(message); m != nil {
			if f, ok := fields[m[1]]; ok {
				return &seo.InputError{Field: f, Reason: fmt.Sprintf("rejected by %s (status %d): %s", name, code, seo.Clip(message))}
			}
		}
		return fmt.Errorf("%s: %w: status %d: %s", name, seo.ErrInvalidInput, code, seo.Clip(message))
	default:
		return fmt.Errorf("%s: %w: status %d: %s", name, seo.ErrUnavailable, code, seo.Clip(message))
	}
}

// IsRateLimit reports whether err is a RateLimitError.
func IsRateLimit(err error) bool {
	var rl *RateLimitError
	return errors.As(err, &rl)
}
