package monitor

import (
	"bytes"
	"cmp"
	"container/heap"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/compare"
	"github.com/seokit/seokit/logs"
	"github.com/seokit/seokit/seo"
)

// Kind is the kind of an alert rule: what change it watches for.
type Kind string

// Rule kinds.
const (
	// KindNewFindings fires on finding IDs at or above Params.Severity that
	// are new, or on more pages than before.
	KindNewFindings Kind = "new_findings"
	// KindTopPageChanged fires when a page among the Params.TopN pages with
	// the highest link score (of the earlier crawl) turned noindex,
	// canonicalised to another URL, or 4xx/5xx.
	KindTopPageChanged Kind = "top_page_changed"
	// KindRobotsChanged fires when robots.txt changed (status, content or
	// its sitemaps).
	KindRobotsChanged Kind = "robots_changed"
	// KindSitemapsChanged fires when sitemaps were added, removed, or
	// changed status or URL count.
	KindSitemapsChanged Kind = "sitemaps_changed"
	// KindPagesLost fires when at least Params.MinPages URLs crawled before
	// are no longer crawled.
	KindPagesLost Kind = "pages_lost"
	// KindScoreDrop fires when the site score fell by at least
	// Params.Points.
	KindScoreDrop Kind = "score_drop"
	// KindKeywordDrop fires when a tracked keyword fell by more than
	// Params.Positions, or out of the top 10, or out of the results.
	KindKeywordDrop Kind = "keyword_drop"
	// KindSiteDown fires when an analysis reached no page of the site:
	// the start URL, or the robots.txt fetched before it, gave no response
	// (DNS, connection, TLS, timeout), or robots.txt answered 5xx or 429
	// so nothing could be crawled (Input.Down). It needs no earlier
	// analysis.
	KindSiteDown Kind = "site_down"
	// KindBotErrorsRising fires when a verified search bot got more 5xx
	// answers on the last day of a parsed access log than before: its 5xx
	// share of that day is at least Params.Points percentage points above
	// its share on the log's earlier days (Input.Logs).
	KindBotErrorsRising Kind = "bot_5xx_rising"
	// KindBotDisallowed fires when a bot fetched at least Params.MinPages
	// URLs that the site's robots.txt disallows for it (Input.Logs joined
	// with a crawl).
	KindBotDisallowed Kind = "bot_disallowed"
)

// Kinds lists every rule kind.
var Kinds = []Kind{KindNewFindings, KindTopPageChanged, KindRobotsChanged, KindSitemapsChanged, KindPagesLost, KindScoreDrop, KindKeywordDrop, KindSiteDown,
	KindBotErrorsRising, KindBotDisallowed}

// Down describes an analysis that reached no page of its site; site_down
// reads it.
type Down struct {
	// StartURL is where the analysis started.
	StartURL string
	// Reason is the report's crawler.SiteReport.ScoreReason:
	// crawler.SiteUnreachable or crawler.SiteRobotsUnavailable.
	Reason string
	// Unreachable says how the site failed when Reason is
	// crawler.SiteUnreachable (crawler.CrawlStats.Unreachable).
	Unreachable *seo.Unreachable
	// RobotsStatus is the status robots.txt answered when Reason is
	// crawler.SiteRobotsUnavailable.
	RobotsStatus int
	// StartedAt identifies the analysis, so that each analysis of an
	// outage has its own fingerprint (and the same change key).
	StartedAt time.Time
}

// SiteDown returns what site_down reads of a site report: nil when some
// URL of the site answered, or when robots.txt disallows the start URL
// (the site answered; its owner shut crawlers out).
func SiteDown(rep *crawler.SiteReport) *Down {
	if rep == nil || rep.Score != nil {
		return nil
	}
	switch rep.ScoreReason {
	case crawler.SiteUnreachable, crawler.SiteRobotsUnavailable:
	default:
		return nil
	}
	return &Down{StartURL: rep.StartURL, Reason: rep.ScoreReason, Unreachable: rep.Crawl.Unreachable,
		RobotsStatus: rep.Robots.Status, StartedAt: rep.StartedAt}
}

