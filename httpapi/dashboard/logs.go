// The access-log pages of a project: its log uploads, and the report of
// one with its charts and the crawl join, read through the logs service
// (service.Logs), never the store.

package dashboard

import (
	"encoding/json"
	"html/template"
	"io"
	"net/http"

	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/logs"
)

// maxLogReportBytes caps a log report read for its page; reports are
// bounded by the analysis's caps to a few MB.
const maxLogReportBytes = 64 << 20

type logsView struct {
	Project service.Project
	Logs    []service.LogJob
}

type logReportView struct {
	Project service.Project
	Job     service.LogJob
	// Report is the report's HTML (logs.Report.HTMLBody): charts, bots,
	// URLs and the join's lists; empty until the parse succeeded.
	Report template.HTML
	// Verification says whether bots were verified.
	Verified bool
}

// logsProject reads the project of a log page; false when the page was
// answered.
func (d *Dashboard) logsProject(w http.ResponseWriter, r *http.Request, a *store.Account) (*service.Project, bool) {
	if d.opts.Logs == nil || d.opts.Projects == nil {
		d.errorPage(w, r, a, http.StatusServiceUnavailable, "Log files are not available on this server.")
		return nil, false
	}
	p, err := d.opts.Projects.Get(r.Context(), a.ID, r.PathValue("id"))
	if err = serviceFailure(err); err != nil {
		d.failed(w, r, a, err, "project")
		return nil, false
	}
	return p, true
}

// logsPage lists a project's log uploads.
func (d *Dashboard) logsPage(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	p, ok := d.logsProject(w, r, a)
	if !ok {
		return
	}
	list, err := d.opts.Logs.List(r.Context(), a.ID, p.ID, service.MaxList)
	if err = serviceFailure(err); err != nil {
		d.failed(w, r, a, err, "project")
		return
	}
	v := d.base("Access logs of "+p.Name, "projects", s, a)
	v.P = logsView{Project: *p, Logs: list}
	for _, l := range list {
		if l.Status == "queued" || l.Status == "running" {
			v.Refresh = 5
		}
	}
	d.render(w, r, http.StatusOK, "logs", v)
}

// logReportPage shows one upload with its report.
func (d *Dashboard) logReportPage(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	p, ok := d.logsProject(w, r, a)
	if !ok {
		return
	}
	j, res, err := d.opts.Logs.Get(r.Context(), a.ID, p.ID, r.PathValue("lid"))
	if err = serviceFailure(err); err != nil {
		d.failed(w, r, a, err, "log upload")
		return
	}
	lv := logReportView{Project: *p, Job: *j}
	if res != nil {
		rep, err := readLogReport(res)
		if err != nil {
			d.log.Error("dashboard: log report", "job", j.ID, "err", err)
			d.errorPage(w, r, a, http.StatusInternalServerError, "The stored report cannot be read.")
			return
		}
		if lv.Report, err = rep.HTMLBody(); err != nil {
			d.log.Error("dashboard: log report", "job", j.ID, "err", err)
			d.errorPage(w, r, a, http.StatusInternalServerError, "The report cannot be written.")
			return
		}
		lv.Verified = rep.Verification.Enabled
	}
	v := d.base(j.Name+" – access log of "+p.Name, "projects", s, a)
	v.P = lv
	if j.Status == "queued" || j.Status == "running" {
		v.Refresh = 3
	}
	d.render(w, r, http.StatusOK, "logreport", v)
}

func readLogReport(res service.Result) (*logs.Report, error) {
	rc, err := res.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	var rep logs.Report
	if err := json.NewDecoder(io.LimitReader(rc, maxLogReportBytes)).Decode(&rep); err != nil {
		return nil, err
	}
	return &rep, nil
}
