package httpapi

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
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
	// when it has one (Job.ErrorCode: "site_unreachable", "job_timeout").
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
		if rep.Score != nil && j.Status == store.JobSucceeded {
			// A partial report's score (a canceled or timed-out crawl's)
			// is not the site's.
			score := rep.Score.Value
			ev.Summary.Score = &score
			ev.Summary.Findings = &seo.Counts{Errors: rep.Score.Counts["error"], Warnings: rep.Score.Counts["warning"], Notices: rep.Score.Counts["notice"]}
		}
	}
	return ev
}

// errJobDeleted ends a callback whose job was deleted before its body
// was built.
var errJobDeleted = errors.New("the job was deleted")

// sendCallback makes one attempt to POST a job's callback: the
// CallbackEvent, signed with the job's callbackSecret, through the safe
// fetcher's client (monitor.Webhook.Send, as alert webhooks). The body is
// built from the job at the first attempt and kept in the delivery, so
// every attempt sends the same event and a report is read once.
func (s *Server) sendCallback(ctx context.Context, d *store.Delivery, builds chan struct{}) error {
	if len(d.Payload) == 0 {
		select {
		case builds <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		j, err := s.st.Job(ctx, d.AccountID, d.JobID)
		<-builds
		if errors.Is(err, store.ErrNotFound) {
			return errJobDeleted
		}
		if err != nil {
			return fmt.Errorf("%w: %w", errStoreRead, err)
		}
		if d.Payload, err = json.Marshal(event(j, s.opts.BasePath)); err != nil {
			return err
		}
	}
	w := &monitor.Webhook{URL: d.Target, Secret: s.callbackSecret(d.JobID), Client: s.fetcher.Client(), Now: s.now}
	return w.Send(ctx, d.Payload)
}
