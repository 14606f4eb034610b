package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/keywords"
	"github.com/seokit/seokit/logs"
	"github.com/seokit/seokit/optimizer"
	"github.com/seokit/seokit/reports"
	"github.com/seokit/seokit/seo"
)

// Catalog is every check seokit reports (what `cli checks` lists): page,
// site and log checks, with their sources and differences.
func Catalog() []seo.CheckInfo {
	return append(append(analyzer.Catalog(), crawler.Catalog()...), logs.Catalog()...)
}

// PageAnalysis is the answer of analyze_page: the page's head facts and
// findings, highest priority first, with the report's other sections on
// request (sections).
type PageAnalysis struct {
	URL         string     `json:"url"`
	FinalURL    string     `json:"finalUrl"`
	Status      int        `json:"status"`
	Score       *seo.Score `json:"score"`
	ScoreReason string     `json:"scoreReason,omitempty"`
	Title       string     `json:"title,omitempty"`
	WordCount   int        `json:"wordCount"`
	// Findings are the page's findings without their evidence examples;
	// FindingsOmitted counts those left out to keep the answer small.
	Findings        []PageFinding `json:"findings"`
	FindingsOmitted int           `json:"findingsOmitted"`
	// Sections holds the report sections asked for, by JSON name.
	Sections map[string]json.RawMessage `json:"sections,omitempty"`
	// Omitted names the report's sections not in this answer (ask with
	// sections).
	Omitted []string `json:"omitted"`
}

// PageFinding is a finding of one page.
type PageFinding struct {
	ID       string       `json:"id"`
	Severity seo.Severity `json:"severity"`
	Priority int          `json:"priority"`
	Count    int          `json:"count"`
	Message  string       `json:"message"`
	Evidence seo.Evidence `json:"evidence,omitempty"`
}

// AnalyzePageInput is a page analysis request (the body of POST
// /v1/analyze/page) and the report sections to return.
type AnalyzePageInput struct {
	URL     string              `json:"url" jsonschema:"the page to analyse"`
	Options service.PageOptions `json:"options,omitzero"`
	// Sections names report sections to include ("headings", "links",
	// "structuredData", "render"...).
	Sections []string `json:"sections,omitempty" jsonschema:"report sections to include in full: headings, links, images, structuredData, render, canonical, robots..."`
}

// SuggestInput asks for keyword ideas.
type SuggestInput struct {
	Query  string `json:"query" jsonschema:"the seed keyword"`
	Locale string `json:"locale,omitempty" jsonschema:"BCP 47 tag, default en-US"`
	Limit  int    `json:"limit,omitempty" jsonschema:"most suggestions, 1 to 1000"`
}

// RankingsInput asks for the rankings of keywords of a site.
type RankingsInput struct {
	Domain    string   `json:"domain,omitempty"`
	ProjectID string   `json:"projectId,omitempty"`
	Keywords  []string `json:"keywords,omitempty"`
	Locale    string   `json:"locale,omitempty"`
	Device    string   `json:"device,omitempty" jsonschema:"desktop or mobile"`
}

// ReportInput asks for a ranking report.
type ReportInput struct {
	Domain string `json:"domain"`
	Start  string `json:"start" jsonschema:"first day, YYYY-MM-DD"`
	End    string `json:"end" jsonschema:"last day, YYYY-MM-DD"`
	Locale string `json:"locale,omitempty"`
	Device string `json:"device,omitempty"`
}

// CheckRef names a check.
type CheckRef struct {
	ID string `json:"id" jsonschema:"a check ID such as title.missing"`
}

// ProjectRef names a project.
type ProjectRef struct {
	ProjectID string `json:"projectId"`
}

// ProjectUpdate changes a project.
type ProjectUpdate struct {
	ProjectID string `json:"projectId"`
	service.ProjectRequest
}

// ScheduleCreate adds a schedule to a project.
type ScheduleCreate struct {
	ProjectID string `json:"projectId"`
	service.ScheduleRequest
}

// ScheduleUpdate changes a schedule.
type ScheduleUpdate struct {
	ProjectID  string `json:"projectId"`
	ScheduleID string `json:"scheduleId"`
	service.ScheduleRequest
}

// ScheduleRef names a schedule.
type ScheduleRef struct {
	ProjectID  string `json:"projectId"`
	ScheduleID string `json:"scheduleId"`
}

