// Package compare compares two crawls of a site ([Sites]): URLs added and
// removed, per-page field changes, findings new, fixed, gone or worse,
// robots.txt and sitemap changes. Each side is a [Source] read as a stream
// (a report in memory, or a stored report's JSON decoded page by page), so
// neither crawl is held whole. A [Diff] writes itself as text, Markdown or
// a self-contained HTML page.
package compare

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/seo"
)

// Options configure Sites. A nil *Options, and every zero
// field, means the documented default.
type Options struct {
	// MaxExamples caps the URLs kept per list of the diff (added and
	// removed URLs, a finding's new and fixed pages); zero means 20. Counts
	// stay exact.
	MaxExamples int
	// MaxChangedPages caps Diff.Changed, the pages listed with their field
	// changes; zero means 1000. Diff.ChangedPages and ChangedFields count
	// them all.
	MaxChangedPages int
	// WordCountChange is the relative change of a page's word count that
	// counts as a change; zero means 0.2 (20 %). A change of fewer than 10
	// words never counts.
	WordCountChange float64
	// ResponseTimeChange is the factor by which a page's response time must
	// grow or shrink to count as a change (and by at least 200 ms); zero
	// means 2.
	ResponseTimeChange float64
	// LinkScoreChange is the absolute change of a page's link score that
	// counts; zero means 10 (on the 0-100 scale).
	LinkScoreChange float64
	// InlinksChange is the relative change of a page's inlinks that counts
	// (and by at least 2 links); zero means 0.5.
	InlinksChange float64
}

func (o *Options) withDefaults() Options {
	var c Options
	if o != nil {
		c = *o
	}
	c.MaxExamples = cmp.Or(c.MaxExamples, 20)
	c.MaxChangedPages = cmp.Or(c.MaxChangedPages, 1000)
	c.WordCountChange = cmp.Or(c.WordCountChange, 0.2)
	c.ResponseTimeChange = cmp.Or(c.ResponseTimeChange, 2)
	c.LinkScoreChange = cmp.Or(c.LinkScoreChange, 10)
	c.InlinksChange = cmp.Or(c.InlinksChange, 0.5)
	return c
}

// Source is one side of a comparison: a site report whose pages are
// read as a stream, so that neither side is held whole. Sites reads a
// side's Pages before its Report, so a source may collect the site-level
// parts while it streams the pages. A *SiteReport is
// turned into one by [Report]; [File], [JSON] and [Reader] stream a report's JSON.
type Source interface {
	// Report returns the site-level parts of the report (its Pages may be
	// empty: they are read from Pages).
	Report(ctx context.Context) (*crawler.SiteReport, error)
	// Pages yields every page summary of the report once, in any order.
	// The yielded summary may be reused after the yield returns.
	Pages(ctx context.Context) iter.Seq2[*crawler.PageSummary, error]
}

// Report returns r as a Source.
func Report(r *crawler.SiteReport) Source { return memSource{r} }

type memSource struct{ r *crawler.SiteReport }

func (m memSource) Report(context.Context) (*crawler.SiteReport, error) { return m.r, nil }

func (m memSource) Pages(ctx context.Context) iter.Seq2[*crawler.PageSummary, error] {
	return func(yield func(*crawler.PageSummary, error) bool) {
		for i := range m.r.Pages {
			if err := ctx.Err(); err != nil {
				yield(nil, err)
				return
			}
			if !yield(&m.r.Pages[i], nil) {
				return
			}
		}
	}
}

// Diff is the comparison of two crawls of a site: what an SEO wants to
// know changed since the last crawl. Old is the earlier report.
type Diff struct {
	Old DiffSide `json:"old"`
	New DiffSide `json:"new"`
	// Score is the change of the site score, New minus Old; nil (null)
	// when either crawl has no score (DiffSide.Score).
	Score *int `json:"score"`
	// Totals compare counts of the two crawls: pages, indexable pages,
	// 4xx and 5xx pages, noindex pages, findings per severity.
	Totals []TotalChange `json:"totals"`
	// Added lists the URLs crawled now and not before; Removed those
	// crawled before and not now.
	Added   URLSample `json:"added"`
	Removed URLSample `json:"removed"`
	// ChangedPages counts the URLs of both crawls with at least one field
	// change; ChangedFields counts them per field; Changed lists them
	// (status changes first, then indexability changes, then the rest, each
	// by URL; at most MaxChangedPages).
	ChangedPages  int            `json:"changedPages"`
	ChangedFields map[string]int `json:"changedFields"`
	Changed       []PageChange   `json:"changed"`
	// Findings compares every finding ID of either crawl, sorted by
	// severity (highest first), then by new pages, then ID.
	Findings []FindingChange `json:"findings"`
	// Robots and Sitemaps are nil when unchanged.
	Robots   *RobotsChange   `json:"robots,omitempty"`
	Sitemaps *SitemapsChange `json:"sitemaps,omitempty"`
	// Truncated names the lists cut at their caps ("changed", "added",
	// "removed", "findings.<ID>.new", "findings.<ID>.fixed",
	// "findings.<ID>.gone").
	Truncated seo.Truncated `json:"truncated,omitempty"`
}

