package mcpserver

import (
	"sync"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi/service"
)

// DefaultReportCacheBytes is the default of Options.ReportCacheBytes.
const DefaultReportCacheBytes = 64 << 20

// maxCachedReports bounds the entries of the cache whatever their size.
const maxCachedReports = 32

// reportKey identifies one stored report: the analysis and what changes
// when its report does (a canceled crawl's partial report, a retried
// job). The account is part of it, so an entry serves only the account
// the service authorised.
type reportKey struct {
	account, id, status string
	finished            time.Time
	size                int
}

// reportCache keeps the decoded reports of the site analyses read last,
// so that paging through a large analysis (site_findings, site_pages,
// fix_first, ai_crawlers, get_site_analysis) decodes its report once
// rather than on every call. It holds at most max bytes of stored report
// JSON (Result.Size, the bytes each entry was decoded from), dropping the
// least recently used entries first; a report larger than max is not
// kept, and it keeps at most maxCachedReports. The reports it hands out are shared: callers only read them.
type reportCache struct {
	mu    sync.Mutex
	max   int
	size  int
	tick  uint64
	items map[reportKey]*cachedReport
}

type cachedReport struct {
	rep  *crawler.SiteReport
	size int
	used uint64
}

func newReportCache(max int) *reportCache {
	return &reportCache{max: max, items: map[reportKey]*cachedReport{}}
}

func keyOf(account string, j *service.Job, res service.Result) reportKey {
	return reportKey{account: account, id: j.ID, status: j.Status, finished: j.FinishedAt, size: res.Size()}
}

// get returns the report of k, or nil.
func (c *reportCache) get(k reportKey) *crawler.SiteReport {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.items[k]
	if e == nil {
		return nil
	}
	c.tick++
	e.used = c.tick
	return e.rep
}

// put keeps rep as the report of k, dropping the entries of the same
// analysis (an older version of its report) and then the least recently
// used ones until it fits.
func (c *reportCache) put(k reportKey, rep *crawler.SiteReport) {
	if c == nil || k.size > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for ok, e := range c.items {
		if ok.id == k.id && ok.account == k.account {
			c.size -= e.size
			delete(c.items, ok)
		}
	}
	for (c.size+k.size > c.max || len(c.items) >= maxCachedReports) && len(c.items) > 0 {
		var (
			oldest reportKey
			least  *cachedReport
		)
		for ok, e := range c.items {
			if least == nil || e.used < least.used {
				oldest, least = ok, e
			}
		}
		c.size -= least.size
		delete(c.items, oldest)
	}
	c.tick++
	c.items[k] = &cachedReport{rep: rep, size: k.size, used: c.tick}
	c.size += k.size
}
