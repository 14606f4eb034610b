package dashboard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlreport"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/internal/htmltable"
	"github.com/seokit/seokit/seo"
)

func fieldErr(field, reason string) error { return &seo.InputError{Field: field, Reason: reason} }

// JobRow is a site analysis as the dashboard lists and shows it: the
// service's Job, the value the API answers for it (service.Analyses), with
// what the pages derive from it. A field added to service.Job is here too.
type JobRow struct {
	service.Job
	// Progress is Job.Progress, zero when the job has none.
	Progress service.JobProgress
	// Done: the job has ended.
	Done bool
	// MaxPages, Subdomains and SkipExternal are the request's options.
	MaxPages     int
	Subdomains   bool
	SkipExternal bool
	// Render is the rendering mode, "" for none.
	Render string
}

// NewJobRow returns the row of job j.
func NewJobRow(j *service.Job) JobRow {
	row := JobRow{Job: *j, Done: store.JobStatus(j.Status).Done(),
		MaxPages: j.Options.MaxPages, Subdomains: j.Options.IncludeSubdomains,
		SkipExternal: j.Options.SkipExternalLinks}
	if j.Options.Render != "none" {
		row.Render = j.Options.Render
	}
	if j.Progress != nil {
		row.Progress = *j.Progress
	}
	return row
}

type analysesView struct {
	Jobs         []JobRow
	Enabled      bool
	MaxPages     int
	FormDomain   string
	FormMaxPages string
	FormSubs     bool
	FormSkipExt  bool
	// FormRender is the rendering choice: "none", "auto" or "always".
	FormRender string
	// FormA11y asks for the accessibility audit of the rendered pages
	// (options.a11y), which needs a rendering choice other than "none".
	FormA11y bool
	// FormConfig is the "Advanced: configuration (JSON)" field: a crawl
	// configuration document (crawler.Config).
	FormConfig string
}

func (d *Dashboard) analysesPage(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	d.showAnalyses(w, r, s, a, http.StatusOK, &analysesView{FormMaxPages: "100", FormRender: "none"}, nil)
}

func (d *Dashboard) showAnalyses(w http.ResponseWriter, r *http.Request, s *session, a *store.Account, status int, av *analysesView, fields map[string]string) {
	var jobs []service.Job
	if an := d.opts.Analyses; an != nil {
		var err error
		if jobs, err = an.List(r.Context(), a.ID, 50); err != nil {
			d.unavailable(w, r, err)
			return
		}
	}
	av.Enabled = d.opts.Analyses != nil
	if d.opts.Quota != nil {
		var err error
		if av.MaxPages, err = d.opts.Quota.MaxSitePages(r.Context(), a.ID); err != nil {
			d.unavailable(w, r, err)
			return
		}
	}
	for i := range jobs {
		av.Jobs = append(av.Jobs, NewJobRow(&jobs[i]))
	}
	v := d.base("Site analyses", "analyses", s, a)
	v.P, v.Fields = av, fields
	for _, m := range fields {
		v.Error = m
	}
	d.render(w, r, status, "analyses", v)
}