// AlertCreate adds an alert rule to a project.
type AlertCreate struct {
	ProjectID string `json:"projectId"`
	service.AlertRuleRequest
}

// AlertUpdate changes an alert rule.
type AlertUpdate struct {
	ProjectID string `json:"projectId"`
	RuleID    string `json:"ruleId"`
	service.AlertRuleRequest
}

// AlertRef names an alert rule.
type AlertRef struct {
	ProjectID string `json:"projectId"`
	RuleID    string `json:"ruleId"`
}

// DeliveriesInput asks for a project's alert deliveries.
type DeliveriesInput struct {
	ProjectID string `json:"projectId"`
	Limit     int    `json:"limit,omitempty" jsonschema:"most deliveries, 1 to 100; default 20"`
}

// Deleted confirms a deletion.
type Deleted struct {
	Deleted bool   `json:"deleted"`
	ID      string `json:"id"`
}

func (s *Server) addTools() {
	add(s, spec{name: "analyze_page", write: true, op: auth.OpAnalyze,
		desc: "Analyse one web page (raw HTML, or rendered with options.render auto/always): score and findings, highest priority first; report sections on request."},
		s.analyzePage)
	s.addSiteTools()
	add(s, spec{name: "explain_check", op: auth.OpAnalyze, free: true,
		desc: "Explain a check: what triggers it, its severity, the standard or tool the rule follows, and how seokit deliberately differs."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ *auth.Principal, in CheckRef) (*seo.CheckInfo, error) {
			if in.ID == "" {
				return nil, invalid("id", "id is required")
			}
			for i := range s.opts.Checks {
				if s.opts.Checks[i].ID == in.ID {
					c := s.opts.Checks[i]
					return &c, nil
				}
			}
			return nil, &service.NotFoundError{Message: fmt.Sprintf("no check %q; `cli checks` lists them", clip(in.ID))}
		})
	add(s, spec{name: "optimize_content", write: true, op: auth.OpOptimize,
		desc: "Score text, Markdown or HTML content for its keyphrases: SEO and readability scores with the findings to fix (POST /v1/optimize/content)."},
		func(ctx context.Context, _ *mcp.CallToolRequest, p *auth.Principal, in optimizer.Request) (*Capped[optimizer.Report], error) {
			if err := s.need(s.svc.Content); err != nil {
				return nil, err
			}
			rep, err := s.svc.Content.Optimize(ctx, p.AccountID, in)
			if err != nil {
				return nil, err
			}
			c, err := capJSON(*rep, s.opts.PageBytes)
			return &c, err
		})
	add(s, spec{name: "suggest_keywords", op: auth.OpKeywords,
		desc: "Keyword ideas around a seed keyword for a locale."},
		func(ctx context.Context, _ *mcp.CallToolRequest, p *auth.Principal, in SuggestInput) (*Capped[keywords.Suggestions], error) {
			if err := s.need(s.svc.Keywords); err != nil {
				return nil, err
			}
			if in.Limit < 0 {
				in.Limit = -1 // refused by the service, which words the range
			}
			b, err := s.svc.Keywords.SuggestJSON(ctx, p.AccountID, nil, service.SuggestRequest{Query: in.Query, Locale: in.Locale, Limit: in.Limit})
			if err != nil {
				return nil, err
			}
			var sg keywords.Suggestions
			if err := json.Unmarshal(b, &sg); err != nil {
				return nil, err
			}
			c, err := capJSON(sg, s.opts.PageBytes)
			return &c, err
		})
	add(s, spec{name: "check_rankings", op: auth.OpRankings,
		desc: "Search positions of keywords of a domain or project (checked live when a SERP source is configured; sourceStatus says)."},
		func(ctx context.Context, _ *mcp.CallToolRequest, p *auth.Principal, in RankingsInput) (*Capped[service.RankingsResponse], error) {
			if err := s.need(s.svc.Rankings); err != nil {
				return nil, err
			}
			r, err := s.svc.Rankings.Check(ctx, p.AccountID, service.RankingsRequest{Domain: in.Domain, ProjectID: in.ProjectID, Keywords: in.Keywords, Locale: in.Locale, Device: in.Device})
			if err != nil {
				return nil, err
			}
			c, err := capJSON(*r, s.opts.PageBytes)
			return &c, err
		})
	add(s, spec{name: "ranking_report", op: auth.OpReports,
		desc: "Ranking report of a domain over days (GET /v1/reports): visibility, average position, movers."},
		func(ctx context.Context, _ *mcp.CallToolRequest, p *auth.Principal, in ReportInput) (*Capped[reports.Report], error) {
			if err := s.need(s.svc.Reports); err != nil {
				return nil, err
			}
			r, err := s.svc.Reports.Build(ctx, p.AccountID, service.ReportRequest{Domain: in.Domain, Start: in.Start, End: in.End, Locale: in.Locale, Device: in.Device})
			if err != nil {
				return nil, err
			}
			c, err := capJSON(*r, s.opts.PageBytes)
			return &c, err
		})
	s.addProjectTools()
}

