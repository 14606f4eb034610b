// Package dataforseo is the DataForSEO v3 plumbing shared by the keyword and
// rankings drivers: HTTP Basic auth, the array-of-tasks request body, the
// response envelope with its request- and task-level status codes, and the
// mapping of provider failures to seo errors.
package dataforseo

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/seokit/seokit/internal/provider"
	"github.com/seokit/seokit/seo"
)

// DefaultBaseURL is the DataForSEO API root.
const DefaultBaseURL = "https://api.dataforseo.com"

// DefaultTimeout bounds one API call when Options.Timeout is zero.
const DefaultTimeout = 60 * time.Second

// Status codes DataForSEO reports in status_code (appendix/errors).
const (
	StatusOK          = 20000 // "Ok."
	StatusTaskCreated = 20100 // "Task Created."
)

// Options configures a Client. The zero value is usable.
type Options struct {
	// BaseURL defaults to DefaultBaseURL.
	BaseURL string
	// HTTPClient defaults to http.DefaultClient.
	HTTPClient *http.Client
	// Timeout bounds one call; 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxBody caps the response body; 0 means provider.DefaultMaxBody.
	MaxBody int64
}

// Client calls DataForSEO Live endpoints.
type Client struct {
	name string
	auth string
	base string
	c    *provider.Client
}

// New returns a client whose errors name the driver name ("dataforseo")
// and that authenticates with the API login and password.
func New(name, login, password string, opts *Options) *Client {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.BaseURL == "" {
		o.BaseURL = DefaultBaseURL
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	return &Client{
		name: name,
		auth: "Basic " + base64.StdEncoding.EncodeToString([]byte(login+":"+password)),
		base: strings.TrimRight(o.BaseURL, "/"),
		c: provider.New(name, &provider.Options{
			HTTPClient: o.HTTPClient, Timeout: o.Timeout, MaxBody: o.MaxBody,
			Format: "DataForSEO", ParseError: parseError,
		}),
	}
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

// parseError reads the envelope of an error answer (DataForSEO documents
// HTTP 401, 402, 404 and 500 with a status_message).
func parseError(a *provider.ErrorAnswer) {
	var env Envelope
	if json.Unmarshal(a.Body, &env) == nil && env.StatusMessage != "" {
		a.Message = env.StatusMessage
		if env.StatusCode != 0 {
			a.Code = fmt.Sprint(env.StatusCode)
		}
	}
}

// Location returns the location_code and language_code of loc, or an
// *seo.InputError for "locale" when DataForSEO has no code for it.
// locationCode maps a region to its location code (keywords.LocationCode).
func Location(loc seo.Locale, locationCode func(seo.Locale) (int, bool)) (int, string, error) {
	code, ok := locationCode(loc)
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
		return nil, fmt.Errorf("%s: %w: expected 1 task in the answer, got %d", c.name, seo.ErrUnavailable, len(tasks))
	}
	return tasks[0].Result, nil
}

// Post sends tasks to path and returns the tasks of the answer, each with
// status 20000; the first failed task is returned as an error.
func (c *Client) Post(ctx context.Context, path string, tasks []any, fields map[string]string) ([]Task, error) {
	var env Envelope
	err := c.c.Do(ctx, &provider.Request{URL: c.base + path, Header: http.Header{"Authorization": {c.auth}}, Body: tasks}, &env)
	if err != nil {
		return nil, err
	}
	if env.StatusCode == 0 {
		return nil, fmt.Errorf("%s: %w: answer has no status_code", c.name, seo.ErrUnavailable)
	}
	if !ok(env.StatusCode) {
		return nil, StatusError(c.name, env.StatusCode, env.StatusMessage, fields)
	}
	if len(env.Tasks) != len(tasks) {
		return nil, fmt.Errorf("%s: %w: sent %d tasks, answer has %d", c.name, seo.ErrUnavailable, len(tasks), len(env.Tasks))
	}
	for _, t := range env.Tasks {
		if !ok(t.StatusCode) {
			return nil, StatusError(c.name, t.StatusCode, t.StatusMessage, fields)
		}
	}
	return env.Tasks, nil
}

func ok(code int) bool { return code == StatusOK || code == StatusTaskCreated }

var quotedField = regexp.MustCompile(`'([a-z_][a-z0-9_.]*)'`)

// StatusError maps a DataForSEO internal status code to a seo error:
//   - messages about rate limits or too many requests: *seo.RateLimitError;
//   - 40100-40199 (auth and search-engine failures such as 40101 "Internal
//     SE Server Error."), 402xx (billing, account), 5xxxx and any other
//     4xxxx (a problem of the driver's request or the account, not of the
//     caller's input): *seo.ProviderError, which wraps seo.ErrUnavailable;
//   - 40500-40599 (invalid fields, invalid POST data): an *seo.InputError for
//     the field named in the message when fields maps it, else an error
//     wrapping seo.ErrInvalidInput.
func StatusError(name string, code int, message string, fields map[string]string) error {
	low := strings.ToLower(message)
	switch {
	case strings.Contains(low, "rate limit") || strings.Contains(low, "rate-limit") || strings.Contains(low, "too many requests"):
		return &seo.RateLimitError{Provider: name, Message: fmt.Sprintf("%d %s", code, provider.Clean(message, seo.MaxEvidenceValue))}
	case code >= 40500 && code < 40600:
		if m := quotedField.FindStringSubmatch(message); m != nil {
			if f, ok := fields[m[1]]; ok {
				return &seo.InputError{Field: f, Reason: fmt.Sprintf("rejected by %s (status %d): %s", name, code, seo.Clip(message))}
			}
		}
		return fmt.Errorf("%s: %w: status %d: %s", name, seo.ErrInvalidInput, code, seo.Clip(message))
	default:
		return &seo.ProviderError{Provider: name, Code: fmt.Sprint(code), Message: provider.Clean(message, seo.MaxEvidenceValue)}
	}
}
