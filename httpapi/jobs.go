package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

// SiteOptions are the options of a site analysis request: a saved crawl
// configuration (crawler.Config, whose JSON Schema is served at GET
// /v1/schemas/crawl-config.json) and the rendering options, which the
// account's plan caps and the server's browser serves. Bad input is a 400
// naming options.FIELD ("options.extract[2].expr", "options.segments[1].url").
type SiteOptions struct {
	crawler.Config
	// Render is "none" (default), "auto" or "always", as for page
	// analyses; links found only in the rendered DOM are crawled.
	Render string `json:"render,omitempty"`
	// Screenshot is "none" or "viewport" (default when rendering): the
	// viewport PNGs of the first rendered pages are stored with the job
	// (GET /v1/analyze/site/{id}/screenshot?url=).
	Screenshot string `json:"screenshot,omitempty"`
	// RenderPages caps the pages the analysis renders; 0 means, and the
	// job records, the plan's cap (plans.Limits.RenderPages), the most
	// it may be. Pages beyond it are analysed as the server sent them.
	RenderPages int `json:"renderPages,omitempty"`
}

// SiteRequest is the body of POST /v1/analyze/site: exactly one of Domain
// and URL.
type SiteRequest struct {
	// Domain is the site's host name with an optional port
	// ("example.com"); the crawl starts at its home page.
	Domain string `json:"domain,omitempty"`
	// URL is a start URL ("https://example.com/blog/"): the crawl starts
	// there, within the URL's host.
	URL     string      `json:"url,omitempty"`
	Options SiteOptions `json:"options"`
	// CallbackURL, when set, receives a signed POST when the job ends.
	CallbackURL string `json:"callbackUrl,omitempty"`
	// ProjectID attaches the analysis to one of the account's projects
	// (see attachProject): domain, url and options may then be left out.
	ProjectID string `json:"projectId,omitempty"`
}

// JobProgress is the progress of a running site analysis.
type JobProgress struct {
	PagesDone      int       `json:"pagesDone"`
	Errors         int       `json:"errors"`
	Queued         int       `json:"queued"`
	Skipped        int       `json:"skipped"`
	PagesPerSecond float64   `json:"pagesPerSecond"`
	Current        string    `json:"current,omitempty"`
	UpdatedAt      time.Time `json:"updatedAt"`
	// Phase is "crawling", then "checking_external" while the crawl waits
	// for the external link checks left when its pages are done, then
	// "finishing" (building the report).
	Phase string `json:"phase,omitempty"`
	// External counts the external link checks: done (checked or given
	// up) of total queued so far, unchecked of them given up. Absent when
	// they are off.
	External *crawler.ExternalProgress `json:"external,omitempty"`
}

// JobCallback is the callback state of a job.
type JobCallback struct {
	URL string `json:"url"`
	// State is "pending", "delivered" or "failed"; empty before the job
	// ends.
	State string `json:"state,omitempty"`
}

// JobLinks are the job's URLs.
type JobLinks struct {
	Self string `json:"self"`
}

// Job is the API's view of a site analysis job.
type Job struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Domain string `json:"domain"`
	// URL is the start URL when the analysis was requested with one.
	URL        string       `json:"url,omitempty"`
	Options    SiteOptions  `json:"options"`
	CreatedAt  time.Time    `json:"createdAt"`
	StartedAt  time.Time    `json:"startedAt,omitzero"`
	FinishedAt time.Time    `json:"finishedAt,omitzero"`
	Progress   *JobProgress `json:"progress,omitempty"`
	// Result is the report of a succeeded job, and of a job failed with
	// ErrorCode "site_unreachable", in GET of one job only (lists leave it
	// out). The server copies the stored report into the answer as is.
	Result json.RawMessage `json:"result,omitempty"`
	Error  string          `json:"error,omitempty"`
	// ErrorCode is "site_unreachable" for a job failed because the site
	// answered nothing: no response from its start URL or robots.txt
	// (result.crawl.stopReason "unreachable", result.crawl.unreachable
	// saying how), or robots.txt answering 5xx or 429 so nothing could be
	// crawled (result.scoreReason "robots_txt_unavailable"). The report is
	// kept, its score null. Absent otherwise.
	ErrorCode string       `json:"errorCode,omitempty"`
	Callback  *JobCallback `json:"callback,omitempty"`
	// CallbackSecret is returned once, in the 202 answer: the key that
	// signs this job's callback (see VerifyCallback).
	CallbackSecret string   `json:"callbackSecret,omitempty"`
	Links          JobLinks `json:"links"`
	// ProjectID is the project the analysis belongs to; absent when none
	// (or the project was deleted).
	ProjectID string `json:"projectId,omitempty"`
}

