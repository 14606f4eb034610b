package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/compare"
	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/seo"
)

// AnalysisRef names a site analysis of the account.
type AnalysisRef struct {
	// ID is the analysis's id (start_site_analysis, list_site_analyses).
	ID string `json:"id" jsonschema:"the site analysis id"`
}

// ReportSummary is the head of a site analysis's report: its score,
// counts and crawl statistics, without its lists.
type ReportSummary struct {
	Score         *seo.Score            `json:"score"`
	ScoreReason   string                `json:"scoreReason,omitempty"`
	Pages         int                   `json:"pages"`
	NotFetched    int                   `json:"notFetched"`
	Crawl         crawler.CrawlStats    `json:"crawl"`
	FindingCounts crawler.FindingCounts `json:"findingCounts"`
	// Checks counts the distinct finding IDs (site_findings pages them).
	Checks int `json:"checks"`
	// Segments and Templates name the page groups site_findings and
	// site_pages filter by.
	Segments  []string `json:"segments,omitempty"`
	Templates []string `json:"templates,omitempty"`
	// AICrawlers is true when the report has the AI crawler readiness
	// section (ai_crawlers).
	AICrawlers bool          `json:"aiCrawlers"`
	Truncated  seo.Truncated `json:"truncated,omitempty"`
}

// Analysis is a site analysis as tools show it: the /v1 job
// (service.Job) without its options and report, which get_project and the
// report's tools show.
type Analysis struct {
	ID         string               `json:"id"`
	Status     string               `json:"status"`
	Domain     string               `json:"domain"`
	URL        string               `json:"url,omitempty"`
	ProjectID  string               `json:"projectId,omitempty"`
	MaxPages   int                  `json:"maxPages,omitempty"`
	Render     string               `json:"render,omitempty"`
	CreatedAt  time.Time            `json:"createdAt"`
	StartedAt  time.Time            `json:"startedAt,omitzero"`
	FinishedAt time.Time            `json:"finishedAt,omitzero"`
	Progress   *service.JobProgress `json:"progress,omitempty"`
	Error      string               `json:"error,omitempty"`
	ErrorCode  string               `json:"errorCode,omitempty"`
	Callback   *service.JobCallback `json:"callback,omitempty"`
	// CallbackSecret is returned once, by start_site_analysis: the key
	// that signs the callback.
	CallbackSecret string `json:"callbackSecret,omitempty"`
}

func analysisOf(j *service.Job) *Analysis {
	return &Analysis{ID: j.ID, Status: j.Status, Domain: j.Domain, URL: j.URL, ProjectID: j.ProjectID, MaxPages: j.Options.MaxPages,
		Render: j.Options.Render, CreatedAt: j.CreatedAt, StartedAt: j.StartedAt, FinishedAt: j.FinishedAt, Progress: j.Progress,
		Error: j.Error, ErrorCode: j.ErrorCode, Callback: j.Callback, CallbackSecret: j.CallbackSecret}
}

// AnalysisState is a site analysis and, once it has a report, the
// report's summary.
type AnalysisState struct {
	Analysis Analysis `json:"analysis"`
	// Summary is null until the analysis has a report; SummaryReason then
	// says why ("queued", "running", "canceled", "failed").
	Summary       *ReportSummary `json:"summary"`
	SummaryReason string         `json:"summaryReason,omitempty"`
	// Omitted names what the answer leaves out and which tool reads it.
	Omitted []string `json:"omitted"`
	// TimedOut is set by wait_site_analysis when the analysis was still
	// running at the wait's end.
	TimedOut bool `json:"timedOut,omitempty"`
}

var stateOmitted = []string{"report findings: fix_first, site_findings", "report pages: site_pages", "full report: resource seokit://analyses/{id}/report", "diff: diff_site_analyses"}

