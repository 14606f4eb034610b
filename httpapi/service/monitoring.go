package service

import (
	"context"
	"encoding/json"
	"time"

	"github.com/seokit/seokit/monitor"
)

// Schedules is the schedules service: a project's recurring site analyses
// and rank checks. The API server implements it (httpapi.Server.Schedules);
// the schedule handlers and the dashboard's project page call it. The
// runs themselves are the server's runtime.
type Schedules interface {
	// Create adds a schedule to the account's project, within its plan's
	// caps (a conflict over them) and minimum interval (bad input naming
	// "spec").
	Create(ctx context.Context, accountID, projectID string, req ScheduleRequest) (*Schedule, error)
	// List returns the project's schedules.
	List(ctx context.Context, accountID, projectID string) ([]Schedule, error)
	// Update changes the fields req sends; a schedule of another project
	// is not found.
	Update(ctx context.Context, accountID, projectID, id string, req ScheduleRequest) (*Schedule, error)
	// Delete removes the schedule.
	Delete(ctx context.Context, accountID, projectID, id string) error
}

// Alerts is the alerts service: a project's alert rules, their delivery
// log and test alerts. The API server implements it
// (httpapi.Server.Alerts); the alert handlers and the dashboard's project
// page call it. Evaluating rules and delivering alerts is the server's
// runtime.
type Alerts interface {
	// CreateRule adds a rule to the account's project, within its plan's
	// caps. A webhook rule's Secret is set, shown once.
	CreateRule(ctx context.Context, accountID, projectID string, req AlertRuleRequest) (*AlertRule, error)
	// Rules returns the project's rules.
	Rules(ctx context.Context, accountID, projectID string) ([]AlertRule, error)
	// UpdateRule changes the fields req sends; Secret is set when the
	// rule becomes a webhook rule.
	UpdateRule(ctx context.Context, accountID, projectID, id string, req AlertRuleRequest) (*AlertRule, error)
	// DeleteRule removes the rule.
	DeleteRule(ctx context.Context, accountID, projectID, id string) error
	// Deliveries returns the project's alert log, newest first, at most
	// limit (1 to store.MaxAlertDeliveries).
	Deliveries(ctx context.Context, accountID, projectID string, limit int) ([]AlertDelivery, error)
	// Test sends a test alert through the rule's channel at once and says
	// whether it was delivered; the attempt is logged and counts one unit
	// of the account's daily quota (service.Due: none more when a request
	// paid it).
	Test(ctx context.Context, accountID, projectID, id string) (*AlertTestResult, error)
}

// ScheduleRequest is the body of POST /v1/projects/{id}/schedules and, with
// every field optional, of PATCH /v1/projects/{id}/schedules/{sid}.
type ScheduleRequest struct {
	// Kind is "site" (a site analysis of the project's domain with its
	// saved crawl configuration) or "rankings" (a rank check of its tracked
	// keywords); it cannot change.
	Kind string `json:"kind,omitempty"`
	// Spec is "hourly", "daily", "daily@HH:MM", "weekly", "weekly@mon
	// HH:MM" or a 5-field cron expression, in the project's time zone
	// (monitor.ParseSchedule).
	Spec *string `json:"spec,omitempty"`
	// Paused stops the runs; resuming computes the next run from now.
	Paused *bool `json:"paused,omitempty"`
}

