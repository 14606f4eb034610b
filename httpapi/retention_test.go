package httpapi

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
)

// TestRetentionAfterJob runs a site analysis of a project on the Free plan
// (10 analyses per project, 30 days) and checks what finishing it pruned:
// the project's oldest finished analyses beyond ten, the account's
// finished analyses without a project older than 30 days, never a queued
// one, another project's or another account's.
func TestRetentionAfterJob(t *testing.T) {
	site := crawlSite(t, 3, 0)
	now := time.Now().UTC()
	a := newTestAPI(t, &Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Free: 10_000}})
	ctx := context.Background()
	host := hostOf(t, site.URL)
	mkProject := func(accountID, domain string) string {
		p := &store.Project{AccountID: accountID, Name: domain, Domain: domain}
		if err := a.st.CreateProject(ctx, p); err != nil {
			t.Fatal(err)
		}
		return p.ID
	}
	b, _ := a.account("b@example.com", store.Free, auth.ScopeRead)
	prj, other, bPrj := mkProject(a.acct.ID, host), mkProject(a.acct.ID, "other.example"), mkProject(b.ID, host)
	inProject := func(accountID, projectID string, status store.JobStatus, at time.Time) string {
		j := &store.Job{AccountID: accountID, ProjectID: projectID, Kind: "site", Status: status,
			Request: []byte(fmt.Sprintf(`{"domain":%q}`, host)), CreatedAt: at, FinishedAt: at}
		if err := a.st.CreateJob(ctx, j); err != nil {
			t.Fatal(err)
		}
		return j.ID
	}
	var project []string // oldest first
	for i := range 12 {
		project = append(project, inProject(a.acct.ID, prj, store.JobSucceeded, now.Add(time.Duration(i-20)*time.Hour)))
	}
	otherJobs := []string{inProject(a.acct.ID, other, store.JobSucceeded, now.Add(-50*24*time.Hour))}
	looseOld := a.storeSiteJob(a.acct.ID, host, store.JobFailed, nil, now.Add(-31*24*time.Hour))
	looseNew := a.storeSiteJob(a.acct.ID, host, store.JobSucceeded, nil, now.Add(-29*24*time.Hour))
	bJobs := []string{inProject(b.ID, bPrj, store.JobSucceeded, now.Add(-40*24*time.Hour)),
		a.storeSiteJob(b.ID, host, store.JobSucceeded, nil, now.Add(-40*24*time.Hour))}

	resp := a.call("POST", "/v1/analyze/site", a.key, fmt.Sprintf(`{"projectId":%q}`, prj))
	wantStatus(t, resp, 202)
	var created Job
	readJSON(t, resp, &created)
	if j := waitJob(t, a, a.key, created.ID, func(j Job) bool { return j.Status == "succeeded" || j.Status == "failed" }); j.Status != "succeeded" {
		t.Fatalf("job %s: %s", j.Status, j.Error)
	}
	exists := func(accountID, id string) bool {
		_, err := a.st.Job(ctx, accountID, id)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			t.Fatal(err)
		}
		return err == nil
	}
	for _, id := range append(append([]string{created.ID, looseNew}, project[3:]...), otherJobs...) {
		if !exists(a.acct.ID, id) {
			t.Errorf("job %s was pruned, want it kept", id)
		}
	}
	for _, id := range append([]string{looseOld}, project[:3]...) {
		if exists(a.acct.ID, id) {
			t.Errorf("job %s was kept, want it pruned", id)
		}
	}
	for _, id := range bJobs {
		if !exists(b.ID, id) {
			t.Errorf("another account's job %s was pruned", id)
		}
	}
	js, err := a.st.ProjectJobs(ctx, a.acct.ID, prj, 100)
	if err != nil || len(js) != 10 || js[0].ID != created.ID {
		t.Fatalf("the project's history: %d jobs (newest %v), %v; want 10, the new one first", len(js), js, err)
	}
}

