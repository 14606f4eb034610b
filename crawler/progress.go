package crawler

import (
	"sync"
	"time"
)

// Progress is a snapshot of a running crawl, for progress bars and job
// status.
type Progress struct {
	// Done counts the URLs fetched, answered or failed, as
	// CrawlStats.Fetched does at the end; Errors those that failed (as
	// CrawlStats.Errors). URLs robots.txt disallows are not fetched: they
	// count in Skipped. Done never decreases between snapshots, and the
	// final snapshot's Done equals the report's CrawlStats.Fetched (in a
	// shared crawl, where the report counts every worker's pages, it is
	// this process's part).
	Done   int `json:"done"`
	Errors int `json:"errors"`
	// Queued counts URLs waiting in the frontier.
	Queued int `json:"queued"`
	// Skipped counts URLs left out by scope, limits, trap guards or
	// robots.txt (CrawlStats.Skipped plus CrawlStats.Blocked).
	Skipped int `json:"skipped"`
	// PagesPerSecond is the pages this run fetched over Elapsed: pages an
	// earlier, interrupted run fetched count in Done, not in the rate.
	PagesPerSecond float64       `json:"pagesPerSecond"`
	Bytes          int64         `json:"bytes"`
	Elapsed        time.Duration `json:"elapsedNs"`
	// Current is the URL most recently fetched.
	Current string `json:"current,omitempty"`
	// Final is true for the last call, made when the crawl has ended.
	Final bool `json:"final"`
	// Phase is what the crawl is doing: PhaseCrawling, then
	// PhaseCheckingExternal while it waits for the external link checks
	// that outlast the pages, then PhaseFinishing (the last call).
	Phase string `json:"phase,omitempty"`
	// External counts the external link checks (they start during the
	// crawl); nil when they are off (Options.SkipExternalLinks).
	External *ExternalProgress `json:"external,omitempty"`
}

// Phases of Progress.Phase.
const (
	PhaseCrawling         = "crawling"
	PhaseCheckingExternal = "checking_external"
	PhaseFinishing        = "finishing"
)

// ExternalProgress counts the external link checks of a crawl.
type ExternalProgress struct {
	// Done counts the distinct targets settled: checked, or given up
	// (Unchecked of them).
	Done int `json:"done"`
	// Total counts the distinct targets queued so far; it grows while
	// pages are crawled.
	Total int `json:"total"`
	// Unchecked counts the targets given up (failing host, time budget,
	// stopped crawl); SiteReport.ExternalUncheckedReasons says why.
	Unchecked int `json:"unchecked"`
}

// ProgressChan returns a Progress callback that sends to ch without ever
// blocking: a snapshot is dropped when ch is full, except the final one,
// which replaces a pending snapshot if need be. ch is not closed.
func ProgressChan(ch chan Progress) func(Progress) {
	var mu sync.Mutex
	return func(p Progress) {
		mu.Lock()
		defer mu.Unlock()
		select {
		case ch <- p:
			return
		default:
		}
		if p.Final {
			select {
			case <-ch:
			default:
			}
			select {
			case ch <- p:
			default:
			}
		}
	}
}

// progressLoop calls fn with snapshot() every interval until stop is closed,
// then once more with the final snapshot.
func progressLoop(fn func(Progress), interval time.Duration, snapshot func() Progress, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			fn(snapshot())
		case <-stop:
			p := snapshot()
			p.Final = true
			fn(p)
			return
		}
	}
}
