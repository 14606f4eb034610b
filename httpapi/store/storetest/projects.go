package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

func projectIDs(ps []store.Project) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.ID)
	}
	return out
}

func mustProject(ctx context.Context, t *testing.T, s store.Store, accountID, domain string, at time.Time) *store.Project {
	t.Helper()
	p := &store.Project{AccountID: accountID, Name: "Site " + domain, Domain: domain, CreatedAt: at}
	if err := s.CreateProject(ctx, p); err != nil {
		t.Fatalf("CreateProject(%s): %v", domain, err)
	}
	return p
}

func testProjects(ctx context.Context, t *testing.T, s store.Store) {
	a := mustAccount(ctx, t, s, "projects@example.com")
	b := mustAccount(ctx, t, s, "other-projects@example.com")
	p := &store.Project{AccountID: a.ID, Name: "Shop", Domain: "shop.example.com", TimeZone: "Europe/Berlin",
		Config: []byte(`{"maxPages":50}`), Keywords: []string{"running shoes", "trail shoes"}, CreatedAt: base}
	if err := s.CreateProject(ctx, p); err != nil {
		t.Fatalf("CreateProject: %v", err)
	}
	if len(p.ID) < 8 || p.ID[:4] != "prj_" || !p.UpdatedAt.Equal(p.CreatedAt) {
		t.Fatalf("CreateProject left ID %q, UpdatedAt %v; want a prj_ ID and UpdatedAt = CreatedAt", p.ID, p.UpdatedAt)
	}
	got, err := s.Project(ctx, a.ID, p.ID)
	if err != nil {
		t.Fatalf("Project: %v", err)
	}
	if got.Name != "Shop" || got.Domain != "shop.example.com" || got.TimeZone != "Europe/Berlin" || string(got.Config) != `{"maxPages":50}` ||
		fmt.Sprint(got.Keywords) != "[running shoes trail shoes]" || !got.CreatedAt.Equal(base) || got.CreatedAt.Location() != time.UTC {
		t.Errorf("Project = %+v", got)
	}
	if _, err := s.Project(ctx, b.ID, p.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Project of another account: err = %v, want ErrNotFound", err)
	}
	if _, err := s.Project(ctx, a.ID, "prj_missing"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Project(missing): err = %v, want ErrNotFound", err)
	}

	// Defaults: UTC, no config, no keywords.
	q := mustProject(ctx, t, s, a.ID, "blog.example.com", base.Add(time.Second))
	if g, err := s.Project(ctx, a.ID, q.ID); err != nil || g.TimeZone != "UTC" || g.Config != nil || g.Keywords != nil {
		t.Errorf("Project with defaults = %+v, %v; want UTC, nil config, nil keywords", g, err)
	}
	// One project per domain and account; another account may have it.
	dup := &store.Project{AccountID: a.ID, Name: "again", Domain: "shop.example.com"}
	if err := s.CreateProject(ctx, dup); !errors.Is(err, store.ErrConflict) {
		t.Errorf("a second project for a domain: err = %v, want ErrConflict", err)
	}
	theirs := mustProject(ctx, t, s, b.ID, "shop.example.com", base)

	list, err := s.Projects(ctx, a.ID)
	if err != nil || fmt.Sprint(projectIDs(list)) != fmt.Sprint([]string{q.ID, p.ID}) {
		t.Errorf("Projects = %v, %v; want [%s %s] (newest first)", projectIDs(list), err, q.ID, p.ID)
	}
	if list, err := s.Projects(ctx, b.ID); err != nil || len(list) != 1 || list[0].ID != theirs.ID {
		t.Errorf("Projects(other) = %v, %v; want only its own", projectIDs(list), err)
	}

	up := *got
	up.Name, up.Domain, up.TimeZone, up.Config, up.Keywords = "Shop EU", "eu.shop.example.com", "UTC", nil, []string{"boots"}
	up.UpdatedAt = base.Add(time.Hour)
	if err := s.UpdateProject(ctx, &up); err != nil {
		t.Fatalf("UpdateProject: %v", err)
	}
	if g, err := s.Project(ctx, a.ID, p.ID); err != nil || g.Name != "Shop EU" || g.Domain != "eu.shop.example.com" || g.Config != nil ||
		fmt.Sprint(g.Keywords) != "[boots]" || !g.UpdatedAt.Equal(base.Add(time.Hour)) || !g.CreatedAt.Equal(base) {
		t.Errorf("after UpdateProject: %+v, %v", g, err)
	}
	clash := up
	clash.Domain = "blog.example.com"
	if err := s.UpdateProject(ctx, &clash); !errors.Is(err, store.ErrConflict) {
		t.Errorf("UpdateProject to another project's domain: err = %v, want ErrConflict", err)
	}
	stolen := up
	stolen.AccountID, stolen.Name = b.ID, "mine now"
	if err := s.UpdateProject(ctx, &stolen); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("UpdateProject by another account: err = %v, want ErrNotFound", err)
	}

	for _, bad := range []*store.Project{nil, {Domain: "x.example.com"}, {AccountID: a.ID}} {
		if err := s.CreateProject(ctx, bad); !errors.Is(err, seo.ErrInvalidInput) {
			t.Errorf("CreateProject(%+v): err = %v, want an input error", bad, err)
		}
	}
	if err := s.CreateProject(ctx, &store.Project{AccountID: "acct_missing", Domain: "x.example.com"}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("CreateProject for an unknown account: err = %v, want ErrNotFound", err)
	}

	if err := s.DeleteProject(ctx, b.ID, p.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("DeleteProject by another account: err = %v, want ErrNotFound", err)
	}
	if err := s.DeleteProject(ctx, a.ID, p.ID); err != nil {
		t.Fatalf("DeleteProject: %v", err)
	}
	if _, err := s.Project(ctx, a.ID, p.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Project after DeleteProject: err = %v, want ErrNotFound", err)
	}
	if err := s.DeleteProject(ctx, a.ID, p.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("DeleteProject twice: err = %v, want ErrNotFound", err)
	}
	// The domain is free again.
	mustProject(ctx, t, s, a.ID, "eu.shop.example.com", base)
}