// Defaults of Params.
const (
	DefaultSeverity  = "error"
	DefaultTopN      = 20
	DefaultMinPages  = 1
	DefaultPoints    = 5
	DefaultPositions = 5
	// MaxTopN caps Params.TopN.
	MaxTopN = 1000
	// MaxChanges caps Alert.Changes; Alert.Omitted counts the rest.
	MaxChanges = 10
	// MaxExamples caps the example URLs of one change.
	MaxExamples = 3
)

// Params are a rule's parameters, as JSON; each kind reads its own and
// zero means the default.
type Params struct {
	// Severity is the lowest severity of new_findings: "error" (default),
	// "warning" or "notice".
	Severity string `json:"severity,omitempty"`
	// TopN is the number of pages, by link score, that top_page_changed
	// watches; zero means 20, at most 1000.
	TopN int `json:"topN,omitempty"`
	// MinPages is the number of lost pages from which pages_lost fires;
	// zero means 1.
	MinPages int `json:"minPages,omitempty"`
	// Points is the site-score drop from which score_drop fires; zero
	// means 5.
	Points int `json:"points,omitempty"`
	// Positions is the fall in rank beyond which keyword_drop fires (a fall
	// out of the top 10 always does); zero means 5.
	Positions int `json:"positions,omitempty"`
}

// Rule is what an alert rule evaluates: its kind and parameters.
type Rule struct {
	Kind   Kind   `json:"kind"`
	Params Params `json:"params"`
}

// ParseRule validates a rule's kind and JSON parameters (nil or empty
// means the defaults) and returns it with the defaults filled in. Errors
// are *seo.InputError naming "kind" or "params.<name>".
func ParseRule(kind string, params []byte) (Rule, error) {
	r := Rule{Kind: Kind(kind)}
	if !slices.Contains(Kinds, r.Kind) {
		names := make([]string, len(Kinds))
		for i, k := range Kinds {
			names[i] = string(k)
		}
		return r, &seo.InputError{Field: "kind", Value: kind, Reason: "must be one of " + strings.Join(names, ", "), Err: seo.ErrInvalidInput}
	}
	if len(bytes.TrimSpace(params)) > 0 && !bytes.Equal(bytes.TrimSpace(params), []byte("null")) {
		dec := json.NewDecoder(bytes.NewReader(params))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r.Params); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) && te.Field != "" {
				want := "a whole number"
				if te.Type.Kind() == reflect.String {
					want = "a string"
				}
				return r, &seo.InputError{Field: "params." + te.Field, Value: te.Value, Reason: "must be " + want, Err: seo.ErrInvalidInput}
			}
			if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
				name, _ := strconv.Unquote(f)
				return r, &seo.InputError{Field: "params." + seo.Clip(name), Reason: "is not a parameter: use severity, topN, minPages, points or positions", Err: seo.ErrInvalidInput}
			}
			return r, &seo.InputError{Field: "params", Reason: "must be an object of severity, topN, minPages, points, positions", Err: seo.ErrInvalidInput}
		}
	}
	p := &r.Params
	if p.Severity == "" {
		p.Severity = DefaultSeverity
	}
	sev, err := seo.ParseSeverity(p.Severity)
	if err != nil {
		return r, &seo.InputError{Field: "params.severity", Value: p.Severity, Reason: `must be "error", "warning" or "notice"`, Err: seo.ErrInvalidInput}
	}
	p.Severity = sev.String()
	for _, f := range []struct {
		name string
		v    *int
		def  int
		max  int
	}{{"topN", &p.TopN, DefaultTopN, MaxTopN}, {"minPages", &p.MinPages, DefaultMinPages, 1 << 30}, {"points", &p.Points, DefaultPoints, 100}, {"positions", &p.Positions, DefaultPositions, 100}} {
		if *f.v < 0 || *f.v > f.max {
			return r, &seo.InputError{Field: "params." + f.name, Value: strconv.Itoa(*f.v), Reason: fmt.Sprintf("must be between 1 and %d", f.max), Err: seo.ErrInvalidInput}
		}
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	return r, nil
}