// DiffSide identifies one crawl of a comparison.
type DiffSide struct {
	Domain     string    `json:"domain"`
	StartURL   string    `json:"startUrl"`
	StartedAt  time.Time `json:"startedAt"`
	FinishedAt time.Time `json:"finishedAt"`
	Pages      int       `json:"pages"`
	// Score is the crawl's site score, nil (null) when it has none
	// (SiteReport.ScoreReason, here ScoreReason).
	Score       *int                  `json:"score"`
	ScoreReason string                `json:"scoreReason,omitempty"`
	Counts      crawler.FindingCounts `json:"findingCounts"`
}

// TotalChange is one count of both crawls.
type TotalChange struct {
	Name string `json:"name"`
	Old  int    `json:"old"`
	New  int    `json:"new"`
}

// URLSample is a count of URLs with the first of them in URL order.
type URLSample struct {
	Count   int      `json:"count"`
	URLs    []string `json:"urls"`
	Omitted int      `json:"omitted,omitempty"`
}

// add counts u and keeps it if it is among the first max URLs in sort
// order, whatever the order of the calls.
func (s *URLSample) add(u string, max int) {
	s.Count++
	i, _ := slices.BinarySearch(s.URLs, u)
	switch {
	case len(s.URLs) < max:
		s.URLs = slices.Insert(s.URLs, i, u)
	case i < len(s.URLs):
		copy(s.URLs[i+1:], s.URLs[i:])
		s.URLs[i] = u
	}
	s.Omitted = s.Count - len(s.URLs)
}

// The fields compared per page, as FieldChange.Field names them.
const (
	FieldStatus       = "status"
	FieldIndexable    = "indexable"
	FieldNoindex      = "noindex"
	FieldCanonical    = "canonical"
	FieldTitle        = "title"
	FieldDescription  = "description"
	FieldH1           = "h1"
	FieldWordCount    = "wordCount"
	FieldDepth        = "depth"
	FieldInlinks      = "inlinks"
	FieldLinkScore    = "linkScore"
	FieldResponseTime = "responseMs"
	FieldScore        = "score"
)

// PageChange is one URL of both crawls whose fields changed.
type PageChange struct {
	URL     string        `json:"url"`
	Changes []FieldChange `json:"changes"`
}

// FieldChange is one changed field of a page, both values as text ("" for
// none, "null" for a depth or score that does not exist).
type FieldChange struct {
	Field string `json:"field"`
	Old   string `json:"old"`
	New   string `json:"new"`
}

// FindingChange compares one finding ID across the crawls. Pages counts
// distinct URLs (a site-scope finding counts as one "page", the site).
type FindingChange struct {
	ID       string       `json:"id"`
	Severity seo.Severity `json:"severity"`
	// Status is "new" (only in New), "fixed" (only in Old, and on at
	// least one page that still answers), "gone" (only in Old, and every
	// page that had it is gone: GoneOn) or "persisting".
	Status string `json:"status"`
	// OldPages and NewPages count the pages with the finding in each
	// crawl (FindingGroup.Pages); OldCount and NewCount its occurrences.
	OldPages int `json:"oldPages"`
	NewPages int `json:"newPages"`
	OldCount int `json:"oldCount"`
	NewCount int `json:"newCount"`
	// NewOn lists the pages of both crawls that have it now and did not
	// before, plus added pages that have it; FixedOn the pages of both
	// crawls that had it and no longer do while still answering (2xx or
	// 3xx). GoneOn lists the pages that had it and are gone: they now
	// answer 4xx or 5xx, give no response, or were not crawled (removed);
	// their findings left with them, unfixed.
	NewOn   URLSample `json:"newOn"`
	FixedOn URLSample `json:"fixedOn"`
	GoneOn  URLSample `json:"goneOn"`
}

// Finding change statuses.
const (
	FindingNew   = "new"
	FindingFixed = "fixed"
	// FindingGone: the finding is no longer reported only because the
	// pages that had it are gone (4xx/5xx, no response, not crawled).
	FindingGone       = "gone"
	FindingPersisting = "persisting"
)

// RobotsChange says how robots.txt changed.
type RobotsChange struct {
	Old crawler.RobotsSummary `json:"old"`
	New crawler.RobotsSummary `json:"new"`
	// Fields names what differs: "status", "content", "sitemaps".
	Fields []string `json:"fields"`
}

// SitemapsChange says how the sitemaps read changed.
type SitemapsChange struct {
	Added   []string        `json:"added,omitempty"`
	Removed []string        `json:"removed,omitempty"`
	Changed []SitemapChange `json:"changed,omitempty"`
}