// AnalysisBrief is a site analysis in a list.
type AnalysisBrief struct {
	ID         string    `json:"id"`
	Status     string    `json:"status"`
	Domain     string    `json:"domain"`
	URL        string    `json:"url,omitempty"`
	ProjectID  string    `json:"projectId,omitempty"`
	CreatedAt  time.Time `json:"createdAt"`
	FinishedAt time.Time `json:"finishedAt,omitzero"`
	PagesDone  int       `json:"pagesDone"`
	ErrorCode  string    `json:"errorCode,omitempty"`
}

// ListInput pages a list.
type ListInput struct {
	Cursor string `json:"cursor,omitempty" jsonschema:"nextCursor of the previous page"`
	Limit  int    `json:"limit,omitempty" jsonschema:"most items; 0 fits the page to a few thousand tokens"`
}

// AnalysisList is a page of the account's site analyses, newest first.
type AnalysisList struct {
	Page     PageInfo        `json:"page"`
	Analyses []AnalysisBrief `json:"analyses"`
}

// Filter selects findings or pages of a site analysis.
type Filter struct {
	// Severity keeps the findings of one severity, or the pages with one:
	// error, warning or notice.
	Severity string `json:"severity,omitempty" jsonschema:"error, warning or notice"`
	// Check keeps one check ID ("title.missing") or an area ("title.").
	Check string `json:"check,omitempty" jsonschema:"a check ID, or an area ending in a dot (title.)"`
	// Segment, Template and URL keep the pages of a segment, of a
	// template fingerprint, or whose URL matches a pattern (* is any run
	// of characters); findings are then counted on those pages only.
	Segment  string `json:"segment,omitempty"`
	Template string `json:"template,omitempty"`
	URL      string `json:"url,omitempty" jsonschema:"URL pattern, * matches any run of characters"`
}

// FindingsInput filters and pages the findings of a site analysis.
type FindingsInput struct {
	ID string `json:"id" jsonschema:"the site analysis id"`
	Filter
	ListInput
}

// Finding is a finding group of a site analysis: one check ID with its
// counts and up to three example URLs.
type Finding struct {
	ID       string       `json:"id"`
	Severity seo.Severity `json:"severity"`
	Priority int          `json:"priority"`
	Count    int          `json:"count"`
	Pages    int          `json:"pages"`
	Message  string       `json:"message,omitempty"`
	Template bool         `json:"template,omitempty"`
	Examples []string     `json:"examples"`
}

// FindingList is a page of findings.
type FindingList struct {
	Page     PageInfo  `json:"page"`
	Findings []Finding `json:"findings"`
}

// PagesInput filters, pages and selects the fields of the pages of a site
// analysis.
type PagesInput struct {
	ID string `json:"id" jsonschema:"the site analysis id"`
	Filter
	Fields []string `json:"fields,omitempty" jsonschema:"page fields to return (JSON names of the report's pages); default url, status, score, errors, warnings, notices, title"`
	ListInput
}

// PageList is a page of pages, each with the selected fields.
type PageList struct {
	Page   PageInfo                     `json:"page"`
	Fields []string                     `json:"fields"`
	Pages  []map[string]json.RawMessage `json:"pages"`
}

// FixFirstInput asks for the top findings.
type FixFirstInput struct {
	ID  string `json:"id" jsonschema:"the site analysis id"`
	Top int    `json:"top,omitempty" jsonschema:"how many findings, 1 to 50; default 10"`
}

// FixFirst is the highest-priority findings of an analysis, each with its
// counts and three examples.
type FixFirst struct {
	Score         *seo.Score            `json:"score"`
	ScoreReason   string                `json:"scoreReason,omitempty"`
	FindingCounts crawler.FindingCounts `json:"findingCounts"`
	Findings      []Finding             `json:"findings"`
	// Omitted counts the finding IDs not listed (site_findings pages
	// them).
	Omitted int `json:"omitted"`
}

// WaitInput waits for a site analysis.
type WaitInput struct {
	ID             string `json:"id" jsonschema:"the site analysis id"`
	TimeoutSeconds int    `json:"timeoutSeconds,omitempty" jsonschema:"longest wait, 1 to 600; default 60"`
}

