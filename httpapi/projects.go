package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/seo"
)

// Caps of projects.
const (
	// MaxProjectKeywords caps the tracked keywords of a project, as GET
	// /v1/rankings caps the keywords of one request.
	MaxProjectKeywords = MaxRankingKeywords
	// MaxProjectNameBytes caps a project's name.
	MaxProjectNameBytes = 200
	// MaxProjectHistory caps the limit of GET /v1/projects/{id}/analyses;
	// DefaultProjectHistory is the limit without one.
	MaxProjectHistory     = 500
	DefaultProjectHistory = 100
)

// maxKeywordBytes caps one tracked or ranked keyword.
const maxKeywordBytes = 200

// The project types are the service's (package service).
type (
	// ProjectRequest is the body of POST /v1/projects and PATCH
	// /v1/projects/{id}.
	ProjectRequest = service.ProjectRequest
	// ProjectLinks are a project's URLs.
	ProjectLinks = service.ProjectLinks
	// Project is the API's view of a project.
	Project = service.Project
	// ProjectList is the body of GET /v1/projects.
	ProjectList = service.ProjectList
	// JobSummary is the small record a site analysis keeps when it
	// succeeds.
	JobSummary = service.JobSummary
	// ProjectAnalysis is one analysis of a project's history.
	ProjectAnalysis = service.ProjectAnalysis
	// ProjectAnalyses is the body of GET /v1/projects/{id}/analyses.
	ProjectAnalyses = service.ProjectAnalyses
)

// jobSummary is the summary of a succeeded site analysis's report.
func jobSummary(rep *crawler.SiteReport) []byte {
	if rep == nil {
		return nil
	}
	sum := JobSummary{
		ScoreReason: rep.ScoreReason, Pages: rep.Crawl.Fetched, FetchErrors: rep.Crawl.Errors,
		Errors: rep.FindingCounts.Checks.Errors, Warnings: rep.FindingCounts.Checks.Warnings, Notices: rep.FindingCounts.Checks.Notices,
		Findings: rep.FindingCounts.Findings, StopReason: rep.Crawl.StopReason, FinishedAt: rep.FinishedAt.UTC(),
	}
	if rep.Score != nil {
		v := rep.Score.Value
		sum.Score = &v
	}
	// The report keeps no total of indexable pages: they are counted over
	// its pages, which is the whole crawl unless the list was cut.
	if _, cut := rep.Truncated["pages"]; cut {
		sum.IndexableReason = "pages_truncated"
	} else {
		n := 0
		for i := range rep.Pages {
			if rep.Pages[i].Indexable {
				n++
			}
		}
		sum.Indexable = &n
	}
	b, _ := json.Marshal(sum)
	return b
}

// projectView renders a stored project, its credentials redacted.
func (s *Server) projectView(p *store.Project) Project {
	self := s.opts.BasePath + "/v1/projects/" + p.ID
	v := Project{ID: p.ID, Name: p.Name, Domain: p.Domain, TimeZone: p.TimeZone, Keywords: orEmpty(p.Keywords),
		CreatedAt: p.CreatedAt.UTC(), UpdatedAt: p.UpdatedAt.UTC(), Links: ProjectLinks{Self: self, Analyses: self + "/analyses"}}
	// Stored as a site request whose options are the configuration, its
	// credentials sealed and redacted (sealRequest): read without opening.
	var st storedSiteRequest
	if len(p.Config) > 0 && json.Unmarshal(p.Config, &st) == nil {
		v.Config = st.Options.Config
	}
	return v
}

// projectConfig returns the project's crawl configuration with its
// credentials decrypted, for the analyses that use it. Credentials sealed
// under another CallbackSecret are a 409 saying to send them again.
func (s *Server) projectConfig(p *store.Project) (crawler.Config, error) {
	if len(p.Config) == 0 {
		return crawler.Config{}, nil
	}
	req, err := s.openRequest(p.Config)
	if errors.Is(err, errSealed) {
		return crawler.Config{}, conflict("the credentials of project " + p.ID +
			" cannot be decrypted (the server's CallbackSecret changed); send its config again with PATCH /v1/projects/" + p.ID)
	}
	if err != nil {
		return crawler.Config{}, err
	}
	return req.Options.Config, nil
}

