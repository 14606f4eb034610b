package dashboard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlreport"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/internal/htmltable"
	"github.com/seokit/seokit/seo"
)

func fieldErr(field, reason string) error { return &seo.InputError{Field: field, Reason: reason} }

// jobRequest is the part of a stored job request the dashboard shows (the
// JSON the API stores: {"domain", "options": {"maxPages",
// "includeSubdomains", "skipExternalLinks"}}).
type jobRequest struct {
	Domain  string `json:"domain"`
	Options struct {
		MaxPages          int    `json:"maxPages"`
		IncludeSubdomains bool   `json:"includeSubdomains"`
		SkipExternalLinks bool   `json:"skipExternalLinks"`
		Render            string `json:"render"`
	} `json:"options"`
}

// jobProgress is the stored progress object of a running job.
type jobProgress struct {
	PagesDone      int       `json:"pagesDone"`
	Errors         int       `json:"errors"`
	Queued         int       `json:"queued"`
	Skipped        int       `json:"skipped"`
	PagesPerSecond float64   `json:"pagesPerSecond"`
	Current        string    `json:"current,omitempty"`
	UpdatedAt      time.Time `json:"updatedAt"`
	// Phase and External are the crawl's (crawler.Progress).
	Phase    string                    `json:"phase,omitempty"`
	External *crawler.ExternalProgress `json:"external,omitempty"`
}

type jobRow struct {
	ID         string
	Domain     string
	MaxPages   int
	Subdomains bool
	Status     store.JobStatus
	Done       bool
	Progress   jobProgress
	Error      string
	CreatedAt  time.Time
	FinishedAt time.Time

	// SkipExternal: external links were not to be checked.
	SkipExternal bool
	// Render is the rendering mode, "" for none.
	Render string
}

func newJobRow(j *store.Job) jobRow {
	row := jobRow{ID: j.ID, Status: j.Status, Done: j.Status.Done(), Error: j.Error, CreatedAt: j.CreatedAt, FinishedAt: j.FinishedAt}
	var req jobRequest
	if json.Unmarshal(j.Request, &req) == nil {
		row.Domain, row.MaxPages, row.Subdomains = req.Domain, req.Options.MaxPages, req.Options.IncludeSubdomains
		row.SkipExternal = req.Options.SkipExternalLinks
		if req.Options.Render != "none" {
			row.Render = req.Options.Render
		}
	}
	if len(j.Progress) > 0 {
		json.Unmarshal(j.Progress, &row.Progress)
	}
	return row
}

type analysesView struct {
	Jobs         []jobRow
	Enabled      bool
	MaxPages     int
	FormDomain   string
	FormMaxPages string
	FormSubs     bool
	FormSkipExt  bool
	// FormRender is the rendering choice: "none", "auto" or "always".
	FormRender string
	// FormConfig is the "Advanced: configuration (JSON)" field: a crawl
	// configuration document (crawler.Config).
	FormConfig string
}

func (d *Dashboard) analysesPage(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	d.showAnalyses(w, r, s, a, http.StatusOK, &analysesView{FormMaxPages: "100", FormRender: "none"}, nil)
}

