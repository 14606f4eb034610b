package provider

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/seo"
)

// answer is one canned answer of the test server.
type answer struct {
	status int
	header map[string]string
	body   string
	delay  time.Duration
}

func serve(t *testing.T, a answer) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a.delay > 0 {
			select {
			case <-time.After(a.delay):
			case <-r.Context().Done():
				return
			}
		}
		for k, v := range a.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(a.status)
		w.Write([]byte(a.body))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// parseTest reads {"error":{"status","message","delay"}}.
func parseTest(a *ErrorAnswer) {
	var e struct {
		Error *struct {
			Status  string `json:"status"`
			Message string `json:"message"`
			Delay   string `json:"delay"`
		} `json:"error"`
	}
	if a.Status == http.StatusNotFound {
		a.Err = seo.ErrNotFound
	}
	if json.Unmarshal(a.Body, &e) != nil || e.Error == nil {
		return
	}
	a.Code, a.Message = e.Error.Status, e.Error.Message
	a.RateLimited = a.Code == "RESOURCE_EXHAUSTED"
	if d, err := time.ParseDuration(e.Error.Delay); err == nil {
		a.RetryAfter = d
	}
}

func TestDo(t *testing.T) {
	inAMinute := time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)
	tests := []struct {
		name    string
		answer  answer
		is      []error
		isNot   []error
		msg     string        // in the error text
		status  int           // of the *seo.ProviderError, if one is wanted
		code    string        // its Code
		retry   time.Duration // of the *seo.RateLimitError, if one is wanted
		retryUp time.Duration // upper bound of retry when not exact
	}{
		{name: "200 decodes", answer: answer{status: 200, body: `{"ok":true}`}},
		{name: "204 empty", answer: answer{status: 204}, is: []error{seo.ErrUnavailable}, msg: "answer is not Test JSON"},
		{name: "200 garbage", answer: answer{status: 200, body: "<html>"}, is: []error{seo.ErrUnavailable}, msg: "answer is not Test JSON"},
		{name: "401", answer: answer{status: 401, body: `{"error":{"status":"UNAUTHENTICATED","message":"bad key"}}`}, is: []error{seo.ErrUnavailable}, isNot: []error{seo.ErrRateLimited}, msg: "t: credentials rejected (HTTP 401 UNAUTHENTICATED): bad key", status: 401, code: "UNAUTHENTICATED"},
		{name: "403", answer: answer{status: 403}, is: []error{seo.ErrUnavailable}, msg: "credentials rejected (HTTP 403): 403 Forbidden", status: 403},
		{name: "402", answer: answer{status: 402}, is: []error{seo.ErrUnavailable}, msg: "payment required", status: 402},
		{name: "404 with parser's cause", answer: answer{status: 404}, is: []error{seo.ErrUnavailable, seo.ErrNotFound}, msg: "not found (HTTP 404)", status: 404},
		{name: "400", answer: answer{status: 400, body: `{"error":{"status":"INVALID_ARGUMENT","message":"bad q"}}`}, is: []error{seo.ErrUnavailable}, msg: "request rejected (HTTP 400 INVALID_ARGUMENT): bad q", status: 400, code: "INVALID_ARGUMENT"},
		{name: "500", answer: answer{status: 500, body: "oops"}, is: []error{seo.ErrUnavailable}, isNot: []error{seo.ErrRateLimited}, msg: "provider error (HTTP 500): 500 Internal Server Error", status: 500},
		{name: "503 without retry-after", answer: answer{status: 503}, is: []error{seo.ErrUnavailable}, isNot: []error{seo.ErrRateLimited}, msg: "HTTP 503", status: 503},
		{name: "503 with retry-after", answer: answer{status: 503, header: map[string]string{"Retry-After": "120"}}, is: []error{seo.ErrRateLimited, seo.ErrUnavailable}, msg: "retry after 2m0s", retry: 2 * time.Minute},
		{name: "429 seconds", answer: answer{status: 429, header: map[string]string{"Retry-After": "30"}}, is: []error{seo.ErrRateLimited}, isNot: []error{seo.ErrUnavailable}, msg: "t: rate limited by provider: 429 Too Many Requests (retry after 30s)", retry: 30 * time.Second},
		{name: "429 http date", answer: answer{status: 429, header: map[string]string{"Retry-After": inAMinute}}, is: []error{seo.ErrRateLimited}, retry: 85 * time.Second, retryUp: 91 * time.Second},
		{name: "429 date in the past", answer: answer{status: 429, header: map[string]string{"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}}, is: []error{seo.ErrRateLimited}, retry: 0},
		{name: "429 unreadable retry-after", answer: answer{status: 429, header: map[string]string{"Retry-After": "soon"}}, is: []error{seo.ErrRateLimited}, retry: 0},
		{name: "429 huge retry-after is capped", answer: answer{status: 429, header: map[string]string{"Retry-After": "99999999999"}}, is: []error{seo.ErrRateLimited}, retry: MaxRetryAfter},
		{name: "429 no header", answer: answer{status: 429}, is: []error{seo.ErrRateLimited}, retry: 0},
		{name: "quota in the body", answer: answer{status: 403, body: `{"error":{"status":"RESOURCE_EXHAUSTED","message":"quota","delay":"7s"}}`}, is: []error{seo.ErrRateLimited}, isNot: []error{seo.ErrUnavailable}, msg: "quota", retry: 7 * time.Second},
		{name: "header wins over body delay", answer: answer{status: 429, header: map[string]string{"Retry-After": "3"}, body: `{"error":{"delay":"7s"}}`}, is: []error{seo.ErrRateLimited}, retry: 3 * time.Second},
		{name: "message cleaned and clipped", answer: answer{status: 500, body: `{"error":{"message":"line1\nline2\u0007 ` + strings.Repeat("x", 1000) + `"}}`}, is: []error{seo.ErrUnavailable}, msg: "line1 line2 xxx", status: 500},
		{name: "body over the cap", answer: answer{status: 200, body: `{"ok":"` + strings.Repeat("x", 2000) + `"}`}, is: []error{seo.ErrUnavailable, seo.ErrTooLarge}, msg: "1024"},
		{name: "slow server", answer: answer{status: 200, body: `{}`, delay: time.Minute}, is: []error{seo.ErrUnavailable, context.DeadlineExceeded}, msg: "no answer within 200ms"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := serve(t, tc.answer)
			c := New("t", &Options{Timeout: 200 * time.Millisecond, MaxBody: 1024, Format: "Test", ParseError: parseTest})
			var out struct{ OK bool }
			start := time.Now()
			err := c.Do(context.Background(), &Request{URL: srv.URL + "/x?key=secret"}, &out)
			if time.Since(start) > 30*time.Second { // far below the slow answer's minute
				t.Errorf("took %s, the timeout is 200ms", time.Since(start))
			}
			if tc.is == nil {
				if err != nil || !out.OK {
					t.Fatalf("Do = %v, out %+v", err, out)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.is {
				if !errors.Is(err, w) {
					t.Errorf("error %q does not wrap %v", err, w)
				}
			}
			for _, w := range tc.isNot {
				if errors.Is(err, w) {
					t.Errorf("error %q wraps %v", err, w)
				}
			}
			if !strings.HasPrefix(err.Error(), "t: ") || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q: want prefix %q and %q", err, "t: ", tc.msg)
			}
			if strings.Contains(err.Error(), "secret") || len(err.Error()) > 500 || strings.ContainsAny(err.Error(), "\n\a") {
				t.Errorf("error %q leaks the key, is long or has control characters", err)
			}
			var pe *seo.ProviderError
			if errors.As(err, &pe) != (tc.status != 0) || (pe != nil && (pe.Status != tc.status || pe.Code != tc.code || pe.Provider != "t")) {
				t.Errorf("error %#v: want a ProviderError with status %d code %q", err, tc.status, tc.code)
			}
			var rl *seo.RateLimitError
			if errors.As(err, &rl) != errors.Is(err, seo.ErrRateLimited) {
				t.Fatalf("error %#v: a rate limit must be a *seo.RateLimitError", err)
			}
			if rl != nil {
				if tc.retryUp == 0 && rl.RetryAfter != tc.retry || tc.retryUp != 0 && (rl.RetryAfter < tc.retry || rl.RetryAfter > tc.retryUp) {
					t.Errorf("RetryAfter = %s, want %s (up to %s)", rl.RetryAfter, tc.retry, tc.retryUp)
				}
				if rl.Provider != "t" {
					t.Errorf("Provider = %q", rl.Provider)
				}
			}
		})
	}
}

func TestDoCancelled(t *testing.T) {
	// The answer would come long after the cancellation, however slow the machine.
	srv := serve(t, answer{status: 200, body: `{}`, delay: time.Minute})
	c := New("t", &Options{Timeout: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	defer time.AfterFunc(50*time.Millisecond, cancel).Stop()
	err := c.Do(ctx, &Request{URL: srv.URL}, nil)
	if !errors.Is(err, context.Canceled) || errors.Is(err, seo.ErrUnavailable) {
		t.Fatalf("err = %v, want context.Canceled only", err)
	}
}

func TestDoRequest(t *testing.T) {
	var (
		mu   sync.Mutex
		got  *http.Request
		body map[string]any
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = r.Clone(context.Background())
		json.NewDecoder(r.Body).Decode(&body)
		mu.Unlock()
		w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	tests := []struct {
		name, ua, wantUA, wantMethod, wantType string
		body                                   any
	}{
		{name: "get", wantUA: UserAgent, wantMethod: "GET"},
		{name: "post json", ua: "custom/1", wantUA: "custom/1", wantMethod: "POST", wantType: "application/json", body: map[string]int{"a": 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := New("t", &Options{UserAgent: tc.ua})
			h := http.Header{"X-Key": {"k"}}
			if err := c.Do(context.Background(), &Request{URL: srv.URL + "/p", Header: h, Body: tc.body}, nil); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if got.Method != tc.wantMethod || got.UserAgent() != tc.wantUA || got.Header.Get("Content-Type") != tc.wantType ||
				got.Header.Get("Accept") != "application/json" || got.Header.Get("X-Key") != "k" {
				t.Errorf("request %s UA %q type %q headers %v", got.Method, got.UserAgent(), got.Header.Get("Content-Type"), got.Header)
			}
			if tc.body != nil && body["a"] != 1.0 {
				t.Errorf("body = %v", body)
			}
		})
	}
}

func TestDoNetworkErrorHidesURL(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens any more
	err := New("t", nil).Do(context.Background(), &Request{URL: url + "/?api_key=secret"}, nil)
	if !errors.Is(err, seo.ErrUnavailable) || strings.Contains(err.Error(), "secret") {
		t.Fatalf("err = %v, want unavailable without the key", err)
	}
}