// sealConfig encodes a configuration for the store: a site request whose
// options are cfg, its credentials encrypted as a job's are.
func (s *Server) sealConfig(cfg crawler.Config) ([]byte, error) {
	if reflect.ValueOf(cfg).IsZero() {
		return nil, nil
	}
	return s.sealRequest(SiteRequest{Options: SiteOptions{Config: cfg}})
}

// getProject reads the account's project; a missing one, or another
// account's, is a 404 naming it.
func (s *Server) getProject(ctx context.Context, accountID, id, field string) (*store.Project, error) {
	p, err := s.st.Project(ctx, accountID, id)
	if errors.Is(err, store.ErrNotFound) {
		msg := "no project " + strconv.Quote(clip(id))
		if field != "" {
			msg += " (" + field + ")"
		}
		return nil, &service.NotFoundError{Message: msg}
	}
	return p, err
}

// projectDomain validates a project's domain as a site analysis's is (the
// address policy included) and returns its host.
func (s *Server) projectDomain(ctx context.Context, raw string) (string, error) {
	t, err := service.ParseTarget(raw, "")
	if err != nil {
		return "", err
	}
	if err := s.checkTarget(ctx, &t); err != nil {
		return "", err
	}
	return strings.ToLower(t.Host()), nil
}

// cleanKeywords trims keywords and drops repeats; an empty one, or one
// that is not valid UTF-8 of at most 200 bytes, is a 400 naming
// field[i]. The caller caps the count.
func cleanKeywords(field string, raw []string) ([]string, error) {
	out := make([]string, 0, len(raw))
	seen := map[string]bool{}
	for i, k := range raw {
		k = strings.TrimSpace(k)
		f := field + "[" + strconv.Itoa(i) + "]"
		switch {
		case k == "":
			return nil, invalid(f, f+" is empty")
		case len(k) > maxKeywordBytes || !utf8.ValidString(k):
			return nil, invalid(f, f+" must be valid UTF-8 of at most 200 bytes")
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out, nil
}

// applyProjectRequest validates req and sets its fields on p (a new
// project when p.ID is empty). Errors are 400s naming the field.
func (s *Server) applyProjectRequest(ctx context.Context, p *store.Project, req *ProjectRequest) error {
	oldDomain := p.Domain
	if req.Domain != nil {
		d, err := s.projectDomain(ctx, *req.Domain)
		if err != nil {
			return err
		}
		p.Domain = d
	}
	if p.Domain == "" {
		return invalid("domain", "domain is required")
	}
	if req.Name != nil {
		n := strings.TrimSpace(*req.Name)
		switch {
		case len(n) > MaxProjectNameBytes || !utf8.ValidString(n):
			return invalid("name", "name must be valid UTF-8 of at most "+strconv.Itoa(MaxProjectNameBytes)+" bytes")
		case !auth.Displayable(n):
			return invalid("name", "name must not contain control or bidirectional formatting characters")
		}
		p.Name = n
	}
	if p.Name == "" {
		p.Name = p.Domain
	}
	if req.TimeZone != nil {
		tz := *req.TimeZone
		if tz == "" {
			tz = "UTC"
		}
		if _, err := time.LoadLocation(tz); err != nil || tz == "Local" || len(tz) > 64 {
			return &seo.InputError{Field: "timeZone", Value: clip(tz), Reason: `must be an IANA time zone name such as "Europe/Berlin" or "UTC"`}
		}
		p.TimeZone = tz
	}
	if p.TimeZone == "" {
		p.TimeZone = "UTC"
	}
	if req.Keywords != nil {
		if len(*req.Keywords) > MaxProjectKeywords {
			return invalid("keywords", "at most "+strconv.Itoa(MaxProjectKeywords)+" keywords are tracked per project")
		}
		kws, err := cleanKeywords("keywords", *req.Keywords)
		if err != nil {
			return err
		}
		// The project's scheduled rank checks search them: a keyword the
		// rankings refuse (control characters) would fail every check.
		for i, k := range *req.Keywords {
			if _, err := rankings.NormalizeKeyword("keywords["+strconv.Itoa(i)+"]", k); err != nil {
				return err
			}
		}
		p.Keywords = kws
	}
	// Stored credentials belong to the domain they were given for: they
	// never follow the project to another one, where they would be sent.
	moved := oldDomain != "" && p.Domain != oldDomain
	if moved && req.Config == nil && len(p.Config) > 0 {
		cfg, err := s.projectConfig(p)
		if err != nil {
			return err
		}
		if len(cfg.Headers) > 0 || len(cfg.Cookies) > 0 || cfg.BasicAuth != nil {
			return invalid("config", "the project's stored credentials (headers, cookies, basicAuth) are for "+oldDomain+
				"; to change the domain, send config again, with the credentials for "+p.Domain+" or without any")
		}
	}
	if req.Config != nil {
		var cfg crawler.Config
		if !bytes.Equal(bytes.TrimSpace(req.Config), []byte("null")) {
			c, err := crawler.DecodeConfig(bytes.NewReader(req.Config))
			if err != nil {
				return configField(err)
			}
			cfg = *c
		}
		stored := func() (crawler.Config, error) { return s.projectConfig(p) }
		if moved {
			stored = func() (crawler.Config, error) { return crawler.Config{}, nil }
		}
		if err := keepSecrets(&cfg, "config", "the project", stored); err != nil {
			return err
		}
		plan, err := s.accountPlan(ctx, p.AccountID)
		if err != nil {
			return err
		}
		if cfg.MaxPages > plan.MaxSitePages {
			return &seo.InputError{Field: "config.maxPages", Value: strconv.Itoa(cfg.MaxPages),
				Reason: "must be at most " + strconv.Itoa(plan.MaxSitePages) + ", the cap of this account's plan"}
		}
		if p.Config, err = s.sealConfig(cfg); err != nil {
			return err
		}
	}
	return nil
}

// configField puts "config." before the field of a configuration error.
func configField(err error) error {
	ie, ok := seo.AsInputError(err)
	switch {
	case !ok:
		return err
	case ie.Field == "" || ie.Field == "config":
		return ie.WithField("config")
	}
	return ie.WithField("config." + ie.Field)
}

// keepSecrets replaces the credentials of cfg sent as seo.Redacted (an
// answer sent back) by the stored ones, which stored returns (called only
// when one is needed); one not stored is a 400 naming it. prefix is the
// path of cfg in the request ("config", "options"); owner names what holds
// the stored values ("the project"). A nil stored means nothing is stored:
// every "[redacted]" is refused, never sent to the site as the credential.
func keepSecrets(cfg *crawler.Config, prefix, owner string, stored func() (crawler.Config, error)) error {
	if stored == nil {
		stored = func() (crawler.Config, error) { return crawler.Config{}, nil }
	}
	var old *crawler.Config
	load := func() error {
		if old != nil {
			return nil
		}
		c, err := stored()
		old = &c
		return err
	}
	keep := func(field string, m map[string]string, prev func() map[string]string) error {
		for k, v := range m {
			if v != seo.Redacted {
				continue
			}
			if err := load(); err != nil {
				return err
			}
			pv, ok := prev()[k]
			if !ok {
				return invalid(field+"."+k, field+"."+k+` is "[redacted]" but `+owner+` has no value stored for it; send the value`)
			}
			m[k] = pv
		}
		return nil
	}
	if err := keep(prefix+".headers", cfg.Headers, func() map[string]string { return old.Headers }); err != nil {
		return err
	}
	if err := keep(prefix+".cookies", cfg.Cookies, func() map[string]string { return old.Cookies }); err != nil {
		return err
	}
	if b := cfg.BasicAuth; b != nil && b.Password == seo.Redacted {
		if err := load(); err != nil {
			return err
		}
		if old.BasicAuth == nil {
			return invalid(prefix+".basicAuth.password", prefix+`.basicAuth.password is "[redacted]" but `+owner+` has no password stored; send the password`)
		}
		cfg.BasicAuth = &crawler.BasicAuth{Username: b.Username, Password: old.BasicAuth.Password}
	}
	return nil
}

// Projects returns the projects service over the server's store: the
// /v1/projects handlers call it, and so does the dashboard.
func (s *Server) Projects() service.Projects { return projectService{s} }

// projectService implements service.Projects.
type projectService struct{ s *Server }

var _ service.Projects = projectService{}

func (ps projectService) Create(ctx context.Context, account string, req ProjectRequest) (*Project, error) {
	s := ps.s
	if req.Domain == nil {
		return nil, invalid("domain", "domain is required")
	}
	p := &store.Project{AccountID: account}
	if err := s.applyProjectRequest(ctx, p, &req); err != nil {
		return nil, err
	}
	plan, err := s.accountPlan(ctx, account)
	if err != nil {
		return nil, err
	}
	limit := min(plan.Projects, store.MaxProjects)
	if s.opts.DisableAuth {
		limit = store.MaxProjects
	}
	now := s.now().UTC()
	p.ID, p.CreatedAt, p.UpdatedAt = "prj_"+randomID(24), now, now
	// The store counts and creates in one atomic step, so instances
	// sharing a database together never exceed the cap.
	err = s.st.CreateProjectWithin(ctx, p, limit)
	var le *store.LimitError
	switch {
	case errors.As(err, &le):
		err = conflict("this account has " + strconv.Itoa(le.Count) +
			" projects, the most its plan allows; delete one to create another")
	case errors.Is(err, store.ErrConflict):
		err = &Error{Code: CodeConflict, Status: http.StatusConflict, Field: "domain",
			Message: "this account already has a project for " + p.Domain}
	}
	if err != nil {
		return nil, err
	}
	v := s.projectView(p)
	return &v, nil
}

func (ps projectService) Get(ctx context.Context, account, id string) (*Project, error) {
	p, err := ps.s.getProject(ctx, account, id, "")
	if err != nil {
		return nil, err
	}
	v := ps.s.projectView(p)
	return &v, nil
}

func (ps projectService) List(ctx context.Context, account string) ([]Project, error) {
	list, err := ps.s.st.Projects(ctx, account)
	if err != nil {
		return nil, err
	}
	out := make([]Project, 0, len(list))
	for i := range list {
		out = append(out, ps.s.projectView(&list[i]))
	}
	return out, nil
}

func (ps projectService) Update(ctx context.Context, account, id string, req ProjectRequest) (*Project, error) {
	s := ps.s
	p, err := s.getProject(ctx, account, id, "")
	if err != nil {
		return nil, err
	}
	if req.Name != nil && strings.TrimSpace(*req.Name) == "" {
		return nil, invalid("name", "name must not be empty")
	}
	oldZone := p.TimeZone
	if err := s.applyProjectRequest(ctx, p, &req); err != nil {
		return nil, err
	}
	p.UpdatedAt = s.now().UTC()
	err = s.st.UpdateProject(ctx, p)
	if err == nil && p.TimeZone != oldZone {
		s.rezoneSchedules(ctx, p)
	}
	if errors.Is(err, store.ErrConflict) {
		err = &Error{Code: CodeConflict, Status: http.StatusConflict, Field: "domain",
			Message: "this account already has a project for " + p.Domain}
	}
	if err != nil {
		return nil, err
	}
	v := s.projectView(p)
	return &v, nil
}

func (ps projectService) Delete(ctx context.Context, account, id string) error {
	err := ps.s.st.DeleteProject(ctx, account, id)
	if errors.Is(err, store.ErrNotFound) {
		err = notFound("no project " + strconv.Quote(clip(id)))
	}
	return err
}

func (ps projectService) Analyses(ctx context.Context, account, id string, limit int) (*ProjectAnalyses, error) {
	s := ps.s
	if limit < 1 || limit > service.MaxProjectAnalyses {
		return nil, invalid("limit", "limit must be an integer from 1 to "+strconv.Itoa(service.MaxProjectAnalyses))
	}
	p, err := s.getProject(ctx, account, id, "")
	if err != nil {
		return nil, err
	}
	js, err := s.st.ProjectJobs(ctx, account, p.ID, limit+1)
	if err != nil {
		return nil, err
	}
	out := &ProjectAnalyses{ProjectID: p.ID, Analyses: make([]ProjectAnalysis, 0, min(len(js), limit))}
	if len(js) > limit {
		js, out.HasMore = js[:limit], true
	}
	for i := range js {
		j := &js[i]
		a := ProjectAnalysis{ID: j.ID, Kind: j.Kind, Status: string(j.Status), CreatedAt: j.CreatedAt.UTC(),
			StartedAt: j.StartedAt.UTC(), FinishedAt: j.FinishedAt.UTC(), Error: j.Error,
			Links: JobLinks{Self: s.opts.BasePath + "/v1/analyze/site/" + j.ID}}
		if j.Status == store.JobSucceeded && len(j.Summary) > 0 {
			var sum JobSummary
			if json.Unmarshal(j.Summary, &sum) == nil {
				a.Summary = &sum
			}
		}
		out.Analyses = append(out.Analyses, a)
	}
	return out, nil
}

// createProject serves POST /v1/projects.
func (s *Server) createProject(w http.ResponseWriter, r *http.Request) {
	var req ProjectRequest
	if err := decodeJSON(w, r, s.opts.MaxBodyBytes, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	v, err := s.Projects().Create(r.Context(), principal(r.Context()).AccountID, req)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Location", v.Links.Self)
	writeJSON(w, http.StatusCreated, v)
}

// listProjects serves GET /v1/projects.
func (s *Server) listProjects(w http.ResponseWriter, r *http.Request) {
	ps, err := s.Projects().List(r.Context(), principal(r.Context()).AccountID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, ProjectList{Projects: ps})
}

// readProject serves GET /v1/projects/{id}.
func (s *Server) readProject(w http.ResponseWriter, r *http.Request) {
	v, err := s.Projects().Get(r.Context(), principal(r.Context()).AccountID, r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// updateProject serves PATCH /v1/projects/{id}.
func (s *Server) updateProject(w http.ResponseWriter, r *http.Request) {
	var req ProjectRequest
	if err := decodeJSON(w, r, s.opts.MaxBodyBytes, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	v, err := s.Projects().Update(r.Context(), principal(r.Context()).AccountID, r.PathValue("id"), req)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// deleteProject serves DELETE /v1/projects/{id}: the project, its
// schedules and alert rules go; its analyses stay, without a project.
func (s *Server) deleteProject(w http.ResponseWriter, r *http.Request) {
	if err := s.Projects().Delete(r.Context(), principal(r.Context()).AccountID, r.PathValue("id")); err != nil {
		s.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// projectAnalyses serves GET /v1/projects/{id}/analyses?limit=.
func (s *Server) projectAnalyses(w http.ResponseWriter, r *http.Request) {
	limit := DefaultProjectHistory
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxProjectHistory {
			s.fail(w, r, invalid("limit", "limit must be an integer from 1 to "+strconv.Itoa(MaxProjectHistory)))
			return
		}
		limit = n
	}
	out, err := s.Projects().Analyses(r.Context(), principal(r.Context()).AccountID, r.PathValue("id"), limit)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// attachProject applies req.ProjectID to a site analysis request: the
// project must be the account's (else 404 naming projectId); a request
// without domain and url analyses the project's domain, one with either
// must name the project's host (else 400 naming it); a request without a
// crawl configuration of its own takes the project's saved one.
//
// t is the request's parsed target, nil when it has none or a bad one
// (reported by the caller after the project).
func (s *Server) attachProject(ctx context.Context, accountID string, req *SiteRequest, t *service.Target) error {
	if req.ProjectID == "" {
		return nil
	}
	p, err := s.getProject(ctx, accountID, req.ProjectID, "projectId")
	if err != nil {
		return err
	}
	req.ProjectID = p.ID
	switch {
	case req.Domain == "" && req.URL == "":
		req.Domain = p.Domain
	case t == nil:
		// A bad target is reported by the caller.
	case t.Field == "url" && !strings.EqualFold(t.Host(), p.Domain):
		return invalid("url", "url must be on the project's domain "+p.Domain+", or be left out")
	case t.Field == "domain" && !strings.EqualFold(t.Host(), p.Domain):
		return invalid("domain", "domain must be the project's domain "+p.Domain+", or be left out")
	}
	if reflect.ValueOf(req.Options.Config).IsZero() {
		if req.Options.Config, err = s.projectConfig(p); err != nil {
			return err
		}
		return nil
	}
	// Options sent with the analysis replace the project's; a credential
	// sent back as "[redacted]" keeps the project's stored value.
	return keepSecrets(&req.Options.Config, "options", "the project", func() (crawler.Config, error) { return s.projectConfig(p) })
}

// diffCandidates lists the analyses the diff of cur looks through for the
// previous one: its project's when it has one, else the account's newest.
func (s *Server) diffCandidates(ctx context.Context, cur *store.Job) ([]store.Job, error) {
	if cur.ProjectID != "" {
		return s.st.ProjectJobs(ctx, cur.AccountID, cur.ProjectID, diffJobsScanned)
	}
	return s.st.Jobs(ctx, cur.AccountID, diffJobsScanned)
}