// DiffInput compares two analyses.
type DiffInput struct {
	ID      string `json:"id" jsonschema:"the newer succeeded site analysis"`
	Against string `json:"against,omitempty" jsonschema:"the older one; default the previous analysis of the site"`
}

// AICrawlers is the AI crawler readiness of a site analysis.
type AICrawlers struct {
	// Report is null when the analysis did not check AI crawlers, with
	// Reason saying so.
	Report *crawler.AICrawlerReport `json:"report"`
	Reason string                   `json:"reason,omitempty"`
}

const maxTop = 50

// maxTruncatedNames bounds the names of a diff's Truncated in an answer.
const maxTruncatedNames = 20

func (s *Server) addSiteTools() {
	add(s, spec{name: "start_site_analysis", write: true, op: auth.OpAnalyze,
		desc: "Start a site analysis (crawl) of a domain or start URL, or of a project; returns at once with the analysis id. Follow it with wait_site_analysis. Options are the /v1 site options (maxPages, render, aiCrawlers...)."},
		func(ctx context.Context, _ *mcp.CallToolRequest, p *auth.Principal, in service.SiteRequest) (*Analysis, error) {
			if err := s.need(s.svc.Analyses); err != nil {
				return nil, err
			}
			j, err := s.svc.Analyses.Submit(ctx, p.AccountID, in)
			if err != nil {
				return nil, err
			}
			return analysisOf(j), nil
		})
	add(s, spec{name: "get_site_analysis", op: auth.OpAnalyze,
		desc: "Status and progress of a site analysis, and once done the summary of its report (score, counts, crawl stats)."},
		func(ctx context.Context, _ *mcp.CallToolRequest, p *auth.Principal, in AnalysisRef) (*AnalysisState, error) {
			return s.state(ctx, p, in.ID)
		})
	add(s, spec{name: "wait_site_analysis", op: auth.OpAnalyze,
		desc: "Wait until a site analysis ends or the timeout passes, sending progress notifications (pages done of the page cap) when the call has a progress token; then answers as get_site_analysis."},
		s.wait)
	add(s, spec{name: "cancel_site_analysis", write: true, op: auth.OpAnalyze,
		desc: "Cancel a queued or running site analysis."},
		func(ctx context.Context, _ *mcp.CallToolRequest, p *auth.Principal, in AnalysisRef) (*Analysis, error) {
			if err := s.need(s.svc.Analyses); err != nil {
				return nil, err
			}
			j, err := s.svc.Analyses.Cancel(ctx, p.AccountID, in.ID)
			if err != nil {
				return nil, err
			}
			return analysisOf(j), nil
		})
	add(s, spec{name: "list_site_analyses", op: auth.OpAnalyze,
		desc: "The account's site analyses, newest first, paged."},
		func(ctx context.Context, _ *mcp.CallToolRequest, p *auth.Principal, in ListInput) (*AnalysisList, error) {
			if err := s.need(s.svc.Analyses); err != nil {
				return nil, err
			}
			q := queryHash("list_site_analyses")
			off, err := decodeCursor(in.Cursor, q)
			if err != nil {
				return nil, err
			}
			if err := checkLimit(in.Limit, service.MaxList); err != nil {
				return nil, err
			}
			jobs, err := s.svc.Analyses.List(ctx, p.AccountID, service.MaxList)
			if err != nil {
				return nil, err
			}
			briefs := make([]AnalysisBrief, len(jobs))
			for i, j := range jobs {
				briefs[i] = AnalysisBrief{ID: j.ID, Status: j.Status, Domain: j.Domain, URL: j.URL, ProjectID: j.ProjectID,
					CreatedAt: j.CreatedAt, FinishedAt: j.FinishedAt, ErrorCode: j.ErrorCode}
				if j.Progress != nil {
					briefs[i].PagesDone = j.Progress.PagesDone
				}
			}
			// A cursor's offset may lie past the end: the list shrank
			// since (retention) or the cursor was made up.
			off = min(off, len(briefs))
			items, pi, err := pageOf(len(briefs), off, in.Limit, s.opts.PageBytes, q, func(i int) (json.RawMessage, error) { return json.Marshal(briefs[i]) })
			if err != nil {
				return nil, err
			}
			out := &AnalysisList{Page: pi, Analyses: make([]AnalysisBrief, 0, len(items))}
			out.Analyses = append(out.Analyses, briefs[off:off+len(items)]...)
			return out, nil
		})
	add(s, spec{name: "fix_first", op: auth.OpAnalyze,
		desc: "The highest-priority findings of a site analysis, each with its counts and three example URLs: what to fix first."},
		func(ctx context.Context, _ *mcp.CallToolRequest, p *auth.Principal, in FixFirstInput) (*FixFirst, error) {
			top := in.Top
			if top == 0 {
				top = 10
			}
			if top < 1 || top > maxTop {
				return nil, invalid("top", fmt.Sprintf("top must be 1 to %d", maxTop))
			}
			_, rep, done, err := s.report(ctx, p, in.ID)
			if err != nil {
				return nil, err
			}
			defer done()
			groups := slices.Clone(rep.Findings)
			slices.SortStableFunc(groups, func(a, b crawler.FindingGroup) int { return b.Priority - a.Priority })
			n := min(top, len(groups))
			out := &FixFirst{Score: rep.Score, ScoreReason: rep.ScoreReason, FindingCounts: rep.FindingCounts, Findings: make([]Finding, 0, n), Omitted: len(groups) - n}
			// The top findings that fit in the page budget; the rest are
			// counted in Omitted.
			size, sz := 0, newSizer()
			for _, g := range groups[:n] {
				f := findingOf(g, g.Count, g.Pages, g.Examples)
				fn, err := sz.size(&f)
				if err != nil {
					return nil, err
				}
				if len(out.Findings) > 0 && size+fn > s.opts.PageBytes {
					break
				}
				size += fn + 1
				out.Findings = append(out.Findings, f)
			}
			out.Omitted = len(groups) - len(out.Findings)
			return out, nil
		})
	add(s, spec{name: "site_findings", op: auth.OpAnalyze,
		desc: "The findings of a site analysis by check ID, highest priority first, filtered by severity, check ID or area, segment, template or URL pattern; paged with a cursor."},
		s.findings)
	add(s, spec{name: "site_pages", op: auth.OpAnalyze,
		desc: "The pages of a site analysis with selected fields, filtered by severity, check ID or area, segment, template or URL pattern; paged with a cursor."},
		s.pages)
	add(s, spec{name: "diff_site_analyses", op: auth.OpAnalyze,
		desc: "Compare a succeeded site analysis with an earlier one of the same site (default: the previous one): score, totals, added and removed URLs, changed pages, new and fixed findings."},
		func(ctx context.Context, _ *mcp.CallToolRequest, p *auth.Principal, in DiffInput) (*Capped[service.SiteDiff], error) {
			if err := s.need(s.svc.Analyses); err != nil {
				return nil, err
			}
			if in.ID == "" {
				return nil, invalid("id", "id is required")
			}
			d, err := s.svc.Analyses.Diff(ctx, p.AccountID, in.ID, in.Against)
			if err != nil {
				return nil, err
			}
			if d.Diff == nil {
				d.Diff = &compare.Diff{}
			}
			// Truncated names a list cut per finding ID: keep the first
			// names, count the rest.
			var cut int
			if t := d.Diff.Truncated; len(t) > maxTruncatedNames {
				keys := slices.Sorted(maps.Keys(t))
				kept := make(seo.Truncated, maxTruncatedNames)
				for _, k := range keys[:maxTruncatedNames] {
					kept[k] = t[k]
				}
				dd := *d.Diff
				dd.Truncated, cut = kept, len(keys)-maxTruncatedNames
				d.Diff = &dd
			}
			c, err := capJSON(*d, s.opts.PageBytes)
			if cut > 0 {
				if c.Omitted == nil {
					c.Omitted = map[string]int{}
				}
				c.Omitted["diff.truncated"] += cut
			}
			return &c, err
		})
	add(s, spec{name: "ai_crawlers", op: auth.OpAnalyze,
		desc: "AI crawler readiness of a site analysis started with options.aiCrawlers: what robots.txt and the server let GPTBot, ClaudeBot and the others fetch."},
		func(ctx context.Context, _ *mcp.CallToolRequest, p *auth.Principal, in AnalysisRef) (*Capped[AICrawlers], error) {
			_, rep, done, err := s.report(ctx, p, in.ID)
			if err != nil {
				return nil, err
			}
			defer done()
			out := AICrawlers{Report: rep.AICrawlers}
			if out.Report == nil {
				out.Reason = "not checked: start the analysis with options.aiCrawlers true"
			}
			c, err := capJSON(out, s.opts.PageBytes)
			return &c, err
		})
}

