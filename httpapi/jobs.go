package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

// The site analysis types are the service's (package service): the API
// encodes the values the service returns, and the dashboard renders them.
type (
	// SiteOptions are the options of a site analysis request.
	SiteOptions = service.SiteOptions
	// SiteRequest is the body of POST /v1/analyze/site.
	SiteRequest = service.SiteRequest
	// JobProgress is the progress of a running site analysis.
	JobProgress = service.JobProgress
	// JobCallback is the callback state of a job.
	JobCallback = service.JobCallback
	// JobLinks are the job's URLs.
	JobLinks = service.JobLinks
	// Job is the API's view of a site analysis job.
	Job = service.Job
	// JobList is the body of GET /v1/analyze/site.
	JobList = service.JobList
)

// errCanceledByUser is the cause of a job context canceled by DELETE.
var errCanceledByUser = errors.New("httpapi: job canceled")

// jobView renders a stored job without its report (see getJob).
func jobView(j *store.Job, base string) Job { return service.JobView(j, base) }

func (s *Server) createJob(w http.ResponseWriter, r *http.Request) {
	var req SiteRequest
	if err := decodeJSON(w, r, s.opts.MaxBodyBytes, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	v, err := s.Analyses().Submit(r.Context(), principal(r.Context()).AccountID, req)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Location", v.Links.Self)
	writeJSON(w, http.StatusAccepted, v)
}

// submitSite validates req against the address policy and the account's
// plan, charges its cost to the account's quota (siteCost, less what the
// request paid: service.WithPaid), stores the job and queues it. It is
// service.Analyses.Submit; every caller goes through it.
func (s *Server) submitSite(ctx context.Context, accountID string, req SiteRequest) (*store.Job, error) {
	j, cost, err := s.checkSite(ctx, accountID, req)
	if err != nil {
		return nil, err
	}
	plan, err := s.accountPlan(ctx, accountID)
	if err != nil {
		return nil, err
	}
	maxActive := max(plan.ConcurrentSiteJobs, 1)
	if service.Due(ctx, cost) > 0 {
		// An analysis the plan's cap refuses costs what any refused
		// request costs, not the units of a rendering it will not run:
		// the cap is checked before they are counted (the store's
		// atomic check below still decides between requests at once).
		if n, err := s.st.ActiveJobs(ctx, accountID); err != nil {
			return nil, err
		} else if n >= maxActive {
			return nil, tooManySiteJobs(n)
		}
	}
	if err := s.charge(ctx, accountID, cost); err != nil {
		return nil, err
	}
	now := j.CreatedAt
	// The store counts and creates in one atomic step, so instances
	// sharing a database together never exceed the cap.
	err = s.st.CreateJobWithin(ctx, j, maxActive)
	var le *store.LimitError
	if errors.As(err, &le) {
		return nil, tooManySiteJobs(le.Count)
	}
	if err != nil {
		return nil, err
	}
	if err := s.queue.Enqueue(ctx, j); err != nil {
		// The job is stored but no worker will see it: fail it, so
		// the client is not left waiting, and answer 503.
		s.log.Error("site analysis not queued", "job", j.ID, "err", err)
		f := *j
		f.Status, f.Error, f.FinishedAt, f.UpdatedAt = store.JobFailed, "the job could not be queued", now, now
		if uerr := s.st.UpdateJob(context.WithoutCancel(ctx), &f); uerr != nil {
			s.log.Warn("unqueued job left queued; it is queued at the next start", "job", j.ID, "err", uerr)
		}
		return nil, outage(s.queue, "job queue", fmt.Errorf("httpapi: queue site analysis: %w: %w", seo.ErrUnavailable, err))
	}
	return j, nil
}

// tooManySiteJobs is the refusal of a site analysis past the plan's cap
// of n queued and running ones.
func tooManySiteJobs(n int) *service.LimitError {
	return &service.LimitError{Message: "this account has " + strconv.Itoa(n) +
		" site analyses queued or running, the most its plan allows at once; wait for one to end or cancel one",
		RetryAfter: 30 * time.Second}
}

// prepareSite validates req against the address policy and the account's
// plan, counts the extra quota units of a rendering analysis, and returns
// the job to store, queued (scheduled runs store it when they claim their
// due time, and count its first unit then).
func (s *Server) prepareSite(ctx context.Context, accountID string, req SiteRequest) (*store.Job, error) {
	j, cost, err := s.checkSite(ctx, accountID, req)
	if err != nil {
		return nil, err
	}
	if cost > 1 {
		if err := s.takeRenderUnits(ctx, accountID); err != nil {
			return nil, err
		}
	}
	return j, nil
}

// checkSite validates req against the address policy and the account's
// plan and returns the job to store, queued, and the quota units it costs
// (siteCost). It charges nothing.
func (s *Server) checkSite(ctx context.Context, accountID string, req SiteRequest) (*store.Job, int, error) {
	// The target is parsed once, here; a bad one is reported after the
	// project (a missing project is a 404 first).
	var t *service.Target
	var terr error
	switch {
	case req.Domain != "" && req.URL != "":
		terr = invalid("url", "give either domain or url, not both")
	case req.Domain != "" || req.URL != "":
		pt, err := service.ParseTarget(req.Domain, req.URL)
		t, terr = &pt, err
		if err != nil {
			t = nil
		}
	}
	if err := s.attachProject(ctx, accountID, &req, t); err != nil {
		return nil, 0, err
	}
	if terr != nil {
		return nil, 0, terr
	}
	if req.ProjectID == "" {
		// Answers show stored credentials as "[redacted]"; sent back in a
		// new analysis there is no stored value to keep, and the
		// placeholder must never reach the site as the credential.
		if err := keepSecrets(&req.Options.Config, "options", "a new site analysis", nil); err != nil {
			return nil, 0, err
		}
	}
	if t == nil {
		// A project's analysis without domain or url: the project's
		// domain, or an empty domain's error.
		pt, err := service.ParseTarget(req.Domain, "")
		if err != nil {
			return nil, 0, err
		}
		t = &pt
	}
	if err := s.checkTarget(ctx, t); err != nil {
		return nil, 0, err
	}
	req.Domain = t.Host()
	if t.Field == "url" {
		req.URL = t.URL.String()
	}
	plan, err := s.accountPlan(ctx, accountID)
	if err != nil {
		return nil, 0, err
	}
	if req.Options.MaxPages < 0 || req.Options.MaxPages > plan.MaxSitePages {
		return nil, 0, &seo.InputError{Field: "options.maxPages", Value: strconv.Itoa(req.Options.MaxPages),
			Reason: "must be from 1 to " + strconv.Itoa(plan.MaxSitePages) + ", the cap of this account's plan (0 or absent means " +
				strconv.Itoa(min(crawler.DefaultMaxPages, plan.MaxSitePages)) + ")"}
	}
	if req.Options.MaxPages == 0 && plan.MaxSitePages < crawler.DefaultMaxPages {
		req.Options.MaxPages = plan.MaxSitePages
	}
	maxList := plan.MaxListURLs
	if maxList <= 0 {
		maxList = plan.MaxSitePages
	}
	if len(req.Options.URLs) > maxList {
		return nil, 0, &seo.InputError{Field: "options.urls", Value: strconv.Itoa(len(req.Options.URLs)),
			Reason: "at most " + strconv.Itoa(maxList) + " URLs, the cap of this account's plan"}
	}
	// A scope that leaves out the start URL is refused now, not when the
	// job runs.
	start := req.Domain
	if req.URL != "" {
		start = req.URL
	}
	if err := req.Options.ValidateFor(start); err != nil {
		return nil, 0, prefixField(err)
	}
	rc, err := parseRender(req.Options.Render, req.Options.Screenshot, true)
	if err == nil {
		rc, err = rc.withA11y(req.Options.A11y)
	}
	if err != nil {
		return nil, 0, err
	}
	switch {
	case req.Options.RenderPages < 0 || req.Options.RenderPages > plan.RenderPages:
		return nil, 0, &seo.InputError{Field: "options.renderPages", Value: strconv.Itoa(req.Options.RenderPages),
			Reason: "must be from 1 to " + strconv.Itoa(plan.RenderPages) + ", the cap of this account's plan (0 or absent means the cap)"}
	case !rc.on():
		req.Options.Render, req.Options.Screenshot, req.Options.RenderPages = "", "", 0
	default:
		req.Options.Render, req.Options.Screenshot = string(rc.mode), string(rc.shot)
		if req.Options.RenderPages == 0 {
			req.Options.RenderPages = plan.RenderPages
		}
	}
	if req.Options.Mute, err = s.analysisMutes(ctx, accountID, req.Domain, req.Options.Mute); err != nil {
		return nil, 0, err
	}
	if len(req.Options.Mute) == 0 {
		req.Options.Mute = nil
	}
	if req.CallbackURL != "" {
		cu, err := s.fetcher.CheckURL(ctx, req.CallbackURL)
		if err != nil {
			if ie, ok := seo.AsInputError(err); ok {
				return nil, 0, ie.WithField("callbackUrl")
			}
			return nil, 0, invalid("callbackUrl", "callbackUrl's host cannot be resolved")
		}
		req.CallbackURL = cu.String()
	}
	if rc.on() && s.opts.Renderer == nil {
		return nil, 0, renderingUnavailable()
	}
	body, err := s.sealRequest(req)
	if err != nil {
		return nil, 0, fmt.Errorf("httpapi: store site request: %w", err)
	}
	now := s.now().UTC()
	j := &store.Job{
		ID: "job_" + randomID(24), AccountID: accountID, Kind: "site",
		Status: store.JobQueued, Request: body, CallbackURL: req.CallbackURL,
		CreatedAt: now, UpdatedAt: now, ProjectID: req.ProjectID,
	}
	return j, siteCost(rc), nil
}

func (s *Server) listJobs(w http.ResponseWriter, r *http.Request) {
	limit := 20
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > service.MaxList {
			s.fail(w, r, invalid("limit", "limit must be an integer from 1 to 100"))
			return
		}
		limit = n
	}
	js, err := s.Analyses().List(r.Context(), principal(r.Context()).AccountID, limit)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, JobList{Jobs: js})
}

