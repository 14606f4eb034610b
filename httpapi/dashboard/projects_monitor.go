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

// schedule is the API's view of a schedule (GET
// /v1/projects/{id}/schedules).
type schedule struct {
	ID        string     `json:"id"`
	Kind      string     `json:"kind"`
	Spec      string     `json:"spec"`
	Paused    bool       `json:"paused"`
	NextRun   *time.Time `json:"nextRun"`
	LastRun   *time.Time `json:"lastRun"`
	LastJobID string     `json:"lastJobId"`
	LastError string     `json:"lastError"`
}

// scheduleRow is a schedule with its times in the project's zone.
type scheduleRow struct {
	schedule
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

// alertRule is the API's view of an alert rule.
type alertRule struct {
	ID         string          `json:"id"`
	Kind       string          `json:"kind"`
	Params     json.RawMessage `json:"params"`
	Channel    string          `json:"channel"`
	Target     string          `json:"target"`
	Secret     string          `json:"secret"`
	Muted      bool            `json:"muted"`
	MutedUntil *time.Time      `json:"mutedUntil"`
}

// delivery is one line of the alert log.
type delivery struct {
	ID          string     `json:"id"`
	RuleID      string     `json:"ruleId"`
	JobID       string     `json:"jobId"`
	State       string     `json:"state"`
	Attempts    int        `json:"attempts"`
	LastError   string     `json:"lastError"`
	CreatedAt   time.Time  `json:"createdAt"`
	DeliveredAt *time.Time `json:"deliveredAt"`
	Alert       struct {
		Title string `json:"title"`
	} `json:"alert"`
}

// alertsView is the alert rules section of a project page.
type alertsView struct {
	Rules      []alertRule
	Deliveries []delivery
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
}

// projectPath is the /v1 path of the project p plus rest.
func projectPath(id, rest string) string { return "/v1/projects/" + url.PathEscape(id) + rest }

// unavailableSection says why a section of the project page is missing:
// a server without the feature says so, another failure is logged.
func (d *Dashboard) unavailableSection(err error, what string) string {
	d.log.Warn("dashboard: project section", "section", what, "err", err)
	return "The " + what + " cannot be shown right now."
}

func (d *Dashboard) schedulesView(r *http.Request, a *store.Account, p *service.Project) *schedulesView {
	sv := &schedulesView{Form: scheduleForm{Kind: "site", Spec: "daily@06:00"}}
	var list struct {
		Schedules []schedule `json:"schedules"`
	}
	if err := d.call(r.Context(), a.ID, http.MethodGet, projectPath(p.ID, "/schedules"), nil, &list); err != nil {
		sv.Error = d.unavailableSection(err, "schedules")
		return sv
	}
	for _, sc := range list.Schedules {
		row := scheduleRow{schedule: sc, Next: "–", Last: "never"}
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

func (d *Dashboard) alertsView(r *http.Request, a *store.Account, p *service.Project) *alertsView {
	av := &alertsView{Form: alertForm{Kind: "new_findings", Channel: "webhook"}, Kinds: alertKinds}
	var rules struct {
		Rules []alertRule `json:"rules"`
	}
	if err := d.call(r.Context(), a.ID, http.MethodGet, projectPath(p.ID, "/alerts"), nil, &rules); err != nil {
		av.Error = d.unavailableSection(err, "alert rules")
		return av
	}
	av.Rules = rules.Rules
	var log struct {
		Deliveries []delivery `json:"deliveries"`
	}
	if err := d.call(r.Context(), a.ID, http.MethodGet, projectPath(p.ID, "/alerts/deliveries"), nil, &log); err != nil {
		av.Error = d.unavailableSection(err, "alert log")
		return av
	}
	av.Deliveries = log.Deliveries
	if len(av.Deliveries) > maxDeliveries {
		av.Deliveries, av.More = av.Deliveries[:maxDeliveries], len(av.Deliveries)-maxDeliveries
	}
	return av
}

// nextRun returns the earliest next run of the project's active
// schedules, in its zone; "" when none.
func (d *Dashboard) nextRun(ctx context.Context, accountID string, p *service.Project) string {
	scs, err := d.st.Schedules(ctx, accountID, p.ID)
	if err != nil {
		d.log.Warn("dashboard: schedules", "project", p.ID, "err", err)
		return ""
	}
	var next time.Time
	for _, sc := range scs {
		if !sc.Paused && (next.IsZero() || sc.NextRun.Before(next)) {
			next = sc.NextRun
		}
	}
	if next.IsZero() {
		return ""
	}
	return inZone(next, p.TimeZone)
}

// projectAction runs one change of a project's schedules or alert rules
// through the API and goes back to the project page with done as its
// notice; a refusal naming a field is shown on the page.
func (d *Dashboard) projectAction(w http.ResponseWriter, r *http.Request, s *session, a *store.Account, method, target string, body any, done, field string, out any) bool {
	err := d.call(r.Context(), a.ID, method, target, body, out)
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
	body := map[string]string{"kind": r.PostFormValue("kind"), "spec": strings.TrimSpace(r.PostFormValue("spec"))}
	d.projectAction(w, r, s, a, http.MethodPost, projectPath(r.PathValue("id"), "/schedules"), body, "schedule", "spec", nil)
}

func (d *Dashboard) updateSchedule(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	body := map[string]bool{"paused": r.PostFormValue("paused") == "true"}
	d.projectAction(w, r, s, a, http.MethodPatch, projectPath(r.PathValue("id"), "/schedules/"+url.PathEscape(r.PathValue("sid"))), body, "schedule", "schedule", nil)
}

func (d *Dashboard) deleteSchedule(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	d.projectAction(w, r, s, a, http.MethodDelete, projectPath(r.PathValue("id"), "/schedules/"+url.PathEscape(r.PathValue("sid"))), nil, "schedule-deleted", "schedule", nil)
}

func (d *Dashboard) createAlert(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	f := alertForm{Kind: r.PostFormValue("kind"), Params: strings.TrimSpace(r.PostFormValue("params")),
		Channel: r.PostFormValue("channel"), Target: strings.TrimSpace(r.PostFormValue("target"))}
	body := map[string]any{"kind": f.Kind, "channel": f.Channel, "target": f.Target}
	if f.Params != "" {
		if !json.Valid([]byte(f.Params)) {
			d.showProject(w, r, s, a, http.StatusBadRequest, nil, "", map[string]string{"params": "Parameters: not valid JSON."})
			return
		}
		body["params"] = json.RawMessage(f.Params)
	}
	var rule alertRule
	if !d.projectAction(w, r, s, a, http.MethodPost, projectPath(r.PathValue("id"), "/alerts"), body, "", "target", &rule) {
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
	body := map[string]bool{"muted": r.PostFormValue("muted") == "true"}
	d.projectAction(w, r, s, a, http.MethodPatch, projectPath(r.PathValue("id"), "/alerts/"+url.PathEscape(r.PathValue("aid"))), body, "alert", "alert", nil)
}

func (d *Dashboard) deleteAlert(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	d.projectAction(w, r, s, a, http.MethodDelete, projectPath(r.PathValue("id"), "/alerts/"+url.PathEscape(r.PathValue("aid"))), nil, "alert-deleted", "alert", nil)
}

// testAlert sends a test alert of the rule and shows how it went.
func (d *Dashboard) testAlert(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	var res struct {
		State string `json:"state"`
		Error string `json:"error"`
	}
	if !d.projectAction(w, r, s, a, http.MethodPost, projectPath(r.PathValue("id"), "/alerts/"+url.PathEscape(r.PathValue("aid"))+"/test"), nil, "", "alert", &res) {
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