// analyzePage answers analyze_page.
func (s *Server) analyzePage(ctx context.Context, _ *mcp.CallToolRequest, p *auth.Principal, in AnalyzePageInput) (*PageAnalysis, error) {
	if err := s.need(s.svc.Pages); err != nil {
		return nil, err
	}
	if len(in.Sections) > 30 {
		return nil, invalid("sections", "sections lists at most 30 names")
	}
	rep, err := s.svc.Pages.Analyze(ctx, p.AccountID, service.PageRequest{URL: in.URL, Options: in.Options})
	if err != nil {
		return nil, err
	}
	out := &PageAnalysis{URL: rep.URL, FinalURL: rep.FinalURL, Status: rep.Status, Score: rep.Score, ScoreReason: rep.ScoreReason, WordCount: rep.WordCount}
	if rep.Title != nil {
		out.Title = rep.Title.Text
	}
	size := 0
	if len(in.Sections) > 0 {
		b, err := json.Marshal(rep)
		if err != nil {
			return nil, err
		}
		var all map[string]json.RawMessage
		if err := json.Unmarshal(b, &all); err != nil {
			return nil, err
		}
		out.Sections = map[string]json.RawMessage{}
		for i, name := range in.Sections {
			v, ok := all[name]
			if !ok {
				if !slices.Contains(reportSections, name) {
					return nil, invalid(fmt.Sprintf("sections[%d]", i), fmt.Sprintf("unknown report section %q", clip(name)))
				}
				v = json.RawMessage("null") // empty in this report
			}
			out.Sections[name] = v
			size += len(v)
		}
	}
	if len(in.Sections) == 0 {
		out.Omitted = slices.Clip(pageOmitted)
	} else {
		out.Omitted = []string{}
		for _, k := range pageOmitted {
			if out.Sections[k] == nil {
				out.Omitted = append(out.Omitted, k)
			}
		}
	}
	// The findings by priority, highest first: sorting pointers spares a
	// copy of every finding on each call.
	fs := make([]*seo.Finding, len(rep.Findings))
	for i := range rep.Findings {
		fs[i] = &rep.Findings[i]
	}
	slices.SortStableFunc(fs, func(a, b *seo.Finding) int { return b.Priority - a.Priority })
	// Findings fill what the sections left of the page budget.
	sz := newSizer()
	out.Findings = make([]PageFinding, 0, len(fs))
	for _, f := range fs {
		pf := PageFinding{ID: f.ID, Severity: f.Severity, Priority: f.Priority, Count: f.Occurrences(), Message: f.Message, Evidence: f.Evidence}
		n, err := sz.size(&pf)
		if err != nil {
			return nil, err
		}
		if len(out.Findings) > 0 && size+n > s.opts.PageBytes {
			break
		}
		size += n
		out.Findings = append(out.Findings, pf)
	}
	out.FindingsOmitted = len(fs) - len(out.Findings)
	return out, nil
}