func testProjectJobs(ctx context.Context, t *testing.T, s store.Store) {
	a := mustAccount(ctx, t, s, "history@example.com")
	b := mustAccount(ctx, t, s, "other-history@example.com")
	p := mustProject(ctx, t, s, a.ID, "example.com", base)
	q := mustProject(ctx, t, s, a.ID, "example.org", base)
	theirs := mustProject(ctx, t, s, b.ID, "example.net", base)

	var made []*store.Job
	for i := range 3 {
		j := &store.Job{AccountID: a.ID, Kind: "site", ProjectID: p.ID, CreatedAt: base.Add(time.Duration(i) * time.Minute)}
		if err := s.CreateJob(ctx, j); err != nil {
			t.Fatalf("CreateJob with a project: %v", err)
		}
		made = append(made, j)
	}
	plain := &store.Job{AccountID: a.ID, Kind: "site", CreatedAt: base.Add(time.Hour)}
	other := &store.Job{AccountID: a.ID, Kind: "site", ProjectID: q.ID, CreatedAt: base.Add(time.Hour)}
	for _, j := range []*store.Job{plain, other} {
		if err := s.CreateJob(ctx, j); err != nil {
			t.Fatalf("CreateJob: %v", err)
		}
	}
	// A job cannot name another account's project or a missing one.
	for _, pid := range []string{theirs.ID, "prj_missing"} {
		if err := s.CreateJob(ctx, &store.Job{AccountID: a.ID, Kind: "site", ProjectID: pid}); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("CreateJob with project %s: err = %v, want ErrNotFound", pid, err)
		}
	}

	// The summary is written with the final state, and lists return it.
	done := *made[1]
	done.Status, done.FinishedAt = store.JobSucceeded, base.Add(2*time.Minute)
	done.Result, done.Summary = []byte(`{"score":91,"pages":[]}`), []byte(`{"score":91}`)
	if err := s.UpdateJob(ctx, &done); err != nil {
		t.Fatalf("UpdateJob(succeeded, summary): %v", err)
	}
	g, err := s.Job(ctx, a.ID, done.ID)
	if err != nil || g.ProjectID != p.ID || string(g.Summary) != `{"score":91}` || string(g.Result) != `{"score":91,"pages":[]}` {
		t.Errorf("Job after success = %+v, %v; want its project, summary and result", g, err)
	}
	changed := *g
	changed.Summary = []byte(`{"score":12}`)
	if err := s.UpdateJob(ctx, &changed); !errors.Is(err, store.ErrConflict) {
		t.Errorf("changing the summary of a final job: err = %v, want ErrConflict", err)
	}

	hist, err := s.ProjectJobs(ctx, a.ID, p.ID, 0)
	if err != nil || fmt.Sprint(ids(hist)) != fmt.Sprint([]string{made[2].ID, made[1].ID, made[0].ID}) {
		t.Fatalf("ProjectJobs = %v, %v; want the project's jobs newest first", ids(hist), err)
	}
	for _, j := range hist {
		if j.Result != nil {
			t.Errorf("ProjectJobs loaded the result of %s", j.ID)
		}
		if j.ProjectID != p.ID {
			t.Errorf("ProjectJobs: %s has project %q, want %s", j.ID, j.ProjectID, p.ID)
		}
	}
	if string(hist[1].Summary) != `{"score":91}` || hist[1].Status != store.JobSucceeded || hist[0].Summary != nil {
		t.Errorf("ProjectJobs summaries: %s %q, %q; want succeeded {\"score\":91} and none for the queued job",
			hist[1].Status, hist[1].Summary, hist[0].Summary)
	}
	if h, err := s.ProjectJobs(ctx, a.ID, p.ID, 2); err != nil || len(h) != 2 || h[0].ID != made[2].ID {
		t.Errorf("ProjectJobs(limit 2) = %v, %v", ids(h), err)
	}
	if h, err := s.ProjectJobs(ctx, b.ID, p.ID, 10); err != nil || len(h) != 0 {
		t.Errorf("ProjectJobs by another account = %v, %v; want none", ids(h), err)
	}
	// Lists carry the project and the summary, never the result.
	list, err := s.Jobs(ctx, a.ID, 10)
	if err != nil {
		t.Fatalf("Jobs: %v", err)
	}
	for _, j := range list {
		want := p.ID
		switch j.ID {
		case plain.ID:
			want = ""
		case other.ID:
			want = q.ID
		}
		if j.ProjectID != want || (j.ID == done.ID && string(j.Summary) != `{"score":91}`) {
			t.Errorf("Jobs lists %s with project %q summary %q; want project %q", j.ID, j.ProjectID, j.Summary, want)
		}
	}
	un, err := s.Unfinished(ctx)
	if err != nil {
		t.Fatalf("Unfinished: %v", err)
	}
	for _, j := range un {
		if j.ID == made[0].ID && j.ProjectID != p.ID {
			t.Errorf("Unfinished lists %s without its project", j.ID)
		}
	}

	// Deleting the project keeps its jobs, without the project.
	if err := s.DeleteProject(ctx, a.ID, p.ID); err != nil {
		t.Fatalf("DeleteProject: %v", err)
	}
	for _, j := range made {
		g, err := s.Job(ctx, a.ID, j.ID)
		if err != nil || g.ProjectID != "" {
			t.Errorf("job %s after deleting its project: %+v, %v; want it kept with no project", j.ID, g, err)
		}
	}
	if g, err := s.Job(ctx, a.ID, done.ID); err != nil || string(g.Summary) != `{"score":91}` {
		t.Errorf("a kept job lost its summary: %+v, %v", g, err)
	}
	if h, err := s.ProjectJobs(ctx, a.ID, p.ID, 10); err != nil || len(h) != 0 {
		t.Errorf("ProjectJobs of a deleted project = %v, %v; want none", ids(h), err)
	}
	if h, err := s.ProjectJobs(ctx, a.ID, q.ID, 10); err != nil || len(h) != 1 || h[0].ID != other.ID {
		t.Errorf("ProjectJobs of the other project = %v, %v; want [%s]", ids(h), err, other.ID)
	}
}