// TestRetentionKeepsUnfinished prunes directly: a queued analysis older
// than everything is never deleted.
func TestRetentionKeepsUnfinished(t *testing.T) {
	a := newTestAPI(t, nil)
	ctx := context.Background()
	p := &store.Project{AccountID: a.acct.ID, Name: "x", Domain: "example.com"}
	if err := a.st.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-400 * 24 * time.Hour)
	queued := &store.Job{AccountID: a.acct.ID, ProjectID: p.ID, Kind: "site", Status: store.JobQueued, CreatedAt: old}
	running := &store.Job{AccountID: a.acct.ID, Kind: "site", Status: store.JobRunning, CreatedAt: old}
	for _, j := range []*store.Job{queued, running} {
		if err := a.st.CreateJob(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	var last *store.Job
	for i := range 12 {
		last = &store.Job{AccountID: a.acct.ID, ProjectID: p.ID, Kind: "site", Status: store.JobSucceeded,
			CreatedAt: old.Add(time.Duration(i) * time.Hour)}
		if err := a.st.CreateJob(ctx, last); err != nil {
			t.Fatal(err)
		}
	}
	a.srv.pruneHistory(ctx, last)
	for _, j := range []*store.Job{queued, running} {
		if _, err := a.st.Job(ctx, a.acct.ID, j.ID); err != nil {
			t.Errorf("%s job: %v, want it kept", j.Status, err)
		}
	}
	// Every finished one is older than 30 days: all go.
	js, _ := a.st.ProjectJobs(ctx, a.acct.ID, p.ID, 100)
	if len(js) != 1 || js[0].ID != queued.ID {
		t.Errorf("the project keeps %d jobs, want only the queued one", len(js))
	}
}

// TestRetentionAfterLogParse: an account that only uploads logs has its
// parsed uploads kept for its plan's days (Free: 30) as docs/logs.md
// says; they were never pruned, so its stored reports grew without
// bound. A finished parse prunes the older ones, not a newer one nor
// another account's.
func TestRetentionAfterLogParse(t *testing.T) {
	a := newTestAPI(t, &Options{AllowPrivate: true, LogDir: t.TempDir(), Limits: map[store.Plan]int{store.Free: 10_000}})
	ctx := context.Background()
	p := a.createProject(a.key, `{"domain":"example.com"}`)
	b, _ := a.account("b@example.com", store.Free, auth.ScopeRead)
	now := time.Now().UTC()
	stored := func(accountID string, at time.Time) string {
		j := &store.Job{AccountID: accountID, Kind: logJobKind, Status: store.JobSucceeded,
			Request: []byte(fmt.Sprintf(`{"projectId":%q,"name":"old"}`, p.ID)), Result: []byte(`{}`), CreatedAt: at, FinishedAt: at}
		if err := a.st.CreateJob(ctx, j); err != nil {
			t.Fatal(err)
		}
		return j.ID
	}
	old, recent, bOld := stored(a.acct.ID, now.Add(-31*24*time.Hour)), stored(a.acct.ID, now.Add(-29*24*time.Hour)), stored(b.ID, now.Add(-40*24*time.Hour))

	resp := a.upload(a.key, p.ID, "", []byte(testLog()))
	wantStatus(t, resp, 202)
	var up service.LogJob
	readJSON(t, resp, &up)
	if j, _ := waitLog(t, a, a.key, p.ID, up.ID); j.Status != "succeeded" {
		t.Fatalf("log parse %s: %s", j.Status, j.Error)
	}
	exists := func(accountID, id string) bool {
		_, err := a.st.Job(ctx, accountID, id)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			t.Fatal(err)
		}
		return err == nil
	}
	if exists(a.acct.ID, old) {
		t.Errorf("a log parse of 31 days ago was kept, want it pruned")
	}
	for _, id := range []string{recent, up.ID} {
		if !exists(a.acct.ID, id) {
			t.Errorf("log parse %s was pruned, want it kept", id)
		}
	}
	if !exists(b.ID, bOld) {
		t.Errorf("another account's log parse was pruned")
	}
}