func (d *Dashboard) startAnalysis(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	if d.opts.Analyses == nil {
		d.errorPage(w, r, a, http.StatusServiceUnavailable, "Site analyses are not available on this server.")
		return
	}
	av := &analysesView{
		FormDomain:   strings.TrimSpace(r.PostFormValue("domain")),
		FormMaxPages: strings.TrimSpace(r.PostFormValue("max_pages")),
		FormSubs:     r.PostFormValue("subdomains") == "on",
		FormSkipExt:  r.PostFormValue("skip_external") == "on",
		FormRender:   r.PostFormValue("render"),
		FormA11y:     r.PostFormValue("a11y") == "on",
		FormConfig:   strings.TrimSpace(r.PostFormValue("config")),
	}
	bad := func(field, msg string) {
		d.showAnalyses(w, r, s, a, http.StatusBadRequest, av, map[string]string{field: msg})
	}
	switch av.FormRender {
	case "":
		av.FormRender = "none"
	case "none", "auto", "always":
	default:
		bad("render", `Rendering must be "none", "auto" or "always".`)
		return
	}
	maxPages := 0
	if av.FormMaxPages != "" {
		// The plan's cap is checked by the service.
		n, err := strconv.Atoi(av.FormMaxPages)
		if err != nil || n < 1 {
			bad("maxPages", "maxPages must be a whole number of at least 1")
			return
		}
		maxPages = n
	}
	// The domain is parsed once, by the service.
	var cfg *crawler.Config
	if av.FormConfig != "" {
		var err error
		if cfg, err = crawler.DecodeConfig(strings.NewReader(av.FormConfig)); err != nil {
			_, msg, _ := fieldError(err)
			bad("config", "Configuration: "+msg)
			return
		}
	}
	// The service validates the request as POST /v1/analyze/site does and
	// charges the crawl to the account's daily quota.
	req := service.SiteRequest{Domain: av.FormDomain}
	if cfg != nil {
		req.Options.Config = *cfg
	}
	if maxPages > 0 {
		req.Options.MaxPages = maxPages
	}
	req.Options.IncludeSubdomains = req.Options.IncludeSubdomains || av.FormSubs
	req.Options.SkipExternalLinks = req.Options.SkipExternalLinks || av.FormSkipExt
	req.Options.Render = av.FormRender
	// The service refuses the audit without rendering (options.a11y).
	req.Options.A11y = req.Options.A11y || av.FormA11y
	j, err := d.opts.Analyses.Submit(r.Context(), a.ID, req)
	if err != nil {
		if field, msg, ok := fieldError(err); ok {
			switch field {
			case "options.maxPages":
				field = "maxPages"
			case "options.render", "options.screenshot", "options.renderPages":
				field = "render"
			case "options.a11y":
				field = "a11y"
			case "domain":
			default:
				field, msg = "config", "Configuration: "+strings.TrimPrefix(msg, "options.")
			}
			bad(field, msg)
			return
		}
		var rf Refusal
		if errors.As(err, &rf) {
			d.showAnalyses(w, r, s, a, rf.StatusCode(), av, map[string]string{"domain": "Not started: " + rf.PublicMessage() + "."})
			return
		}
		d.unavailable(w, r, err)
		return
	}
	http.Redirect(w, r, Prefix+"/analyses/"+j.ID, http.StatusSeeOther)
}

// ownJob returns the account's job of the request's path and its stored
// report (nil when it has none).
func (d *Dashboard) ownJob(w http.ResponseWriter, r *http.Request, a *store.Account) (*service.Job, service.Result, bool) {
	if d.opts.Analyses == nil {
		d.errorPage(w, r, a, http.StatusNotFound, "No such analysis.")
		return nil, nil, false
	}
	j, res, err := d.opts.Analyses.Get(r.Context(), a.ID, r.PathValue("id"))
	if isNotFound(err) {
		d.errorPage(w, r, a, http.StatusNotFound, "No such analysis.")
		return nil, nil, false
	}
	if err != nil {
		d.unavailable(w, r, err)
		return nil, nil, false
	}
	return j, res, true
}

// ownReport returns the account's job of the request's path and its
// report decoded (nil when it has none), with the func the caller calls
// once done with the report; ok is false when it has answered the
// request. The decode is the service's report read (Analyses.Report),
// admitted as the API's are: an account's second read at once is refused
// with the service's status and message.
func (d *Dashboard) ownReport(w http.ResponseWriter, r *http.Request, a *store.Account) (*service.Job, *crawler.SiteReport, func(), bool) {
	if d.opts.Analyses == nil {
		d.errorPage(w, r, a, http.StatusNotFound, "No such analysis.")
		return nil, nil, nil, false
	}
	j, rep, done, err := d.opts.Analyses.Report(r.Context(), a.ID, r.PathValue("id"))
	if err = serviceFailure(err); err != nil {
		d.failed(w, r, a, err, "analysis")
		return nil, nil, nil, false
	}
	return j, rep, done, true
}

// reportView is the report part of an analysis page.
type reportView struct {
	R        *crawler.SiteReport
	Errors   int
	Warnings int
	Notices  int
	// Top are the first finding groups, most severe and widespread first.
	Top    []crawler.FindingGroup
	Charts []*barChart
	// Findings, Details and Pages are the report's tables (package
	// htmltable); Data holds their rows for table.js.
	Findings, Details, Pages, NotFetched template.HTML
	Data                                 template.JS
	// Cut lists the report's lists cut at their caps, as
	// "pages: 10000 of 12000".
	Cut []string
	// TemplateWide are the findings of every analysed page, named once
	// above the pages table.
	TemplateWide []crawler.FindingGroup
	// Shots are the pages with a stored screenshot, at most maxShots;
	// ShotsMore counts those left out.
	Shots     []shotView
	ShotsMore int
}