// SitemapChange is a sitemap of both crawls whose status or URL count
// changed.
type SitemapChange struct {
	URL       string `json:"url"`
	OldStatus int    `json:"oldStatus"`
	NewStatus int    `json:"newStatus"`
	OldURLs   int    `json:"oldUrls"`
	NewURLs   int    `json:"newUrls"`
}

// ErrRead wraps the errors of Sites that come from reading a side.
var ErrRead = errors.New("crawler: compare")

// Reports compares two site reports held in memory; see Sites.
func Reports(old, new *crawler.SiteReport, opts *Options) *Diff {
	d, err := Sites(context.Background(), Report(old), Report(new), opts)
	if err != nil { // in-memory sources fail only when ctx ends
		panic(err)
	}
	return d
}

// EstimateMemory estimates the memory Sites holds while it
// compares a report whose JSON is oldJSON bytes long with another: the
// compared fields of the pages of either side not yet met on the other
// (at worst every old page, about half the JSON's size, measured by
// BenchmarkCompare) plus the decoding buffers.
func EstimateMemory(oldJSON int) int64 {
	return int64(oldJSON)/2 + 8<<20
}

// cpage is what Sites keeps of a page while it waits for the same URL
// on the other side: the compared fields, about 200 bytes plus the
// strings (finding IDs shared).
type cpage struct {
	url                    string
	status                 int
	indexable, noindex     bool
	canonical, title, desc string
	h1                     string
	words, depth, inlinks  int
	linkScore              float64
	responseMs             int64
	score                  int // -1: none
	findings               []string
}

// compact returns the compared fields of p, its finding IDs interned in
// ids.
func compact(p *crawler.PageSummary, ids map[string]string) cpage {
	c := cpage{
		url: p.URL, status: p.Status, indexable: p.Indexable, noindex: p.Noindex,
		canonical: p.Canonical, title: p.Title, desc: p.Description, h1: p.H1,
		words: p.WordCount, depth: depthOf(p), inlinks: p.Inlinks, linkScore: p.LinkScore,
		responseMs: p.ResponseMs, score: -1,
	}
	if p.Score != nil {
		c.score = *p.Score
	}
	if len(p.Findings) > 0 {
		c.findings = make([]string, len(p.Findings))
		for i, id := range p.Findings {
			v, ok := ids[id]
			if !ok {
				v = id
				ids[id] = v
			}
			c.findings[i] = v
		}
	}
	return c
}

// compareBatch is how many pages a side's reader hands over at once.
const compareBatch = 256

// sideMsg is what a side's reader sends: batches of pages, then its
// report and totals (done), or an error.
type sideMsg struct {
	pages []cpage
	rep   *crawler.SiteReport
	tot   pageTotals
	done  bool
	err   error
}

// readSide streams src's pages to out in batches, then its report; it
// stops when ctx ends.
func readSide(ctx context.Context, name string, src Source, out chan<- sideMsg) {
	defer close(out)
	send := func(m sideMsg) bool {
		select {
		case out <- m:
			return true
		case <-ctx.Done():
			return false
		}
	}
	ids := map[string]string{}
	var tot pageTotals
	batch := make([]cpage, 0, compareBatch)
	for p, err := range src.Pages(ctx) {
		if err != nil {
			send(sideMsg{err: fmt.Errorf("%w: %s pages: %w", ErrRead, name, err)})
			return
		}
		tot.add(p)
		batch = append(batch, compact(p, ids))
		if len(batch) == compareBatch {
			if !send(sideMsg{pages: batch}) {
				return
			}
			batch = make([]cpage, 0, compareBatch)
		}
	}
	if len(batch) > 0 && !send(sideMsg{pages: batch}) {
		return
	}
	if err := ctx.Err(); err != nil {
		send(sideMsg{err: err})
		return
	}
	rep, err := src.Report(ctx)
	if err != nil {
		send(sideMsg{err: fmt.Errorf("%w: %s report: %w", ErrRead, name, err)})
		return
	}
	send(sideMsg{rep: rep, tot: tot, done: true})
}

