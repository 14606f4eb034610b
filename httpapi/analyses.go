package httpapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi/mcpserver"
	"github.com/seokit/seokit/httpapi/ratelimit"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

// Analyses returns the site analyses service over the server's store,
// queue and quota: the /v1/analyze/site handlers call it, and so does the
// dashboard (examples/server hands it over).
func (s *Server) Analyses() service.Analyses { return siteAnalyses{s} }

// siteAnalyses implements service.Analyses.
type siteAnalyses struct{ s *Server }

var _ service.Analyses = siteAnalyses{}

func (a siteAnalyses) Submit(ctx context.Context, accountID string, req SiteRequest) (*Job, error) {
	j, err := a.s.submitSite(ctx, accountID, req)
	if err != nil {
		return nil, err
	}
	v := jobView(j, a.s.opts.BasePath)
	if j.CallbackURL != "" {
		v.CallbackSecret = a.s.callbackSecret(j.ID)
	}
	return &v, nil
}

func (a siteAnalyses) Get(ctx context.Context, accountID, id string) (*Job, service.Result, error) {
	s := a.s
	var (
		j   *store.Job
		res service.Result
	)
	if jr, ok := s.st.(store.JobResults); ok {
		// The report stays in its compressed row until it is read.
		sj, sr, err := jr.JobResult(ctx, accountID, id)
		if err != nil {
			return nil, nil, err
		}
		j = sj
		if sr != nil {
			res = sr
		}
	} else {
		sj, err := s.st.Job(ctx, accountID, id)
		if err != nil {
			return nil, nil, err
		}
		j = sj
		if len(j.Result) > 0 {
			res = bytesResult(j.Result)
		}
	}
	if j.Kind == logJobKind {
		return nil, nil, store.ErrNotFound // a log upload: Logs().Get
	}
	v := jobView(j, s.opts.BasePath)
	if res == nil || !service.HasResult(&v) {
		return &v, nil, nil
	}
	// A stored row that claims more than the cap is refused before
	// anything is decompressed.
	if size := res.Size(); size > s.resultCap() {
		return nil, nil, fmt.Errorf("job %s: %w (its row records %d bytes, cap %d)", id, errResultOverCap, size, s.resultCap())
	}
	return &v, res, nil
}

// siteReportViewFactor is the memory a Report reserves, in bytes per
// byte of stored report JSON, while the decoded report is in use: the
// decode (mcpserver.ReportDecodeFactor) and a dashboard view of it built
// and buffered whole (the analysis page's tables and their row data, or
// the HTML report). TestDashboardReportAdmission measures what each view
// allocates for a report of a real crawl's pages and fails when one
// allocates more than this.
const siteReportViewFactor = 18

func (a siteAnalyses) Report(ctx context.Context, accountID, id string) (*Job, *crawler.SiteReport, func(), error) {
	v, res, err := a.Get(ctx, accountID, id)
	if err != nil {
		return nil, nil, nil, err
	}
	if res == nil {
		return v, nil, func() {}, nil
	}
	// Without the admission one account's page views could decode any
	// number of its largest reports at once, outside the budget every
	// account's work shares.
	done, err := a.s.adm.acquireSlot(ctx, KindReport, accountID, int64(res.Size())*siteReportViewFactor, false)
	if err != nil {
		return nil, nil, nil, err
	}
	rep, err := mcpserver.DecodeReport(ctx, res)
	if err != nil {
		done()
		return nil, nil, nil, fmt.Errorf("job %s: stored report: %w", id, err)
	}
	return v, rep, done, nil
}

func (a siteAnalyses) List(ctx context.Context, accountID string, limit int) ([]Job, error) {
	if limit < 1 || limit > service.MaxList {
		return nil, invalid("limit", "limit must be an integer from 1 to "+strconv.Itoa(service.MaxList))
	}
	// Log uploads share the account's jobs and are listed per project
	// (Logs().List): the newest limit jobs may all be uploads, so the
	// scan goes as far as Logs().List's.
	js, err := a.s.st.Jobs(ctx, accountID, service.MaxLogScan)
	if err != nil {
		return nil, err
	}
	out := make([]Job, 0, min(len(js), limit))
	for i := range js {
		if js[i].Kind == logJobKind {
			continue
		}
		out = append(out, jobView(&js[i], a.s.opts.BasePath))
		if len(out) == limit {
			break
		}
	}
	return out, nil
}

func (a siteAnalyses) Cancel(ctx context.Context, accountID, id string) (*Job, error) {
	if strings.HasPrefix(id, logJobPrefix) {
		return nil, store.ErrNotFound
	}
	j, err := a.s.cancelSite(ctx, accountID, id)
	if j == nil {
		return nil, err
	}
	v := jobView(j, a.s.opts.BasePath)
	return &v, err
}