// shotView is a page's screenshot in the rendering section.
type shotView struct {
	URL string
	Src string // the dashboard route serving it
}

// maxShots caps the screenshots an analysis page shows: each is an image
// request, so a rendering crawl of 10,000 pages lists the first ones only.
const maxShots = 48

type analysisView struct {
	Job    JobRow
	Report *reportView
	Mutes  *muteView
}

// topFindings is the number of finding groups the summary names.
const topFindings = 5

func (d *Dashboard) analysisPage(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	j, rep, done, ok := d.ownReport(w, r, a)
	if !ok {
		return
	}
	defer done() // the report is held until the page is written
	av := &analysisView{Job: NewJobRow(j)}
	v := d.base("Analysis of "+av.Job.Domain, "analyses", s, a)
	if rep != nil && j.Status == string(store.JobSucceeded) {
		var err error
		if av.Report, err = buildReport(j.ID, rep); err != nil {
			d.log.Error("dashboard: report view", "job", j.ID, "err", err)
			v.Error = "The stored report cannot be shown."
		} else {
			av.Report.Shots, av.Report.ShotsMore = shotViews(j.ID, rep)
		}
	}
	if av.Report != nil {
		av.Mutes = d.muteView(r.Context(), a.ID, av.Job.Domain, av.Report.R)
	}
	if !av.Job.Done {
		v.Refresh = 3
	}
	v.P = av
	d.render(w, r, http.StatusOK, "analysis", v)
}

// shotViews lists the pages of rep with a stored screenshot, at most
// maxShots, and counts the others.
func shotViews(jobID string, rep *crawler.SiteReport) (shots []shotView, more int) {
	for i := range rep.Pages {
		p := &rep.Pages[i]
		if !p.Screenshot {
			continue
		}
		if len(shots) == maxShots {
			more++
			continue
		}
		shots = append(shots, shotView{URL: p.URL,
			Src: Prefix + "/analyses/" + url.PathEscape(jobID) + "/screenshot?url=" + url.QueryEscape(p.URL)})
	}
	return shots, more
}