// reportSections are the JSON names of analyzer.Report's sections,
// sorted; pageHead those PageAnalysis carries itself.
var (
	reportSections = func() []string {
		var out []string
		for k := range schemaFor[analyzer.Report]().Properties {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}()
	pageHead = map[string]bool{"url": true, "finalUrl": true, "status": true, "score": true, "scoreReason": true, "wordCount": true, "findings": true, "title": true}
	// pageOmitted are the report sections a PageAnalysis leaves out
	// unless asked for, sorted: its Omitted when no section is asked for.
	pageOmitted = slices.DeleteFunc(slices.Clone(reportSections), func(k string) bool { return pageHead[k] })
)

func (s *Server) addProjectTools() {
	add(s, spec{name: "list_projects", op: auth.OpAnalyze, desc: "The account's projects (monitored sites), newest first."},
		func(ctx context.Context, _ *mcp.CallToolRequest, p *auth.Principal, _ struct{}) (*Capped[service.ProjectList], error) {
			if err := s.need(s.svc.Projects); err != nil {
				return nil, err
			}
			ps, err := s.svc.Projects.List(ctx, p.AccountID)
			if err != nil {
				return nil, err
			}
			c, err := capJSON(service.ProjectList{Projects: nonNil(ps)}, s.opts.PageBytes)
			return &c, err
		})
	add(s, spec{name: "get_project", op: auth.OpAnalyze, desc: "One project with its crawl configuration and keywords."},
		func(ctx context.Context, _ *mcp.CallToolRequest, p *auth.Principal, in ProjectRef) (*service.Project, error) {
			if err := s.need(s.svc.Projects); err != nil {
				return nil, err
			}
			return s.svc.Projects.Get(ctx, p.AccountID, in.ProjectID)
		})
	add(s, spec{name: "create_project", write: true, op: auth.OpAnalyze, desc: "Create a project for a domain (name, timeZone, config, keywords)."},
		func(ctx context.Context, _ *mcp.CallToolRequest, p *auth.Principal, in service.ProjectRequest) (*service.Project, error) {
			if err := s.need(s.svc.Projects); err != nil {
				return nil, err
			}
			return s.svc.Projects.Create(ctx, p.AccountID, in)
		})
	add(s, spec{name: "update_project", write: true, op: auth.OpAnalyze, desc: "Change a project's fields (only those sent)."},
		func(ctx context.Context, _ *mcp.CallToolRequest, p *auth.Principal, in ProjectUpdate) (*service.Project, error) {
			if err := s.need(s.svc.Projects); err != nil {
				return nil, err
			}
			return s.svc.Projects.Update(ctx, p.AccountID, in.ProjectID, in.ProjectRequest)
		})
	add(s, spec{name: "delete_project", write: true, op: auth.OpAnalyze, desc: "Delete a project with its schedules and alert rules."},
		func(ctx context.Context, _ *mcp.CallToolRequest, p *auth.Principal, in ProjectRef) (*Deleted, error) {
			if err := s.need(s.svc.Projects); err != nil {
				return nil, err
			}
			if err := s.svc.Projects.Delete(ctx, p.AccountID, in.ProjectID); err != nil {
				return nil, err
			}
			return &Deleted{Deleted: true, ID: in.ProjectID}, nil
		})
	add(s, spec{name: "list_schedules", op: auth.OpAnalyze, desc: "A project's schedules (site analyses and rank checks)."},
		func(ctx context.Context, _ *mcp.CallToolRequest, p *auth.Principal, in ProjectRef) (*Capped[service.ScheduleList], error) {
			if err := s.need(s.svc.Schedules); err != nil {
				return nil, err
			}
			l, err := s.svc.Schedules.List(ctx, p.AccountID, in.ProjectID)
			if err != nil {
				return nil, err
			}
			c, err := capJSON(service.ScheduleList{Schedules: nonNil(l)}, s.opts.PageBytes)
			return &c, err
		})
	add(s, spec{name: "create_schedule", write: true, op: auth.OpAnalyze, desc: "Schedule a project's site analysis or rank check (kind site or rankings; spec daily, weekly@mon 06:00, cron)."},
		func(ctx context.Context, _ *mcp.CallToolRequest, p *auth.Principal, in ScheduleCreate) (*service.Schedule, error) {
			if err := s.need(s.svc.Schedules); err != nil {
				return nil, err
			}
			return s.svc.Schedules.Create(ctx, p.AccountID, in.ProjectID, in.ScheduleRequest)
		})
	add(s, spec{name: "update_schedule", write: true, op: auth.OpAnalyze, desc: "Change or pause a schedule."},
		func(ctx context.Context, _ *mcp.CallToolRequest, p *auth.Principal, in ScheduleUpdate) (*service.Schedule, error) {
			if err := s.need(s.svc.Schedules); err != nil {
				return nil, err
			}
			return s.svc.Schedules.Update(ctx, p.AccountID, in.ProjectID, in.ScheduleID, in.ScheduleRequest)
		})
	add(s, spec{name: "delete_schedule", write: true, op: auth.OpAnalyze, desc: "Delete a schedule."},
		func(ctx context.Context, _ *mcp.CallToolRequest, p *auth.Principal, in ScheduleRef) (*Deleted, error) {
			if err := s.need(s.svc.Schedules); err != nil {
				return nil, err
			}
			if err := s.svc.Schedules.Delete(ctx, p.AccountID, in.ProjectID, in.ScheduleID); err != nil {
				return nil, err
			}
			return &Deleted{Deleted: true, ID: in.ScheduleID}, nil
		})
	add(s, spec{name: "list_alert_rules", op: auth.OpAnalyze, desc: "A project's alert rules."},
		func(ctx context.Context, _ *mcp.CallToolRequest, p *auth.Principal, in ProjectRef) (*Capped[service.AlertRuleList], error) {
			if err := s.need(s.svc.Alerts); err != nil {
				return nil, err
			}
			l, err := s.svc.Alerts.Rules(ctx, p.AccountID, in.ProjectID)
			if err != nil {
				return nil, err
			}
			c, err := capJSON(service.AlertRuleList{Rules: nonNil(l)}, s.opts.PageBytes)
			return &c, err
		})
	add(s, spec{name: "create_alert_rule", write: true, op: auth.OpAnalyze, desc: "Add an alert rule to a project (new_findings, score_drop, pages_lost, keyword_drop...; webhook, slack or email)."},
		func(ctx context.Context, _ *mcp.CallToolRequest, p *auth.Principal, in AlertCreate) (*service.AlertRule, error) {
			if err := s.need(s.svc.Alerts); err != nil {
				return nil, err
			}
			return s.svc.Alerts.CreateRule(ctx, p.AccountID, in.ProjectID, in.AlertRuleRequest)
		})
	add(s, spec{name: "update_alert_rule", write: true, op: auth.OpAnalyze, desc: "Change or mute an alert rule."},
		func(ctx context.Context, _ *mcp.CallToolRequest, p *auth.Principal, in AlertUpdate) (*service.AlertRule, error) {
			if err := s.need(s.svc.Alerts); err != nil {
				return nil, err
			}
			return s.svc.Alerts.UpdateRule(ctx, p.AccountID, in.ProjectID, in.RuleID, in.AlertRuleRequest)
		})
	add(s, spec{name: "delete_alert_rule", write: true, op: auth.OpAnalyze, desc: "Delete an alert rule."},
		func(ctx context.Context, _ *mcp.CallToolRequest, p *auth.Principal, in AlertRef) (*Deleted, error) {
			if err := s.need(s.svc.Alerts); err != nil {
				return nil, err
			}
			if err := s.svc.Alerts.DeleteRule(ctx, p.AccountID, in.ProjectID, in.RuleID); err != nil {
				return nil, err
			}
			return &Deleted{Deleted: true, ID: in.RuleID}, nil
		})
	add(s, spec{name: "test_alert_rule", write: true, op: auth.OpAnalyze, desc: "Send a test message of an alert rule to its channel."},
		func(ctx context.Context, _ *mcp.CallToolRequest, p *auth.Principal, in AlertRef) (*service.AlertTestResult, error) {
			if err := s.need(s.svc.Alerts); err != nil {
				return nil, err
			}
			return s.svc.Alerts.Test(ctx, p.AccountID, in.ProjectID, in.RuleID)
		})
	add(s, spec{name: "list_alert_deliveries", op: auth.OpAnalyze, desc: "A project's latest alert deliveries and their states."},
		func(ctx context.Context, _ *mcp.CallToolRequest, p *auth.Principal, in DeliveriesInput) (*Capped[service.AlertDeliveryList], error) {
			if err := s.need(s.svc.Alerts); err != nil {
				return nil, err
			}
			if in.Limit == 0 {
				in.Limit = 20
			}
			if in.Limit < 1 || in.Limit > 100 {
				return nil, invalid("limit", "limit must be 1 to 100")
			}
			l, err := s.svc.Alerts.Deliveries(ctx, p.AccountID, in.ProjectID, in.Limit)
			if err != nil {
				return nil, err
			}
			c, err := capJSON(service.AlertDeliveryList{Deliveries: nonNil(l)}, s.opts.PageBytes)
			return &c, err
		})
}

func nonNil[T any](v []T) []T {
	if v == nil {
		return []T{}
	}
	return v
}
