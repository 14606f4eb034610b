package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/monitor"
)

// TestSiteDown: a project's site answers one analysis, then its port
// refuses connections. The second analysis reads as down everywhere: the
// job failed with errorCode site_unreachable, its report kept with a null
// score and stopReason unreachable (kind connection), the callback says
// so, the site_down rule alerts, and score_drop and pages_lost, which
// would read the outage as a drop to zero and every page lost, stay
// silent.
func TestSiteDown(t *testing.T) {
	cs := &changingSite{}
	cs.version.Store(1)
	site := httptest.NewServer(cs)
	defer site.Close()
	opts := Options{AllowPrivate: true}
	opts.AlertPollInterval = 20 * time.Millisecond
	opts.Limits = map[store.Plan]int{store.Free: 10_000}
	a := newTestAPI(t, &opts)
	p := &store.Project{AccountID: a.acct.ID, Name: "Site going down", Domain: hostOf(t, site.URL)}
	if err := a.st.CreateProject(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	hook := &hookReceiver{}
	down := createRule(t, a, a.key, p.ID, fmt.Sprintf(`{"kind":"site_down","channel":"webhook","target":%q}`, newHook(t, hook)))
	other := &hookReceiver{}
	createRule(t, a, a.key, p.ID, fmt.Sprintf(`{"kind":"score_drop","params":{"points":1},"channel":"webhook","target":%q}`, newHook(t, other)))
	createRule(t, a, a.key, p.ID, fmt.Sprintf(`{"kind":"pages_lost","channel":"webhook","target":%q}`, newHook(t, other)))

	projectCrawl(t, a, p)
	site.Close() // the port now refuses connections

	resp := a.call("POST", "/v1/analyze/site", a.key, fmt.Sprintf(`{"projectId":%q}`, p.ID))
	wantStatus(t, resp, 202)
	var created Job
	readJSON(t, resp, &created)
	eventually(t, "the analysis of the site down", func() bool {
		j, err := a.st.Job(context.Background(), p.AccountID, created.ID)
		return err == nil && j.Status.Done()
	})
	resp = a.call("GET", "/v1/analyze/site/"+created.ID, a.key, "")
	wantStatus(t, resp, 200)
	var job struct {
		Status    string             `json:"status"`
		Error     string             `json:"error"`
		ErrorCode string             `json:"errorCode"`
		Result    crawler.SiteReport `json:"result"`
	}
	readJSON(t, resp, &job)
	rep := job.Result
	if job.Status != "failed" || job.ErrorCode != "site_unreachable" || !strings.Contains(job.Error, "unreachable") {
		t.Fatalf("job %s (%s): %s", job.Status, job.ErrorCode, job.Error)
	}
	if rep.Score != nil || rep.ScoreReason != crawler.SiteUnreachable || rep.Crawl.StopReason != crawler.StopUnreachable ||
		rep.Crawl.Unreachable == nil || rep.Crawl.Unreachable.Kind != "connection" || rep.Crawl.Blocked != 0 {
		t.Fatalf("report score %v (%s), crawl %+v", rep.Score, rep.ScoreReason, rep.Crawl)
	}
	for _, g := range rep.Findings {
		t.Errorf("a site that answered nothing reports %s", g.ID)
	}
	t.Logf("down: job %s %s: %s", job.Status, job.ErrorCode, job.Error)

	eventually(t, "the site_down alert", func() bool {
		bodies, _, _ := hook.got()
		return len(bodies) == 1
	})
	bodies, _, _ := hook.got()
	var alert monitor.Alert
	if err := json.Unmarshal(bodies[0], &alert); err != nil {
		t.Fatal(err)
	}
	if alert.Kind != monitor.KindSiteDown || alert.Rule != down.ID || len(alert.Changes) != 1 ||
		alert.Changes[0].What != "no response (connection)" || !strings.Contains(alert.Links.Analysis, created.ID) {
		t.Errorf("alert %+v", alert)
	}
	t.Logf("alert: %s; %s %s", alert.Title, alert.Changes[0].Subject, alert.Changes[0].What)
	// Every rule was evaluated before the job's final state was stored:
	// only the site_down delivery exists.
	for _, d := range deliveries(t, a, p.ID) {
		if d.RuleID != down.ID {
			t.Errorf("delivery of rule %s (%s) for a site down", d.RuleID, d.State)
		}
	}
	if _, _, n := other.got(); n != 0 {
		t.Errorf("score_drop or pages_lost sent %d alerts for a site down", n)
	}
}
