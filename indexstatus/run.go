package indexstatus

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/internal/google"
	"github.com/seokit/seokit/seo"
)

// Defaults of Options.
const (
	// DefaultConcurrency is the inspections in flight at once.
	DefaultConcurrency = 4
	// DefaultStaleAfter is the age of Google's last crawl above which
	// index.stale_crawl is reported.
	DefaultStaleAfter = 90 * 24 * time.Hour
)

// Statuses of a Page.
const (
	// StatusInspected: Search Console answered; Page.Inspection holds it.
	StatusInspected = "inspected"
	// StatusFailed: the inspection failed; Page.Reason says why.
	StatusFailed = "failed"
	// StatusNotInspected: the page was sampled but not inspected;
	// Page.Reason is one of the Reason constants.
	StatusNotInspected = "not_inspected"
)

// Reasons a sampled page was not inspected.
const (
	// ReasonDailyQuota: the property's daily inspections were spent.
	ReasonDailyQuota = "daily_quota"
	// ReasonRateLimited: Search Console refused with a quota error.
	ReasonRateLimited = "rate_limited"
	// ReasonAccountQuota: the seokit account's quota refused the cost
	// (Options.Charge).
	ReasonAccountQuota = "account_quota"
	// ReasonCanceled: the run's context ended first.
	ReasonCanceled = "canceled"
	// ReasonQuotaUnavailable: the shared quota count (Counter) could not
	// be read or written, so no inspection could be counted.
	ReasonQuotaUnavailable = "quota_unavailable"
)

// Progress is reported after each sampled page is settled.
type Progress struct {
	Done      int `json:"done"`
	Total     int `json:"total"`
	Inspected int `json:"inspected"`
	Failed    int `json:"failed"`
	// At is the clock's time.
	At time.Time `json:"at"`
}

// Options configures Run. The zero value inspects up to the property's
// remaining daily quota with the documented quotas.
type Options struct {
	// SampleSize is the most pages inspected; zero means all the property
	// has left today. It is capped by the ledger's remaining daily quota.
	SampleSize int
	// Ledger paces and counts the inspections per property; nil means a
	// new ledger with the documented quotas (share one across runs).
	Ledger *Ledger
	// Concurrency is the inspections in flight; zero means
	// DefaultConcurrency.
	Concurrency int
	// Charge, when set, is called before each inspection to count its cost
	// against the caller's own quota (a seokit account); an error stops
	// the run, and the pages left are not inspected, with
	// ReasonAccountQuota.
	Charge func(ctx context.Context) error
	// Progress, when set, is called after each page is settled, from one
	// goroutine at a time.
	Progress func(Progress)
	// StaleAfter is the age of Google's last crawl reported as stale; zero
	// means DefaultStaleAfter.
	StaleAfter time.Duration
}