// need refuses a call whose service the server lacks.
func (s *Server) need(svc any) error {
	if svc == nil {
		return &service.NotConfiguredError{What: "the services of this tool"}
	}
	return nil
}

func checkLimit(limit, most int) error {
	if limit < 0 || limit > most {
		return invalid("limit", fmt.Sprintf("limit must be 0 (fit to the page size) to %d", most))
	}
	return nil
}

// state answers get_site_analysis.
func (s *Server) state(ctx context.Context, p *auth.Principal, id string) (*AnalysisState, error) {
	if err := s.need(s.svc.Analyses); err != nil {
		return nil, err
	}
	if id == "" {
		return nil, invalid("id", "id is required")
	}
	j, res, err := s.svc.Analyses.Get(ctx, p.AccountID, id)
	if err != nil {
		return nil, err
	}
	out := &AnalysisState{Analysis: *analysisOf(j), Omitted: stateOmitted}
	if res == nil {
		out.SummaryReason = j.Status
		return out, nil
	}
	rep, done, err := s.decodeReport(ctx, p, j, res)
	if err != nil {
		return nil, err
	}
	defer done()
	out.Summary = summarize(rep)
	return out, nil
}

func summarize(rep *crawler.SiteReport) *ReportSummary {
	sum := &ReportSummary{Score: rep.Score, ScoreReason: rep.ScoreReason, Pages: len(rep.Pages), NotFetched: len(rep.NotFetched),
		Crawl: rep.Crawl, FindingCounts: rep.FindingCounts, Checks: len(rep.Findings), AICrawlers: rep.AICrawlers != nil, Truncated: rep.Truncated}
	for _, sg := range rep.Segments {
		sum.Segments = append(sum.Segments, sg.Name)
	}
	for _, t := range rep.Templates {
		sum.Templates = append(sum.Templates, t.Template)
	}
	return sum
}