// KeywordPosition is a tracked keyword's rank in two rank checks; nil
// means not found in the results checked.
type KeywordPosition struct {
	Keyword string `json:"keyword"`
	Old     *int   `json:"old"`
	New     *int   `json:"new"`
}

// Input is what Evaluate reads.
type Input struct {
	// Domain is the site the alert is about.
	Domain string
	// Diff compares the earlier and the later crawl (compare.Sites); nil
	// when only keywords are evaluated.
	Diff *compare.Diff
	// TopPages are the URLs with the highest link score in the earlier
	// crawl, highest first (see TopPages); top_page_changed reads them.
	TopPages []string
	// Keywords are the positions of tracked keywords before and after, for
	// keyword_drop.
	Keywords []KeywordPosition
	// Down is set when the later analysis reached no page of the site
	// (SiteDown), for site_down; Diff is then nil, as there is nothing to
	// compare.
	Down *Down
	// Logs is the report of a parsed access log, for bot_5xx_rising and
	// bot_disallowed; nil when no log is evaluated.
	Logs *logs.Report
	// Links are copied into each alert.
	Links Links
	// Now stamps the alerts; zero means time.Now.
	Now time.Time
}

// Links point to where a change can be seen.
type Links struct {
	// Diff is the API's diff of the two analyses
	// (/v1/analyze/site/{id}/diff?against={previous}).
	Diff string `json:"diff,omitempty"`
	// Dashboard is the dashboard's view of the diff.
	Dashboard string `json:"dashboard,omitempty"`
	// Analysis is the later analysis.
	Analysis string `json:"analysis,omitempty"`
}

// Change is one thing that changed: a page, a finding ID, a keyword,
// robots.txt or a sitemap.
type Change struct {
	// Subject is what changed: a URL, a finding ID, a keyword.
	Subject string `json:"subject"`
	// What says how, in a few words ("turned noindex", "new on 3 pages").
	What string `json:"what"`
	// Old and New are the values before and after, when they are values.
	Old string `json:"old,omitempty"`
	New string `json:"new,omitempty"`
	// Examples are a few URLs (a finding's new pages, lost pages).
	Examples []string `json:"examples,omitempty"`
}