// Sites compares two crawls, old then new. Each side is read by its own
// goroutine (decoding a report is most of the work, so two cores halve
// it) and its pages are matched by URL as they arrive: Sites holds the
// compared fields (not the whole summaries) of the pages not yet met on
// the other side only, so memory stays small when the two crawls list
// their pages in a similar order and is at worst that of both sides'
// compared fields. The result does not depend on the order in which
// pages arrive.
func Sites(ctx context.Context, old, new Source, opts *Options) (*Diff, error) {
	o := opts.withDefaults()
	d := &Diff{ChangedFields: map[string]int{}, Changed: []PageChange{},
		Added: URLSample{URLs: []string{}}, Removed: URLSample{URLs: []string{}}}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait() // after cancel: no reader outlives Sites
	defer cancel()
	oldCh, newCh := make(chan sideMsg, 2), make(chan sideMsg, 2)
	wg.Go(func() { readSide(ctx, "old", old, oldCh) })
	wg.Go(func() { readSide(ctx, "new", new, newCh) })

	fc := map[string]*FindingChange{}
	change := func(id string) *FindingChange {
		c := fc[id]
		if c == nil {
			c = &FindingChange{ID: id}
			fc[id] = c
		}
		return c
	}
	pair := func(op, np *cpage) {
		if ch := comparePage(op, np, &o); len(ch) > 0 {
			d.ChangedPages++
			for _, c := range ch {
				d.ChangedFields[c.Field]++
			}
			d.Changed = append(d.Changed, PageChange{URL: np.url, Changes: ch})
			if len(d.Changed) > 2*o.MaxChangedPages { // keep the first, bounded
				d.Changed = firstChanged(d.Changed, o.MaxChangedPages)
			}
		}
		for _, id := range np.findings {
			if !slices.Contains(op.findings, id) {
				change(id).NewOn.add(np.url, o.MaxExamples)
			}
		}
		gone := np.status == 0 || np.status >= 400
		for _, id := range op.findings {
			if slices.Contains(np.findings, id) {
				continue
			}
			if gone {
				// The page failed: its findings went with it, unfixed.
				change(id).GoneOn.add(np.url, o.MaxExamples)
			} else {
				change(id).FixedOn.add(np.url, o.MaxExamples)
			}
		}
	}
	// The pages of each side waiting for their URL on the other.
	oldWait, newWait := map[string]*cpage{}, map[string]*cpage{}
	var oldEnd, newEnd *sideMsg
	for oldCh != nil || newCh != nil {
		var (
			m     sideMsg
			ok    bool
			isOld bool
		)
		select {
		case m, ok = <-oldCh:
			if !ok {
				oldCh = nil
				continue
			}
			isOld = true
		case m, ok = <-newCh:
			if !ok {
				newCh = nil
				continue
			}
		}
		switch {
		case m.err != nil:
			return nil, m.err
		case m.done && isOld:
			oldEnd = &m
		case m.done:
			newEnd = &m
		case isOld:
			for i := range m.pages {
				p := &m.pages[i]
				if np := newWait[p.url]; np != nil {
					delete(newWait, p.url)
					pair(p, np)
				} else {
					oldWait[p.url] = p
				}
			}
		default:
			for i := range m.pages {
				p := &m.pages[i]
				if op := oldWait[p.url]; op != nil {
					delete(oldWait, p.url)
					pair(op, p)
				} else {
					newWait[p.url] = p
				}
			}
		}
	}
	if oldEnd == nil || newEnd == nil { // a reader stopped with ctx
		return nil, cmp.Or(ctx.Err(), context.Canceled)
	}
	for u, p := range newWait {
		d.Added.add(u, o.MaxExamples)
		for _, id := range p.findings {
			change(id).NewOn.add(u, o.MaxExamples)
		}
	}
	for u, p := range oldWait {
		d.Removed.add(u, o.MaxExamples)
		for _, id := range p.findings {
			change(id).GoneOn.add(u, o.MaxExamples)
		}
	}
	d.Changed = firstChanged(d.Changed, o.MaxChangedPages)
	d.Truncated.Note("changed", d.ChangedPages, len(d.Changed))
	d.Truncated.Note("added", d.Added.Count, len(d.Added.URLs))
	d.Truncated.Note("removed", d.Removed.Count, len(d.Removed.URLs))

	oldRep, newRep := oldEnd.rep, newEnd.rep
	oldTot, newTot := oldEnd.tot, newEnd.tot
	d.Old = side(oldRep, oldTot.pages)
	d.New = side(newRep, newTot.pages)
	if d.New.Score != nil && d.Old.Score != nil {
		ds := *d.New.Score - *d.Old.Score
		d.Score = &ds
	}
	d.Totals = []TotalChange{
		{"pages", oldTot.pages, newTot.pages},
		{"indexable", oldTot.indexable, newTot.indexable},
		{"noindex", oldTot.noindex, newTot.noindex},
		{"status4xx", oldTot.s4xx, newTot.s4xx},
		{"status5xx", oldTot.s5xx, newTot.s5xx},
		{"errors", oldRep.FindingCounts.Checks.Errors, newRep.FindingCounts.Checks.Errors},
		{"warnings", oldRep.FindingCounts.Checks.Warnings, newRep.FindingCounts.Checks.Warnings},
		{"notices", oldRep.FindingCounts.Checks.Notices, newRep.FindingCounts.Checks.Notices},
	}
	d.Findings = compareFindings(oldRep, newRep, fc, &d.Truncated)
	d.Robots = compareRobots(oldRep.Robots, newRep.Robots)
	d.Sitemaps = compareSitemaps(oldRep.Sitemaps, newRep.Sitemaps)
	return d, nil
}

