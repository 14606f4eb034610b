package dashboard

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

// Page sizes of the project pages: each table shows one page and links
// the next, so an account with 1,000 projects or a project with 1,000
// analyses stays readable.
const (
	projectsPageSize = 25
	historyPageSize  = 25
	// maxHistory is how many of a project's newest analyses the project
	// page reads (the store's cap of ProjectJobs) and maxCharted how many
	// of them the trend charts draw.
	maxHistory = 1000
	maxCharted = 200
)

// apiFailure is a service's refusal as the pages show it: the status, code,
// message and field the API's error envelope would carry.
type apiFailure struct {
	Status  int
	Code    string
	Message string
	Field   string
}

func (e *apiFailure) Error() string { return "dashboard: " + e.Code + ": " + e.Message }

// StatusCode and PublicMessage make a refusal a Refusal.
func (e *apiFailure) StatusCode() int       { return e.Status }
func (e *apiFailure) PublicMessage() string { return e.Message }

// serviceFailure turns an error of a service into the shape of an API
// error answer (*apiFailure), so the pages show a service's refusal as
// they show the API's: bad input (400 naming the field), a refusal with
// its status (not found, conflict, limit), and anything else as it is (a
// store failure: 503).
func serviceFailure(err error) error {
	if err == nil {
		return nil
	}
	if ie, ok := seo.AsInputError(err); ok {
		return &apiFailure{Status: http.StatusBadRequest, Code: "invalid_request", Message: strings.TrimPrefix(ie.Error(), "seo: "), Field: ie.Field}
	}
	var rf Refusal
	if errors.As(err, &rf) {
		f := &apiFailure{Status: rf.StatusCode(), Message: rf.PublicMessage()}
		var fn interface{ FieldName() string }
		if errors.As(err, &fn) {
			f.Field = fn.FieldName()
		}
		return f
	}
	switch {
	case isNotFound(err):
		return &apiFailure{Status: http.StatusNotFound, Code: "not_found", Message: "no such resource"}
	case errors.Is(err, service.ErrConflict):
		return &apiFailure{Status: http.StatusConflict, Code: "conflict", Message: "the resource is in a state that does not allow this"}
	}
	return err
}

// failed shows an error of a service (serviceFailure): a 404 as the not-found page, another
// refusal with its status and message, anything else as unavailable.
func (d *Dashboard) failed(w http.ResponseWriter, r *http.Request, a *store.Account, err error, what string) {
	var f *apiFailure
	switch {
	case errors.As(err, &f) && f.Status == http.StatusNotFound:
		d.errorPage(w, r, a, http.StatusNotFound, "No such "+what+".")
	case errors.As(err, &f) && f.Status < 500:
		d.errorPage(w, r, a, f.Status, f.Message)
	default:
		d.unavailable(w, r, err)
	}
}

// projectForm is the create and settings form.
type projectForm struct {
	Name, Domain, TimeZone, Keywords, Config string
}

func (f *projectForm) read(r *http.Request) {
	f.Name = strings.TrimSpace(r.PostFormValue("name"))
	f.Domain = strings.TrimSpace(r.PostFormValue("domain"))
	f.TimeZone = strings.TrimSpace(r.PostFormValue("time_zone"))
	f.Keywords = strings.TrimSpace(r.PostFormValue("keywords"))
	f.Config = strings.TrimSpace(r.PostFormValue("config"))
}

// request turns the form into the service's request, every field set; a
// configuration that is not JSON at all is reported here, the rest by the
// service.
func (f *projectForm) request() (*service.ProjectRequest, map[string]string) {
	name, domain, zone, keywords := f.Name, f.Domain, f.TimeZone, []string{}
	req := &service.ProjectRequest{Name: &name, Domain: &domain, TimeZone: &zone, Keywords: &keywords, Config: json.RawMessage("null")}
	for _, k := range strings.Split(f.Keywords, "\n") {
		if k = strings.TrimSpace(k); k != "" {
			keywords = append(keywords, k)
		}
	}
	if f.Config != "" {
		if !json.Valid([]byte(f.Config)) {
			return nil, map[string]string{"config": "Configuration: the crawl configuration is not valid JSON."}
		}
		req.Config = json.RawMessage(f.Config)
	}
	return req, nil
}

// formField maps a field of the API ("keywords[2]", "config.maxPages")
// to the form's input.
func formField(field string) string {
	for _, f := range []string{"name", "domain", "timeZone", "keywords", "config"} {
		if field == f || strings.HasPrefix(field, f+"[") || strings.HasPrefix(field, f+".") {
			return f
		}
	}
	return ""
}

// formErrors turns an answer of the API into the form's field errors; a
// refusal naming no field of the form is shown above it (field "").
func formErrors(err error) (map[string]string, int, bool) {
	var f *apiFailure
	if !errors.As(err, &f) || f.Status >= 500 || f.Status == http.StatusNotFound {
		return nil, 0, false
	}
	return map[string]string{formField(f.Field): f.Message}, f.Status, true
}

