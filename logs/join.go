package logs

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// Join compares the log with a crawl of the same site: what bots fetch
// that the crawl never found, what the crawl found that search bots never
// fetch, crawl budget spent on URLs that cannot rank, and fetches
// robots.txt disallows. Bot hits are the hits of Report.URLs (spoofed ones
// left out); URLs are matched by path and query.
type Join struct {
	// Status is "complete"; "partial" when some bot hits could not be
	// matched one by one (Report.OtherURLs) or the crawl had more pages
	// than Options.MaxCrawlPages, so NeverFetched may list URLs that were
	// fetched; "failed" when the crawl could not be read. Reason says why.
	Status     string `json:"status"`
	Reason     string `json:"reason,omitempty"`
	CrawlPages int    `json:"crawlPages"`
	// Orphans are URLs that last answered bots 2xx and that the crawl did
	// not find (no internal link or sitemap leads to them); /robots.txt is
	// not one.
	Orphans URLList `json:"orphans"`
	// NeverFetched are indexable crawled URLs no search bot fetched in the
	// log's period.
	NeverFetched URLList `json:"neverFetched"`
	// Search-bot hits on crawled URLs that cannot rank: non-indexable
	// (noindex or canonicalised away), redirecting, 4xx or 5xx in the
	// crawl, and URLs with a query string (crawled or not).
	NonIndexable URLList `json:"nonIndexable"`
	Redirecting  URLList `json:"redirecting"`
	ClientErrors URLList `json:"clientErrors"`
	ServerErrors URLList `json:"serverErrors"`
	Parameters   URLList `json:"parameters"`
	// Disallowed is "robots.txt says, the bot did": per bot, the hits on
	// URLs its robots.txt group disallows; null when no robots.txt was
	// given (DisallowedReason says so).
	Disallowed       []Disallowed `json:"disallowed"`
	DisallowedReason string       `json:"disallowedReason,omitempty"`
	// Segments and Templates sum bot hits on crawled URLs by the crawl's
	// segment and page template.
	Segments  []GroupHits `json:"segments"`
	Templates []GroupHits `json:"templates"`
}

// URLList counts URLs and their bot hits, with the URLs of most hits.
type URLList struct {
	URLs   int64     `json:"urls"`
	Hits   int64     `json:"hits"`
	Sample []JoinURL `json:"sample"`
}

// JoinURL is one URL of a join list.
type JoinURL struct {
	URL  string `json:"url"`
	Hits int64  `json:"hits"`
	// LogStatus is the latest status bots got; CrawlStatus the crawl's
	// (zero when the crawl did not find the URL).
	LogStatus   int    `json:"logStatus,omitempty"`
	CrawlStatus int    `json:"crawlStatus,omitempty"`
	Rule        string `json:"rule,omitempty"`
}

// Disallowed is one bot's fetches of URLs robots.txt disallows it.
type Disallowed struct {
	Token string `json:"token"`
	Class Class  `json:"class"`
	AI    bool   `json:"ai"`
	URLList
}

// GroupHits sums bot hits over a segment or template of the crawl.
type GroupHits struct {
	Name  string `json:"name"`
	Pages int    `json:"pages"`
	// Fetched counts its pages bots fetched; Hits their bot hits.
	Fetched int   `json:"fetched"`
	Hits    int64 `json:"hits"`
}

// maxJoinSample caps each URLList's Sample, maxGroups the segments and
// templates.
const (
	maxJoinSample = 20
	maxGroups     = 200
)

type crawlPage struct {
	status     int16
	indexable  bool
	seg, templ string
}

// joinKey is the path and query of a URL or request target, with the
// percent-encoding of net/url, so that both sides compare equal.
func joinKey(raw string, stripQuery bool) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	k := u.EscapedPath()
	if k == "" {
		k = "/"
	}
	if u.RawQuery != "" && !stripQuery {
		k += "?" + u.RawQuery
	}
	return k
}

func (l *URLList) add(u JoinURL) {
	l.URLs++
	l.Hits += u.Hits
	l.Sample = append(l.Sample, u)
	if len(l.Sample) > 4*maxJoinSample {
		l.trim()
	}
}

func (l *URLList) trim() {
	slices.SortFunc(l.Sample, func(x, y JoinURL) int { return cmp.Or(cmp.Compare(y.Hits, x.Hits), strings.Compare(x.URL, y.URL)) })
	if len(l.Sample) > maxJoinSample {
		l.Sample = l.Sample[:maxJoinSample]
	}
}

