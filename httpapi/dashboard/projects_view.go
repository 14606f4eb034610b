package dashboard

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
)

// historyRow is one analysis of a project's history (the service's
// ProjectAnalysis). Summary is nil for an analysis that did not succeed
// (or whose summary is missing): the page shows its status, never zeros.
type historyRow struct {
	service.ProjectAnalysis
	Done bool
	// DiffLink compares the analysis with the previous successful one;
	// "" for the first or one without a report.
	DiffLink string
}

func newHistoryRow(pa *service.ProjectAnalysis) historyRow {
	return historyRow{ProjectAnalysis: *pa, Done: store.JobStatus(pa.Status).Done()}
}

type projectView struct {
	service.Project
	Enabled bool // analyses can be started
	// Analyses counts the history read (at most maxHistory), More says
	// whether older ones exist.
	Analyses int
	More     bool
	History  []historyRow
	Pager    pager
	Charts   []*trendChart
	Charted  int
	// Pending counts the charted analyses without a summary.
	Pending  int
	Form     projectForm
	Sched    *schedulesView
	Alerts   *alertsView
	Rankings bool
}

func (d *Dashboard) projectPage(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	notice := map[string]string{
		"created": "The project was created.", "saved": "The settings were saved.",
		"schedule": "The schedule was saved.", "schedule-deleted": "The schedule was deleted.",
		"alert": "The alert rule was saved.", "alert-deleted": "The alert rule was deleted.", "alert-test": "A test alert was queued.",
	}[r.URL.Query().Get("done")]
	d.showProject(w, r, s, a, http.StatusOK, nil, notice, nil)
}

// showProject renders the project page; form, when not nil, is the
// settings form as sent (with fields its errors).
func (d *Dashboard) showProject(w http.ResponseWriter, r *http.Request, s *session, a *store.Account, status int, form *projectForm, notice string, fields map[string]string, mods ...func(*projectView)) {
	ctx := r.Context()
	id := r.PathValue("id")
	if d.opts.Projects == nil {
		d.errorPage(w, r, a, http.StatusServiceUnavailable, "Projects are not available on this server.")
		return
	}
	pp, err := d.opts.Projects.Get(ctx, a.ID, id)
	if err = serviceFailure(err); err != nil {
		d.failed(w, r, a, err, "project")
		return
	}
	p := *pp
	pv := &projectView{Project: p, Enabled: d.opts.Analyses != nil, Rankings: d.opts.Tracking != nil}
	if form != nil {
		pv.Form = *form
	} else {
		pv.Form = projectForm{Name: p.Name, Domain: p.Domain, TimeZone: p.TimeZone, Config: configText(&p.Config)}
		for i, k := range p.Keywords {
			if i > 0 {
				pv.Form.Keywords += "\n"
			}
			pv.Form.Keywords += k
		}
	}
	h, err := d.opts.Projects.Analyses(ctx, a.ID, p.ID, maxHistory)
	if err != nil {
		d.unavailable(w, r, err)
		return
	}
	js := h.Analyses
	pv.More = h.HasMore
	rows := make([]historyRow, len(js))
	for i := range js {
		rows[i] = newHistoryRow(&js[i])
	}
	// Newest first: each successful analysis is compared with the next
	// older successful one.
	prev := ""
	for i := len(rows) - 1; i >= 0; i-- {
		if rows[i].Status != string(store.JobSucceeded) {
			continue
		}
		if prev != "" {
			rows[i].DiffLink = Prefix + "/analyses/" + url.PathEscape(rows[i].ID) + "/diff?against=" + url.QueryEscape(prev)
		}
		prev = rows[i].ID
	}
	pv.Analyses = len(rows)
	var from, to int
	pv.Pager, from, to = newPager(r, len(rows), historyPageSize, func(n int) string {
		return Prefix + "/projects/" + url.PathEscape(p.ID) + "?page=" + strconv.Itoa(n) + "#history-h"
	})
	pv.History = rows[from:to]
	pv.Charts, pv.Charted, pv.Pending = historyCharts(rows)
	pv.Sched = d.schedulesView(r, a, &p)
	pv.Alerts = d.alertsView(r, a, &p)
	for _, m := range mods {
		m(pv)
	}
	v := d.base(p.Name, "projects", s, a)
	v.P, v.Fields, v.Notice = pv, fields, notice
	for _, m := range fields {
		v.Error = m
	}
	for _, h := range pv.History {
		if !h.Done {
			v.Refresh = 10
		}
	}
	d.render(w, r, status, "project", v)
}

