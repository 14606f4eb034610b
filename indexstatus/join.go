package indexstatus

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/seo"
)

// MaxExamples caps the further URLs a finding lists as examples.
const MaxExamples = 10

// Report is the index status of a crawl's sample, joined to the crawl.
type Report struct {
	Domain   string `json:"domain"`
	Property string `json:"property"`
	// Source names the inspector ("searchconsole").
	Source     string    `json:"source"`
	StartedAt  time.Time `json:"startedAt"`
	FinishedAt time.Time `json:"finishedAt"`
	// Sample is how the inspected pages were chosen.
	Sample Sample `json:"sample"`
	// SampleLimit says what cut the sample below the eligible pages:
	// LimitDailyQuota (the property's inspections left today) or
	// LimitSampleSize (Options.SampleSize); "" when every eligible page was
	// sampled.
	SampleLimit string `json:"sampleLimit,omitempty"`
	// Quota is what the run used of the property's quotas.
	Quota QuotaUse `json:"quota"`
	// Counts sums up Pages.
	Counts Counts `json:"counts"`
	// Pages are the sampled pages, highest LinkScore first, each with its
	// inspection or the reason it has none.
	Pages []Page `json:"pages"`
	// Findings has one finding per index.* ID with its count and example
	// URLs, highest priority first.
	Findings []seo.Finding `json:"findings"`
}

// Values of Report.SampleLimit.
const (
	LimitDailyQuota = "daily_quota"
	LimitSampleSize = "sample_size"
)

// QuotaUse is what a run used of a property's quotas.
type QuotaUse struct {
	Quota Quota `json:"quota"`
	// UsedBefore and UsedAfter are the property's inspections counted
	// today (Pacific time) by the ledger before and after the run.
	UsedBefore int `json:"usedBefore"`
	UsedAfter  int `json:"usedAfter"`
	// PeakPerMinute is the most inspections started in one clock minute;
	// Minutes the clock minutes with inspections.
	PeakPerMinute int `json:"peakPerMinute"`
	Minutes       int `json:"minutes"`
	// Made counts the inspections started per Pacific-time day.
	Made []DayCount `json:"made"`
}

// DayCount is the inspections started on one day (YYYY-MM-DD).
type DayCount struct {
	Day         string `json:"day"`
	Inspections int    `json:"inspections"`
}

// Counts sums up a report's pages.
type Counts struct {
	Sampled      int `json:"sampled"`
	Inspected    int `json:"inspected"`
	Failed       int `json:"failed"`
	NotInspected int `json:"notInspected"`
	// NotInspectedReasons splits NotInspected by reason.
	NotInspectedReasons map[string]int `json:"notInspectedReasons,omitempty"`
	// Indexed and NotIndexed split Inspected by Google's answer.
	Indexed    int `json:"indexed"`
	NotIndexed int `json:"notIndexed"`
	// CanonicalMismatch counts the pages whose Google-selected canonical
	// is not the declared one.
	CanonicalMismatch int `json:"canonicalMismatch"`
}

// Page is one sampled page: what the crawl saw and what Google reports.
type Page struct {
	URL       string  `json:"url"`
	Template  string  `json:"template,omitempty"`
	Segment   string  `json:"segment,omitempty"`
	LinkScore float64 `json:"linkScore"`
	// InSitemap, Noindex and DeclaredCanonical are the crawl's:
	// DeclaredCanonical is the page's canonical, or its own URL when it
	// declares none.
	InSitemap         bool   `json:"inSitemap"`
	Noindex           bool   `json:"noindex"`
	DeclaredCanonical string `json:"declaredCanonical"`
	// Status is inspected, failed or not_inspected; Reason says why for
	// the last two.
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
	// Inspection is Search Console's answer; nil unless inspected.
	Inspection *Inspection `json:"inspection"`
	// Indexed is whether Google reports the URL indexed; nil (null) when
	// not inspected: unknown, not "no".
	Indexed *bool `json:"indexed"`
	// CanonicalMatches is whether Google's canonical is the declared one;
	// nil when not inspected or Google chose none.
	CanonicalMatches *bool `json:"canonicalMatches"`
	// Findings are the index.* IDs the page reports.
	Findings []string `json:"findings,omitempty"`
}

