package dashboard

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
)

// maxDeliveries caps the alert log lines a project page shows.
const maxDeliveries = 50

// scheduleRow is a schedule (the service's) with its times in the
// project's zone.
type scheduleRow struct {
	service.Schedule
	Next, Last string
}

// schedulesView is the schedules section of a project page.
type schedulesView struct {
	Rows []scheduleRow
	Form scheduleForm
	// Error is why the list cannot be shown.
	Error string
}

type scheduleForm struct{ Kind, Spec string }

// deliveryRow is one line of the alert log: the service's delivery and
// the title of its alert.
type deliveryRow struct {
	service.AlertDelivery
	Alert struct{ Title string }
}

// alertsView is the alert rules section of a project page.
type alertsView struct {
	Rules      []service.AlertRule
	Deliveries []deliveryRow
	More       int // log lines not shown
	Form       alertForm
	// Secret is the signing secret of the webhook rule just created,
	// shown once.
	Secret string
	Error  string
	Kinds  []alertKind
}

type alertKind struct{ Value, Label string }

type alertForm struct{ Kind, Params, Channel, Target string }

// alertKinds are the rule kinds of the form, as the API names them.
var alertKinds = []alertKind{
	{"new_findings", "New findings at or above a severity"},
	{"top_page_changed", "A top page turned noindex, non-canonical or 4xx/5xx"},
	{"robots_changed", "robots.txt changed"},
	{"sitemaps_changed", "Sitemaps changed"},
	{"pages_lost", "Pages lost"},
	{"score_drop", "Site score dropped"},
	{"keyword_drop", "A tracked keyword fell"},
	{"bot_5xx_rising", "A verified search bot got more 5xx answers (access logs)"},
	{"bot_disallowed", "A bot fetched URLs robots.txt disallows (access logs)"},
}

// unavailableSection says why a section of the project page is missing:
// a server without the feature says so, another failure is logged.
func (d *Dashboard) unavailableSection(err error, what string) string {
	d.log.Warn("dashboard: project section", "section", what, "err", err)
	return "The " + what + " cannot be shown right now."
}

func (d *Dashboard) schedulesView(r *http.Request, a *store.Account, p *service.Project) *schedulesView {
	sv := &schedulesView{Form: scheduleForm{Kind: "site", Spec: "daily@06:00"}}
	if d.opts.Schedules == nil {
		sv.Error = "Schedules are not available on this server."
		return sv
	}
	list, err := d.opts.Schedules.List(r.Context(), a.ID, p.ID)
	if err != nil {
		sv.Error = d.unavailableSection(err, "schedules")
		return sv
	}
	for _, sc := range list {
		row := scheduleRow{Schedule: sc, Next: "–", Last: "never"}
		if sc.NextRun != nil {
			row.Next = inZone(*sc.NextRun, p.TimeZone)
		} else if sc.Paused {
			row.Next = "paused"
		}
		if sc.LastRun != nil {
			row.Last = inZone(*sc.LastRun, p.TimeZone)
		}
		sv.Rows = append(sv.Rows, row)
	}
	return sv
}

// alertLogLines is how many alert log lines the project page reads: the
// ones it shows and more, to count those left out.
const alertLogLines = 100

func (d *Dashboard) alertsView(r *http.Request, a *store.Account, p *service.Project) *alertsView {
	av := &alertsView{Form: alertForm{Kind: "new_findings", Channel: "webhook"}, Kinds: alertKinds}
	if d.opts.Alerts == nil {
		av.Error = "Alert rules are not available on this server."
		return av
	}
	rules, err := d.opts.Alerts.Rules(r.Context(), a.ID, p.ID)
	if err != nil {
		av.Error = d.unavailableSection(err, "alert rules")
		return av
	}
	av.Rules = rules
	log, err := d.opts.Alerts.Deliveries(r.Context(), a.ID, p.ID, alertLogLines)
	if err != nil {
		av.Error = d.unavailableSection(err, "alert log")
		return av
	}
	if len(log) > maxDeliveries {
		log, av.More = log[:maxDeliveries], len(log)-maxDeliveries
	}
	for _, dl := range log {
		row := deliveryRow{AlertDelivery: dl}
		json.Unmarshal(dl.Alert, &row.Alert) // a line without its alert shows the rule
		av.Deliveries = append(av.Deliveries, row)
	}
	return av
}

// nextRun returns the earliest next run of the project's active
// schedules, in its zone; "" when none.
func (d *Dashboard) nextRun(ctx context.Context, accountID string, p *service.Project) string {
	if d.opts.Schedules == nil {
		return ""
	}
	scs, err := d.opts.Schedules.List(ctx, accountID, p.ID)
	if err != nil {
		d.log.Warn("dashboard: schedules", "project", p.ID, "err", err)
		return ""
	}
	var next time.Time
	for _, sc := range scs {
		if sc.NextRun != nil && (next.IsZero() || sc.NextRun.Before(next)) {
			next = *sc.NextRun // nil while paused
		}
	}
	if next.IsZero() {
		return ""
	}
	return inZone(next, p.TimeZone)
}

