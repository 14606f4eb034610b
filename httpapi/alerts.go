package httpapi

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/compare"
	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/monitor"
	"github.com/seokit/seokit/seo"
)

// Defaults of the alert options.
var (
	// DefaultAlertRetryDelays are the waits between the attempts of an
	// alert delivery: six attempts over about nine hours, then "failed".
	DefaultAlertRetryDelays = []time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 6 * time.Hour}
)

const (
	// DefaultAlertPollInterval is how often the outbox worker looks for
	// due deliveries, alerts and callbacks (new ones wake it at once).
	DefaultAlertPollInterval = 5 * time.Second
	// DefaultAlertCoolDown is how long the same change (a page flapping
	// back and forth) is not sent again.
	DefaultAlertCoolDown = 24 * time.Hour
	// alertProjectJobs is how many of a project's newest analyses are
	// searched for the previous successful one.
	alertProjectJobs = 50
)

// The alert types are the service's (package service).
type (
	// AlertRuleRequest is the body of POST /v1/projects/{id}/alerts and of
	// PATCH /v1/projects/{id}/alerts/{aid}.
	AlertRuleRequest = service.AlertRuleRequest
	// AlertRule is an alert rule as the API shows it.
	AlertRule = service.AlertRule
	// AlertRuleList is the answer of GET /v1/projects/{id}/alerts.
	AlertRuleList = service.AlertRuleList
	// AlertDelivery is one line of a project's alert log.
	AlertDelivery = service.AlertDelivery
	// AlertDeliveryList is the answer of GET
	// /v1/projects/{id}/alerts/deliveries.
	AlertDeliveryList = service.AlertDeliveryList
	// AlertTestResult is the answer of POST
	// /v1/projects/{id}/alerts/{aid}/test.
	AlertTestResult = service.AlertTestResult
)

func (s *Server) alertRoutes() []route {
	return []route{
		{"POST /v1/projects/{id}/alerts", auth.ScopeWrite, OpAnalyze, s.createAlertRule},
		{"GET /v1/projects/{id}/alerts", auth.ScopeRead, OpAnalyze, s.listAlertRules},
		{"GET /v1/projects/{id}/alerts/deliveries", auth.ScopeRead, OpAnalyze, s.listAlertDeliveries},
		{"PATCH /v1/projects/{id}/alerts/{aid}", auth.ScopeWrite, OpAnalyze, s.updateAlertRule},
		{"DELETE /v1/projects/{id}/alerts/{aid}", auth.ScopeWrite, OpAnalyze, s.deleteAlertRule},
		{"POST /v1/projects/{id}/alerts/{aid}/test", auth.ScopeWrite, OpAnalyze, s.testAlertRule},
	}
}