type pageTotals struct{ pages, indexable, noindex, s4xx, s5xx int }

func (t *pageTotals) add(p *crawler.PageSummary) {
	t.pages++
	if p.Indexable {
		t.indexable++
	}
	if p.Noindex {
		t.noindex++
	}
	switch {
	case p.Status >= 500:
		t.s5xx++
	case p.Status >= 400:
		t.s4xx++
	}
}

// changeRank orders changed pages by what a reader acts on first: a
// status change (a page that now answers 404 or 500), then indexability
// (indexable, noindex, canonical), then the rest.
func changeRank(p PageChange) int {
	rank := 2
	for _, c := range p.Changes {
		switch c.Field {
		case FieldStatus:
			return 0
		case FieldIndexable, FieldNoindex, FieldCanonical:
			rank = 1
		}
	}
	return rank
}

// firstChanged sorts changed pages by changeRank, then URL, and keeps the
// first max: status changes are never cut for score moves.
func firstChanged(c []PageChange, max int) []PageChange {
	slices.SortFunc(c, func(a, b PageChange) int {
		return cmp.Or(cmp.Compare(changeRank(a), changeRank(b)), cmp.Compare(a.URL, b.URL))
	})
	if len(c) > max {
		c = slices.Clip(c[:max])
	}
	return c
}

func side(r *crawler.SiteReport, pages int) DiffSide {
	s := DiffSide{Domain: r.Domain, StartURL: r.StartURL, StartedAt: r.StartedAt, FinishedAt: r.FinishedAt,
		Pages: pages, ScoreReason: r.ScoreReason, Counts: r.FindingCounts}
	if r.Score != nil {
		v := r.Score.Value
		s.Score = &v
	}
	return s
}

func comparePage(op, p *cpage, o *Options) []FieldChange {
	var ch []FieldChange
	str := func(field, a, b string) {
		if a != b {
			ch = append(ch, FieldChange{field, a, b})
		}
	}
	num := func(field string, a, b int) {
		ch = append(ch, FieldChange{field, intText(a), intText(b)})
	}
	if op.status != p.status {
		num(FieldStatus, op.status, p.status)
	}
	if op.indexable != p.indexable {
		str(FieldIndexable, strconv.FormatBool(op.indexable), strconv.FormatBool(p.indexable))
	}
	if op.noindex != p.noindex {
		str(FieldNoindex, strconv.FormatBool(op.noindex), strconv.FormatBool(p.noindex))
	}
	str(FieldCanonical, op.canonical, p.canonical)
	str(FieldTitle, op.title, p.title)
	str(FieldDescription, op.desc, p.desc)
	str(FieldH1, op.h1, p.h1)
	if relChanged(float64(op.words), float64(p.words), o.WordCountChange, 10) {
		num(FieldWordCount, op.words, p.words)
	}
	if op.depth != p.depth {
		num(FieldDepth, op.depth, p.depth)
	}
	if relChanged(float64(op.inlinks), float64(p.inlinks), o.InlinksChange, 2) {
		num(FieldInlinks, op.inlinks, p.inlinks)
	}
	if diff := p.linkScore - op.linkScore; diff >= o.LinkScoreChange || -diff >= o.LinkScoreChange {
		str(FieldLinkScore, strconv.FormatFloat(op.linkScore, 'f', 1, 64), strconv.FormatFloat(p.linkScore, 'f', 1, 64))
	}
	if a, b := float64(op.responseMs), float64(p.responseMs); (b-a >= 200 && b >= a*o.ResponseTimeChange) || (a-b >= 200 && a >= b*o.ResponseTimeChange) {
		num(FieldResponseTime, int(op.responseMs), int(p.responseMs))
	}
	if op.score != p.score {
		num(FieldScore, op.score, p.score)
	}
	return ch
}

// intText writes a count, and "null" for the -1 of a missing depth or
// score.
func intText(v int) string {
	if v < 0 {
		return "null"
	}
	return strconv.Itoa(v)
}

// relChanged reports a change of a to b by more than rel of a and by at
// least min.
func relChanged(a, b, rel, min float64) bool {
	d := b - a
	if d < 0 {
		d = -d
	}
	return d >= min && d > rel*a
}