func (d *Dashboard) showAnalyses(w http.ResponseWriter, r *http.Request, s *session, a *store.Account, status int, av *analysesView, fields map[string]string) {
	jobs, err := d.st.Jobs(r.Context(), a.ID, 50)
	if err != nil {
		d.unavailable(w, r, err)
		return
	}
	av.Enabled = d.opts.Analyses != nil
	if d.opts.Quota != nil {
		if av.MaxPages, err = d.opts.Quota.MaxSitePages(r.Context(), a.ID); err != nil {
			d.unavailable(w, r, err)
			return
		}
	}
	for i := range jobs {
		av.Jobs = append(av.Jobs, newJobRow(&jobs[i]))
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
		// The plan's cap is checked by StartSite.
		n, err := strconv.Atoi(av.FormMaxPages)
		if err != nil || n < 1 {
			bad("maxPages", "maxPages must be a whole number of at least 1")
			return
		}
		maxPages = n
	}
	host, err := seo.ParseHost(av.FormDomain, &seo.DomainOptions{AllowPort: true})
	if err != nil {
		_, msg, _ := fieldError(err)
		bad("domain", msg)
		return
	}
	var cfg *crawler.Config
	if av.FormConfig != "" {
		if cfg, err = crawler.DecodeConfig(strings.NewReader(av.FormConfig)); err != nil {
			_, msg, _ := fieldError(err)
			bad("config", "Configuration: "+msg)
			return
		}
	}
	// A crawl spends the server's resources: it counts against the
	// account's daily limit as POST /v1/analyze/site does.
	if !d.admit(w, r, a, "site analysis") {
		return
	}
	j, err := d.opts.Analyses.StartSite(r.Context(), a.ID, host, maxPages, av.FormSubs, av.FormSkipExt, av.FormRender, cfg)
	if err != nil {
		if field, msg, ok := fieldError(err); ok {
			switch field {
			case "options.maxPages":
				field = "maxPages"
			case "options.render", "options.screenshot", "options.renderPages":
				field = "render"
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

func (d *Dashboard) ownJob(w http.ResponseWriter, r *http.Request, a *store.Account) (*store.Job, bool) {
	j, err := d.st.Job(r.Context(), a.ID, r.PathValue("id"))
	if isNotFound(err) {
		d.errorPage(w, r, a, http.StatusNotFound, "No such analysis.")
		return nil, false
	}
	if err != nil {
		d.unavailable(w, r, err)
		return nil, false
	}
	return j, true
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
	Job    jobRow
	Report *reportView
	Mutes  *muteView
}

// topFindings is the number of finding groups the summary names.
const topFindings = 5

func (d *Dashboard) analysisPage(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	j, ok := d.ownJob(w, r, a)
	if !ok {
		return
	}
	av := &analysisView{Job: newJobRow(j)}
	_, keepsShots := d.st.(store.Screenshots)
	v := d.base("Analysis of "+av.Job.Domain, "analyses", s, a)
	switch {
	case j.Status != store.JobSucceeded || len(j.Result) == 0:
	case len(j.Result) > store.MaxJobResultBytes:
		v.Error = "The stored report is too large to show here."
	default:
		var rep crawler.SiteReport
		if err := json.Unmarshal(j.Result, &rep); err != nil {
			d.log.Error("dashboard: stored report unreadable", "job", j.ID, "err", err)
			v.Error = "The stored report cannot be read."
		} else {
			if av.Report, err = buildReport(&rep); err != nil {
				d.log.Error("dashboard: report view", "job", j.ID, "err", err)
				v.Error = "The stored report cannot be shown."
			} else if keepsShots {
				av.Report.Shots, av.Report.ShotsMore = shotViews(j.ID, &rep)
			}
		}
	}
	if av.Report != nil {
		av.Mutes = d.muteView(r.Context(), a.ID, av.Job.Domain, av.Report.R)
	}
	if !j.Status.Done() {
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
	st, ok := d.st.(store.Screenshots)
	pageURL := r.URL.Query().Get("url")
	if !ok || pageURL == "" {
		http.NotFound(w, r)
		return
	}
	png, err := st.Screenshot(r.Context(), a.ID, r.PathValue("id"), pageURL)
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

func buildReport(rep *crawler.SiteReport) (*reportView, error) {
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
	rv.Charts = append(rv.Charts, newBarChart("Pages by status code", labels, values, 0))
	labels, values = nil, nil
	for depth, n := range rep.Crawl.DepthHistogram {
		labels, values = append(labels, strconv.Itoa(depth)), append(values, n)
	}
	rv.Charts = append(rv.Charts, newBarChart("Pages by click depth", labels, values, 0))
	rv.Charts = append(rv.Charts, newBarChart("Findings by severity", []string{"errors", "warnings", "notices"},
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
	j, ok := d.ownJob(w, r, a)
	if !ok {
		return
	}
	row := newJobRow(j)
	p := progressJSON{
		Status: string(j.Status), Done: row.Done, PagesDone: row.Progress.PagesDone, Errors: row.Progress.Errors,
		Queued: row.Progress.Queued, Skipped: row.Progress.Skipped, Current: row.Progress.Current, Error: j.Error,
		Phase: row.Progress.Phase, External: row.Progress.External,
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(p)
}

// analysisReportHTML serves the crawler's self-contained HTML report of a
// finished analysis, sandboxed by its own policy.
func (d *Dashboard) analysisReportHTML(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	j, ok := d.ownJob(w, r, a)
	if !ok {
		return
	}
	if j.Status != store.JobSucceeded {
		d.errorPage(w, r, a, http.StatusConflict, "This analysis has no report (status "+string(j.Status)+").")
		return
	}
	if len(j.Result) > store.MaxJobResultBytes {
		d.errorPage(w, r, a, http.StatusInternalServerError, "The stored report is too large to show here.")
		return
	}
	var rep crawler.SiteReport
	if err := json.Unmarshal(j.Result, &rep); err != nil {
		d.errorPage(w, r, a, http.StatusInternalServerError, "The stored report cannot be read.")
		return
	}
	var buf bytes.Buffer
	if err := crawlreport.WriteHTML(&buf, &rep); err != nil {
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
	j, ok := d.ownJob(w, r, a)
	if !ok {
		return
	}
	if !j.Status.Done() {
		if err := d.opts.Analyses.CancelSite(r.Context(), a.ID, j.ID); err != nil && !isNotFound(err) {
			if _, msg, ok := fieldError(err); ok {
				d.errorPage(w, r, a, http.StatusConflict, msg)
				return
			}
			d.unavailable(w, r, err)
			return
		}
	}
	http.Redirect(w, r, Prefix+"/analyses/"+j.ID, http.StatusSeeOther)
}