func (a *aggregator) join(ctx context.Context) *Join {
	j := &Join{Status: "complete"}
	pages := map[string]*crawlPage{}
	intern := map[string]string{}
	in := func(s string) string {
		if s == "" {
			return ""
		}
		if v, ok := intern[s]; ok {
			return v
		}
		if len(intern) >= 10_000 {
			return "(other)"
		}
		s = strings.Clone(s)
		intern[s] = s
		return s
	}
	capped := false
	for p, err := range a.o.Crawl.Pages(ctx) {
		if err != nil {
			return &Join{Status: "failed", Reason: "reading the crawl: " + err.Error()}
		}
		if len(pages) >= a.o.MaxCrawlPages {
			capped = true
			continue
		}
		k := joinKey(p.URL, a.o.StripQuery)
		if _, ok := pages[k]; ok {
			continue
		}
		pages[k] = &crawlPage{status: int16(p.Status), indexable: p.Indexable, seg: in(p.Segment), templ: in(p.Template)}
	}
	j.CrawlPages = len(pages)
	var reasons []string
	if capped {
		reasons = append(reasons, fmt.Sprintf("the crawl has more than %d pages; the rest were not joined", a.o.MaxCrawlPages))
	}
	if a.other.Hits > 0 {
		reasons = append(reasons, fmt.Sprintf("%d bot hits on URLs beyond the %d tracked are not matched", a.other.Hits, a.o.MaxURLs))
	}
	if len(reasons) > 0 {
		j.Status, j.Reason = "partial", strings.Join(reasons, "; ")
	}

	search := classIndex(ClassSearch)
	fetched := map[string]bool{} // crawl keys fetched by a search bot
	segs, templs := map[string]*GroupHits{}, map[string]*GroupHits{}
	group := func(m map[string]*GroupHits, name string) *GroupHits {
		g := m[name]
		if g == nil {
			g = &GroupHits{Name: name}
			m[name] = g
		}
		return g
	}
	dis := map[*Bot]*Disallowed{}
	for t, u := range a.urls {
		k := joinKey(t, a.o.StripQuery)
		cp := pages[k]
		sh := u.byClass[search]
		ju := JoinURL{URL: t, Hits: u.hits, LogStatus: int(u.last)}
		if cp == nil {
			if u.last >= 200 && u.last < 300 && k != "/robots.txt" {
				j.Orphans.add(ju)
			}
		} else {
			ju.CrawlStatus = int(cp.status)
			if sh > 0 {
				fetched[k] = true
			}
			if cp.seg != "" {
				group(segs, cp.seg).Hits += u.hits
			}
			if cp.templ != "" {
				group(templs, cp.templ).Hits += u.hits
			}
		}
		if sh > 0 {
			sj := ju
			sj.Hits = sh
			switch {
			case cp == nil:
			case cp.status >= 500:
				j.ServerErrors.add(sj)
			case cp.status >= 400:
				j.ClientErrors.add(sj)
			case cp.status >= 300:
				j.Redirecting.add(sj)
			case !cp.indexable:
				j.NonIndexable.add(sj)
			}
			if strings.Contains(t, "?") {
				j.Parameters.add(sj)
			}
		}
		if a.o.Robots != nil && !a.o.Robots.Unavailable() {
			for _, ub := range u.bots {
				d := a.o.Robots.Decide(ub.bot.Token, t)
				if d.Allowed {
					continue
				}
				x := dis[ub.bot]
				if x == nil {
					x = &Disallowed{Token: ub.bot.Token, Class: ub.bot.Class, AI: ub.bot.AI}
					dis[ub.bot] = x
				}
				rule := d.Rule
				if d.Line > 0 {
					rule = fmt.Sprintf("line %d: %s", d.Line, d.Rule)
				}
				x.add(JoinURL{URL: t, Hits: ub.hits, LogStatus: int(u.last), CrawlStatus: ju.CrawlStatus, Rule: rule})
			}
		}
	}
	for k, cp := range pages {
		if cp.seg != "" {
			g := group(segs, cp.seg)
			g.Pages++
			if _, ok := a.urls[k]; ok {
				g.Fetched++
			}
		}
		if cp.templ != "" {
			g := group(templs, cp.templ)
			g.Pages++
			if _, ok := a.urls[k]; ok {
				g.Fetched++
			}
		}
		if cp.indexable && !fetched[k] {
			j.NeverFetched.add(JoinURL{URL: k, CrawlStatus: int(cp.status)})
		}
	}
	for _, l := range []*URLList{&j.Orphans, &j.NeverFetched, &j.NonIndexable, &j.Redirecting, &j.ClientErrors, &j.ServerErrors, &j.Parameters} {
		l.trim()
		if l.Sample == nil {
			l.Sample = []JoinURL{}
		}
	}
	switch {
	case a.o.Robots == nil:
		j.DisallowedReason = "no robots.txt given"
	case a.o.Robots.Unavailable():
		j.DisallowedReason = fmt.Sprintf("robots.txt could not be had (status %d): it disallows everything, so no bot's fetch is judged by it", a.o.Robots.Status())
	default:
		j.Disallowed = []Disallowed{}
		for _, d := range dis {
			d.trim()
			j.Disallowed = append(j.Disallowed, *d)
		}
		slices.SortFunc(j.Disallowed, func(x, y Disallowed) int {
			return cmp.Or(cmp.Compare(y.Hits, x.Hits), strings.Compare(x.Token, y.Token))
		})
	}
	j.Segments, j.Templates = groupList(segs), groupList(templs)
	return j
}

func groupList(m map[string]*GroupHits) []GroupHits {
	out := make([]GroupHits, 0, len(m))
	for _, g := range m {
		out = append(out, *g)
	}
	slices.SortFunc(out, func(x, y GroupHits) int { return cmp.Or(cmp.Compare(y.Hits, x.Hits), strings.Compare(x.Name, y.Name)) })
	if len(out) > maxGroups {
		out = out[:maxGroups]
	}
	return out
}