// ReportDecodeFactor is the memory a decode of a stored report to Go
// values (DecodeReport) takes, in bytes per byte of stored report JSON,
// while the decoded report is in use: the stored bytes as read, the
// report's strings, and its slices grown by doubling as they are decoded
// (the pages most). TestReportDecodeAdmission measures the bytes one
// site_pages call of a report not cached allocates on the server, 6.93
// per report byte for a 15 MiB report of a real crawl's pages, and fails
// when a call allocates more than this. The API server reserves it for
// its own decodes of whole reports too.
const ReportDecodeFactor = 8

// decodeReport returns the decoded report res of p's analysis j, from
// the cache when it holds it, and the func the caller defers once done
// with the report. A decode (a report not cached) is admitted as a
// report read (Options.Admit), reserving ReportDecodeFactor times the
// stored size until done: the cache bounds the reports it keeps, not
// the decodes under way, and one account could otherwise have the
// server decode many large reports at once.
func (s *Server) decodeReport(ctx context.Context, p *auth.Principal, j *service.Job, res service.Result) (*crawler.SiteReport, func(), error) {
	k := keyOf(p.AccountID, j, res)
	if rep := s.reports.get(k); rep != nil {
		return rep, func() {}, nil
	}
	done := func() {}
	if s.opts.Admit != nil {
		var err error
		if done, err = s.opts.Admit(ctx, p, int64(res.Size())*ReportDecodeFactor); err != nil {
			return nil, nil, err
		}
	}
	rep, err := DecodeReport(ctx, res)
	if err != nil {
		done()
		return nil, nil, err
	}
	s.reports.put(k, rep)
	return rep, done, nil
}

