// The access-log pages of a project: its log uploads, and the report of
// one with its charts and the crawl join, read through the logs service
// (service.Logs), never the store.

package dashboard

import (
	"crypto/hmac"
	"html/template"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"

	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
)

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
	// The report is decoded as the API's report reads are (one at a time
	// per account, memory reserved), and held until its HTML is written.
	j, rep, done, err := d.opts.Logs.Report(r.Context(), a.ID, p.ID, r.PathValue("lid"))
	if err = serviceFailure(err); err != nil {
		d.failed(w, r, a, err, "log upload")
		return
	}
	defer done()
	lv := logReportView{Project: *p, Job: *j}
	if rep != nil {
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

// Limits of the upload form's fields other than its file.
const (
	maxUploadFields     = 8
	maxUploadFieldBytes = 1 << 10
)

// signedInUpload wraps a handler that takes a file: a multipart/form-data
// form whose small fields come before its one file part. The session is
// required as for signedIn; the CSRF token must be among the fields before
// the file, and is checked before a byte of the file is read. The file
// part is handed to h unread: h streams it (no buffer, no temporary file
// in the dashboard).
func (d *Dashboard) signedInUpload(h func(w http.ResponseWriter, r *http.Request, s *session, a *store.Account, fields url.Values, file *multipart.Part)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s, a, err := d.sessionAccount(r)
		if err != nil {
			d.unavailable(w, r, err)
			return
		}
		if s == nil {
			d.errorPage(w, r, nil, http.StatusUnauthorized, "Your session has ended. Sign in again.")
			return
		}
		mr, err := r.MultipartReader()
		if err != nil {
			d.errorPage(w, r, a, http.StatusBadRequest, "The form cannot be read: send it as multipart/form-data.")
			return
		}
		fields := url.Values{}
		for {
			part, err := mr.NextPart()
			if err == io.EOF {
				d.errorPage(w, r, a, http.StatusBadRequest, "Choose a log file to upload.")
				return
			}
			if err != nil {
				d.errorPage(w, r, a, http.StatusBadRequest, "The form cannot be read.")
				return
			}
			if part.FileName() != "" || part.FormName() == "file" {
				if got := fields.Get(csrfField); got == "" || !hmac.Equal([]byte(got), []byte(d.csrfToken(s))) {
					d.errorPage(w, r, nil, http.StatusForbidden, "The form has expired or was not sent from this site. Reload the page and try again.")
					return
				}
				h(w, r, s, a, fields, part)
				return
			}
			if len(fields) >= maxUploadFields {
				d.errorPage(w, r, a, http.StatusBadRequest, "The form has too many fields.")
				return
			}
			v, err := io.ReadAll(io.LimitReader(part, maxUploadFieldBytes+1))
			if err != nil || len(v) > maxUploadFieldBytes {
				d.errorPage(w, r, a, http.StatusBadRequest, "A field of the form is too long.")
				return
			}
			fields.Add(part.FormName(), string(v))
		}
	}
}

// uploadLog streams the form's log file to the logs service and shows its
// upload's page, where the parse's progress and report appear.
func (d *Dashboard) uploadLog(w http.ResponseWriter, r *http.Request, s *session, a *store.Account, fields url.Values, file *multipart.Part) {
	p, ok := d.logsProject(w, r, a)
	if !ok {
		return
	}
	req := service.LogUpload{Name: file.FileName(), Format: fields.Get("format"), StripQuery: fields.Get("stripQuery") == "true", Size: -1,
		Receive: service.ReceiveFor(w)}
	j, err := d.opts.Logs.Upload(r.Context(), a.ID, p.ID, req, file)
	if err = serviceFailure(err); err != nil {
		d.failed(w, r, a, err, "project")
		return
	}
	http.Redirect(w, r, Prefix+"/projects/"+url.PathEscape(p.ID)+"/logs/"+url.PathEscape(j.ID), http.StatusSeeOther)
}
