package service

import (
	"context"
	"time"

	"github.com/seokit/seokit/fieldvitals"
	"github.com/seokit/seokit/indexstatus"
)

// IndexStatus is the index status service: Search Console URL Inspection
// of a budgeted sample of a site analysis's pages, joined to its report
// (POST and GET /v1/analyze/site/{id}/index-status). The API server
// implements it (httpapi.Server.IndexStatus).
type IndexStatus interface {
	// Start validates req and starts inspecting a sample of the pages of
	// the account's analysis id in the background; the run is charged to
	// the account's daily quota as it goes (one unit per
	// IndexInspectionsPerUnit inspections, the first paid by the
	// request), and a refusal stops it with the pages left
	// "not_inspected" (account_quota). A run already going for the
	// analysis (on any instance sharing the store) is returned as it
	// is. When the run ends, its index.* findings are merged into the
	// analysis's stored report and the project's alert rules evaluated
	// on it. Bad input is an *seo.InputError
	// ("property", "sampleSize"); an unknown analysis a *NotFoundError;
	// one without a report a *ConflictError; a property the server's
	// operator has not granted the account a *ForbiddenError, before
	// anything is charged or inspected; a server without an inspector a
	// *NotConfiguredError.
	Start(ctx context.Context, accountID, id string, req IndexStatusRequest) (*IndexStatusRun, error)
	// Get returns the latest run of the analysis id; a *NotFoundError
	// when none was started. Runs are kept in the store when it
	// implements store.IndexStatus (else in the process's memory); a run
	// whose server stopped before it ended is "failed" with an error
	// starting "interrupted", its progress kept.
	Get(ctx context.Context, accountID, id string) (*IndexStatusRun, error)
}

// IndexInspectionsPerUnit is the inspections one unit of the daily quota
// pays for.
const IndexInspectionsPerUnit = 100

// MaxIndexSample is the largest IndexStatusRequest.SampleSize: a
// property's daily quota.
const MaxIndexSample = indexstatus.DefaultPerDay

// IndexStatusRequest asks for the index status of an analysis's pages.
type IndexStatusRequest struct {
	// Property is the Search Console property ("sc-domain:example.com" or
	// "https://www.example.com/"); empty means "sc-domain:" and the
	// analysis's domain.
	Property string `json:"property,omitempty"`
	// SampleSize is the most pages inspected, 1 to MaxIndexSample; 0
	// means all the property has left today.
	SampleSize int `json:"sampleSize,omitempty"`
}

// Statuses of an IndexStatusRun.
const (
	IndexRunning   = "running"
	IndexSucceeded = "succeeded"
	IndexFailed    = "failed"
)

// IndexStatusRun is one index status run of an analysis.
type IndexStatusRun struct {
	AnalysisID string    `json:"analysisId"`
	Property   string    `json:"property"`
	Status     string    `json:"status"`
	StartedAt  time.Time `json:"startedAt"`
	// Progress counts the sampled pages settled so far.
	Progress indexstatus.Progress `json:"progress"`
	// Error says why a failed run failed.
	Error string `json:"error,omitempty"`
	// Report is the joined result; null while running.
	Report *indexstatus.Report `json:"report"`
}

// FieldVitals is the field Web Vitals service (GET /v1/field-vitals and
// GET /v1/projects/{id}/field-vitals). The API server implements it
// (httpapi.Server.FieldVitals).
type FieldVitals interface {
	// Lookup validates req, charges one unit of the account's daily quota
	// per CrUX call (the record, and the history when asked; less what
	// the request paid) and returns the record, the history and, with an
	// analysis, the lab values of the same page beside the field ones.
	// Bad input is an *seo.InputError ("url", "origin", "formFactor",
	// "analysisId"); a server without a CrUX source answers a
	// *NotConfiguredError. No data is a record with status
	// insufficient_data, not an error.
	Lookup(ctx context.Context, accountID string, req FieldVitalsRequest) (*FieldVitalsResponse, error)
	// Project returns the field vitals of the origin of the account's
	// project id (https:// and its domain) with their history, for the
	// project's trend; costs and errors as Lookup's.
	Project(ctx context.Context, accountID, id string, formFactor fieldvitals.FormFactor) (*FieldVitalsResponse, error)
}

// FieldVitalsRequest asks for the field vitals of a URL or an origin.
type FieldVitalsRequest struct {
	fieldvitals.Query
	// History adds the weekly series (the CrUX History API).
	History bool
	// AnalysisID, when set, names a site analysis of the account whose
	// lab vitals of the same URL (or, for an origin, its start page) are
	// set beside the field values.
	AnalysisID string
}

// FieldVitalsResponse is the body of GET /v1/field-vitals.
type FieldVitalsResponse struct {
	Record  *fieldvitals.Record  `json:"record"`
	History *fieldvitals.History `json:"history,omitempty"`
	// Lab is the analysis's lab values; null without an analysis or when
	// the analysis has no such page, or did not render it.
	Lab         *fieldvitals.Lab         `json:"lab,omitempty"`
	Compare     []fieldvitals.Comparison `json:"compare,omitempty"`
	Explanation string                   `json:"explanation,omitempty"`
}