// Schedule is the API's view of a schedule. Times are RFC 3339 in the
// project's time zone.
type Schedule struct {
	ID        string `json:"id"`
	ProjectID string `json:"projectId"`
	Kind      string `json:"kind"`
	Spec      string `json:"spec"`
	// Cron is the spec as a 5-field cron expression.
	Cron string `json:"cron"`
	// TimeZone is the IANA zone the spec is read in (the project's); the
	// times below are UTC, as everywhere in the API.
	TimeZone string `json:"timeZone"`
	Paused   bool   `json:"paused"`
	// NextRun is the next due time; null while paused.
	NextRun *time.Time `json:"nextRun"`
	// LastRun is the due time of the latest run; null before the first.
	LastRun *time.Time `json:"lastRun"`
	// LastJobID is the site analysis of the latest run, if it made one.
	LastJobID string `json:"lastJobId,omitempty"`
	// LastError says why the latest run was skipped or failed.
	LastError string    `json:"lastError,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
}

// ScheduleList is the body of GET /v1/projects/{id}/schedules.
type ScheduleList struct {
	Schedules []Schedule `json:"schedules"`
}

// AlertRuleRequest is the body of POST /v1/projects/{id}/alerts and, every
// field optional, of PATCH /v1/projects/{id}/alerts/{aid}.
type AlertRuleRequest struct {
	// Kind is the rule kind: new_findings, top_page_changed,
	// robots_changed, sitemaps_changed, pages_lost, score_drop or
	// keyword_drop.
	Kind string `json:"kind,omitempty"`
	// Params are the kind's parameters (monitor.Params): severity, topN,
	// minPages, points, positions.
	Params json.RawMessage `json:"params,omitempty"`
	// Channel is webhook, slack or email; Target its URL or address.
	Channel string `json:"channel,omitempty"`
	Target  string `json:"target,omitempty"`
	// Muted mutes (true) or unmutes (false, which clears mutedUntil) the
	// rule; MutedUntil mutes it until then.
	Muted      *bool      `json:"muted,omitempty"`
	MutedUntil *time.Time `json:"mutedUntil,omitempty"`
}

// AlertRule is an alert rule as the API shows it.
type AlertRule struct {
	ID        string          `json:"id"`
	ProjectID string          `json:"projectId"`
	Kind      string          `json:"kind"`
	Params    json.RawMessage `json:"params"`
	Channel   string          `json:"channel"`
	Target    string          `json:"target"`
	// Secret is a webhook rule's signing secret, shown once: when the rule
	// is created or becomes a webhook rule. Receivers verify the
	// Seokit-Signature header with it, as for site-analysis callbacks.
	Secret     string     `json:"secret,omitempty"`
	Muted      bool       `json:"muted"`
	MutedUntil *time.Time `json:"mutedUntil,omitempty"`
	CreatedAt  time.Time  `json:"createdAt"`
	UpdatedAt  time.Time  `json:"updatedAt"`
}

// AlertRuleList is the answer of GET /v1/projects/{id}/alerts.
type AlertRuleList struct {
	Rules []AlertRule `json:"rules"`
}

// AlertDelivery is one line of a project's alert log.
type AlertDelivery struct {
	ID     string `json:"id"`
	RuleID string `json:"ruleId"`
	// JobID is the analysis whose evaluation raised the alert (absent for
	// a test alert).
	JobID string `json:"jobId,omitempty"`
	// State is pending, delivered, failed or suppressed (muted rule,
	// cool-down); LastError says why an attempt failed or why the alert
	// was suppressed.
	State       string     `json:"state"`
	Attempts    int        `json:"attempts"`
	NextAttempt *time.Time `json:"nextAttempt,omitempty"`
	LastError   string     `json:"lastError,omitempty"`
	CreatedAt   time.Time  `json:"createdAt"`
	DeliveredAt *time.Time `json:"deliveredAt,omitempty"`
	// Alert is what was (or is to be) sent (monitor.Alert).
	Alert json.RawMessage `json:"alert,omitempty"`
}

// AlertDeliveryList is the answer of GET /v1/projects/{id}/alerts/deliveries.
type AlertDeliveryList struct {
	Deliveries []AlertDelivery `json:"deliveries"`
}

// AlertTestResult is the answer of POST /v1/projects/{id}/alerts/{aid}/test.
type AlertTestResult struct {
	// State is delivered or failed; Error says why it failed.
	State string         `json:"state"`
	Error string         `json:"error,omitempty"`
	Alert *monitor.Alert `json:"alert"`
}
