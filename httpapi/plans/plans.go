package plans

import (
	"fmt"
	"math"
	"time"

	"github.com/seokit/seokit/httpapi/store"
)

// Limits is what an account of a plan may spend.
type Limits struct {
	// DailyRequests is the number of requests (and dashboard actions that
	// spend resources) counted per UTC day. An account's DailyLimit, when
	// > 0, overrides it.
	DailyRequests int
	// MaxSitePages caps options.maxPages of a site analysis.
	MaxSitePages int
	// ConcurrentSiteJobs caps the account's site analyses queued or
	// running at once.
	ConcurrentSiteJobs int
	// MaxListURLs caps options.urls of a site analysis (a list crawl);
	// zero means MaxSitePages.
	MaxListURLs int
	// RenderPages caps the pages one site analysis renders with
	// options.render; the pages beyond it are analysed as the server sent
	// them, and the report says so.
	RenderPages int
	// Projects caps the account's projects (the sites it monitors); at
	// most store.MaxProjects.
	Projects int
	// Schedules caps the account's schedules (recurring site analyses and
	// rank checks), over all its projects.
	Schedules int
	// MinScheduleInterval is the shortest time between two runs of one
	// schedule that the plan allows (monitor.Schedule.MinInterval): a
	// schedule that may run more often is refused.
	MinScheduleInterval time.Duration
	// AlertRules caps the account's alert rules, all projects together
	// (POST /v1/projects/{id}/alerts answers 409 conflict beyond it).
	AlertRules int
	// HistoryAnalyses is how many finished analyses of a project are kept:
	// when one ends, the older ones beyond it are deleted.
	HistoryAnalyses int
	// HistoryDays is how many days finished analyses are kept, those of a
	// project and those without one: when one of the account's analyses
	// ends, its analyses created longer ago are deleted.
	HistoryDays int
	// MaxLogBytes caps one log file uploaded to a project, as sent (gzip
	// or plain); decompressed it may be service.LogExpansion times that.
	MaxLogBytes int64
	// RequestRate is the requests per second an account may sustain and
	// RequestBurst how many it may send at once after a pause (a token
	// bucket of RequestBurst tokens refilled at RequestRate); beyond them
	// requests answer 429 rate_limited with Retry-After. Zero means the
	// server's (httpapi.Options.BurstRate and Burst: 50/s, burst 200).
	RequestRate  float64
	RequestBurst int
	// MCPSessions caps the MCP sessions (/mcp) the account holds open at
	// once, each with its event stream: the next initialize answers 429
	// rate_limited until one ends. Zero means the server's
	// (httpapi.AdmissionOptions.MCPSessionsPerAccount: 10).
	MCPSessions int
	// TrackedKeywords caps the keywords the account tracks (each keyword
	// with its target, locale and device, as rank trackers count them):
	// every one is re-checked daily through the server's paid SERP
	// provider, at the server's expense, so the cap is what bounds those
	// searches. Past it POST /v1/rankings/track and the dashboard refuse
	// new keywords (400 naming keywords); an account already over it, say
	// after a downgrade, keeps what it tracks. At most MaxTrackedKeywords;
	// zero (a Table built without New) means MaxTrackedKeywords.
	TrackedKeywords int
}

// MaxTrackedKeywords is the most keywords any account tracks, whatever its
// plan (the dashboard's watchlist reads no more).
const MaxTrackedKeywords = 1000

// Daily request limits of the default plans.
const (
	DefaultFreeDaily = 100
	DefaultProDaily  = 1000
)

// Names are the plans an account can have, in the order shown.
var Names = []store.Plan{store.Free, store.Pro, store.Enterprise}

// Defaults are the limits of the plans a configuration leaves unset, field
// by field. Enterprise accounts get their daily limit per account
// (store.Account.DailyLimit); a plan missing here takes Free's. A tracked
// keyword costs one search a day: Free's 10 and Pro's 500 are a tenth and
// a half of their daily requests.
var Defaults = Table{
	store.Free: {DailyRequests: DefaultFreeDaily, MaxSitePages: 500, ConcurrentSiteJobs: 1, RenderPages: 50, Projects: 3,
		Schedules: 2, MinScheduleInterval: 24 * time.Hour, AlertRules: 5,
		HistoryAnalyses: 10, HistoryDays: 30, MaxLogBytes: 20 << 20, TrackedKeywords: 10},
	store.Pro: {DailyRequests: DefaultProDaily, MaxSitePages: 10_000, ConcurrentSiteJobs: 3, RenderPages: 2_000, Projects: 50,
		Schedules: 100, MinScheduleInterval: time.Hour, AlertRules: 50,
		HistoryAnalyses: 100, HistoryDays: 365, MaxLogBytes: 2 << 30, TrackedKeywords: 500},
	store.Enterprise: {DailyRequests: DefaultFreeDaily, MaxSitePages: 10_000, ConcurrentSiteJobs: 10, RenderPages: 10_000, Projects: store.MaxProjects,
		Schedules: 1000, MinScheduleInterval: 15 * time.Minute, AlertRules: 500,
		HistoryAnalyses: 1000, HistoryDays: 730, MaxLogBytes: 10 << 30, TrackedKeywords: MaxTrackedKeywords},
}

