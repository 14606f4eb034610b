package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/plans"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
	"github.com/seokit/seokit/internal/smtptest"
	"github.com/seokit/seokit/monitor"
)

// changingSite is a small site whose second version differs from the
// first: /c removed (no longer linked), /d and a broken link added, /a's
// title changed, /b turned noindex.
type changingSite struct{ version atomic.Int32 }

func (cs *changingSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	v2 := cs.version.Load() >= 2
	page := func(title, head, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html lang=en><head><title>%s</title><meta name="description" content="The %s page of the test site, long enough to describe it.">%s</head>
<body><h1>%s</h1><p>Some words about this page of the test site so that it has content.</p>%s</body></html>`, title, title, head, title, body)
	}
	switch r.URL.Path {
	case "/":
		links := `<a href="/a">A</a> <a href="/b">B</a> `
		if v2 {
			links += `<a href="/d">D</a> <a href="/broken">broken</a>`
		} else {
			links += `<a href="/c">C</a>`
		}
		page("Home page of the changing site", "", links)
	case "/a":
		title := "Page A of the changing site"
		if v2 {
			title = "Page A of the changing site, renamed"
		}
		page(title, "", `<a href="/">home</a> <a href="/b">B</a>`)
	case "/b":
		head := ""
		if v2 {
			head = `<meta name="robots" content="noindex">`
		}
		page("Page B of the changing site", head, `<a href="/">home</a> <a href="/a">A</a>`)
	case "/c":
		page("Page C of the changing site", "", `<a href="/">home</a>`)
	case "/d":
		if !v2 {
			http.NotFound(w, r)
			return
		}
		page("Page D of the changing site", "", `<a href="/">home</a>`)
	default:
		http.NotFound(w, r)
	}
}

// hookReceiver records the requests it gets; fail makes the first ones
// answer 500, hold makes each wait until it is closed.
type hookReceiver struct {
	mu     sync.Mutex
	fail   int
	calls  int
	bodies [][]byte
	sigs   []string
	hold   chan struct{}
}

func (h *hookReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.hold != nil {
		select {
		case <-h.hold:
		case <-r.Context().Done():
			return
		}
	}
	b, _ := io.ReadAll(r.Body)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls++
	if h.calls <= h.fail {
		http.Error(w, "try later", http.StatusInternalServerError)
		return
	}
	h.bodies = append(h.bodies, b)
	h.sigs = append(h.sigs, r.Header.Get(SignatureHeader))
}

func (h *hookReceiver) got() ([][]byte, []string, int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([][]byte(nil), h.bodies...), append([]string(nil), h.sigs...), h.calls
}

func newHook(t *testing.T, h *hookReceiver) string {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL + "/hook"
}

// eventually polls cond for up to 30 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// projectCrawl runs a site analysis of the project (POST
// /v1/analyze/site with projectId) and waits for it.
func projectCrawl(t *testing.T, a *testAPI, p *store.Project) *store.Job {
	t.Helper()
	resp := a.call("POST", "/v1/analyze/site", a.key, fmt.Sprintf(`{"projectId":%q}`, p.ID))
	wantStatus(t, resp, 202)
	var created Job
	readJSON(t, resp, &created)
	var (
		got *store.Job
		err error
	)
	eventually(t, "the analysis", func() bool {
		got, err = a.st.Job(context.Background(), p.AccountID, created.ID)
		return err == nil && got.Status.Done()
	})
	if got.Status != store.JobSucceeded || got.ProjectID != p.ID {
		t.Fatalf("analysis %s: %s %s (project %q)", got.ID, got.Status, got.Error, got.ProjectID)
	}
	return got
}

func alertTestAPI(t *testing.T, opts Options) (*testAPI, *store.Project, *changingSite) {
	t.Helper()
	cs := &changingSite{}
	cs.version.Store(1)
	site := httptest.NewServer(cs)
	t.Cleanup(site.Close)
	opts.AllowPrivate = true
	opts.AlertPollInterval = 20 * time.Millisecond
	if opts.AlertRetryDelays == nil {
		opts.AlertRetryDelays = []time.Duration{10 * time.Millisecond, 20 * time.Millisecond}
	}
	opts.Limits = map[store.Plan]int{store.Free: 10_000}
	a := newTestAPI(t, &opts)
	p := &store.Project{AccountID: a.acct.ID, Name: "Changing site", Domain: hostOf(t, site.URL)}
	if err := a.st.CreateProject(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	return a, p, cs
}

func createRule(t *testing.T, a *testAPI, key, projectID, body string) AlertRule {
	t.Helper()
	resp := a.call("POST", "/v1/projects/"+projectID+"/alerts", key, body)
	wantStatus(t, resp, http.StatusCreated)
	var r AlertRule
	readJSON(t, resp, &r)
	return r
}

func deliveries(t *testing.T, a *testAPI, projectID string) []AlertDelivery {
	t.Helper()
	resp := a.call("GET", "/v1/projects/"+projectID+"/alerts/deliveries", a.key, "")
	wantStatus(t, resp, 200)
	var l AlertDeliveryList
	readJSON(t, resp, &l)
	return l.Deliveries
}

// TestAlertsTwoCrawls: two crawls of a site that changed between them send
// one alert to a webhook (signed), one to a Slack-format receiver and one
// e-mail through a local SMTP server; evaluating again, or a third
// identical crawl, sends nothing more.
func TestAlertsTwoCrawls(t *testing.T) {
	smtp := smtptest.Start(t)
	a, p, cs := alertTestAPI(t, Options{SMTP: &monitor.SMTPOptions{Addr: smtp.Addr(), From: "alerts@seokit.test"}})
	hook, slack := &hookReceiver{}, &hookReceiver{}
	webhookRule := createRule(t, a, a.key, p.ID, fmt.Sprintf(`{"kind":"new_findings","params":{"severity":"notice"},"channel":"webhook","target":%q}`, newHook(t, hook)))
	if !strings.HasPrefix(webhookRule.Secret, "whsec_") || webhookRule.Kind != "new_findings" || string(webhookRule.Params) == "{}" {
		t.Fatalf("webhook rule %+v", webhookRule)
	}
	slackRule := createRule(t, a, a.key, p.ID, fmt.Sprintf(`{"kind":"top_page_changed","channel":"slack","target":%q}`, newHook(t, slack)))
	if slackRule.Secret != "" {
		t.Error("a slack rule got a secret")
	}
	createRule(t, a, a.key, p.ID, `{"kind":"pages_lost","channel":"email","target":"seo@example.com"}`)
	// The secret is stored sealed and never shown again.
	stored, err := a.st.AlertRule(context.Background(), a.acct.ID, webhookRule.ID)
	if err != nil || strings.Contains(stored.Secret, webhookRule.Secret) || stored.Secret == "" {
		t.Errorf("stored secret %q (%v)", stored.Secret, err)
	}
	resp := a.call("GET", "/v1/projects/"+p.ID+"/alerts", a.key, "")
	wantStatus(t, resp, 200)
	var list AlertRuleList
	readJSON(t, resp, &list)
	if len(list.Rules) != 3 || list.Rules[0].Secret != "" {
		t.Fatalf("rules %+v", list.Rules)
	}

	projectCrawl(t, a, p) // the first analysis: nothing to compare with
	cs.version.Store(2)
	second := projectCrawl(t, a, p)
	eventually(t, "three deliveries", func() bool {
		n := 0
		for _, d := range deliveries(t, a, p.ID) {
			if d.State == store.DeliveryDelivered {
				n++
			}
		}
		return n == 3
	})

	bodies, sigs, _ := hook.got()
	if len(bodies) != 1 {
		t.Fatalf("webhook got %d alerts", len(bodies))
	}
	if err := VerifyCallback(webhookRule.Secret, sigs[0], bodies[0], time.Minute); err != nil {
		t.Errorf("webhook signature: %v", err)
	}
	var alert monitor.Alert
	if err := json.Unmarshal(bodies[0], &alert); err != nil {
		t.Fatal(err)
	}
	if alert.Kind != monitor.KindNewFindings || alert.Rule != webhookRule.ID || alert.Project != p.ID || alert.Count == 0 ||
		!strings.Contains(alert.Links.Diff, "/v1/analyze/site/"+second.ID+"/diff?against=job_") {
		t.Errorf("webhook alert %+v", alert)
	}

	sb, _, _ := slack.got()
	if len(sb) != 1 {
		t.Fatalf("slack got %d messages", len(sb))
	}
	var msg struct {
		Text   string           `json:"text"`
		Blocks []map[string]any `json:"blocks"`
	}
	if err := json.Unmarshal(sb[0], &msg); err != nil || len(msg.Blocks) < 2 {
		t.Fatalf("slack message %s (%v)", sb[0], err)
	}
	if !strings.Contains(string(sb[0]), "/b: turned noindex") || msg.Blocks[0]["type"] != "header" {
		t.Errorf("slack message %s", sb[0])
	}

	mails, err := smtp.Messages()
	if err != nil || len(mails) != 1 {
		t.Fatalf("%d mails (%v)", len(mails), err)
	}
	subj, _ := new(mime.WordDecoder).DecodeHeader(mails[0].Header.Get("Subject"))
	mb, _ := io.ReadAll(mails[0].Body)
	if !strings.Contains(subj, "1 page(s) lost") || !strings.Contains(string(mb), "/c: no longer crawled") || mails[0].Header.Get("To") != "seo@example.com" {
		t.Errorf("mail %q\n%s", subj, mb)
	}

	// Evaluating the same two analyses again adds nothing; a third crawl
	// of the unchanged site alerts nothing.
	if err := a.srv.evaluateJobAlerts(context.Background(), second); err != nil {
		t.Fatal(err)
	}
	third := projectCrawl(t, a, p)
	if err := a.srv.evaluateJobAlerts(context.Background(), third); err != nil {
		t.Fatal(err)
	}
	if ds := deliveries(t, a, p.ID); len(ds) != 3 {
		t.Errorf("%d deliveries after a third identical crawl, want 3", len(ds))
	}
	time.Sleep(100 * time.Millisecond) // the worker polls every 20 ms
	if b, _, _ := hook.got(); len(b) != 1 {
		t.Errorf("webhook got %d alerts, want 1", len(b))
	}
	if b, _, _ := slack.got(); len(b) != 1 {
		t.Errorf("slack got %d messages, want 1", len(b))
	}
	if m, _ := smtp.Messages(); len(m) != 1 {
		t.Errorf("%d mails, want 1", len(m))
	}
}

// TestAlertsRetryAndMute: a receiver that fails is retried with backoff
// and a receiver that hangs never holds up the analysis; a muted rule
// sends nothing; a test alert is sent at once.
func TestAlertsRetryAndMute(t *testing.T) {
	a, p, cs := alertTestAPI(t, Options{})
	flaky := &hookReceiver{fail: 2}
	held := &hookReceiver{hold: make(chan struct{})}
	muted := &hookReceiver{}
	flakyRule := createRule(t, a, a.key, p.ID, fmt.Sprintf(`{"kind":"score_drop","params":{"points":1},"channel":"webhook","target":%q}`, newHook(t, flaky)))
	createRule(t, a, a.key, p.ID, fmt.Sprintf(`{"kind":"pages_lost","channel":"slack","target":%q}`, newHook(t, held)))
	mutedRule := createRule(t, a, a.key, p.ID, fmt.Sprintf(`{"kind":"pages_lost","channel":"webhook","target":%q}`, newHook(t, muted)))
	resp := a.call("PATCH", "/v1/projects/"+p.ID+"/alerts/"+mutedRule.ID, a.key, `{"muted":true}`)
	wantStatus(t, resp, 200)
	var m AlertRule
	readJSON(t, resp, &m)
	if !m.Muted || m.Secret != "" {
		t.Fatalf("muted rule %+v", m)
	}

	projectCrawl(t, a, p)
	cs.version.Store(2)
	// The held receiver blocks its delivery; the analysis ends regardless.
	projectCrawl(t, a, p)
	eventually(t, "the flaky receiver's third attempt", func() bool {
		b, _, calls := flaky.got()
		return len(b) == 1 && calls == 3
	})
	close(held.hold)
	eventually(t, "the held receiver", func() bool { b, _, _ := held.got(); return len(b) == 1 })
	var states []string
	eventually(t, "the log", func() bool {
		states = states[:0]
		done := true
		for _, d := range deliveries(t, a, p.ID) {
			states = append(states, d.RuleID+":"+d.State)
			if d.RuleID == flakyRule.ID && (d.State != store.DeliveryDelivered || d.Attempts != 3) {
				done = false
			}
			if d.State == store.DeliveryPending {
				done = false
			}
		}
		return done && len(states) == 3
	})
	if !strings.Contains(strings.Join(states, " "), mutedRule.ID+":suppressed") {
		t.Errorf("log %v, want the muted rule's alert suppressed", states)
	}
	if b, _, calls := muted.got(); calls != 0 || len(b) != 0 {
		t.Errorf("the muted rule's receiver got %d requests", calls)
	}

	// Unmuted, the rule sends test alerts; a failing target is reported.
	resp = a.call("PATCH", "/v1/projects/"+p.ID+"/alerts/"+mutedRule.ID, a.key, `{"muted":false}`)
	wantStatus(t, resp, 200)
	resp = a.call("POST", "/v1/projects/"+p.ID+"/alerts/"+mutedRule.ID+"/test", a.key, "")
	wantStatus(t, resp, 200)
	var tr AlertTestResult
	readJSON(t, resp, &tr)
	if tr.State != "delivered" || tr.Alert == nil || !tr.Alert.Test {
		t.Errorf("test alert %+v", tr)
	}
	if b, sigs, _ := muted.got(); len(b) != 1 || sigs[0] == "" {
		t.Errorf("test alert not received: %d", len(b))
	}
}

// TestAlertsFailedAfterLastRetry: a receiver that always fails ends
// "failed" after the last retry.
func TestAlertsFailedAfterLastRetry(t *testing.T) {
	a, p, cs := alertTestAPI(t, Options{AlertRetryDelays: []time.Duration{5 * time.Millisecond}})
	down := &hookReceiver{fail: 1 << 30}
	createRule(t, a, a.key, p.ID, fmt.Sprintf(`{"kind":"pages_lost","channel":"webhook","target":%q}`, newHook(t, down)))
	projectCrawl(t, a, p)
	cs.version.Store(2)
	projectCrawl(t, a, p)
	eventually(t, "a failed delivery", func() bool {
		ds := deliveries(t, a, p.ID)
		return len(ds) == 1 && ds[0].State == store.DeliveryFailed && ds[0].Attempts == 2 && strings.Contains(ds[0].LastError, "500")
	})
}

func TestAlertRulesAPI(t *testing.T) {
	a, p, _ := alertTestAPI(t, Options{Plans: nil})
	hook := newHook(t, &hookReceiver{})
	tests := []struct {
		name, body, field string
	}{
		{"kind", `{"kind":"everything","channel":"webhook","target":"` + hook + `"}`, "kind"},
		{"severity", `{"kind":"new_findings","params":{"severity":"fatal"},"channel":"webhook","target":"` + hook + `"}`, "params.severity"},
		{"unknown param", `{"kind":"new_findings","params":{"sev":1},"channel":"webhook","target":"` + hook + `"}`, "params.sev"},
		{"channel", `{"kind":"score_drop","channel":"pager","target":"` + hook + `"}`, "channel"},
		{"scheme", `{"kind":"score_drop","channel":"webhook","target":"ftp://example.com/x"}`, "target"},
		{"no target", `{"kind":"score_drop","channel":"slack"}`, "target"},
		{"email without SMTP", `{"kind":"score_drop","channel":"email","target":"seo@example.com"}`, "channel"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := apiErr(t, a.call("POST", "/v1/projects/"+p.ID+"/alerts", a.key, tc.body), 400, CodeInvalidRequest)
			if e.Field != tc.field {
				t.Errorf("field %q, want %q (%s)", e.Field, tc.field, e.Message)
			}
		})
	}
	t.Run("another account", func(t *testing.T) {
		r := createRule(t, a, a.key, p.ID, `{"kind":"score_drop","channel":"slack","target":"`+hook+`"}`)
		_, other := a.account("b@example.com", store.Free, "read", "write")
		apiErr(t, a.call("GET", "/v1/projects/"+p.ID+"/alerts", other, ""), 404, CodeNotFound)
		apiErr(t, a.call("GET", "/v1/projects/"+p.ID+"/alerts/deliveries", other, ""), 404, CodeNotFound)
		apiErr(t, a.call("POST", "/v1/projects/"+p.ID+"/alerts", other, `{"kind":"score_drop","channel":"slack","target":"`+hook+`"}`), 404, CodeNotFound)
		apiErr(t, a.call("PATCH", "/v1/projects/"+p.ID+"/alerts/"+r.ID, other, `{"muted":true}`), 404, CodeNotFound)
		apiErr(t, a.call("DELETE", "/v1/projects/"+p.ID+"/alerts/"+r.ID, other, ""), 404, CodeNotFound)
		apiErr(t, a.call("POST", "/v1/projects/"+p.ID+"/alerts/"+r.ID+"/test", other, ""), 404, CodeNotFound)
		wantStatus(t, a.call("DELETE", "/v1/projects/"+p.ID+"/alerts/"+r.ID, a.key, ""), 204)
		apiErr(t, a.call("DELETE", "/v1/projects/"+p.ID+"/alerts/"+r.ID, a.key, ""), 404, CodeNotFound)
	})
	t.Run("plan cap", func(t *testing.T) {
		for i := 0; ; i++ {
			resp := a.call("POST", "/v1/projects/"+p.ID+"/alerts", a.key, `{"kind":"score_drop","channel":"slack","target":"`+hook+`"}`)
			if resp.StatusCode == http.StatusConflict {
				apiErr(t, resp, 409, CodeConflict)
				if i != 5 { // Free allows 5 rules; none is left from the subtests before
					t.Errorf("refused after %d rules, want 5", i)
				}
				return
			}
			wantStatus(t, resp, 201)
			if i > 10 {
				t.Fatal("no cap")
			}
		}
	})
	t.Run("patch", func(t *testing.T) {
		rules := AlertRuleList{}
		readJSON(t, a.call("GET", "/v1/projects/"+p.ID+"/alerts", a.key, ""), &rules)
		id := rules.Rules[0].ID
		until := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
		resp := a.call("PATCH", "/v1/projects/"+p.ID+"/alerts/"+id, a.key, fmt.Sprintf(`{"mutedUntil":%q,"channel":"webhook"}`, until.Format(time.RFC3339)))
		wantStatus(t, resp, 200)
		var r AlertRule
		readJSON(t, resp, &r)
		if r.MutedUntil == nil || !r.MutedUntil.Equal(until) || !strings.HasPrefix(r.Secret, "whsec_") || r.Channel != "webhook" {
			t.Errorf("patched %+v", r)
		}
		e := apiErr(t, a.call("PATCH", "/v1/projects/"+p.ID+"/alerts/"+id, a.key, `{"target":"mailto:x@example.com"}`), 400, CodeInvalidRequest)
		if e.Field != "target" {
			t.Errorf("field %q", e.Field)
		}
	})
}

// TestAlertsResumeAfterRestart: a delivery left pending when the server
// stopped is sent by the next server over the same store.
func TestAlertsResumeAfterRestart(t *testing.T) {
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, ":memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	opts := Options{Store: st, AllowPrivate: true, AlertPollInterval: 20 * time.Millisecond, CallbackSecret: []byte("master secret of the test")}
	a := newTestAPI(t, &opts)
	p := &store.Project{AccountID: a.acct.ID, Name: "Shop", Domain: "shop.example.com"}
	if err := st.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	hook := &hookReceiver{}
	r := createRule(t, a, a.key, p.ID, fmt.Sprintf(`{"kind":"score_drop","channel":"webhook","target":%q}`, newHook(t, hook)))
	a.srv.Close()
	rule, err := st.AlertRule(ctx, a.acct.ID, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	alert := &monitor.Alert{Kind: monitor.KindScoreDrop, Domain: p.Domain, Title: "site score fell", Count: 1, Fingerprint: "fp", ChangeKey: "ck",
		Changes: []monitor.Change{{Subject: "site score", What: "fell 9 points", Old: "90", New: "81"}}}
	if err := a.srv.raiseAlert(ctx, rule, "job_x", alert); err != nil { // stored; the stopped server sends nothing
		t.Fatal(err)
	}
	if _, _, calls := hook.got(); calls != 0 {
		t.Fatalf("a closed server sent %d alerts", calls)
	}
	b := newTestAPI(t, &opts, apiConfig{noAccount: true})
	eventually(t, "the resumed delivery", func() bool { bs, _, _ := hook.got(); return len(bs) == 1 })
	bodies, sigs, _ := hook.got()
	if err := VerifyCallback(r.Secret, sigs[0], bodies[0], time.Minute); err != nil {
		t.Errorf("signature after the restart: %v", err)
	}
	b.key = a.key
	if ds := deliveries(t, b, p.ID); len(ds) != 1 || ds[0].State != store.DeliveryDelivered || ds[0].JobID != "job_x" {
		t.Errorf("log %+v", ds)
	}
}

// TestAlertTestQuota: a test alert counts one unit of the daily quota
// whoever asks: a /v1 request pays it, and the dashboard's "Send test"
// (the service called without a paid request) is charged by the service.
// The dashboard's was free, so one account could send any number of
// webhook requests or e-mails through the SMTP relay all accounts share.
func TestAlertTestQuota(t *testing.T) {
	a := newTestAPI(t, &Options{AllowPrivate: true, Plans: map[store.Plan]plans.Limits{store.Free: {DailyRequests: 3, AlertRules: 5}}})
	ctx := context.Background()
	p := &store.Project{AccountID: a.acct.ID, Name: "x", Domain: "example.com"}
	if err := a.st.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	hook := &hookReceiver{}
	rule := createRule(t, a, a.key, p.ID, fmt.Sprintf(`{"kind":"pages_lost","channel":"webhook","target":%q}`, newHook(t, hook))) // 1
	resp := a.call("POST", "/v1/projects/"+p.ID+"/alerts/"+rule.ID+"/test", a.key, "")                                            // 2
	wantStatus(t, resp, 200)
	if got := resp.Header.Get("X-RateLimit-Remaining"); got != "1" {
		t.Errorf("remaining after a /v1 test %q, want 1: the request pays the test, once", got)
	}
	if _, err := a.srv.Alerts().Test(ctx, a.acct.ID, p.ID, rule.ID); err != nil { // 3
		t.Fatal(err)
	}
	_, err := a.srv.Alerts().Test(ctx, a.acct.ID, p.ID, rule.ID)
	if le := (*service.LimitError)(nil); !errors.As(err, &le) || !strings.Contains(le.Message, "daily") {
		t.Fatalf("a test past the daily quota: %v; want the daily limit's *service.LimitError", err)
	}
	hook.mu.Lock()
	calls := hook.calls
	hook.mu.Unlock()
	if calls != 2 {
		t.Errorf("the webhook got %d test alerts, want 2", calls)
	}
}

// TestAlertEvaluationReservesItsMemory: the comparison that evaluates a
// project's alert rules when an analysis ends reserves from the memory
// budget at least what it allocates: with one byte less than that free it
// waits (and here gives up at its deadline). It read the previous report
// decompressed whole and reserved only the comparison's own working set
// (compare.EstimateMemory), half the report's size and 8 MiB; it streams
// it from its stored row now, as the API's comparisons do.
func TestAlertEvaluationReservesItsMemory(t *testing.T) {
	a := newTestAPI(t, &Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Free: 10_000}})
	ctx := context.Background()
	p := a.createProject(a.key, `{"domain":"calendar.example"}`)
	wantStatus(t, a.call("POST", "/v1/projects/"+p.ID+"/alerts", a.key,
		`{"kind":"top_page_changed","channel":"webhook","target":"http://127.0.0.1:1/hook"}`), http.StatusCreated)
	rep := goldenPagesReport(t, 16<<20)
	stored := func(at time.Time) *store.Job {
		req, _ := json.Marshal(SiteRequest{Domain: "calendar.example", ProjectID: p.ID})
		j := &store.Job{ID: "job_" + randomID(24), AccountID: a.acct.ID, Kind: "site", ProjectID: p.ID, Status: store.JobSucceeded,
			Request: req, Result: rep, CreatedAt: at, StartedAt: at, FinishedAt: at}
		if err := a.st.CreateJob(ctx, j); err != nil {
			t.Fatal(err)
		}
		return j
	}
	now := time.Now().UTC()
	stored(now.Add(-time.Hour))
	cur := stored(now) // as the job runner holds it: with its report

	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	if err := a.srv.evaluateJobAlerts(ctx, cur); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&ms)
	allocated := int64(ms.TotalAlloc - before)
	t.Logf("evaluating the alerts of two %d-byte reports allocated %d bytes", len(rep), allocated)
	if raceEnabled {
		return // the race detector allocates more
	}

	taken, err := a.srv.adm.mem.reserve(ctx, a.srv.adm.mem.total-(allocated-1))
	if err != nil {
		t.Fatal(err)
	}
	defer taken()
	wctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if err := a.srv.evaluateJobAlerts(wctx, cur); err == nil {
		t.Errorf("with %d bytes of the memory budget free, fewer than the %d it allocates, the evaluation ran; want it to wait", allocated-1, allocated)
	}
}
