package dashboard

import (
	"errors"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/seokit/seokit/fieldvitals"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/indexstatus"
	"github.com/seokit/seokit/internal/svgchart"
)

// indexPagesShown caps the pages the index status table lists.
const indexPagesShown = 25

// indexFieldView is the analysis's "Index status and field Web Vitals"
// page: Search Console URL Inspection of a sample joined to the report,
// and CrUX field data beside the lab values.
type indexFieldView struct {
	JobID, Domain  string
	IndexAvailable bool
	FieldAvailable bool
	Run            *service.IndexStatusRun
	Pages          []indexstatus.Page
	PagesMore      int
	Made           int
	Reasons        []string
	Field          *service.FieldVitalsResponse
	FieldURL       string
	FormFactor     string
	FieldError     string
}

// indexFieldPage shows the index status run of an analysis (or the form
// that starts one) and, with ?url=, the field Web Vitals of that URL beside
// the analysis's lab values; looking them up is charged by the service.
func (d *Dashboard) indexFieldPage(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	if d.opts.Analyses == nil {
		d.errorPage(w, r, a, http.StatusServiceUnavailable, "Site analyses are not available on this server.")
		return
	}
	id := r.PathValue("id")
	job, _, err := d.opts.Analyses.Get(r.Context(), a.ID, id)
	if err = serviceFailure(err); err != nil {
		d.failed(w, r, a, err, "analysis")
		return
	}
	v := &indexFieldView{JobID: id, Domain: job.Domain, IndexAvailable: d.opts.IndexStatus != nil, FieldAvailable: d.opts.FieldVitals != nil}
	if d.opts.IndexStatus != nil {
		run, err := d.opts.IndexStatus.Get(r.Context(), a.ID, id)
		switch {
		case err == nil:
			v.Run = run
			if rep := run.Report; rep != nil {
				v.Pages = rep.Pages[:min(len(rep.Pages), indexPagesShown)]
				v.PagesMore = len(rep.Pages) - len(v.Pages)
				for _, m := range rep.Quota.Made {
					v.Made += m.Inspections
				}
				for k, n := range rep.Counts.NotInspectedReasons {
					v.Reasons = append(v.Reasons, k+" "+strconv.Itoa(n))
				}
			}
		case errors.Is(err, service.ErrNotFound) || isNotFound(err):
			// No run yet: the page offers to start one.
		default:
			d.failed(w, r, a, serviceFailure(err), "analysis")
			return
		}
	}
	q := r.URL.Query()
	v.FieldURL, v.FormFactor = strings.TrimSpace(q.Get("url")), q.Get("form_factor")
	if v.FieldURL != "" && d.opts.FieldVitals != nil {
		out, err := d.opts.FieldVitals.Lookup(r.Context(), a.ID, service.FieldVitalsRequest{
			Query:      fieldvitals.Query{URL: v.FieldURL, FormFactor: fieldvitals.FormFactor(v.FormFactor)},
			AnalysisID: id,
		})
		if f := serviceFailure(err); f != nil {
			if _, msg, ok := fieldError(err); ok {
				v.FieldError = msg
			} else {
				v.FieldError = "The Chrome UX Report could not be read: " + f.Error()
			}
		} else {
			v.Field = out
		}
	}
	if v.FieldURL == "" {
		v.FieldURL = "https://" + job.Domain + "/"
	}
	page := d.base("Index status and field data of "+job.Domain, "analyses", s, a)
	page.P = v
	d.render(w, r, http.StatusOK, "indexfield", page)
}

// startIndexStatus starts an index status run of the analysis through the
// service, which charges it, and shows the page.
func (d *Dashboard) startIndexStatus(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	if d.opts.IndexStatus == nil {
		d.errorPage(w, r, a, http.StatusServiceUnavailable, "Index status is not available on this server.")
		return
	}
	id := r.PathValue("id")
	req := service.IndexStatusRequest{Property: strings.TrimSpace(r.PostFormValue("property"))}
	if n := strings.TrimSpace(r.PostFormValue("sample")); n != "" {
		size, err := strconv.Atoi(n)
		if err != nil {
			d.errorPage(w, r, a, http.StatusBadRequest, "The sample size must be a whole number.")
			return
		}
		req.SampleSize = size
	}
	_, err := d.opts.IndexStatus.Start(r.Context(), a.ID, id, req)
	if err = serviceFailure(err); err != nil {
		d.failed(w, r, a, err, "analysis")
		return
	}
	http.Redirect(w, r, Prefix+"/analyses/"+url.PathEscape(id)+"/index", http.StatusSeeOther)
}