func compareFindings(oldRep, newRep *crawler.SiteReport, fc map[string]*FindingChange, tr *seo.Truncated) []FindingChange {
	oldG := map[string]crawler.FindingGroup{}
	for _, g := range oldRep.Findings {
		oldG[g.ID] = g
	}
	newG := map[string]crawler.FindingGroup{}
	for _, g := range newRep.Findings {
		newG[g.ID] = g
	}
	ids := map[string]bool{}
	for id := range oldG {
		ids[id] = true
	}
	for id := range newG {
		ids[id] = true
	}
	out := make([]FindingChange, 0, len(ids))
	for id := range ids {
		c := FindingChange{ID: id}
		if p := fc[id]; p != nil {
			c = *p
		}
		og, inOld := oldG[id]
		ng, inNew := newG[id]
		c.OldPages, c.OldCount, c.NewPages, c.NewCount = og.Pages, og.Count, ng.Pages, ng.Count
		switch {
		case inOld && inNew:
			c.Status, c.Severity = FindingPersisting, ng.Severity
		case inNew:
			c.Status, c.Severity = FindingNew, ng.Severity
		case c.FixedOn.Count == 0 && c.GoneOn.Count > 0:
			c.Status, c.Severity = FindingGone, og.Severity
		default:
			c.Status, c.Severity = FindingFixed, og.Severity
		}
		if c.Severity == 0 {
			c.Severity = og.Severity
		}
		// Site-scope findings are on no page: the site is their page.
		if ng.Scope != seo.ScopePage && ng.Scope != "" || og.Scope != seo.ScopePage && og.Scope != "" {
			if c.NewOn.Count == 0 && c.Status == FindingNew {
				c.NewOn.add(newRep.StartURL, 1)
			}
			if c.FixedOn.Count == 0 && c.Status == FindingFixed {
				c.FixedOn.add(oldRep.StartURL, 1)
			}
		}
		tr.Note("findings."+id+".new", c.NewOn.Count, len(c.NewOn.URLs))
		tr.Note("findings."+id+".fixed", c.FixedOn.Count, len(c.FixedOn.URLs))
		tr.Note("findings."+id+".gone", c.GoneOn.Count, len(c.GoneOn.URLs))
		if c.NewOn.URLs == nil {
			c.NewOn.URLs = []string{}
		}
		if c.FixedOn.URLs == nil {
			c.FixedOn.URLs = []string{}
		}
		if c.GoneOn.URLs == nil {
			c.GoneOn.URLs = []string{}
		}
		slices.Sort(c.GoneOn.URLs)
		slices.Sort(c.NewOn.URLs)
		slices.Sort(c.FixedOn.URLs)
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b FindingChange) int {
		return cmp.Or(cmp.Compare(b.Severity, a.Severity), cmp.Compare(b.NewOn.Count, a.NewOn.Count), cmp.Compare(a.ID, b.ID))
	})
	return out
}

func compareRobots(a, b crawler.RobotsSummary) *RobotsChange {
	var fields []string
	if a.Status != b.Status || a.Error != b.Error {
		fields = append(fields, "status")
	}
	if a.Bytes != b.Bytes || a.SHA256 != b.SHA256 || a.InvalidLines != b.InvalidLines || a.Truncated != b.Truncated {
		fields = append(fields, "content")
	}
	if !slices.Equal(a.Sitemaps, b.Sitemaps) {
		fields = append(fields, "sitemaps")
	}
	if len(fields) == 0 {
		return nil
	}
	return &RobotsChange{Old: a, New: b, Fields: fields}
}

func compareSitemaps(a, b []crawler.SitemapSummary) *SitemapsChange {
	old := map[string]crawler.SitemapSummary{}
	for _, s := range a {
		old[s.URL] = s
	}
	var c SitemapsChange
	seen := map[string]bool{}
	for _, s := range b {
		seen[s.URL] = true
		o, ok := old[s.URL]
		switch {
		case !ok:
			c.Added = append(c.Added, s.URL)
		case o.Status != s.Status || o.URLs != s.URLs:
			c.Changed = append(c.Changed, SitemapChange{URL: s.URL, OldStatus: o.Status, NewStatus: s.Status, OldURLs: o.URLs, NewURLs: s.URLs})
		}
	}
	for _, s := range a {
		if !seen[s.URL] {
			c.Removed = append(c.Removed, s.URL)
		}
	}
	if c.Added == nil && c.Removed == nil && c.Changed == nil {
		return nil
	}
	slices.Sort(c.Added)
	slices.Sort(c.Removed)
	return &c
}

// NewFindings counts the finding IDs at or above sev that are new in the
// diff or on more pages than before, for `-fail-on-new`.
func (d *Diff) NewFindings(sev seo.Severity) int {
	n := 0
	for _, f := range d.Findings {
		if f.Severity >= sev && (f.Status == FindingNew || f.Status == FindingPersisting && f.NewPages > f.OldPages) {
			n++
		}
	}
	return n
}

// File returns the site report JSON file at path (as `crawl -json`
// and the API write it) as a Source that streams its pages: the file
// is read once for the site-level parts and once for the pages, and no
// more than one page summary is decoded at a time.
func File(path string) Source {
	return Reader(path, func() (io.ReadCloser, error) { return os.Open(path) })
}

// JSON returns a site report's JSON held in memory as a Source
// that decodes one page summary at a time.
func JSON(b []byte) Source {
	return Reader("report", func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(b)), nil
	})
}