// DecodeReport decodes the stored site report res, stopping when ctx
// ends. It takes about ReportDecodeFactor times res.Size() of memory.
func DecodeReport(ctx context.Context, res service.Result) (*crawler.SiteReport, error) {
	rc, err := res.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	// Read into one buffer of the stored size: a json.Decoder grows its
	// buffer by doubling, copying the report each time.
	b := make([]byte, res.Size())
	if _, err := io.ReadFull(ctxReader{ctx, rc}, b); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("mcpserver: reading the report: %w", err)
	}
	var rep crawler.SiteReport
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("mcpserver: reading the report: %w", err)
	}
	return &rep, nil
}

// ctxReader reads r until ctx ends: a call given up stops its decode.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(b []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(b)
}

// report reads p's analysis id and its decoded report, and returns the
// func the caller defers once done with the report (decodeReport); an
// analysis without one is a conflict saying its status.
func (s *Server) report(ctx context.Context, p *auth.Principal, id string) (*service.Job, *crawler.SiteReport, func(), error) {
	if err := s.need(s.svc.Analyses); err != nil {
		return nil, nil, nil, err
	}
	if id == "" {
		return nil, nil, nil, invalid("id", "id is required")
	}
	j, res, err := s.svc.Analyses.Get(ctx, p.AccountID, id)
	if err != nil {
		return nil, nil, nil, err
	}
	if res == nil {
		return nil, nil, nil, &service.ConflictError{Message: "the analysis has no report yet: it is " + j.Status}
	}
	rep, done, err := s.decodeReport(ctx, p, j, res)
	return j, rep, done, err
}

// wait answers wait_site_analysis.
func (s *Server) wait(ctx context.Context, req *mcp.CallToolRequest, p *auth.Principal, in WaitInput) (*AnalysisState, error) {
	timeout := 60 * time.Second
	if in.TimeoutSeconds != 0 {
		if in.TimeoutSeconds < 1 || in.TimeoutSeconds > int(MaxWait/time.Second) { // compared in seconds: a huge value would overflow a Duration
			return nil, invalid("timeoutSeconds", fmt.Sprintf("timeoutSeconds must be 1 to %d", int(MaxWait/time.Second)))
		}
		timeout = time.Duration(in.TimeoutSeconds) * time.Second
	}
	if err := s.need(s.svc.Analyses); err != nil {
		return nil, err
	}
	if in.ID == "" {
		return nil, invalid("id", "id is required")
	}
	token := req.Params.GetProgressToken()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(s.opts.PollInterval)
	defer tick.Stop()
	last := -1
	for {
		j, _, err := s.svc.Analyses.Get(ctx, p.AccountID, in.ID)
		if err != nil {
			return nil, err
		}
		if ended(j.Status) {
			return s.state(ctx, p, in.ID)
		}
		if token != nil && req.Session != nil {
			done := 0
			if j.Progress != nil {
				done = j.Progress.PagesDone
			}
			if done != last {
				last = done
				np := &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(done), Message: progressMessage(j)}
				if j.Options.MaxPages > 0 {
					np.Total = float64(j.Options.MaxPages)
				}
				if err := req.Session.NotifyProgress(ctx, np); err != nil && ctx.Err() != nil {
					return nil, ctx.Err()
				}
			}
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-deadline.C:
			st, err := s.state(ctx, p, in.ID)
			if st != nil {
				st.TimedOut = !ended(st.Analysis.Status)
			}
			return st, err
		case <-tick.C:
		}
	}
}