// JobList is the body of GET /v1/analyze/site.
type JobList struct {
	Jobs []Job `json:"jobs"`
}

// errCanceledByUser is the cause of a job context canceled by DELETE.
var errCanceledByUser = errors.New("httpapi: job canceled")

// jobView renders a stored job without its report (see writeJob).
func jobView(j *store.Job, base string) Job {
	v := Job{
		ID: j.ID, Status: string(j.Status), CreatedAt: j.CreatedAt.UTC(),
		StartedAt: j.StartedAt.UTC(), FinishedAt: j.FinishedAt.UTC(),
		Error: j.Error, Links: JobLinks{Self: base + "/v1/analyze/site/" + j.ID}, ProjectID: j.ProjectID,
	}
	if j.StartedAt.IsZero() {
		v.StartedAt = time.Time{}
	}
	if j.FinishedAt.IsZero() {
		v.FinishedAt = time.Time{}
	}
	var req SiteRequest
	if json.Unmarshal(j.Request, &req) == nil {
		v.Domain, v.URL, v.Options = req.Domain, req.URL, req.Options
	}
	if j.Status == store.JobFailed && len(j.Summary) > 0 {
		var sum JobSummary
		if json.Unmarshal(j.Summary, &sum) == nil && siteDownReason(sum.ScoreReason) {
			v.ErrorCode = codeSiteUnreachable
		}
	}
	if len(j.Progress) > 0 {
		var p JobProgress
		if json.Unmarshal(j.Progress, &p) == nil {
			v.Progress = &p
		}
	}
	if j.CallbackURL != "" {
		v.Callback = &JobCallback{URL: j.CallbackURL, State: j.CallbackState}
	}
	return v
}