// Alert is one rule's finding about a change, as it is sent.
type Alert struct {
	// Rule and Project are the IDs of the rule and project (set by the
	// caller); Kind is the rule's kind.
	Rule    string `json:"rule,omitempty"`
	Project string `json:"project,omitempty"`
	Kind    Kind   `json:"kind"`
	Domain  string `json:"domain"`
	// Title is a one-line summary ("3 new error findings on example.com").
	Title string `json:"title"`
	// Count is the number of changes; Changes lists the first MaxChanges
	// and Omitted counts the others.
	Count   int      `json:"count"`
	Changes []Change `json:"changes"`
	Omitted int      `json:"omitted,omitempty"`
	// Note is a caveat, such as a diff list cut at its cap.
	Note  string `json:"note,omitempty"`
	Links Links  `json:"links"`
	// Fingerprint identifies this change from this earlier state: the
	// same change evaluated again (the same two crawls) has the same
	// fingerprint, and a page that flaps back and forth gets a new one at
	// each state change. ChangeKey identifies the change alone (the same
	// for each flap), for cool-downs.
	Fingerprint string `json:"fingerprint"`
	ChangeKey   string `json:"changeKey"`
	// Test marks the alerts sent by the test endpoint.
	Test      bool      `json:"test,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
}

// Evaluate returns the rule's alert about in, or nil when nothing it
// watches changed. It reads the facts compare.Sites computed; it
// computes no comparison of its own.
func Evaluate(r Rule, in *Input) *Alert {
	var (
		ch    []Change
		state string // what identifies the earlier and later states
		title string
		note  string
	)
	d := in.Diff
	if d != nil {
		state = d.Old.StartedAt.UTC().Format(time.RFC3339Nano) + ">" + d.New.StartedAt.UTC().Format(time.RFC3339Nano)
	}
	dom := cmp.Or(in.Domain, sideDomain(d))
	switch r.Kind {
	case KindNewFindings:
		if d == nil {
			return nil
		}
		sev, _ := seo.ParseSeverity(cmp.Or(r.Params.Severity, DefaultSeverity))
		for _, f := range d.Findings {
			if f.Severity < sev || !(f.Status == compare.FindingNew || f.Status == compare.FindingPersisting && f.NewPages > f.OldPages) {
				continue
			}
			what := fmt.Sprintf("new %s on %d page(s)", f.Severity, f.NewOn.Count)
			if f.Status == compare.FindingPersisting {
				what = fmt.Sprintf("%s now on %d page(s), was %d", f.Severity, f.NewPages, f.OldPages)
			}
			ch = append(ch, Change{Subject: f.ID, What: what, Old: strconv.Itoa(f.OldPages), New: strconv.Itoa(f.NewPages), Examples: first(f.NewOn.URLs)})
		}
		title = fmt.Sprintf("%d new finding(s) at or above %s on %s", len(ch), sev, dom)
	case KindTopPageChanged:
		if d == nil {
			return nil
		}
		n := cmp.Or(r.Params.TopN, DefaultTopN)
		top := map[string]bool{}
		for _, u := range in.TopPages[:min(n, len(in.TopPages))] {
			top[u] = true
		}
		for _, pc := range d.Changed {
			if top[pc.URL] {
				ch = append(ch, topPageChanges(pc)...)
			}
		}
		if _, cut := d.Truncated["changed"]; cut {
			note = "the diff lists only the first changed pages by URL; a top page beyond them is not checked"
		}
		title = fmt.Sprintf("%d top page change(s) on %s", len(ch), dom)
	case KindRobotsChanged:
		if d == nil || d.Robots == nil {
			return nil
		}
		rc := d.Robots
		for _, f := range rc.Fields {
			c := Change{Subject: "robots.txt", What: f + " changed"}
			switch f {
			case "status":
				c.Old, c.New = robotsStatus(rc.Old), robotsStatus(rc.New)
			case "content":
				c.Old, c.New = fmt.Sprintf("%d bytes, sha256 %s", rc.Old.Bytes, short(rc.Old.SHA256)), fmt.Sprintf("%d bytes, sha256 %s", rc.New.Bytes, short(rc.New.SHA256))
			case "sitemaps":
				c.Old, c.New = strings.Join(rc.Old.Sitemaps, " "), strings.Join(rc.New.Sitemaps, " ")
			}
			ch = append(ch, c)
		}
		title = "robots.txt changed on " + dom
	case KindSitemapsChanged:
		if d == nil || d.Sitemaps == nil {
			return nil
		}
		sc := d.Sitemaps
		for _, u := range sc.Added {
			ch = append(ch, Change{Subject: u, What: "sitemap added"})
		}
		for _, u := range sc.Removed {
			ch = append(ch, Change{Subject: u, What: "sitemap removed"})
		}
		for _, c := range sc.Changed {
			ch = append(ch, Change{Subject: c.URL, What: "sitemap changed",
				Old: fmt.Sprintf("status %d, %d URLs", c.OldStatus, c.OldURLs), New: fmt.Sprintf("status %d, %d URLs", c.NewStatus, c.NewURLs)})
		}
		title = fmt.Sprintf("%d sitemap change(s) on %s", len(ch), dom)
	case KindPagesLost:
		if d == nil || d.Removed.Count < max(r.Params.MinPages, 1) {
			return nil
		}
		for _, u := range d.Removed.URLs {
			ch = append(ch, Change{Subject: u, What: "no longer crawled"})
		}
		title = fmt.Sprintf("%d page(s) lost on %s", d.Removed.Count, dom)
		a := newAlert(r, in, dom, title, ch, state, note)
		a.Count, a.Omitted = d.Removed.Count, d.Removed.Count-len(a.Changes)
		return a
	case KindScoreDrop:
		// A crawl without a score (a site down) is site_down's to report,
		// not a drop to zero.
		if d == nil || d.Score == nil || -*d.Score < cmp.Or(r.Params.Points, DefaultPoints) {
			return nil
		}
		ch = append(ch, Change{Subject: "site score", What: fmt.Sprintf("fell %d points", -*d.Score), Old: strconv.Itoa(*d.Old.Score), New: strconv.Itoa(*d.New.Score)})
		title = fmt.Sprintf("site score of %s fell from %d to %d", dom, *d.Old.Score, *d.New.Score)
	case KindSiteDown:
		dn := in.Down
		if dn == nil {
			return nil
		}
		state = dn.StartedAt.UTC().Format(time.RFC3339Nano)
		c := Change{Subject: cmp.Or(dn.StartURL, dom)}
		switch {
		case dn.Unreachable != nil:
			c.Subject = cmp.Or(dn.Unreachable.URL, c.Subject)
			c.What = "no response (" + dn.Unreachable.Kind + ")"
			c.New = seo.ClipTo(dn.Unreachable.Error, 200)
		case dn.Reason == crawler.SiteRobotsUnavailable:
			c.What = "robots.txt unavailable, nothing crawled"
			c.New = fmt.Sprintf("robots.txt status %d", dn.RobotsStatus)
		default:
			c.What = "no page reached"
		}
		ch = append(ch, c)
		title = fmt.Sprintf("%s is down: %s", dom, c.What)
	case KindBotErrorsRising:
		if in.Logs == nil {
			return nil
		}
		ch, state = botErrorsRising(in.Logs, cmp.Or(r.Params.Points, DefaultPoints))
		title = fmt.Sprintf("%d verified search bot(s) got more 5xx answers on %s", len(ch), dom)
	case KindBotDisallowed:
		if in.Logs == nil || in.Logs.Join == nil {
			return nil
		}
		ch, state = botDisallowed(in.Logs, max(r.Params.MinPages, 1))
		title = fmt.Sprintf("%d bot(s) fetched URLs robots.txt disallows on %s", len(ch), dom)
	case KindKeywordDrop:
		n := cmp.Or(r.Params.Positions, DefaultPositions)
		for _, k := range in.Keywords {
			if k.Old == nil {
				continue
			}
			c := Change{Subject: k.Keyword, Old: strconv.Itoa(*k.Old), New: "not found"}
			switch {
			case k.New == nil:
				c.What = "fell out of the results"
			case *k.New-*k.Old > n:
				c.What, c.New = fmt.Sprintf("fell %d positions", *k.New-*k.Old), strconv.Itoa(*k.New)
			case *k.Old <= 10 && *k.New > 10:
				c.What, c.New = "fell out of the top 10", strconv.Itoa(*k.New)
			default:
				continue
			}
			ch = append(ch, c)
			state += "|" + k.Keyword + ":" + c.Old + ">" + c.New
		}
		title = fmt.Sprintf("%d tracked keyword(s) fell on %s", len(ch), dom)
	default:
		return nil
	}
	if len(ch) == 0 {
		return nil
	}
	return newAlert(r, in, dom, title, ch, state, note)
}

func newAlert(r Rule, in *Input, dom, title string, ch []Change, state, note string) *Alert {
	a := &Alert{Kind: r.Kind, Domain: dom, Title: title, Count: len(ch), Note: note, Links: in.Links,
		CreatedAt: cmp.Or(in.Now, time.Now()).UTC()}
	// The change key hashes the rule and every change (not only the ones
	// kept), so that two different changes never share it.
	h := sha256.New()
	rule, _ := json.Marshal(r)
	h.Write(rule)
	for _, c := range ch {
		fmt.Fprintf(h, "\x00%s\x01%s\x01%s\x01%s", c.Subject, c.What, c.Old, c.New)
	}
	a.ChangeKey = hex.EncodeToString(h.Sum(nil))[:32]
	fp := sha256.Sum256([]byte(a.ChangeKey + "@" + state))
	a.Fingerprint = hex.EncodeToString(fp[:])[:32]
	if len(ch) > MaxChanges {
		a.Omitted = len(ch) - MaxChanges
		ch = slices.Clip(ch[:MaxChanges])
	}
	a.Changes = ch
	return a
}

// topPageChanges returns the changes of a page that hurt it: turned
// noindex, canonicalised elsewhere, or answering 4xx/5xx.
func topPageChanges(pc compare.PageChange) []Change {
	var out []Change
	for _, fc := range pc.Changes {
		switch fc.Field {
		case compare.FieldNoindex:
			if fc.New == "true" {
				out = append(out, Change{Subject: pc.URL, What: "turned noindex", Old: "index", New: "noindex"})
			}
		case compare.FieldCanonical:
			if fc.New != "" && fc.New != pc.URL {
				out = append(out, Change{Subject: pc.URL, What: "canonicalised to another URL", Old: fc.Old, New: fc.New})
			}
		case compare.FieldStatus:
			o, _ := strconv.Atoi(fc.Old)
			n, _ := strconv.Atoi(fc.New)
			if n >= 400 && (o < 400 || o/100 != n/100) {
				out = append(out, Change{Subject: pc.URL, What: fmt.Sprintf("answers %d", n), Old: fc.Old, New: fc.New})
			}
		}
	}
	return out
}

func robotsStatus(r crawler.RobotsSummary) string {
	if r.Error != "" {
		return fmt.Sprintf("%d (%s)", r.Status, seo.ClipTo(r.Error, 80))
	}
	return strconv.Itoa(r.Status)
}

func short(h string) string { return h[:min(len(h), 12)] }

func first(urls []string) []string {
	if len(urls) == 0 {
		return nil
	}
	return slices.Clone(urls[:min(len(urls), MaxExamples)])
}

func sideDomain(d *compare.Diff) string {
	if d == nil {
		return ""
	}
	return cmp.Or(d.New.Domain, d.Old.Domain)
}

// TopPages returns the n URLs of src with the highest link score, highest
// first (ties by URL). It streams the pages and holds n of them.
func TopPages(ctx context.Context, src compare.Source, n int) ([]string, error) {
	if n <= 0 {
		return nil, nil
	}
	h := &scoreHeap{}
	for p, err := range src.Pages(ctx) {
		if err != nil {
			return nil, err
		}
		e := scored{p.URL, p.LinkScore}
		if h.Len() < n {
			heap.Push(h, e)
		} else if less((*h)[0], e) {
			(*h)[0] = e
			heap.Fix(h, 0)
		}
	}
	out := make([]string, h.Len())
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(h).(scored).url
	}
	return out, nil
}

type scored struct {
	url   string
	score float64
}

// less orders by score, then by URL descending, so that the URL first
// alphabetically wins a tie.
func less(a, b scored) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return a.url > b.url
}

type scoreHeap []scored

func (h scoreHeap) Len() int           { return len(h) }
func (h scoreHeap) Less(i, j int) bool { return less(h[i], h[j]) }
func (h scoreHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *scoreHeap) Push(x any)        { *h = append(*h, x.(scored)) }
func (h *scoreHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Text renders the alert as plain text: the title, one line per change
// and the links.
func (a *Alert) Text() string {
	var b strings.Builder
	b.WriteString(a.Title)
	b.WriteString("\n")
	for _, c := range a.Changes {
		b.WriteString("- " + c.line() + "\n")
	}
	if a.Omitted > 0 {
		fmt.Fprintf(&b, "- and %d more\n", a.Omitted)
	}
	if a.Note != "" {
		b.WriteString("Note: " + a.Note + "\n")
	}
	if a.Links.Dashboard != "" {
		b.WriteString("Dashboard: " + a.Links.Dashboard + "\n")
	}
	if a.Links.Diff != "" {
		b.WriteString("Diff: " + a.Links.Diff + "\n")
	}
	return b.String()
}

func (c Change) line() string {
	s := c.Subject + ": " + c.What
	if c.Old != "" || c.New != "" {
		s += " (" + cmp.Or(c.Old, `""`) + " → " + cmp.Or(c.New, `""`) + ")"
	}
	if len(c.Examples) > 0 {
		s += " e.g. " + strings.Join(c.Examples, ", ")
	}
	return s
}