func ruleView(r *store.AlertRule) AlertRule {
	v := AlertRule{ID: r.ID, ProjectID: r.ProjectID, Kind: r.Kind, Params: r.Params, Channel: r.Channel, Target: r.Target,
		Muted: r.Muted, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
	if len(v.Params) == 0 {
		v.Params = json.RawMessage("{}")
	}
	if !r.MutedUntil.IsZero() {
		t := r.MutedUntil
		v.MutedUntil = &t
	}
	return v
}

// alertProject returns the account's project (404 naming it for another
// account's).
func (s *Server) alertProject(ctx context.Context, acct, projectID string) (*store.Project, error) {
	p, err := s.st.Project(ctx, acct, projectID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, notFound("no project " + projectID)
	}
	return p, err
}

// alertRule returns the rule id of the account's project.
func (s *Server) alertRule(ctx context.Context, acct, projectID, id string) (*store.AlertRule, error) {
	p, err := s.alertProject(ctx, acct, projectID)
	if err != nil {
		return nil, err
	}
	rule, err := s.st.AlertRule(ctx, p.AccountID, id)
	if errors.Is(err, store.ErrNotFound) || err == nil && rule.ProjectID != p.ID {
		return nil, notFound("no alert rule " + id + " in project " + p.ID)
	}
	return rule, err
}

// checkAlertRule validates a rule's kind, params, channel and target,
// and stores the params with their defaults.
func (s *Server) checkAlertRule(ctx context.Context, r *store.AlertRule) error {
	rule, err := monitor.ParseRule(r.Kind, r.Params)
	if err != nil {
		return err
	}
	if r.Params, err = json.Marshal(rule.Params); err != nil {
		return err
	}
	switch r.Channel {
	case monitor.ChannelWebhook, monitor.ChannelSlack:
		if err := monitor.CheckURL(r.Target); err != nil {
			return err
		}
		u, err := s.fetcher.CheckURL(ctx, r.Target)
		if err != nil {
			if ie, ok := seo.AsInputError(err); ok {
				return ie.WithField("target")
			}
			return invalid("target", "target's host cannot be resolved")
		}
		r.Target = u.String()
	case monitor.ChannelEmail:
		if s.opts.SMTP == nil {
			return invalid("channel", `e-mail alerts are not available: this server has no SMTP server configured; use "webhook" or "slack"`)
		}
		if err := monitor.CheckAddress(r.Target); err != nil {
			return err
		}
	default:
		return invalid("channel", `channel must be "webhook", "slack" or "email"`)
	}
	return nil
}

// Alerts returns the alerts service over the server's store: the alert
// handlers call it, and so does the dashboard.
func (s *Server) Alerts() service.Alerts { return alertService{s} }

// alertService implements service.Alerts.
type alertService struct{ s *Server }

var _ service.Alerts = alertService{}

func (as alertService) CreateRule(ctx context.Context, acct, projectID string, req AlertRuleRequest) (*AlertRule, error) {
	s := as.s
	p, err := s.alertProject(ctx, acct, projectID)
	if err != nil {
		return nil, err
	}
	rule := &store.AlertRule{AccountID: p.AccountID, ProjectID: p.ID, Kind: req.Kind, Params: req.Params, Channel: req.Channel, Target: req.Target}
	if req.Muted != nil {
		rule.Muted = *req.Muted
	}
	if req.MutedUntil != nil {
		rule.MutedUntil = req.MutedUntil.UTC()
	}
	if err := s.checkAlertRule(ctx, rule); err != nil {
		return nil, err
	}
	plan, err := s.accountPlan(ctx, p.AccountID)
	if err != nil {
		return nil, err
	}
	var secret string
	if rule.Channel == monitor.ChannelWebhook {
		if secret, rule.Secret, err = s.newAlertSecret(); err != nil {
			return nil, err
		}
	}
	rule.CreatedAt = s.now().UTC()
	// The store counts and creates in one atomic step, so instances
	// sharing a database together never exceed the caps.
	err = s.st.CreateAlertRuleWithin(ctx, rule, plan.AlertRules)
	var le *store.LimitError
	switch {
	case errors.As(err, &le) && le.Project != "":
		err = conflict("this project has " + strconv.Itoa(le.Count) + " alert rules, the most a project may have")
	case errors.As(err, &le):
		err = conflict("this account has " + strconv.Itoa(le.Count) + " alert rules, the most its plan allows; delete one first")
	}
	if err != nil {
		return nil, err
	}
	v := ruleView(rule)
	v.Secret = secret
	return &v, nil
}

func (as alertService) Rules(ctx context.Context, acct, projectID string) ([]AlertRule, error) {
	p, err := as.s.alertProject(ctx, acct, projectID)
	if err != nil {
		return nil, err
	}
	rules, err := as.s.st.AlertRules(ctx, p.AccountID, p.ID)
	if err != nil {
		return nil, err
	}
	out := make([]AlertRule, 0, len(rules))
	for i := range rules {
		out = append(out, ruleView(&rules[i]))
	}
	return out, nil
}

func (as alertService) UpdateRule(ctx context.Context, acct, projectID, id string, req AlertRuleRequest) (*AlertRule, error) {
	s := as.s
	rule, err := s.alertRule(ctx, acct, projectID, id)
	if err != nil {
		return nil, err
	}
	wasWebhook := rule.Channel == monitor.ChannelWebhook
	if req.Kind != "" && req.Kind != rule.Kind {
		rule.Kind = req.Kind
		if req.Params == nil {
			rule.Params = nil // the old kind's params; the new kind's defaults
		}
	}
	if req.Params != nil {
		rule.Params = req.Params
	}
	if req.Channel != "" {
		rule.Channel = req.Channel
	}
	if req.Target != "" {
		rule.Target = req.Target
	}
	if req.Muted != nil {
		rule.Muted = *req.Muted
		if !rule.Muted {
			rule.MutedUntil = time.Time{}
		}
	}
	if req.MutedUntil != nil {
		rule.MutedUntil = req.MutedUntil.UTC()
	}
	if err := s.checkAlertRule(ctx, rule); err != nil {
		return nil, err
	}
	var secret string
	switch {
	case rule.Channel == monitor.ChannelWebhook && !wasWebhook:
		if secret, rule.Secret, err = s.newAlertSecret(); err != nil {
			return nil, err
		}
	case rule.Channel != monitor.ChannelWebhook:
		rule.Secret = ""
	}
	rule.UpdatedAt = s.now().UTC()
	if err := s.st.UpdateAlertRule(ctx, rule); err != nil {
		return nil, err
	}
	v := ruleView(rule)
	v.Secret = secret
	return &v, nil
}

func (as alertService) DeleteRule(ctx context.Context, acct, projectID, id string) error {
	rule, err := as.s.alertRule(ctx, acct, projectID, id)
	if err != nil {
		return err
	}
	return as.s.st.DeleteAlertRule(ctx, rule.AccountID, rule.ID)
}

func (as alertService) Deliveries(ctx context.Context, acct, projectID string, limit int) ([]AlertDelivery, error) {
	p, err := as.s.alertProject(ctx, acct, projectID)
	if err != nil {
		return nil, err
	}
	if limit < 1 || limit > store.MaxAlertDeliveries {
		return nil, invalid("limit", "limit must be from 1 to "+strconv.Itoa(store.MaxAlertDeliveries))
	}
	ds, err := as.s.st.AlertDeliveries(ctx, p.AccountID, p.ID, limit)
	if err != nil {
		return nil, err
	}
	out := make([]AlertDelivery, 0, len(ds))
	for _, d := range ds {
		v := AlertDelivery{ID: d.ID, RuleID: d.RuleID, JobID: d.JobID, State: d.State, Attempts: d.Attempts, LastError: d.LastError,
			CreatedAt: d.CreatedAt, Alert: d.Payload}
		if d.State == store.DeliveryPending && !d.NextAttempt.IsZero() {
			t := d.NextAttempt
			v.NextAttempt = &t
		}
		if !d.DeliveredAt.IsZero() {
			t := d.DeliveredAt
			v.DeliveredAt = &t
		}
		out = append(out, v)
	}
	return out, nil
}

// Test sends a test alert of the rule to its channel at once. The
// delivery (a request to the rule's webhook, or an e-mail through the
// server's SMTP relay, which every account's alerts share) counts one unit
// of the account's daily quota: the request's, or the service's own when
// no request paid for it (the dashboard's "Send test").
func (as alertService) Test(ctx context.Context, acct, projectID, id string) (*AlertTestResult, error) {
	s := as.s
	rule, err := s.alertRule(ctx, acct, projectID, id)
	if err != nil {
		return nil, err
	}
	p, err := s.alertProject(ctx, acct, projectID)
	if err != nil {
		return nil, err
	}
	if err := s.charge(ctx, acct, 1); err != nil {
		return nil, err
	}
	now := s.now().UTC()
	a := &monitor.Alert{Rule: rule.ID, Project: p.ID, Kind: monitor.Kind(rule.Kind), Domain: p.Domain, Test: true,
		Title: "Test alert for " + p.Domain + " from seokit", Count: 1, CreatedAt: now,
		Changes:     []monitor.Change{{Subject: p.Domain, What: "this is a test of the " + rule.Kind + " rule " + rule.ID}},
		Fingerprint: "test-" + randomID(16), Links: s.alertLinks(p.ID, "", "")}
	a.ChangeKey = a.Fingerprint
	payload, _ := json.Marshal(a)
	d := &store.AlertDelivery{AccountID: p.AccountID, ProjectID: p.ID, RuleID: rule.ID, DedupeKey: a.Fingerprint, ChangeKey: a.ChangeKey,
		Payload: payload, Attempts: 1, CreatedAt: now}
	res := &AlertTestResult{State: store.DeliveryDelivered, Alert: a}
	if err := s.notify(ctx, rule, a); err != nil {
		res.State, res.Error = store.DeliveryFailed, err.Error()
		d.State, d.LastError = store.DeliveryFailed, seo.ClipTo(err.Error(), 500)
	} else {
		d.State, d.DeliveredAt = store.DeliveryDelivered, s.now().UTC()
	}
	if _, err := s.st.AddAlertDelivery(ctx, d, time.Time{}); err != nil {
		s.log.Warn("test alert not logged", "rule", rule.ID, "err", err)
	}
	return res, nil
}

func (s *Server) createAlertRule(w http.ResponseWriter, r *http.Request) {
	var req AlertRuleRequest
	if err := decodeJSON(w, r, s.opts.MaxBodyBytes, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	v, err := s.Alerts().CreateRule(r.Context(), principal(r.Context()).AccountID, r.PathValue("id"), req)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Location", s.opts.BasePath+"/v1/projects/"+v.ProjectID+"/alerts/"+v.ID)
	writeJSON(w, http.StatusCreated, v)
}

func (s *Server) listAlertRules(w http.ResponseWriter, r *http.Request) {
	rules, err := s.Alerts().Rules(r.Context(), principal(r.Context()).AccountID, r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, AlertRuleList{Rules: rules})
}

func (s *Server) updateAlertRule(w http.ResponseWriter, r *http.Request) {
	var req AlertRuleRequest
	if err := decodeJSON(w, r, s.opts.MaxBodyBytes, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	v, err := s.Alerts().UpdateRule(r.Context(), principal(r.Context()).AccountID, r.PathValue("id"), r.PathValue("aid"), req)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

func (s *Server) deleteAlertRule(w http.ResponseWriter, r *http.Request) {
	if err := s.Alerts().DeleteRule(r.Context(), principal(r.Context()).AccountID, r.PathValue("id"), r.PathValue("aid")); err != nil {
		s.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) listAlertDeliveries(w http.ResponseWriter, r *http.Request) {
	limit := 100
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > store.MaxAlertDeliveries {
			n = -1 // the service names the field
		}
		limit = n
	}
	ds, err := s.Alerts().Deliveries(r.Context(), principal(r.Context()).AccountID, r.PathValue("id"), limit)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, AlertDeliveryList{Deliveries: ds})
}

// testAlertRule sends a test alert through the rule's channel at once and
// answers whether it was delivered; the attempt is logged.
func (s *Server) testAlertRule(w http.ResponseWriter, r *http.Request) {
	res, err := s.Alerts().Test(r.Context(), principal(r.Context()).AccountID, r.PathValue("id"), r.PathValue("aid"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// newAlertSecret returns a new webhook secret and its sealed form.
func (s *Server) newAlertSecret() (plain, sealed string, err error) {
	plain = "whsec_" + randomID(32)
	sealed, err = s.sealString(plain)
	return plain, sealed, err
}

// sealString encrypts v with the key that seals stored credentials
// (credentialKey, AES-GCM): "v1:" and the base64 nonce and ciphertext.
func (s *Server) sealString(v string) (string, error) {
	gcm, err := s.credentialAEAD()
	if err != nil {
		return "", err
	}
	nonce := make([]byte, gcm.NonceSize())
	rand.Read(nonce)
	return "v1:" + base64.StdEncoding.EncodeToString(gcm.Seal(nonce, nonce, []byte(v), nil)), nil
}

// openString decrypts what sealString returned.
func (s *Server) openString(sealed string) (string, error) {
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(sealed, "v1:"))
	if err != nil || !strings.HasPrefix(sealed, "v1:") {
		return "", errSealed
	}
	gcm, err := s.credentialAEAD()
	if err != nil {
		return "", err
	}
	if len(raw) < gcm.NonceSize() {
		return "", errSealed
	}
	plain, err := gcm.Open(nil, raw[:gcm.NonceSize()], raw[gcm.NonceSize():], nil)
	if err != nil {
		return "", errSealed
	}
	return string(plain), nil
}

// alertLinks are the links of an alert: the diff of job against old in the
// API and the dashboard, and the analysis. Without Options.PublicURL they
// are paths: the API's under BasePath, the dashboard's under /dashboard.
func (s *Server) alertLinks(projectID, job, old string) monitor.Links {
	site := strings.TrimSuffix(s.opts.PublicURL, "/")
	api := site + s.opts.BasePath
	if job == "" {
		return monitor.Links{Dashboard: site + "/dashboard/projects/" + url.PathEscape(projectID)}
	}
	return monitor.Links{
		Diff:      api + "/v1/analyze/site/" + url.PathEscape(job) + "/diff?against=" + url.QueryEscape(old),
		Dashboard: site + "/dashboard/analyses/" + url.PathEscape(job) + "/diff?against=" + url.QueryEscape(old),
		Analysis:  api + "/v1/analyze/site/" + url.PathEscape(job),
	}
}

// notifier returns the rule's channel.
func (s *Server) notifier(rule *store.AlertRule) (monitor.Notifier, error) {
	switch rule.Channel {
	case monitor.ChannelWebhook:
		secret, err := s.openString(rule.Secret)
		if err != nil {
			return nil, err
		}
		return &monitor.Webhook{URL: rule.Target, Secret: secret, Client: s.fetcher.Client(), Now: s.now}, nil
	case monitor.ChannelSlack:
		return &monitor.Slack{URL: rule.Target, Client: s.fetcher.Client()}, nil
	case monitor.ChannelEmail:
		if s.opts.SMTP == nil {
			return nil, errors.New("e-mail alerts are not available: this server has no SMTP server configured")
		}
		return &monitor.Email{To: rule.Target, SMTP: *s.opts.SMTP}, nil
	}
	return nil, fmt.Errorf("unknown channel %q", rule.Channel)
}

// notify makes one attempt to send a through the rule's channel.
func (s *Server) notify(ctx context.Context, rule *store.AlertRule, a *monitor.Alert) error {
	n, err := s.notifier(rule)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, monitor.DefaultTimeout)
	defer cancel()
	return n.Notify(ctx, a)
}

// alertsOnFinish evaluates the alert rules of a site analysis of a
// project that succeeded, before its final state is stored: a crash in
// between leaves the job unfinished, so it runs again and is evaluated
// again (a delivery is stored once per rule and change), and no change goes
// unannounced. The deliveries are sent by the delivery worker, so a slow
// or failing receiver never holds up the job; a rule that cannot be
// evaluated is logged and never fails the analysis.
func (s *Server) alertsOnFinish(ctx context.Context, j *store.Job) {
	if j.ProjectID == "" {
		return
	}
	var err error
	switch {
	case j.Status == store.JobSucceeded:
		err = s.evaluateJobAlerts(ctx, j)
	case service.JobErrorCode(j) == service.ErrorSiteUnreachable && len(j.Result) > 0:
		err = s.evaluateDownAlerts(ctx, j)
	default:
		return
	}
	if err != nil && ctx.Err() == nil {
		s.log.Warn("alert rules not evaluated", "job", j.ID, "project", j.ProjectID, "err", err)
	}
}

// evaluateJobAlerts compares the job with the project's previous
// successful analysis and stores a delivery per rule that fires.
func (s *Server) evaluateJobAlerts(ctx context.Context, j *store.Job) error {
	rules, err := s.st.AlertRules(ctx, j.AccountID, j.ProjectID)
	if err != nil || len(rules) == 0 {
		return err
	}
	jobs, err := s.st.ProjectJobs(ctx, j.AccountID, j.ProjectID, alertProjectJobs)
	if err != nil {
		return err
	}
	var prev *store.Job
	for i := range jobs {
		p := &jobs[i]
		if p.ID != j.ID && p.Status == store.JobSucceeded && p.CreatedAt.Before(j.CreatedAt) && (prev == nil || p.CreatedAt.After(prev.CreatedAt)) {
			prev = p
		}
	}
	if prev == nil {
		return nil // the project's first analysis: nothing to compare
	}
	// The previous report is streamed from its stored row, as the API's
	// comparisons read theirs (storedReport), and what the comparison
	// holds is reserved as theirs is: the report of the job, held by the
	// caller, is compared in place.
	_, old, err := s.storedReport(ctx, j.AccountID, prev.ID)
	if err != nil || old == nil {
		return err
	}
	cur := &report{src: compare.JSON(j.Result), memory: compare.EstimateMemory(len(j.Result))}
	if len(j.Result) == 0 {
		if _, cur, err = s.storedReport(ctx, j.AccountID, j.ID); err != nil || cur == nil {
			return err
		}
	}
	release, err := s.adm.acquireSlot(ctx, KindCompare, j.AccountID, old.memory+cur.memory, true)
	if err != nil {
		return err
	}
	defer release()
	d, err := compare.Sites(ctx, old.src, cur.src, nil)
	if err != nil {
		return err
	}
	in := &monitor.Input{Domain: jobDomain(j), Diff: d, Links: s.alertLinks(j.ProjectID, j.ID, prev.ID), Now: s.now()}
	parsed := make([]monitor.Rule, len(rules))
	topN := 0
	for i, r := range rules {
		if parsed[i], err = monitor.ParseRule(r.Kind, r.Params); err != nil {
			s.log.Warn("alert rule not valid", "rule", r.ID, "err", err)
			continue
		}
		if parsed[i].Kind == monitor.KindTopPageChanged {
			topN = max(topN, parsed[i].Params.TopN)
		}
	}
	if topN > 0 {
		if in.TopPages, err = monitor.TopPages(ctx, old.src, topN); err != nil {
			return err
		}
	}
	for i := range rules {
		if parsed[i].Kind == "" || parsed[i].Kind == monitor.KindKeywordDrop {
			continue
		}
		if err := s.raiseAlert(ctx, &rules[i], j.ID, monitor.Evaluate(parsed[i], in)); err != nil {
			return err
		}
	}
	return nil
}

// evaluateDownAlerts evaluates the site_down rules of the project of a job
// failed because its site answered nothing (service.ErrorSiteUnreachable); its
// report, kept with the job, says how. There is nothing to compare, so the
// other rules wait for the next successful analysis.
func (s *Server) evaluateDownAlerts(ctx context.Context, j *store.Job) error {
	var rep crawler.SiteReport
	if err := json.Unmarshal(j.Result, &rep); err != nil {
		return err
	}
	down := monitor.SiteDown(&rep)
	if down == nil {
		return nil
	}
	rules, err := s.st.AlertRules(ctx, j.AccountID, j.ProjectID)
	if err != nil {
		return err
	}
	links := s.alertLinks(j.ProjectID, "", "")
	links.Analysis = strings.TrimSuffix(s.opts.PublicURL, "/") + s.opts.BasePath + "/v1/analyze/site/" + url.PathEscape(j.ID)
	in := &monitor.Input{Domain: cmp.Or(jobDomain(j), rep.Domain), Down: down, Links: links, Now: s.now()}
	for i := range rules {
		if rules[i].Kind != string(monitor.KindSiteDown) {
			continue
		}
		rule, err := monitor.ParseRule(rules[i].Kind, rules[i].Params)
		if err != nil {
			s.log.Warn("alert rule not valid", "rule", rules[i].ID, "err", err)
			continue
		}
		if err := s.raiseAlert(ctx, &rules[i], j.ID, monitor.Evaluate(rule, in)); err != nil {
			return err
		}
	}
	return nil
}

// EvaluateKeywordAlerts evaluates the keyword_drop rules of the account's
// project over the positions of its tracked keywords in two rank checks,
// and stores the deliveries; a rank schedule calls it after each check.
func (s *Server) EvaluateKeywordAlerts(ctx context.Context, accountID, projectID string, positions []monitor.KeywordPosition) error {
	p, err := s.st.Project(ctx, accountID, projectID)
	if err != nil {
		return err
	}
	rules, err := s.st.AlertRules(ctx, accountID, projectID)
	if err != nil {
		return err
	}
	in := &monitor.Input{Domain: p.Domain, Keywords: positions, Links: s.alertLinks(projectID, "", ""), Now: s.now()}
	for i := range rules {
		if rules[i].Kind != string(monitor.KindKeywordDrop) {
			continue
		}
		rule, err := monitor.ParseRule(rules[i].Kind, rules[i].Params)
		if err != nil {
			continue
		}
		if err := s.raiseAlert(ctx, &rules[i], "", monitor.Evaluate(rule, in)); err != nil {
			return err
		}
	}
	return nil
}

// raiseAlert stores the delivery of alert a of rule (nil a: nothing):
// once per fingerprint, suppressed while the rule is muted or the same
// change was sent within the cool-down; then wakes the delivery worker.
func (s *Server) raiseAlert(ctx context.Context, rule *store.AlertRule, jobID string, a *monitor.Alert) error {
	if a == nil {
		return nil
	}
	a.Rule, a.Project = rule.ID, rule.ProjectID
	payload, err := json.Marshal(a)
	if err != nil {
		return err
	}
	now := s.now().UTC()
	d := &store.AlertDelivery{AccountID: rule.AccountID, ProjectID: rule.ProjectID, RuleID: rule.ID, JobID: jobID,
		DedupeKey: a.Fingerprint, ChangeKey: a.ChangeKey, Payload: payload, CreatedAt: now, NextAttempt: now}
	if rule.Muted || rule.MutedUntil.After(now) {
		d.State, d.LastError, d.NextAttempt = store.DeliverySuppressed, "the rule is muted", time.Time{}
	}
	added, err := s.st.AddAlertDelivery(ctx, d, now.Add(-cmp.Or(s.opts.AlertCoolDown, DefaultAlertCoolDown)))
	if err != nil {
		return err
	}
	if added && d.State == store.DeliveryPending {
		s.wakeOutbox()
	}
	return nil
}