func (s *Server) createJob(w http.ResponseWriter, r *http.Request) {
	var req SiteRequest
	if err := decodeJSON(w, r, s.opts.MaxBodyBytes, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	j, err := s.submitSite(r.Context(), principal(r.Context()).AccountID, req)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v := jobView(j, s.opts.BasePath)
	if j.CallbackURL != "" {
		v.CallbackSecret = s.callbackSecret(j.ID)
	}
	w.Header().Set("Location", v.Links.Self)
	writeJSON(w, http.StatusAccepted, v)
}

// StartSite queues a site analysis of domain for the account, as POST
// /v1/analyze/site does, and returns the stored job. Bad input is an
// *seo.InputError naming the field ("options.extract[0].expr" for a bad
// extractor of cfg); an account at its plan's cap of concurrent site
// analyses gets an *Error (429). The dashboard calls it, after Admit.
// cfg, when not nil, is a crawl configuration (crawler.Config); maxPages
// (when positive), subdomains and skipExternal are set on top of it.
// render is options.render ("" means "none"); a rendering analysis gets
// the plan's cap of rendered pages and viewport screenshots.
func (s *Server) StartSite(ctx context.Context, accountID, domain string, maxPages int, subdomains, skipExternal bool, render string, cfg *crawler.Config) (*store.Job, error) {
	var o SiteOptions
	if cfg != nil {
		o.Config = *cfg
	}
	if maxPages > 0 {
		o.MaxPages = maxPages
	}
	o.IncludeSubdomains = o.IncludeSubdomains || subdomains
	o.SkipExternalLinks = o.SkipExternalLinks || skipExternal
	o.Render = render
	return s.submitSite(ctx, accountID, SiteRequest{Domain: domain, Options: o})
}

// submitSite validates req against the address policy and the account's
// plan, stores the job and queues it.
func (s *Server) submitSite(ctx context.Context, accountID string, req SiteRequest) (*store.Job, error) {
	j, err := s.prepareSite(ctx, accountID, req)
	if err != nil {
		return nil, err
	}
	plan, err := s.accountPlan(ctx, accountID)
	if err != nil {
		return nil, err
	}
	now := j.CreatedAt
	// The store counts and creates in one atomic step, so instances
	// sharing a database together never exceed the cap.
	err = s.st.CreateJobWithin(ctx, j, max(plan.ConcurrentSiteJobs, 1))
	var le *store.LimitError
	if errors.As(err, &le) {
		e := apiError(http.StatusTooManyRequests, CodeRateLimited, "this account has "+strconv.Itoa(le.Count)+
			" site analyses queued or running, the most its plan allows at once; wait for one to end or cancel one")
		e.retryAfter = "30"
		return nil, e
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

// prepareSite validates req against the address policy and the account's
// plan and returns the job to store, queued (scheduled runs store it when
// they claim their due time).
func (s *Server) prepareSite(ctx context.Context, accountID string, req SiteRequest) (*store.Job, error) {
	if err := s.attachProject(ctx, accountID, &req); err != nil {
		return nil, err
	}
	if req.ProjectID == "" {
		// Answers show stored credentials as "[redacted]"; sent back in a
		// new analysis there is no stored value to keep, and the
		// placeholder must never reach the site as the credential.
		if err := keepSecrets(&req.Options.Config, "options", "a new site analysis", nil); err != nil {
			return nil, err
		}
	}
	switch {
	case req.Domain != "" && req.URL != "":
		return nil, invalid("url", "give either domain or url, not both")
	case req.URL != "":
		u, err := s.checkSiteStart(ctx, "url", req.URL)
		if err != nil {
			return nil, err
		}
		if u.Path == "" {
			u.Path = "/"
		}
		req.Domain, req.URL = u.Host, u.String()
	default:
		u, err := siteDomain(req.Domain)
		if err != nil {
			if ae, ok := err.(*Error); ok && strings.Contains(req.Domain, "://") {
				ae.Message += "; send a start URL as url"
			}
			return nil, err // "domain is empty" included
		}
		if u, err = s.checkSiteStart(ctx, "domain", u.String()); err != nil {
			if ie, ok := seo.AsInputError(err); ok && ie.Value != "" {
				ie.Value = req.Domain // what the client sent, not the URL made of it
			}
			return nil, err
		}
		req.Domain = u.Host
	}
	plan, err := s.accountPlan(ctx, accountID)
	if err != nil {
		return nil, err
	}
	if req.Options.MaxPages < 0 || req.Options.MaxPages > plan.MaxSitePages {
		return nil, &seo.InputError{Field: "options.maxPages", Value: strconv.Itoa(req.Options.MaxPages),
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
		return nil, &seo.InputError{Field: "options.urls", Value: strconv.Itoa(len(req.Options.URLs)),
			Reason: "at most " + strconv.Itoa(maxList) + " URLs, the cap of this account's plan"}
	}
	// A scope that leaves out the start URL is refused now, not when the
	// job runs.
	start := req.Domain
	if req.URL != "" {
		start = req.URL
	}
	if err := req.Options.ValidateFor(start); err != nil {
		return nil, prefixField(err)
	}
	rc, err := parseRender(req.Options.Render, req.Options.Screenshot, true)
	if err != nil {
		return nil, err
	}
	switch {
	case req.Options.RenderPages < 0 || req.Options.RenderPages > plan.RenderPages:
		return nil, &seo.InputError{Field: "options.renderPages", Value: strconv.Itoa(req.Options.RenderPages),
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
		return nil, err
	}
	if len(req.Options.Mute) == 0 {
		req.Options.Mute = nil
	}
	if req.CallbackURL != "" {
		cu, err := s.fetcher.CheckURL(ctx, req.CallbackURL)
		if err != nil {
			if ie, ok := seo.AsInputError(err); ok {
				return nil, ie.WithField("callbackUrl")
			}
			return nil, invalid("callbackUrl", "callbackUrl's host cannot be resolved")
		}
		req.CallbackURL = cu.String()
	}
	if err := s.checkRender(ctx, accountID, rc); err != nil {
		return nil, err
	}
	body, err := s.sealRequest(req)
	if err != nil {
		return nil, fmt.Errorf("httpapi: store site request: %w", err)
	}
	now := s.now().UTC()
	j := &store.Job{
		ID: "job_" + randomID(24), AccountID: accountID, Kind: "site",
		Status: store.JobQueued, Request: body, CallbackURL: req.CallbackURL,
		CreatedAt: now, UpdatedAt: now, ProjectID: req.ProjectID,
	}
	return j, nil
}

// writeJob writes one job with its stored report. The report is copied
// into the answer as stored (at most store.MaxJobResultBytes), never
// decoded.
// hasResult reports whether GET of job j serves its report: a succeeded
// job's, and that of a job failed because its site answered nothing.
func hasResult(j *store.Job, v Job) bool {
	return j.Status == store.JobSucceeded || v.ErrorCode == codeSiteUnreachable
}

func (s *Server) writeJob(w http.ResponseWriter, j *store.Job) {
	v := jobView(j, s.opts.BasePath)
	head, err := json.Marshal(v)
	if err != nil || len(j.Result) == 0 || !hasResult(j, v) {
		writeJSON(w, http.StatusOK, v)
		return
	}
	const key = `,"result":`
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(head)-1+len(key)+len(j.Result)+2))
	w.WriteHeader(http.StatusOK)
	w.Write(head[:len(head)-1]) // without its closing brace
	w.Write([]byte(key))
	w.Write(j.Result)
	w.Write([]byte("}\n"))
}

func (s *Server) listJobs(w http.ResponseWriter, r *http.Request) {
	limit := 20
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			s.fail(w, r, invalid("limit", "limit must be an integer from 1 to 100"))
			return
		}
		limit = n
	}
	js, err := s.st.Jobs(r.Context(), principal(r.Context()).AccountID, limit)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := JobList{Jobs: make([]Job, 0, len(js))}
	for i := range js {
		out.Jobs = append(out.Jobs, jobView(&js[i], s.opts.BasePath))
	}
	writeJSON(w, http.StatusOK, out)
}

// cancelJob serves DELETE: a queued or running job becomes canceled; a
// finished one is a 409.
func (s *Server) cancelJob(w http.ResponseWriter, r *http.Request) {
	j, err := s.cancelSite(r.Context(), principal(r.Context()).AccountID, r.PathValue("id"))
	if err != nil {
		if errors.Is(err, store.ErrConflict) {
			msg := "the job has already ended"
			if j != nil {
				msg += " (" + string(j.Status) + ")"
			}
			writeError(w, r, apiError(http.StatusConflict, CodeConflict, msg))
			return
		}
		s.fail(w, r, err)
		return
	}
	s.writeJob(w, j)
}

// CancelSite cancels a queued or running job of the account, as DELETE
// /v1/analyze/site/{id} does: store.ErrNotFound for another account's job,
// store.ErrConflict for one already ended. The dashboard calls it.
func (s *Server) CancelSite(ctx context.Context, accountID, jobID string) error {
	_, err := s.cancelSite(ctx, accountID, jobID)
	return err
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

// codeSiteUnreachable is Job.ErrorCode of an analysis of a site that
// answered nothing.
const codeSiteUnreachable = "site_unreachable"

// siteDownReason reports whether a report's scoreReason says the site
// answered nothing.
func siteDownReason(reason string) bool {
	return reason == crawler.SiteUnreachable || reason == crawler.SiteRobotsUnavailable
}

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

// siteDomain validates the domain of a site analysis or a mute list: a
// host name with an optional port, no scheme or path (seo.ParseHost). It
// returns the https URL of the domain's root; errors name "domain" and
// echo what the client sent.
func siteDomain(raw string) (*url.URL, error) {
	host, err := seo.ParseHost(raw, &seo.DomainOptions{AllowPort: true})
	if err != nil {
		return nil, err
	}
	return &url.URL{Scheme: "https", Host: host, Path: "/"}, nil
}

// checkSiteStart applies the page analyses' address policy to the start of
// a site analysis: a well-formed host name, an allowed port, and a host
// that is not, and does not resolve only to, a loopback, private or
// metadata address (unless AllowPrivate). Errors name field. A host that
// does not resolve is let through: the job reports it.
func (s *Server) checkSiteStart(ctx context.Context, field, raw string) (*url.URL, error) {
	u, err := seo.ParseURL(raw)
	if err != nil {
		if ie, ok := seo.AsInputError(err); ok {
			return nil, ie.WithField(field)
		}
		return nil, err
	}
	if err := seo.CheckHostName(field, u.Hostname()); err != nil {
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := s.fetcher.CheckURL(cctx, u.String()); err != nil {
		if ie, ok := seo.AsInputError(err); ok {
			return nil, ie.WithField(field)
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	return u, nil
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
		setRender(&ao, rc, &jobRenderer{r: s.opts.Renderer, adm: s.adm, max: int64(req.Options.RenderPages), st: s.st, job: jobID})
	}
	co.Analyzer = &ao
	if err := req.Options.Apply(&co); err != nil {
		return co, prefixField(err)
	}
	return co, nil
}