// Reader returns the site report JSON that open reads (from its
// first byte at each call) as a Source that streams its pages, as
// File does: a stored report decompressed as it is read is never
// held whole. name names the report in errors.
func Reader(name string, open func() (io.ReadCloser, error)) Source {
	return &fileSource{path: name, open: open}
}

type fileSource struct {
	path string // names the source in errors
	open func() (io.ReadCloser, error)
	// head holds the site-level parts read by a complete Pages walk.
	head *crawler.SiteReport
}

// setKey decodes the value of one top-level key into rep.
func setKey(rep *crawler.SiteReport, key string, dec *jsontext.Decoder) error {
	raw, err := dec.ReadValue()
	if err != nil {
		return err
	}
	// Decode the one key into the report through a one-key object.
	obj, err := json.Marshal(map[string]json.RawMessage{key: json.RawMessage(raw)})
	if err != nil {
		return err
	}
	return json.Unmarshal(obj, rep)
}

func (f *fileSource) Report(ctx context.Context) (*crawler.SiteReport, error) {
	if f.head != nil {
		return f.head, nil
	}
	var rep crawler.SiteReport
	err := f.walk(ctx, func(key string, dec *jsontext.Decoder) error {
		if key == "pages" {
			return dec.SkipValue()
		}
		return setKey(&rep, key, dec)
	})
	if err != nil {
		return nil, err
	}
	return &rep, nil
}

func (f *fileSource) Pages(ctx context.Context) iter.Seq2[*crawler.PageSummary, error] {
	return func(yield func(*crawler.PageSummary, error) bool) {
		stop := errors.New("stop")
		var head crawler.SiteReport
		err := f.walk(ctx, func(key string, dec *jsontext.Decoder) error {
			if key != "pages" {
				return setKey(&head, key, dec)
			}
			pd := pageDecoder{dec: dec, ids: map[string]string{}}
			var p crawler.PageSummary
			return eachElement(dec, func() error {
				if err := ctx.Err(); err != nil {
					return err
				}
				// Only the compared fields are decoded, into a reused
				// summary: the other fields are skipped, not allocated.
				if err := pd.page(&p); err != nil {
					return err
				}
				if !yield(&p, nil) {
					return stop
				}
				return nil
			})
		})
		switch {
		case err == nil:
			f.head = &head
		case !errors.Is(err, stop):
			yield(nil, err)
		}
	}
}

// pageDecoder decodes the fields of a PageSummary that Sites reads,
// straight from the tokens (no reflection, no value decoded twice);
// finding IDs are interned in ids, and read into buf, reused.
type pageDecoder struct {
	dec *jsontext.Decoder
	ids map[string]string
	buf []string
}