func (a siteAnalyses) Screenshot(ctx context.Context, accountID, jobID, pageURL string) ([]byte, error) {
	if pageURL == "" {
		return nil, invalid("url", "url is required: the address of a page of the analysis, as its report lists it")
	}
	st, ok := a.s.st.(store.Screenshots)
	if !ok {
		return nil, store.ErrNotFound
	}
	return st.Screenshot(ctx, accountID, jobID, pageURL)
}

// bytesResult is a report held in memory, for stores without
// store.JobResults.
type bytesResult []byte

func (b bytesResult) Size() int                    { return len(b) }
func (b bytesResult) Open() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }

// siteCost is the quota units a site analysis costs: one, and
// RenderQuotaUnits when it renders.
func siteCost(rc renderChoice) int {
	if rc.on() {
		return RenderQuotaUnits
	}
	return 1
}

// charge counts the units of an action costing cost that the request has
// not paid (service.Due) against the account's daily quota. A refusal is a
// *service.LimitError. Units the day has not left are refused before any
// is counted; units past the burst limit wait for its tokens (up to
// maxChargeWait); only a refusal between (another request of the account
// took the day's last units meanwhile) keeps the units counted before it.
func (s *Server) charge(ctx context.Context, accountID string, cost int) error {
	return s.chargeFor(ctx, accountID, cost, "a rendering analysis")
}

// chargeFor is charge for an action named what in the refusal of a unit
// past its first ("a rendering analysis counts 5 requests: ...").
func (s *Server) chargeFor(ctx context.Context, accountID string, cost int, what string) error {
	if s.opts.DisableAuth {
		return nil
	}
	first := cost - service.Due(ctx, cost)
	if n := cost - first; n > 1 {
		// Units the day has not left are refused before any is taken.
		if left, limit, err := s.leftToday(ctx, accountID); err != nil {
			return err
		} else if left < n {
			msg := what + " counts " + strconv.Itoa(cost) + " requests: " + strconv.Itoa(left) + " of the daily limit of " +
				strconv.Itoa(limit) + " are left; it resets at 00:00 UTC"
			s.log.InfoContext(ctx, "action refused by the daily quota", "account", accountID, "message", msg)
			now := s.now().UTC()
			reset := time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, time.UTC)
			return &service.LimitError{Message: msg, RetryAfter: reset.Sub(now)}
		}
	}
	waited := time.Duration(0)
	for k := first; k < cost; k++ {
		q, err := s.take(ctx, accountID)
		if err != nil {
			return err
		}
		// The burst limit paces requests: a cost of more units than the
		// bucket holds waits for them, as long as maxChargeWait, rather
		// than failing with the units taken.
		if k > first && q.res.Refused == ratelimit.BurstLimit && waited < maxChargeWait {
			d := min(max(q.res.RetryAfter, time.Millisecond), maxChargeWait-waited)
			if err := seo.Sleep(ctx, d); err != nil {
				return err
			}
			waited += d
			k--
			continue
		}
		if e := q.refusal(); e != nil {
			msg := e.Message
			if k > 0 {
				msg = what + " counts " + strconv.Itoa(cost) + " requests: " + msg
			}
			s.log.InfoContext(ctx, "action refused by the daily quota", "account", accountID, "message", msg)
			return &service.LimitError{Message: msg, RetryAfter: retryAfterDuration(e.retryAfter)}
		}
	}
	return nil
}

// maxChargeWait bounds how long one action whose cost is several units
// waits for the burst limit's tokens (at the default 50 a second, 30 s
// pays 1,500 units).
const maxChargeWait = 30 * time.Second

// leftToday returns the requests the account has left on the UTC day and
// its daily limit.
func (s *Server) leftToday(ctx context.Context, accountID string) (left, limit int, err error) {
	p, err := s.accountPlan(ctx, accountID)
	if err != nil {
		return 0, 0, err
	}
	day := s.now().UTC().Truncate(24 * time.Hour)
	used, err := s.limiter.Usage(ctx, accountID, day, day)
	if err != nil {
		if errors.Is(err, store.ErrUnavailable) {
			err = outage(s.limiter, "rate limiter", err)
		}
		return 0, 0, err
	}
	n := 0
	for _, u := range used {
		n += u.Count
	}
	return max(p.DailyRequests-n, 0), p.DailyRequests, nil
}

// retryAfterDuration reads a Retry-After in seconds; zero when there is
// none.
func retryAfterDuration(sec string) time.Duration {
	n, err := strconv.Atoi(sec)
	if err != nil || n <= 0 {
		return 0
	}
	return time.Duration(n) * time.Second
}