// cancelJob serves DELETE: a queued or running job becomes canceled; a
// finished one is a 409.
func (s *Server) cancelJob(w http.ResponseWriter, r *http.Request) {
	v, err := s.Analyses().Cancel(r.Context(), principal(r.Context()).AccountID, r.PathValue("id"))
	if err != nil {
		if errors.Is(err, service.ErrConflict) {
			msg := "the job has already ended"
			if v != nil {
				msg += " (" + v.Status + ")"
			}
			writeError(w, r, apiError(http.StatusConflict, CodeConflict, msg))
			return
		}
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// cancelSite marks the job canceled and stops its worker. On ErrConflict the
// job is returned too when it is known.
func (s *Server) cancelSite(ctx context.Context, accountID, id string) (*store.Job, error) {
	j, err := s.st.Job(ctx, accountID, id)
	if err != nil {
		return nil, err
	}
	if j.Status.Done() {
		return j, store.ErrConflict
	}
	now := s.now().UTC()
	j.Status, j.FinishedAt, j.UpdatedAt = store.JobCanceled, now, now
	if j.CallbackURL != "" {
		j.CallbackState = "pending"
	}
	if err := s.st.UpdateJob(ctx, j); err != nil {
		if errors.Is(err, store.ErrConflict) {
			if cur, gerr := s.st.Job(ctx, accountID, id); gerr == nil {
				return cur, err
			}
		}
		return nil, err
	}
	s.mu.Lock()
	cancel, running := s.running[j.ID]
	s.mu.Unlock()
	if running {
		cancel(errCanceledByUser)
	}
	if j.CallbackURL != "" {
		s.wakeOutbox() // the callback was queued with the canceled state
	}
	return j, nil
}

// siteDownReason reports whether a report's scoreReason says the site
// answered nothing.
func siteDownReason(reason string) bool { return service.SiteDownReason(reason) }

// siteDownMessage is the error of a job whose site answered nothing, ""
// when some URL answered.
func siteDownMessage(rep *crawler.SiteReport) string {
	if rep == nil || rep.Score != nil || !siteDownReason(rep.ScoreReason) {
		return ""
	}
	if un := rep.Crawl.Unreachable; un != nil {
		return fmt.Sprintf("the site is unreachable: %s gave no response (%s): %s", un.URL, un.Kind, un.Error)
	}
	return fmt.Sprintf("the site is unreachable: robots.txt answered %d, so no page was fetched", rep.Robots.Status)
}

// checkTarget applies the page analyses' address policy to the start of a
// site analysis: an allowed port, and a host that is not, and does not
// resolve only to, a loopback, private or metadata address (unless
// AllowPrivate). Errors name the target's field and carry what the
// client sent. A host that does not resolve is let through: the job
// reports it.
func (s *Server) checkTarget(ctx context.Context, t *service.Target) error {
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := s.fetcher.CheckURL(cctx, t.URL.String()); err != nil {
		if ie, ok := seo.AsInputError(err); ok {
			ie = ie.WithField(t.Field)
			if t.Field == "domain" && ie.Value != "" {
				ie.Value = t.Raw // what the client sent, not the URL made of it
			}
			return ie
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return nil
}

// crawlerOptions are the crawl options of the request of site analysis
// jobID ("" for none): the server's template with the request's options
// on top, the server's shared fetcher unless the template has one, its
// page analyses reserving memory from the server's budget, and its
// renderings counted with the job.
func (s *Server) crawlerOptions(jobID string, req SiteRequest) (crawler.Options, error) {
	co := s.crawlTemplate()
	co.AllowPrivate = s.opts.AllowPrivate
	if co.Fetcher == nil {
		co.Fetcher = s.fetcher // the crawl sends its UserAgent per request
	}
	var ao analyzer.Options
	if co.Analyzer != nil {
		ao = *co.Analyzer // a copy of the template's own (crawlTemplate)
	}
	ao.Memory = queuedBudget{s.adm.mem}
	// A request stored valid stays valid; a renderer gone since (a
	// restart without a browser) leaves the analysis raw, and says so.
	if rc, err := parseRender(req.Options.Render, req.Options.Screenshot, true); err == nil && rc.on() && s.opts.Renderer != nil {
		rc.a11y = req.Options.A11y
		setRender(&ao, rc, &jobRenderer{r: s.opts.Renderer, adm: s.adm, max: int64(req.Options.RenderPages), st: s.st, job: jobID})
	}
	co.Analyzer = &ao
	if err := req.Options.Apply(&co); err != nil {
		return co, prefixField(err)
	}
	return co, nil
}