// page decodes the next page object into p, which it resets first.
func (pd *pageDecoder) page(p *crawler.PageSummary) error {
	dec := pd.dec
	*p = crawler.PageSummary{}
	if k := dec.PeekKind(); k != '{' {
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		return fmt.Errorf("a page is a JSON %s, not an object", kindName(k))
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	for {
		switch dec.PeekKind() {
		case '}':
			_, err := dec.ReadToken()
			return err
		case '"':
		default:
			_, err := dec.ReadToken()
			return cmp.Or(err, errors.New("bad page object"))
		}
		name, err := dec.ReadValue()
		if err != nil {
			return err
		}
		key := string(name) // no allocation in the switch
		if bytes.IndexByte(name, '\\') >= 0 {
			u, err := jsontext.AppendUnquote(nil, name)
			if err != nil {
				return err
			}
			key = strconv.Quote(string(u))
		}
		switch key {
		case `"url"`:
			p.URL, err = pd.str("url")
		case `"status"`:
			p.Status, err = pd.int("status")
		case `"depth"`:
			p.Depth, err = pd.intPtr("depth")
		case `"indexable"`:
			p.Indexable, err = pd.bool("indexable")
		case `"noindex"`:
			p.Noindex, err = pd.bool("noindex")
		case `"title"`:
			p.Title, err = pd.str("title")
		case `"description"`:
			p.Description, err = pd.str("description")
		case `"h1"`:
			p.H1, err = pd.str("h1")
		case `"canonical"`:
			p.Canonical, err = pd.str("canonical")
		case `"wordCount"`:
			p.WordCount, err = pd.int("wordCount")
		case `"score"`:
			p.Score, err = pd.intPtr("score")
		case `"findings"`:
			p.Findings, err = pd.findings(pd.buf[:0])
			pd.buf = p.Findings
		case `"inlinks"`:
			p.Inlinks, err = pd.int("inlinks")
		case `"linkScore"`:
			var v jsontext.Value
			if v, err = pd.value("linkScore", '0'); err == nil && v != nil {
				p.LinkScore, err = strconv.ParseFloat(string(v), 64)
			}
		case `"responseMs"`:
			var n int
			n, err = pd.int("responseMs")
			p.ResponseMs = int64(n)
		default:
			err = dec.SkipValue()
		}
		if err != nil {
			return err
		}
	}
}

// value reads the next value, which must be of kind want or null (nil).
func (pd *pageDecoder) value(field string, want jsontext.Kind) (jsontext.Value, error) {
	v, err := pd.dec.ReadValue()
	if err != nil {
		return nil, err
	}
	switch k := v.Kind(); {
	case k == 'n':
		return nil, nil
	case k == want, want == 't' && k == 'f':
		return v, nil
	default:
		return nil, fmt.Errorf("page field %s: a JSON %s, want a %s", field, kindName(k), kindName(want))
	}
}

func (pd *pageDecoder) str(field string) (string, error) {
	v, err := pd.value(field, '"')
	if err != nil || v == nil {
		return "", err
	}
	if bytes.IndexByte(v, '\\') < 0 {
		return string(v[1 : len(v)-1]), nil
	}
	u, err := jsontext.AppendUnquote(nil, v)
	return string(u), err
}

func (pd *pageDecoder) int(field string) (int, error) {
	v, err := pd.value(field, '0')
	if err != nil || v == nil {
		return 0, err
	}
	n, err := strconv.Atoi(string(v))
	if err != nil {
		return 0, fmt.Errorf("page field %s: %s is not an integer", field, v)
	}
	return n, nil
}

func (pd *pageDecoder) intPtr(field string) (*int, error) {
	v, err := pd.value(field, '0')
	if err != nil || v == nil {
		return nil, err
	}
	n, err := strconv.Atoi(string(v))
	if err != nil {
		return nil, fmt.Errorf("page field %s: %s is not an integer", field, v)
	}
	return &n, nil
}

func (pd *pageDecoder) bool(field string) (bool, error) {
	v, err := pd.value(field, 't')
	return v != nil && v.Kind() == 't', err
}

// findings reads the finding IDs of a page, interned, appended to out.
func (pd *pageDecoder) findings(out []string) ([]string, error) {
	dec := pd.dec
	if dec.PeekKind() == 'n' {
		_, err := dec.ReadToken()
		return nil, err
	}
	err := eachElement(dec, func() error {
		v, err := pd.value("findings", '"')
		if err != nil || v == nil {
			return err
		}
		if id, ok := pd.ids[string(v)]; ok {
			out = append(out, id)
			return nil
		}
		id, err := jsontext.AppendUnquote(nil, v)
		if err != nil {
			return err
		}
		pd.ids[string(v)] = string(id)
		out = append(out, string(id))
		return nil
	})
	return out, err
}

// kindName names a JSON kind in errors.
func kindName(k jsontext.Kind) string {
	switch k {
	case '"':
		return "string"
	case '0':
		return "number"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	case '{':
		return "object"
	case '[':
		return "array"
	}
	return "value"
}

// walk calls fn for each key of the file's top-level object, with the
// decoder positioned before the key's value.
func (f *fileSource) walk(ctx context.Context, fn func(key string, dec *jsontext.Decoder) error) error {
	file, err := f.open()
	if err != nil {
		return err
	}
	defer file.Close()
	// Reports are written by encoding/json: as it does, accept duplicate
	// names (the last wins) and invalid UTF-8.
	dec := jsontext.NewDecoder(file, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if t, err := dec.ReadToken(); err != nil || t.Kind() != '{' {
		return fmt.Errorf("%s: not a site report (a JSON object): %v", f.path, cmp.Or(err, errors.New("no object")))
	}
	for dec.PeekKind() == '"' {
		if err := ctx.Err(); err != nil {
			return err
		}
		t, err := dec.ReadToken()
		if err != nil {
			return fmt.Errorf("%s: %w", f.path, err)
		}
		key := t.String()
		if err := fn(key, dec); err != nil {
			return fmt.Errorf("%s: %s: %w", f.path, key, err)
		}
	}
	if _, err := dec.ReadToken(); err != nil { // the closing brace
		return fmt.Errorf("%s: %w", f.path, err)
	}
	return nil
}

// eachElement calls fn for each element of the JSON array the decoder is
// positioned at (null counts as empty).
func eachElement(dec *jsontext.Decoder, fn func() error) error {
	t, err := dec.ReadToken()
	if err != nil {
		return err
	}
	switch t.Kind() {
	case 'n':
		return nil
	case '[':
	default:
		return errors.New("not an array")
	}
	for {
		switch dec.PeekKind() {
		case ']':
			_, err := dec.ReadToken()
			return err
		case 0: // an error: ReadToken returns it
			_, err := dec.ReadToken()
			return cmp.Or(err, io.ErrUnexpectedEOF)
		}
		if err := fn(); err != nil {
			return err
		}
	}
}

// depthOf returns the click depth of p, or -1 when no link reached it.
func depthOf(p *crawler.PageSummary) int {
	if p.Depth == nil {
		return -1
	}
	return *p.Depth
}