// Run chooses a sample of report's pages (Choose), inspects it through ins
// within the ledger's quotas for property, and joins the answers to the
// crawl (Join). Failures of single inspections are pages with a status,
// not errors; quota refusals stop the run and leave the remaining pages
// not inspected, with the reason. It returns an error only for bad input
// (an *seo.InputError naming "property") or a nil report.
func Run(ctx context.Context, report *crawler.SiteReport, ins Inspector, property string, opts *Options) (*Report, error) {
	if report == nil || ins == nil {
		return nil, fmt.Errorf("indexstatus: %w: a report and an inspector are required", seo.ErrInvalidInput)
	}
	property, err := ParseProperty(property)
	if err != nil {
		return nil, err
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Ledger == nil {
		o.Ledger = NewLedger(Quota{}, nil)
	}
	o.Concurrency = max(o.Concurrency, 0)
	if o.Concurrency == 0 {
		o.Concurrency = DefaultConcurrency
	}
	if o.StaleAfter <= 0 {
		o.StaleAfter = DefaultStaleAfter
	}
	usedBefore, err := o.Ledger.UsedToday(ctx, property)
	if err != nil {
		return nil, fmt.Errorf("indexstatus: reading the property's quota: %w", err)
	}
	budget := max(o.Ledger.Quota().PerDay-usedBefore, 0)
	if o.SampleSize > 0 {
		budget = min(budget, o.SampleSize)
	}
	clock := o.Ledger.Clock()
	r := &Report{
		Domain: report.Domain, Property: property, Source: ins.Name(),
		Quota:     QuotaUse{Quota: o.Ledger.Quota(), UsedBefore: usedBefore},
		StartedAt: clock.Now().UTC(),
	}
	sample := Choose(report.Pages, budget)
	r.Sample = *sample
	switch {
	case sample.Eligible <= budget:
	case o.SampleSize > 0 && budget == o.SampleSize:
		r.SampleLimit = LimitSampleSize
	default:
		r.SampleLimit = LimitDailyQuota
	}
	results := inspect(ctx, ins, property, sample.Pages, &o, r)
	r.FinishedAt = clock.Now().UTC()
	// With a shared Counter other runs count too; an unreadable count
	// keeps what this run made on top of the count before.
	if r.Quota.UsedAfter, err = o.Ledger.UsedToday(context.WithoutCancel(ctx), property); err != nil {
		r.Quota.UsedAfter = usedBefore
		for _, d := range r.Quota.Made {
			r.Quota.UsedAfter += d.Inspections
		}
	}
	join(r, sample.Pages, results, o.StaleAfter)
	return r, nil
}

// ParseProperty validates a Search Console property:
// "sc-domain:example.com" or an http(s) URL prefix ("https://www.example.com/",
// an empty path becoming "/"). Errors are *seo.InputError naming
// "property".
func ParseProperty(raw string) (string, error) { return google.ParseSite("property", raw) }

// result is the outcome of one sampled page.
type result struct {
	in     *Inspection
	status string
	reason string
	at     time.Time
}

// inspect inspects pages in order through the ledger; the dispatcher takes
// each quota slot and workers make the calls.
func inspect(ctx context.Context, ins Inspector, property string, pages []*crawler.PageSummary, o *Options, r *Report) []result {
	out := make([]result, len(pages))
	var (
		mu      sync.Mutex
		stop    string // the reason the run stopped, "" while it goes on
		prog    = Progress{Total: len(pages)}
		minutes = map[int64]int{}
		perMin  = &r.Quota
		wg      sync.WaitGroup
		slots   = make(chan struct{}, o.Concurrency)
		clock   = o.Ledger.Clock()
		settle  func(i int, res result)
		// stopping ends the dispatch of new inspections; those in flight
		// were paid for and are let finish.
		stopping = func(reason string) {
			if stop == "" {
				stop = reason
			}
		}
	)
	settle = func(i int, res result) {
		out[i] = res
		prog.Done++
		switch res.status {
		case StatusInspected:
			prog.Inspected++
		case StatusFailed:
			prog.Failed++
		}
		prog.At = clock.Now()
		if o.Progress != nil {
			o.Progress(prog)
		}
	}
	for i, p := range pages {
		// The slot first: a stop decided by the inspections in flight is
		// seen before another one starts.
		slots <- struct{}{}
		mu.Lock()
		reason := stop
		mu.Unlock()
		if reason == "" && ctx.Err() != nil {
			reason = ReasonCanceled
		}
		if reason == "" && o.Charge != nil {
			if err := o.Charge(ctx); err != nil {
				reason = ReasonAccountQuota
				if ctx.Err() != nil {
					reason = ReasonCanceled
				}
			}
		}
		var (
			at   time.Time
			done func()
		)
		if reason == "" {
			var err error
			at, done, err = o.Ledger.Take(ctx, property)
			switch {
			case isDaily(err):
				reason = ReasonDailyQuota
			case err != nil && ctx.Err() == nil:
				reason = ReasonQuotaUnavailable
			case err != nil:
				reason = ReasonCanceled
			}
		}
		if reason != "" {
			mu.Lock()
			stopping(reason)
			settle(i, result{status: StatusNotInspected, reason: stop})
			mu.Unlock()
			<-slots
			continue
		}
		m := at.Unix() / 60
		mu.Lock()
		minutes[m]++
		perMin.PeakPerMinute = max(perMin.PeakPerMinute, minutes[m])
		mu.Unlock()
		wg.Add(1)
		go func(i int, u string) {
			defer wg.Done()
			defer func() { <-slots }()
			in, err := ins.Inspect(ctx, property, u)
			done()
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				settle(i, result{in: in, status: StatusInspected, at: at})
			case errors.Is(err, seo.ErrRateLimited):
				stopping(ReasonRateLimited)
				settle(i, result{status: StatusNotInspected, reason: ReasonRateLimited, at: at})
			case ctx.Err() != nil:
				settle(i, result{status: StatusNotInspected, reason: ReasonCanceled, at: at})
			default:
				settle(i, result{status: StatusFailed, reason: seo.Clip(err.Error()), at: at})
			}
		}(i, p.URL)
	}
	wg.Wait()
	days := map[string]int{}
	for _, res := range out {
		if !res.at.IsZero() {
			days[dayOf(res.at)]++
		}
	}
	for d, n := range days {
		r.Quota.Made = append(r.Quota.Made, DayCount{Day: d, Inspections: n})
	}
	slices.SortFunc(r.Quota.Made, func(a, b DayCount) int { return strings.Compare(a.Day, b.Day) })
	r.Quota.Minutes = len(minutes)
	return out
}