var catalog = []seo.CheckInfo{
	{ID: "index.canonical_mismatch", Severity: seo.Warning, Scope: seo.ScopeSite,
		Summary: "Google selected a canonical URL other than the one the page declares (its own URL when it declares none): Google indexes the other URL instead.",
		Source:  "Google Search Console Help, URL Inspection tool: Google-selected canonical (https://support.google.com/webmasters/answer/9012289); Search Central, Consolidate duplicate URLs (https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls)"},
	{ID: "index.indexed_noindex", Severity: seo.Warning, Scope: seo.ScopeSite,
		Summary: "Google reports the URL indexed, but the crawl found a noindex rule: Google has not recrawled it since the rule was added, or the rule is not meant for it.",
		Source:  "Google Search Central, Block Search indexing with noindex (https://developers.google.com/search/docs/crawling-indexing/block-indexing)"},
	{ID: "index.crawled_not_indexed", Severity: seo.Warning, Scope: seo.ScopeSite,
		Summary: "Google crawled the URL and chose not to index it (\"Crawled - currently not indexed\").",
		Source:  "Google Search Console Help, Page indexing report (https://support.google.com/webmasters/answer/7440203)"},
	{ID: "index.discovered_not_indexed", Severity: seo.Notice, Scope: seo.ScopeSite,
		Summary: "Google knows the URL but has not crawled it yet (\"Discovered - currently not indexed\").",
		Source:  "Google Search Console Help, Page indexing report (https://support.google.com/webmasters/answer/7440203)"},
	{ID: "index.submitted_not_indexed", Severity: seo.Warning, Scope: seo.ScopeSite,
		Summary: "The URL is in a sitemap (the crawl's or one Google knows) yet Google does not index it.",
		Source:  "Google Search Console Help, Page indexing report, submitted pages (https://support.google.com/webmasters/answer/7440203); Screaming Frog, URL Inspection API integration (https://www.screamingfrog.co.uk/seo-spider/user-guide/configuration/#search-console)"},
	{ID: "index.unknown_to_google", Severity: seo.Notice, Scope: seo.ScopeSite,
		Summary: "An indexable page of the crawl is unknown to Google (\"URL is unknown to Google\"): no link or sitemap Google read leads to it.",
		Source:  "Google Search Console Help, URL Inspection tool (https://support.google.com/webmasters/answer/9012289)"},
	{ID: "index.robots_blocked", Severity: seo.Warning, Scope: seo.ScopeSite,
		Summary: "Google reports robots.txt blocks the URL for Googlebot while the crawl could fetch it: the rules differ by user agent, or Google read an older robots.txt.",
		Source:  "Google Search Central, robots.txt introduction (https://developers.google.com/search/docs/crawling-indexing/robots/intro)"},
	{ID: "index.fetch_failed", Severity: seo.Warning, Scope: seo.ScopeSite,
		Summary: "Google's last fetch of the URL failed (soft 404, not found, server error, redirect error, access denied) while the crawl got a 2xx answer.",
		Source:  "Google Search Console Help, URL Inspection tool: page fetch (https://support.google.com/webmasters/answer/9012289)"},
	{ID: "index.stale_crawl", Severity: seo.Notice, Scope: seo.ScopeSite,
		Summary: "Google last crawled the URL more than 90 days ago (Options.StaleAfter): changes to it are not in Google's index.",
		Source:  "Google Search Console Help, URL Inspection tool: last crawl (https://support.google.com/webmasters/answer/9012289)",
		Differs: "seokit's own threshold; Search Console reports the date without judging it."},
}

