package httpapi

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/monitor"
	"github.com/seokit/seokit/seo"
)

// SignatureHeader carries a callback's signature (monitor.SignatureHeader):
// "t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + body)>".
const SignatureHeader = monitor.SignatureHeader

// CallbackEvent is the body POSTed to a job's callbackUrl when it ends.
type CallbackEvent struct {
	// ID is the job ID; Status its final status.
	ID         string          `json:"id"`
	Status     string          `json:"status"`
	Summary    CallbackSummary `json:"summary"`
	CreatedAt  time.Time       `json:"createdAt"`
	FinishedAt time.Time       `json:"finishedAt"`
}

// CallbackSummary is a small summary of a job's outcome; the full report
// is at GET /v1/analyze/site/{id}.
type CallbackSummary struct {
	Domain string `json:"domain"`
	// Pages counts pages fetched, Errors those that failed.
	Pages  int `json:"pages"`
	Errors int `json:"errors"`
	// Score is the site score (succeeded jobs only).
	Score *int `json:"score,omitempty"`
	// Findings counts the findings by severity (succeeded jobs only).
	Findings *seo.Counts `json:"findings,omitempty"`
	// Error is the failure message of a failed job; ErrorCode its code
	// when it has one (Job.ErrorCode: "site_unreachable").
	Error     string `json:"error,omitempty"`
	ErrorCode string `json:"errorCode,omitempty"`
	// Links.Self is the job's URL.
	Links JobLinks `json:"links"`
}

// callbackSecret is the job's signing secret: HMAC-SHA256 of the job ID
// under the master secret.
func (s *Server) callbackSecret(jobID string) string {
	m := hmac.New(sha256.New, s.cbSecret)
	m.Write([]byte(jobID))
	return "whsec_" + hex.EncodeToString(m.Sum(nil))
}

// Sign returns the SignatureHeader value for body at time t under secret
// (monitor.Sign).
func Sign(secret string, t time.Time, body []byte) string { return monitor.Sign(secret, t, body) }

// ErrBadSignature is returned by VerifyCallback for a missing, malformed,
// stale or wrong signature (monitor.ErrBadSignature).
var ErrBadSignature = monitor.ErrBadSignature

// VerifyCallback checks a callback's SignatureHeader value against its raw
// body and the job's callbackSecret. The timestamp must be within
// tolerance of now (zero means 5 minutes), which bounds replays.
func VerifyCallback(secret, header string, body []byte, tolerance time.Duration) error {
	return monitor.Verify(secret, header, body, time.Now(), tolerance)
}

// goCallback delivers a callback on a tracked goroutine.
func (s *Server) goCallback(j store.Job) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		_ = s.deliver(s.ctx, j) // left pending when the server stops; resumed at the next start
	}()
}

// event builds the callback body of a finished job.
func event(j *store.Job, base string) CallbackEvent {
	v := jobView(j, base)
	ev := CallbackEvent{ID: j.ID, Status: string(j.Status), CreatedAt: v.CreatedAt, FinishedAt: v.FinishedAt}
	ev.Summary.Domain, ev.Summary.Error, ev.Summary.ErrorCode, ev.Summary.Links = v.Domain, j.Error, v.ErrorCode, v.Links
	if v.Progress != nil {
		ev.Summary.Pages, ev.Summary.Errors = v.Progress.PagesDone, v.Progress.Errors
	}
	if len(j.Result) > 0 {
		var rep struct {
			Crawl struct {
				Fetched int `json:"fetched"`
				Errors  int `json:"errors"`
			} `json:"crawl"`
			Score *struct {
				Value  int            `json:"value"`
				Counts map[string]int `json:"counts"`
			} `json:"score"`
		}
		if json.Unmarshal(j.Result, &rep) == nil {
			ev.Summary.Pages, ev.Summary.Errors = rep.Crawl.Fetched, rep.Crawl.Errors
		}
		if rep.Score != nil {
			score := rep.Score.Value
			ev.Summary.Score = &score
			ev.Summary.Findings = &seo.Counts{Errors: rep.Score.Counts["error"], Warnings: rep.Score.Counts["warning"], Notices: rep.Score.Counts["notice"]}
		}
	}
	return ev
}

// deliver POSTs the job's callback, retrying with backoff, and records the
// outcome in CallbackState. One delivery per job runs at a time in this
// process. When ctx ends first the state stays "pending" and the error
// wraps ErrJobInterrupted, so the queue runs the job again and the
// callback is sent then.
func (s *Server) deliver(ctx context.Context, j store.Job) error {
	s.mu.Lock()
	if s.sending[j.ID] {
		s.mu.Unlock()
		return nil
	}
	s.sending[j.ID] = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.sending, j.ID)
		s.mu.Unlock()
	}()
	body, err := json.Marshal(event(&j, s.opts.BasePath))
	if err != nil {
		return nil
	}
	secret := s.callbackSecret(j.ID)
	state := "failed"
	for attempt := 0; ; attempt++ {
		err := s.post(ctx, j.CallbackURL, secret, body)
		if err == nil {
			state = "delivered"
			break
		}
		if ctx.Err() != nil {
			return interrupted(j.ID, ctx.Err())
		}
		s.log.Warn("callback failed", "job", j.ID, "attempt", attempt+1, "err", err)
		if attempt >= len(s.opts.CallbackRetryDelays) {
			break
		}
		select {
		case <-time.After(s.opts.CallbackRetryDelays[attempt]):
		case <-ctx.Done():
			return interrupted(j.ID, ctx.Err()) // stays "pending"
		}
	}
	j.CallbackState = state
	j.UpdatedAt = s.now().UTC()
	if err := s.retry(ctx, "record callback", func(ctx context.Context) error { return s.st.UpdateJob(ctx, &j) }); err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return interrupted(j.ID, err)
		}
		s.log.Warn("callback state not saved", "job", j.ID, "err", err)
	}
	return nil
}

// post makes one callback attempt through the safe fetcher's client.
func (s *Server) post(ctx context.Context, url, secret string, body []byte) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", seo.DefaultUserAgent)
	req.Header.Set(SignatureHeader, Sign(secret, s.now(), body))
	resp, err := s.fetcher.Client().Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("httpapi: callback answered %d", resp.StatusCode)
	}
	return nil
}