// historyCharts draws the trend of the newest maxCharted analyses, oldest
// first: site score, pages, error and warning occurrences (the history
// table has the distinct failed checks). An analysis without a
// summary (failed, canceled, queued or running) is a gap in the lines and
// a marker on the axis, never a zero.
func historyCharts(rows []historyRow) ([]*trendChart, int, int) {
	n := min(len(rows), maxCharted)
	if n == 0 {
		return nil, 0, 0
	}
	points := make([]trendPoint, n)
	pending := 0
	for i := range n {
		h := rows[n-1-i]
		points[i] = trendPoint{Label: h.CreatedAt.UTC().Format("2006-01-02 15:04"), Date: h.CreatedAt.UTC().Format("01-02"), State: h.Status}
		if h.Summary == nil {
			pending++
		}
	}
	series := []struct {
		title string
		get   func(*service.JobSummary) *int
	}{
		{"Site score", func(s *service.JobSummary) *int { return s.Score }},
		{"Pages crawled", func(s *service.JobSummary) *int { return &s.Pages }},
		// Occurrences, not distinct checks: one check failing on 480 more
		// pages is a change the chart must show.
		{"Errors (occurrences)", func(s *service.JobSummary) *int { return &s.Findings.Errors }},
		{"Warnings (occurrences)", func(s *service.JobSummary) *int { return &s.Findings.Warnings }},
	}
	var charts []*trendChart
	for k, sr := range series {
		vals := make([]*int, n)
		for i := range n {
			if s := rows[n-1-i].Summary; s != nil {
				if v := sr.get(s); v != nil {
					vals[i] = new(*v)
				}
			}
		}
		fixed := 0
		if k == 0 {
			fixed = 100 // the score's scale is 0-100
		}
		charts = append(charts, newTrendChart(sr.title, points, vals, fixed, seriesClasses[k%len(seriesClasses)]))
	}
	return charts, n, pending
}

// showProjectWith renders the project page after an action with notice,
// mod (when not nil) changing the view.
func (d *Dashboard) showProjectWith(w http.ResponseWriter, r *http.Request, s *session, a *store.Account, notice string, mod func(*projectView)) {
	if mod == nil {
		mod = func(*projectView) {}
	}
	d.showProject(w, r, s, a, http.StatusOK, nil, notice, nil, mod)
}

func (d *Dashboard) updateProject(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	var form projectForm
	form.read(r)
	req, bad := form.request()
	if bad != nil {
		d.showProject(w, r, s, a, http.StatusBadRequest, &form, "", bad)
		return
	}
	id := r.PathValue("id")
	if d.opts.Projects == nil {
		d.errorPage(w, r, a, http.StatusServiceUnavailable, "Projects are not available on this server.")
		return
	}
	_, err := d.opts.Projects.Update(r.Context(), a.ID, id, *req)
	if err = serviceFailure(err); err != nil {
		if fields, status, ok := formErrors(err); ok {
			if fields[""] != "" {
				fields["name"] = fields[""]
				delete(fields, "")
			}
			d.showProject(w, r, s, a, status, &form, "", fields)
			return
		}
		d.failed(w, r, a, err, "project")
		return
	}
	http.Redirect(w, r, Prefix+"/projects/"+url.PathEscape(id)+"?done=saved", http.StatusSeeOther)
}

func (d *Dashboard) deleteProject(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	id := r.PathValue("id")
	if r.PostFormValue("confirm") != "yes" {
		// Without the box ticked nothing is deleted, with or without
		// JavaScript.
		d.showProject(w, r, s, a, http.StatusBadRequest, nil, "", map[string]string{"confirm": "Tick the box to confirm the deletion."})
		return
	}
	if d.opts.Projects == nil {
		d.errorPage(w, r, a, http.StatusServiceUnavailable, "Projects are not available on this server.")
		return
	}
	if err := serviceFailure(d.opts.Projects.Delete(r.Context(), a.ID, id)); err != nil {
		d.failed(w, r, a, err, "project")
		return
	}
	http.Redirect(w, r, Prefix+"/projects?done=deleted", http.StatusSeeOther)
}

// runProject starts a site analysis of the project with its saved
// settings through the analyses service, which charges it to the
// account's quota like the start form.
func (d *Dashboard) runProject(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	id := r.PathValue("id")
	if d.opts.Analyses == nil {
		d.errorPage(w, r, a, http.StatusServiceUnavailable, "Site analyses are not available on this server.")
		return
	}
	j, err := d.opts.Analyses.Submit(r.Context(), a.ID, service.SiteRequest{ProjectID: id})
	if err != nil {
		if isNotFound(err) {
			d.errorPage(w, r, a, http.StatusNotFound, "No such project.")
			return
		}
		if _, msg, ok := fieldError(err); ok {
			d.showProject(w, r, s, a, http.StatusBadRequest, nil, "", map[string]string{"run": "Not started: " + msg})
			return
		}
		var rf Refusal
		if errors.As(err, &rf) {
			d.showProject(w, r, s, a, rf.StatusCode(), nil, "", map[string]string{"run": "Not started: " + rf.PublicMessage()})
			return
		}
		d.unavailable(w, r, err)
		return
	}
	http.Redirect(w, r, Prefix+"/analyses/"+url.PathEscape(j.ID), http.StatusSeeOther)
}