// projectAction runs one change of a project's schedules or alert rules
// through their service and goes back to the project page with done as
// its notice (when not ""); a refusal naming a field is shown on the page.
func (d *Dashboard) projectAction(w http.ResponseWriter, r *http.Request, s *session, a *store.Account, available bool, change func(ctx context.Context) error, done, field string) bool {
	if !available {
		d.errorPage(w, r, a, http.StatusServiceUnavailable, "Schedules and alerts are not available on this server.")
		return false
	}
	err := serviceFailure(change(r.Context()))
	if err == nil {
		if done != "" {
			http.Redirect(w, r, Prefix+"/projects/"+url.PathEscape(r.PathValue("id"))+"?done="+done, http.StatusSeeOther)
		}
		return true
	}
	var f *apiFailure
	if errors.As(err, &f) && f.Status < 500 && f.Status != http.StatusNotFound {
		d.showProject(w, r, s, a, f.Status, nil, "", map[string]string{field: f.Message})
		return false
	}
	d.failed(w, r, a, err, "project")
	return false
}

func (d *Dashboard) createSchedule(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	spec := strings.TrimSpace(r.PostFormValue("spec"))
	req := service.ScheduleRequest{Kind: r.PostFormValue("kind"), Spec: &spec}
	d.projectAction(w, r, s, a, d.opts.Schedules != nil, func(ctx context.Context) error {
		_, err := d.opts.Schedules.Create(ctx, a.ID, r.PathValue("id"), req)
		return err
	}, "schedule", "spec")
}

func (d *Dashboard) updateSchedule(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	paused := r.PostFormValue("paused") == "true"
	d.projectAction(w, r, s, a, d.opts.Schedules != nil, func(ctx context.Context) error {
		_, err := d.opts.Schedules.Update(ctx, a.ID, r.PathValue("id"), r.PathValue("sid"), service.ScheduleRequest{Paused: &paused})
		return err
	}, "schedule", "schedule")
}

func (d *Dashboard) deleteSchedule(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	d.projectAction(w, r, s, a, d.opts.Schedules != nil, func(ctx context.Context) error {
		return d.opts.Schedules.Delete(ctx, a.ID, r.PathValue("id"), r.PathValue("sid"))
	}, "schedule-deleted", "schedule")
}

func (d *Dashboard) createAlert(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	f := alertForm{Kind: r.PostFormValue("kind"), Params: strings.TrimSpace(r.PostFormValue("params")),
		Channel: r.PostFormValue("channel"), Target: strings.TrimSpace(r.PostFormValue("target"))}
	req := service.AlertRuleRequest{Kind: f.Kind, Channel: f.Channel, Target: f.Target}
	if f.Params != "" {
		if !json.Valid([]byte(f.Params)) {
			d.showProject(w, r, s, a, http.StatusBadRequest, nil, "", map[string]string{"params": "Parameters: not valid JSON."})
			return
		}
		req.Params = json.RawMessage(f.Params)
	}
	var rule *service.AlertRule
	if !d.projectAction(w, r, s, a, d.opts.Alerts != nil, func(ctx context.Context) (err error) {
		rule, err = d.opts.Alerts.CreateRule(ctx, a.ID, r.PathValue("id"), req)
		return err
	}, "", "target") {
		return
	}
	if rule.Secret == "" {
		http.Redirect(w, r, Prefix+"/projects/"+url.PathEscape(r.PathValue("id"))+"?done=alert", http.StatusSeeOther)
		return
	}
	// A webhook rule's signing secret is shown once, on this answer.
	d.showProjectWith(w, r, s, a, "The alert rule was saved. Its signing secret is shown once below: copy it now.", func(pv *projectView) {
		if pv.Alerts != nil {
			pv.Alerts.Secret = rule.Secret
		}
	})
}

func (d *Dashboard) updateAlert(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	muted := r.PostFormValue("muted") == "true"
	d.projectAction(w, r, s, a, d.opts.Alerts != nil, func(ctx context.Context) error {
		_, err := d.opts.Alerts.UpdateRule(ctx, a.ID, r.PathValue("id"), r.PathValue("aid"), service.AlertRuleRequest{Muted: &muted})
		return err
	}, "alert", "alert")
}

func (d *Dashboard) deleteAlert(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	d.projectAction(w, r, s, a, d.opts.Alerts != nil, func(ctx context.Context) error {
		return d.opts.Alerts.DeleteRule(ctx, a.ID, r.PathValue("id"), r.PathValue("aid"))
	}, "alert-deleted", "alert")
}

// testAlert sends a test alert of the rule and shows how it went.
func (d *Dashboard) testAlert(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	var res *service.AlertTestResult
	if !d.projectAction(w, r, s, a, d.opts.Alerts != nil, func(ctx context.Context) (err error) {
		res, err = d.opts.Alerts.Test(ctx, a.ID, r.PathValue("id"), r.PathValue("aid"))
		return err
	}, "", "alert") {
		return
	}
	if res.State != "delivered" {
		msg := "The test alert was not delivered"
		if res.Error != "" {
			msg += ": " + res.Error
		}
		d.showProject(w, r, s, a, http.StatusOK, nil, "", map[string]string{"alert": msg + "."})
		return
	}
	d.showProjectWith(w, r, s, a, "The test alert was delivered.", nil)
}