// fieldTrendView is a project's field Web Vitals page: its origin's latest
// CrUX record and the weekly trend of each metric's p75.
type fieldTrendView struct {
	ProjectID, Name, Domain string
	FormFactor              string
	Field                   *service.FieldVitalsResponse
	Charts                  []*trendChart
}

// projectFieldPage shows the field Web Vitals trend of a project's origin
// (the CrUX History API through the service, which charges it); the page
// asks for it only when opened.
func (d *Dashboard) projectFieldPage(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	if d.opts.Projects == nil || d.opts.FieldVitals == nil {
		d.errorPage(w, r, a, http.StatusServiceUnavailable, "Field Web Vitals are not available on this server: it needs a Chrome UX Report API key.")
		return
	}
	id := r.PathValue("id")
	p, err := d.opts.Projects.Get(r.Context(), a.ID, id)
	if err = serviceFailure(err); err != nil {
		d.failed(w, r, a, err, "project")
		return
	}
	v := &fieldTrendView{ProjectID: id, Name: p.Name, Domain: p.Domain, FormFactor: r.URL.Query().Get("form_factor")}
	out, err := d.opts.FieldVitals.Project(r.Context(), a.ID, id, fieldvitals.FormFactor(v.FormFactor))
	if err = serviceFailure(err); err != nil {
		d.failed(w, r, a, err, "project")
		return
	}
	v.Field = out
	if h := out.History; h != nil && h.Status == fieldvitals.StatusOK {
		labels := make([]string, len(h.Periods))
		for i, pd := range h.Periods {
			labels[i] = pd.Last
		}
		for _, sr := range h.Metrics {
			title := strings.ToUpper(sr.Name) + " p75"
			if sr.Unit != "" {
				title += " (" + sr.Unit + ")"
			}
			v.Charts = append(v.Charts, newFieldChart(title, labels, sr.P75, sr.Name))
		}
	}
	page := d.base("Field Web Vitals of "+p.Name, "projects", s, a)
	page.P = v
	d.render(w, r, http.StatusOK, "fieldtrend", page)
}

// newFieldChart draws a metric's weekly p75 over the collection periods
// ending at labels, on a scale from 0 that shows the "good" threshold as a
// tick; a period without data is a mark on the axis, never a zero.
func newFieldChart(title string, labels []string, values []*float64, metric string) *trendChart {
	good := fieldvitals.Thresholds[metric].Good
	top := good
	for _, v := range values {
		if v != nil {
			top = max(top, *v)
		}
	}
	if metric == fieldvitals.CLS {
		top = math.Ceil(top*1.2*20) / 20 // to 0.05
	} else {
		top = float64(niceCeil(int(math.Ceil(top * 1.2))))
	}
	c := &trendChart{Title: title}
	sr := svgchart.Series{Name: title, Class: "s0", Points: make([]svgchart.Point, len(labels))}
	for i, l := range labels {
		if i >= len(values) || values[i] == nil {
			sr.Points[i] = svgchart.Point{Title: "28 days to " + l + ": not enough data", Mark: "no-data"}
			continue
		}
		v := *values[i]
		sr.Points[i] = svgchart.Point{Value: &v, Title: "28 days to " + l + ": " + svgchart.FormatValue(v)}
		c.Latest = svgchart.FormatValue(v)
	}
	c.Line = &svgchart.Line{
		Title: title + " per 28-day period, weekly (Chrome UX Report); the good threshold is marked on the scale",
		Width: 480, Height: 170, Left: 44, Right: 24, Top: 12, Bottom: 28,
		X: labels, YMin: 0, YMax: top, YTicks: []float64{good}, Series: []svgchart.Series{sr},
	}
	return c
}