func ended(status string) bool {
	return status == "succeeded" || status == "failed" || status == "canceled"
}

func progressMessage(j *service.Job) string {
	if j.Progress == nil {
		return j.Status
	}
	pr := j.Progress
	msg := fmt.Sprintf("%s: %d pages done, %d queued, %d errors", j.Status, pr.PagesDone, pr.Queued, pr.Errors)
	if pr.Phase != "" {
		msg += " (" + pr.Phase + ")"
	}
	return msg
}

// pageFilter selects pages of a report.
type pageFilter Filter

func (f pageFilter) validate() error {
	switch f.Severity {
	case "", "error", "warning", "notice":
	default:
		return invalid("severity", "severity must be error, warning or notice")
	}
	if len(f.Check) > 200 {
		return invalid("check", "check is too long")
	}
	if len(f.URL) > 2000 {
		return invalid("url", "url pattern is too long (most 2000 bytes)")
	}
	if strings.Count(f.URL, "*") > 20 {
		return invalid("url", "url pattern has too many * (most 20)")
	}
	return nil
}

// pageScoped reports whether the filter narrows the pages.
func (f pageFilter) pageScoped() bool { return f.Segment != "" || f.Template != "" || f.URL != "" }

func (f pageFilter) hash(tool, id string) uint64 {
	return queryHash(tool, id, f.Severity, f.Check, f.Segment, f.Template, f.URL)
}

func checkMatches(check, id string) bool {
	if check == "" {
		return true
	}
	if strings.HasSuffix(check, ".") {
		return strings.HasPrefix(id, check)
	}
	return id == check
}

func (f pageFilter) page(pg *crawler.PageSummary) bool {
	if f.Segment != "" && pg.Segment != f.Segment {
		return false
	}
	if f.Template != "" && pg.Template != f.Template {
		return false
	}
	if f.URL != "" && !wildcard(f.URL, pg.URL) {
		return false
	}
	return true
}

func findingOf(g crawler.FindingGroup, count, pages int, examples []string) Finding {
	return Finding{ID: g.ID, Severity: g.Severity, Priority: g.Priority, Count: count, Pages: pages, Message: g.Message, Template: g.Template, Examples: examples[:min(3, len(examples))]}
}

// findings answers site_findings.
func (s *Server) findings(ctx context.Context, _ *mcp.CallToolRequest, p *auth.Principal, in FindingsInput) (*FindingList, error) {
	f := pageFilter(in.Filter)
	if err := f.validate(); err != nil {
		return nil, err
	}
	if err := checkLimit(in.Limit, 500); err != nil {
		return nil, err
	}
	q := f.hash("site_findings", in.ID)
	off, err := decodeCursor(in.Cursor, q)
	if err != nil {
		return nil, err
	}
	_, rep, done, err := s.report(ctx, p, in.ID)
	if err != nil {
		return nil, err
	}
	defer done()
	var list []Finding
	if !f.pageScoped() {
		for _, g := range rep.Findings {
			if (f.Severity == "" || g.Severity.String() == f.Severity) && checkMatches(f.Check, g.ID) {
				list = append(list, findingOf(g, g.Count, g.Pages, g.Examples))
			}
		}
	} else {
		// Counted over the selected pages only: occurrences, pages and
		// the first three of them as examples.
		type acc struct {
			count, pages int
			examples     []string
		}
		per := map[string]*acc{}
		for i := range rep.Pages {
			pg := &rep.Pages[i]
			if !f.page(pg) {
				continue
			}
			for _, id := range pg.Findings {
				a := per[id]
				if a == nil {
					a = &acc{}
					per[id] = a
				}
				n := 1
				if c, ok := pg.FindingCounts[id]; ok {
					n = c
				}
				a.count += n
				a.pages++
				if len(a.examples) < 3 {
					a.examples = append(a.examples, pg.URL)
				}
			}
		}
		for _, g := range rep.Findings {
			a := per[g.ID]
			if a == nil || (f.Severity != "" && g.Severity.String() != f.Severity) || !checkMatches(f.Check, g.ID) {
				continue
			}
			list = append(list, findingOf(g, a.count, a.pages, a.examples))
		}
	}
	items, pi, err := pageOf(len(list), min(off, len(list)), in.Limit, s.opts.PageBytes, q, func(i int) (json.RawMessage, error) { return json.Marshal(list[i]) })
	if err != nil {
		return nil, err
	}
	start := min(off, len(list))
	return &FindingList{Page: pi, Findings: append([]Finding{}, list[start:start+len(items)]...)}, nil
}