// Catalog returns the index status checks, sorted by ID.
func Catalog() []seo.CheckInfo {
	out := slices.Clone(catalog)
	slices.SortFunc(out, func(a, b seo.CheckInfo) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

func checkInfo(id string) seo.CheckInfo {
	for _, c := range catalog {
		if c.ID == id {
			return c
		}
	}
	panic("indexstatus: unknown check " + id)
}

// sameURL compares two URLs after seokit's normalisation.
func sameURL(a, b string) bool {
	if a == b {
		return true
	}
	ua, err1 := seo.ParseURL(a)
	ub, err2 := seo.ParseURL(b)
	return err1 == nil && err2 == nil && seo.NormalizeURL(ua, nil).String() == seo.NormalizeURL(ub, nil).String()
}

// join fills r's pages, counts and findings from the sample and results.
func join(r *Report, pages []*crawler.PageSummary, results []result, staleAfter time.Duration) {
	r.Pages = make([]Page, len(pages))
	r.Counts.Sampled = len(pages)
	var found []seo.Finding
	for i, p := range pages {
		res := results[i]
		pg := Page{
			URL: p.URL, Template: p.Template, Segment: p.Segment, LinkScore: p.LinkScore,
			InSitemap: p.InSitemap, Noindex: p.Noindex, DeclaredCanonical: cmp.Or(p.Canonical, p.FinalURL, p.URL),
			Status: res.status, Reason: res.reason, Inspection: res.in,
		}
		switch res.status {
		case StatusFailed:
			r.Counts.Failed++
		case StatusNotInspected:
			r.Counts.NotInspected++
			if r.Counts.NotInspectedReasons == nil {
				r.Counts.NotInspectedReasons = map[string]int{}
			}
			r.Counts.NotInspectedReasons[res.reason]++
		case StatusInspected:
			r.Counts.Inspected++
			in := res.in
			idx := in.Indexed()
			pg.Indexed = &idx
			if idx {
				r.Counts.Indexed++
			} else {
				r.Counts.NotIndexed++
			}
			if in.GoogleCanonical != "" {
				m := sameURL(in.GoogleCanonical, pg.DeclaredCanonical)
				pg.CanonicalMatches = &m
				if !m {
					r.Counts.CanonicalMismatch++
				}
			}
			for _, f := range pageFindings(p, &pg, in, r.FinishedAt, staleAfter) {
				pg.Findings = append(pg.Findings, f.ID)
				found = append(found, f)
			}
		}
		r.Pages[i] = pg
	}
	slices.SortStableFunc(found, func(a, b seo.Finding) int { return cmp.Compare(a.ID, b.ID) })
	r.Findings = seo.GroupFindings(found, MaxExamples)
	for i := range r.Findings {
		f := &r.Findings[i]
		f.Priority = seo.Priority(f.Severity, seo.SiteReach(f.Occurrences(), max(r.Counts.Inspected, 1)), false)
		f.Message = fmt.Sprintf("%s (%d of %d inspected pages)", checkInfo(f.ID).Summary, f.Occurrences(), r.Counts.Inspected)
	}
	slices.SortStableFunc(r.Findings, func(a, b seo.Finding) int {
		if c := cmp.Compare(b.Priority, a.Priority); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	if r.Findings == nil {
		r.Findings = []seo.Finding{}
	}
}

// pageFindings returns the index.* findings of one inspected page.
func pageFindings(p *crawler.PageSummary, pg *Page, in *Inspection, now time.Time, staleAfter time.Duration) []seo.Finding {
	var out []seo.Finding
	add := func(id, value, detail string, urls ...string) {
		c := checkInfo(id)
		out = append(out, seo.Finding{ID: id, Severity: c.Severity, URL: p.URL, Count: 1, Message: c.Summary,
			Evidence: seo.Evidence{Element: "Search Console", Value: seo.Clip(value), Detail: detail, URLs: urls}})
	}
	indexed := in.Indexed()
	if pg.CanonicalMatches != nil && !*pg.CanonicalMatches {
		add("index.canonical_mismatch", in.GoogleCanonical, "declared "+pg.DeclaredCanonical, p.URL, in.GoogleCanonical)
	}
	if indexed && p.Noindex {
		add("index.indexed_noindex", in.Coverage, "the crawl found noindex")
	}
	switch in.Coverage {
	case CoverageCrawledNotIndexed:
		add("index.crawled_not_indexed", in.Coverage, lastCrawlDetail(in))
	case CoverageDiscoveredNotIndex:
		add("index.discovered_not_indexed", in.Coverage, "")
	case CoverageUnknown:
		if p.Indexable {
			add("index.unknown_to_google", in.Coverage, "")
		}
	}
	if !indexed && (p.InSitemap || len(in.Sitemaps) > 0) {
		detail := "in the crawl's sitemaps"
		if !p.InSitemap {
			detail = "in a sitemap Google knows: " + in.Sitemaps[0]
		}
		add("index.submitted_not_indexed", in.Coverage, detail)
	}
	if in.RobotsTxtState == "DISALLOWED" && !p.RobotsBlocked {
		add("index.robots_blocked", in.RobotsTxtState, "the crawl was allowed to fetch it")
	}
	switch in.PageFetchState {
	case "", "PAGE_FETCH_STATE_UNSPECIFIED", "SUCCESSFUL", "BLOCKED_ROBOTS_TXT":
	default:
		add("index.fetch_failed", in.PageFetchState, lastCrawlDetail(in))
	}
	if in.LastCrawl != nil && now.Sub(*in.LastCrawl) > staleAfter {
		add("index.stale_crawl", in.LastCrawl.UTC().Format(time.DateOnly), fmt.Sprintf("%d days ago", int(now.Sub(*in.LastCrawl).Hours()/24)))
	}
	return out
}

func lastCrawlDetail(in *Inspection) string {
	if in.LastCrawl == nil {
		return "no crawl date reported"
	}
	return "last crawled " + in.LastCrawl.UTC().Format(time.RFC3339)
}