// analysisScreenshot serves the stored screenshot (PNG) of a page of the
// account's analysis, ?url= naming the page; 404 when there is none.
func (d *Dashboard) analysisScreenshot(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	pageURL := r.URL.Query().Get("url")
	if d.opts.Analyses == nil || pageURL == "" {
		http.NotFound(w, r)
		return
	}
	png, err := d.opts.Analyses.Screenshot(r.Context(), a.ID, r.PathValue("id"), pageURL)
	if isNotFound(err) {
		http.NotFound(w, r)
		return
	}
	if err != nil {
		d.unavailable(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "image/png")
	h.Set("Content-Length", strconv.Itoa(len(png)))
	h.Set("Cache-Control", "private, max-age=3600")
	w.Write(png)
}

func buildReport(jobID string, rep *crawler.SiteReport) (*reportView, error) {
	rv := &reportView{R: rep}
	c := rep.FindingCounts.Findings
	rv.Errors, rv.Warnings, rv.Notices = c.Errors, c.Warnings, c.Notices
	rv.Top = rep.Findings[:min(len(rep.Findings), topFindings)]
	for _, c := range rep.Truncated.Cuts() {
		rv.Cut = append(rv.Cut, fmt.Sprintf("%s: %d of %d", c.Name, c.Shown, c.Total))
	}
	tables, err := crawlreport.NewTables(rep)
	if err != nil {
		return nil, err
	}
	rv.TemplateWide = tables.TemplateWide
	// Each page's URL opens its detail view.
	tables.Pages.Columns = slices.Clone(tables.Pages.Columns)
	for i := range tables.Pages.Columns {
		if tables.Pages.Columns[i].Key == "url" {
			tables.Pages.Columns[i].Link = Prefix + "/analyses/" + url.PathEscape(jobID) + "/page?url="
		}
	}
	for _, t := range []struct {
		dst *template.HTML
		t   *htmltable.Table
	}{{&rv.Findings, tables.Findings}, {&rv.Details, tables.Details}, {&rv.Pages, tables.Pages}, {&rv.NotFetched, tables.NotFetched}} {
		if *t.dst, err = t.t.HTML(); err != nil {
			return nil, err
		}
	}
	if rv.Data, err = htmltable.Data(tables.Findings, tables.Details, tables.Pages, tables.NotFetched); err != nil {
		return nil, err
	}

	codes := make([]int, 0, len(rep.StatusCodes))
	for c := range rep.StatusCodes {
		codes = append(codes, c)
	}
	sort.Ints(codes)
	var labels []string
	var values []int
	for _, c := range codes {
		l := strconv.Itoa(c)
		if c == 0 {
			l = "none"
		}
		labels, values = append(labels, l), append(values, rep.StatusCodes[c])
	}
	rv.Charts = append(rv.Charts, newBarChart("Pages by status code", "HTTP status", "pages", labels, values, 0))
	labels, values = nil, nil
	for depth, n := range rep.Crawl.DepthHistogram {
		labels, values = append(labels, strconv.Itoa(depth)), append(values, n)
	}
	rv.Charts = append(rv.Charts, newBarChart("Pages by click depth", "clicks from the start URL", "pages", labels, values, 0))
	rv.Charts = append(rv.Charts, newBarChart("Findings by severity", "severity", "findings", []string{"errors", "warnings", "notices"},
		[]int{rv.Errors, rv.Warnings, rv.Notices}, 0))
	return rv, nil
}

// progressJSON is the answer of the progress endpoint polled by app.js.
type progressJSON struct {
	Status    string `json:"status"`
	Done      bool   `json:"done"`
	PagesDone int    `json:"pagesDone"`
	Errors    int    `json:"errors"`
	Queued    int    `json:"queued"`
	Skipped   int    `json:"skipped"`
	Current   string `json:"current,omitempty"`
	Error     string `json:"error,omitempty"`
	// Phase is the crawl's phase; External its external link checks.
	Phase    string                    `json:"phase,omitempty"`
	External *crawler.ExternalProgress `json:"external,omitempty"`
}

func (d *Dashboard) analysisProgress(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	j, _, ok := d.ownJob(w, r, a)
	if !ok {
		return
	}
	row := NewJobRow(j)
	p := progressJSON{
		Status: j.Status, Done: row.Done, PagesDone: row.Progress.PagesDone, Errors: row.Progress.Errors,
		Queued: row.Progress.Queued, Skipped: row.Progress.Skipped, Current: row.Progress.Current, Error: j.Error,
		Phase: row.Progress.Phase, External: row.Progress.External,
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(p)
}

// analysisReportHTML serves the crawler's self-contained HTML report of a
// finished analysis, sandboxed by its own policy.
func (d *Dashboard) analysisReportHTML(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	j, rep, done, ok := d.ownReport(w, r, a)
	if !ok {
		return
	}
	defer done()
	if j.Status != string(store.JobSucceeded) || rep == nil {
		d.errorPage(w, r, a, http.StatusConflict, "This analysis has no report (status "+j.Status+").")
		return
	}
	var buf bytes.Buffer
	if err := crawlreport.WriteHTML(&buf, rep); err != nil {
		d.errorPage(w, r, a, http.StatusInternalServerError, "The report cannot be written.")
		return
	}
	w.Header().Set("Content-Security-Policy", reportPolicy)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(buf.Bytes())
}

func (d *Dashboard) cancelAnalysis(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	if d.opts.Analyses == nil {
		d.errorPage(w, r, a, http.StatusServiceUnavailable, "Site analyses are not available on this server.")
		return
	}
	id := r.PathValue("id")
	_, err := d.opts.Analyses.Cancel(r.Context(), a.ID, id)
	switch {
	case isNotFound(err):
		d.errorPage(w, r, a, http.StatusNotFound, "No such analysis.")
		return
	case err == nil, errors.Is(err, service.ErrConflict):
		// Canceled, or it had ended already: its page shows which.
	default:
		if _, msg, ok := fieldError(err); ok {
			d.errorPage(w, r, a, http.StatusConflict, msg)
			return
		}
		d.unavailable(w, r, err)
		return
	}
	http.Redirect(w, r, Prefix+"/analyses/"+url.PathEscape(id), http.StatusSeeOther)
}