// Table is the limits of each plan.
type Table map[store.Plan]Limits

// New returns Defaults with the configured plans merged over them: the
// non-zero fields of plans[p], then daily[p] as p's DailyRequests (a
// shorthand for the daily limits alone). A plan missing from Defaults
// starts from Free's. maxSitePages, when > 0, caps every plan's
// MaxSitePages. A negative limit is an error.
func New(plans map[store.Plan]Limits, daily map[store.Plan]int, maxSitePages int) (Table, error) {
	out := Table{}
	for p, d := range Defaults {
		out[p] = d
	}
	for p, c := range plans {
		if c.DailyRequests < 0 || c.MaxSitePages < 0 || c.ConcurrentSiteJobs < 0 || c.MaxListURLs < 0 || c.RenderPages < 0 ||
			c.Projects < 0 || c.Schedules < 0 || c.MinScheduleInterval < 0 || c.AlertRules < 0 ||
			c.HistoryAnalyses < 0 || c.HistoryDays < 0 || c.MaxLogBytes < 0 || c.RequestBurst < 0 || c.MCPSessions < 0 || c.TrackedKeywords < 0 {
			return nil, fmt.Errorf("plans: plan %q has a negative limit", p)
		}
		if c.RequestRate < 0 || math.IsNaN(c.RequestRate) || math.IsInf(c.RequestRate, 0) {
			return nil, fmt.Errorf("plans: plan %q has a request rate that is not a finite, positive number", p)
		}
		d := out.plan(p)
		if c.DailyRequests > 0 {
			d.DailyRequests = c.DailyRequests
		}
		if c.MaxSitePages > 0 {
			d.MaxSitePages = c.MaxSitePages
		}
		if c.ConcurrentSiteJobs > 0 {
			d.ConcurrentSiteJobs = c.ConcurrentSiteJobs
		}
		if c.MaxListURLs > 0 {
			d.MaxListURLs = c.MaxListURLs
		}
		if c.RenderPages > 0 {
			d.RenderPages = c.RenderPages
		}
		if c.Projects > 0 {
			d.Projects = min(c.Projects, store.MaxProjects)
		}
		if c.Schedules > 0 {
			d.Schedules = c.Schedules
		}
		if c.MinScheduleInterval > 0 {
			d.MinScheduleInterval = c.MinScheduleInterval
		}
		if c.AlertRules > 0 {
			d.AlertRules = c.AlertRules
		}
		if c.HistoryAnalyses > 0 {
			d.HistoryAnalyses = c.HistoryAnalyses
		}
		if c.HistoryDays > 0 {
			d.HistoryDays = c.HistoryDays
		}
		if c.MaxLogBytes > 0 {
			d.MaxLogBytes = c.MaxLogBytes
		}
		if c.RequestRate > 0 {
			d.RequestRate = c.RequestRate
		}
		if c.RequestBurst > 0 {
			d.RequestBurst = c.RequestBurst
		}
		if c.MCPSessions > 0 {
			d.MCPSessions = c.MCPSessions
		}
		if c.TrackedKeywords > 0 {
			d.TrackedKeywords = min(c.TrackedKeywords, MaxTrackedKeywords)
		}
		out[p] = d
	}
	for p, n := range daily {
		if n < 0 {
			return nil, fmt.Errorf("plans: limit of plan %q is negative", p)
		}
		d := out.plan(p)
		d.DailyRequests = n
		out[p] = d
	}
	if maxSitePages > 0 {
		for p, d := range out {
			d.MaxSitePages = min(d.MaxSitePages, maxSitePages)
			out[p] = d
		}
	}
	return out, nil
}

// plan returns p's limits, Free's when p is not in t.
func (t Table) plan(p store.Plan) Limits {
	if l, ok := t[p]; ok {
		return l
	}
	return t[store.Free]
}

// For returns the limits of the account: its plan's (Free's for a plan not
// in t), with its DailyLimit as DailyRequests when > 0.
func (t Table) For(a *store.Account) Limits {
	l := t.plan(a.Plan)
	if a.DailyLimit > 0 {
		l.DailyRequests = a.DailyLimit
	}
	return l
}