// configText is the saved configuration as the form shows it: indented
// JSON, its credentials "[redacted]"; "" for the defaults.
func configText(cfg *crawler.Config) string {
	raw, err := json.Marshal(cfg)
	if err != nil {
		return ""
	}
	var buf bytes.Buffer
	if json.Indent(&buf, raw, "", "  ") != nil {
		return ""
	}
	if s := buf.String(); s != "{}" && s != "null" {
		return s
	}
	return ""
}

// lastRun is a project's newest analysis in the list.
type lastRun struct {
	ID, Status string
	Score      *int
	When       time.Time
}

type projectRow struct {
	service.Project
	Last    *lastRun
	NextRun string // the next scheduled run in the project's zone, "" for none
}

type projectsView struct {
	Enabled bool
	Rows    []projectRow
	Total   int
	Pager   pager
	Form    projectForm
}

// pager is a table's page: Page counts from 1.
type pager struct {
	Page, Pages int
	Prev, Next  string // links, "" for none
}

// newPager returns the page of total rows that r's ?page= asks for and
// the range [from, to) of rows it shows.
func newPager(r *http.Request, total, size int, link func(page int) string) (pager, int, int) {
	p := pager{Page: 1, Pages: max(1, (total+size-1)/size)}
	if n, err := strconv.Atoi(r.URL.Query().Get("page")); err == nil && n > 1 {
		p.Page = min(n, p.Pages)
	}
	if p.Page > 1 {
		p.Prev = link(p.Page - 1)
	}
	if p.Page < p.Pages {
		p.Next = link(p.Page + 1)
	}
	from := (p.Page - 1) * size
	return p, from, min(total, from+size)
}

func (d *Dashboard) projectsPage(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	d.showProjects(w, r, s, a, http.StatusOK, projectForm{TimeZone: "UTC"}, nil)
}

// projectsNotice is the notice of the projects page after an action.
func projectsNotice(r *http.Request) string {
	if r.URL.Query().Get("done") == "deleted" {
		return "The project was deleted. Its analyses are kept under Site analyses."
	}
	return ""
}

func (d *Dashboard) showProjects(w http.ResponseWriter, r *http.Request, s *session, a *store.Account, status int, form projectForm, fields map[string]string) {
	ctx := r.Context()
	pv := &projectsView{Enabled: d.opts.Projects != nil, Form: form}
	var ps []service.Project
	if d.opts.Projects != nil {
		var err error
		if ps, err = d.opts.Projects.List(ctx, a.ID); err != nil {
			d.unavailable(w, r, err)
			return
		}
	}
	pv.Total = len(ps)
	var from, to int
	pv.Pager, from, to = newPager(r, len(ps), projectsPageSize, func(p int) string {
		return Prefix + "/projects?page=" + strconv.Itoa(p)
	})
	for i := from; i < to; i++ {
		p := &ps[i]
		row := projectRow{Project: *p}
		h, err := d.opts.Projects.Analyses(ctx, a.ID, p.ID, 1)
		if err != nil {
			d.unavailable(w, r, err)
			return
		}
		if len(h.Analyses) > 0 {
			last := &h.Analyses[0]
			row.Last = &lastRun{ID: last.ID, Status: last.Status, When: last.CreatedAt}
			if last.Summary != nil {
				row.Last.Score = last.Summary.Score
			}
		}
		row.NextRun = d.nextRun(ctx, a.ID, p)
		pv.Rows = append(pv.Rows, row)
	}
	v := d.base("Projects", "projects", s, a)
	v.P, v.Fields, v.Notice = pv, fields, projectsNotice(r)
	if m, ok := fields[""]; ok {
		v.Error = m
	} else {
		for _, m := range fields {
			v.Error = m
		}
	}
	d.render(w, r, status, "projects", v)
}

func (d *Dashboard) createProject(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	var form projectForm
	form.read(r)
	req, bad := form.request()
	if bad != nil {
		d.showProjects(w, r, s, a, http.StatusBadRequest, form, bad)
		return
	}
	if d.opts.Projects == nil {
		d.errorPage(w, r, a, http.StatusServiceUnavailable, "Projects are not available on this server.")
		return
	}
	p, err := d.opts.Projects.Create(r.Context(), a.ID, *req)
	if err = serviceFailure(err); err != nil {
		if fields, status, ok := formErrors(err); ok {
			d.showProjects(w, r, s, a, status, form, fields)
			return
		}
		d.failed(w, r, a, err, "project")
		return
	}
	http.Redirect(w, r, Prefix+"/projects/"+url.PathEscape(p.ID)+"?done=created", http.StatusSeeOther)
}

// inZone formats t in the named zone (UTC when it does not load).
func inZone(t time.Time, zone string) string {
	loc, err := time.LoadLocation(zone)
	if err != nil {
		loc, zone = time.UTC, "UTC"
	}
	return t.In(loc).Format("2006-01-02 15:04") + " " + zone
}