var defaultPageFields = []string{"url", "status", "score", "errors", "warnings", "notices", "title"}

// pages answers site_pages.
func (s *Server) pages(ctx context.Context, _ *mcp.CallToolRequest, p *auth.Principal, in PagesInput) (*PageList, error) {
	f := pageFilter(in.Filter)
	if err := f.validate(); err != nil {
		return nil, err
	}
	if err := checkLimit(in.Limit, 500); err != nil {
		return nil, err
	}
	fields := in.Fields
	if len(fields) == 0 {
		fields = defaultPageFields
	}
	if len(fields) > 50 {
		return nil, invalid("fields", "fields lists at most 50 names")
	}
	known := pageFieldNames()
	for i, name := range fields {
		if !known[name] {
			return nil, invalid(fmt.Sprintf("fields[%d]", i), fmt.Sprintf("unknown page field %q", clip(name)))
		}
	}
	q := f.hash("site_pages", in.ID)
	off, err := decodeCursor(in.Cursor, q)
	if err != nil {
		return nil, err
	}
	_, rep, done, err := s.report(ctx, p, in.ID)
	if err != nil {
		return nil, err
	}
	defer done()
	var sel []int
	for i := range rep.Pages {
		pg := &rep.Pages[i]
		if !f.page(pg) {
			continue
		}
		if f.Severity != "" && severityCount(pg, f.Severity) == 0 {
			continue
		}
		if f.Check != "" && !slices.ContainsFunc(pg.Findings, func(id string) bool { return checkMatches(f.Check, id) }) {
			continue
		}
		sel = append(sel, i)
	}
	off = min(off, len(sel))
	rows := make([]map[string]json.RawMessage, 0)
	_, pi, err := pageOf(len(sel), off, in.Limit, s.opts.PageBytes, q, func(i int) (json.RawMessage, error) {
		row, err := selectFields(&rep.Pages[sel[i]], fields)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
		return json.Marshal(row)
	})
	if err != nil {
		return nil, err
	}
	return &PageList{Page: pi, Fields: fields, Pages: rows[:pi.Returned]}, nil
}

func severityCount(pg *crawler.PageSummary, sev string) int {
	switch sev {
	case "error":
		return pg.Errors
	case "warning":
		return pg.Warnings
	}
	return pg.Notices
}

// pageFieldNames are the JSON names of crawler.PageSummary.
func pageFieldNames() map[string]bool {
	names := map[string]bool{}
	sc := schemaFor[crawler.PageSummary]()
	for k := range sc.Properties {
		names[k] = true
	}
	return names
}

func selectFields(pg *crawler.PageSummary, fields []string) (map[string]json.RawMessage, error) {
	b, err := json.Marshal(pg)
	if err != nil {
		return nil, err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return nil, err
	}
	row := make(map[string]json.RawMessage, len(fields))
	for _, name := range fields {
		if v, ok := all[name]; ok {
			row[name] = v
		} else {
			row[name] = json.RawMessage("null") // absent in the report: empty or unset
		}
	}
	return row, nil
}

// clip shortens s for a message.
func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}
