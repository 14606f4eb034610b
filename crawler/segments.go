package crawler

import (
	"fmt"
	"iter"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/seo"
)

// Segment groups the pages of a crawl for the site report
// (Options.Segments). A page is in the first segment, in the order given,
// whose every set condition it meets; a segment with no condition takes
// every page left.
type Segment struct {
	// Name labels the segment: 1 to 50 letters, digits, "_", "-" or ".".
	Name string `json:"name"`
	// URL is a regular expression (RE2 syntax, so matching is linear in
	// the URL) that the page's URL must match somewhere; at most 1,000
	// bytes.
	URL string `json:"url,omitempty"`
	// Status is the page's status: three digits ("404") or a class
	// ("4xx").
	Status string `json:"status,omitempty"`
	// MinDepth and MaxDepth bound the page's click depth (inclusive); a
	// page no link reached (nil depth) is in no depth range.
	MinDepth *int `json:"minDepth,omitempty"`
	MaxDepth *int `json:"maxDepth,omitempty"`
	// Extract names one of the crawl's extractors
	// (analyzer.Options.Extract): the page must have a value of it, and,
	// when Value is set, its first value (as PageSummary.Extracted keeps
	// it) must match Value, a regular expression (RE2 syntax) of at most
	// 1,000 bytes. Value needs Extract.
	Extract string `json:"extract,omitempty"`
	Value   string `json:"value,omitempty"`
	// Template is a template fingerprint (12 hex digits, as
	// SiteReport.Templates lists them): the page must have been built
	// from that template (PageSummary.Template).
	Template string `json:"template,omitempty"`
	// TemplateOf is an absolute URL of the crawl: the page must have the
	// template of that URL's page. When the crawl has no HTML page at that
	// URL, the segment takes no page and its SegmentSummary.Reason says
	// why. At most 2,048 bytes.
	TemplateOf string `json:"templateOf,omitempty"`
}

// SegmentSummary is one segment of SiteReport.Segments.
type SegmentSummary struct {
	Name string `json:"name"`
	// Pages counts the crawled pages of the segment.
	Pages int `json:"pages"`
	// Findings counts the findings on the segment's pages per severity:
	// each page finding ID once per page reporting it, and the site
	// findings about one of its pages.
	Findings seo.Counts `json:"findings"`
	// ByID counts the same findings by check ID.
	ByID map[string]int `json:"byId"`
	// Template is the template fingerprint Segment.TemplateOf named,
	// absent when the segment has no TemplateOf or its page was not
	// found; Reason then says why the segment took no page.
	Template string `json:"template,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// TemplateSummary is one template of SiteReport.Templates: a template
// fingerprint (PageSummary.Template), the number of crawled pages built
// from it and the first of their URLs in sort order.
type TemplateSummary struct {
	Template   string `json:"template"`
	Pages      int    `json:"pages"`
	ExampleURL string `json:"exampleUrl"`
}

// Segment limits.
const (
	// MaxSegments caps Options.Segments.
	MaxSegments = 50
	// maxSegmentRegexp caps Segment.URL, in bytes.
	maxSegmentRegexp = 1000
	// NoSegment names the SegmentSummary of the pages in no segment.
	NoSegment = "(none)"
	// MaxTemplates caps SiteReport.Templates.
	MaxTemplates = 50
	// maxTemplateOf caps Segment.TemplateOf, in bytes.
	maxTemplateOf = 2048
	// SegmentBudget caps the work of the segments' regular expressions
	// over one crawl: the bytes of each URL and value tested times the
	// instructions of the regex testing it (analyzer.MaxRegexInsts caps
	// one). Pages left when it is spent are in no segment, and every
	// SegmentSummary.Reason says how many.
	SegmentBudget = 500_000_000
)

// segmentBudget is SegmentBudget, lowered by tests.
var segmentBudget int64 = SegmentBudget

var (
	segmentName   = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,50}$`)
	segmentStatus = regexp.MustCompile(`^[1-5]([0-9]{2}|xx)$`)
	templateValue = regexp.MustCompile(`^[0-9a-f]{12}$`)
)

// segmentMatcher is a compiled Segment.
type segmentMatcher struct {
	Segment
	url   *regexp.Regexp
	value *regexp.Regexp
	// urlInsts and valueInsts size the programs of url and value.
	urlInsts, valueInsts int
	// template is Template, or the template TemplateOf resolved to.
	template string
}

// ValidateSegments checks the form of segments: a bad one is a
// *seo.InputError whose Field names it ("segments[2].url"). Run checks
// more (ValidateSegmentsFor).
func ValidateSegments(segments []Segment) error {
	_, err := compileSegments(segments)
	return err
}

// ValidateSegmentsFor checks segments as Run does, for a crawl with the
// extractors extract: as ValidateSegments, and a segment whose Extract
// names none of them is a *seo.InputError on "segments[i].extract".
func ValidateSegmentsFor(segments []Segment, extract []analyzer.Extractor) error {
	if _, err := compileSegments(segments); err != nil {
		return err
	}
	for i, s := range segments {
		if s.Extract != "" && !slices.ContainsFunc(extract, func(e analyzer.Extractor) bool { return e.Name == s.Extract }) {
			return &seo.InputError{Field: fmt.Sprintf("segments[%d].extract", i), Value: seo.Clip(s.Extract),
				Reason: "names no extractor of the crawl (extract)", Err: seo.ErrInvalidInput}
		}
	}
	return nil
}

// compileSegments validates and compiles segments.
func compileSegments(segments []Segment) ([]segmentMatcher, error) {
	if len(segments) > MaxSegments {
		return nil, &seo.InputError{Field: "segments", Value: strconv.Itoa(len(segments)), Reason: fmt.Sprintf("at most %d segments", MaxSegments), Err: seo.ErrInvalidInput}
	}
	out := make([]segmentMatcher, 0, len(segments))
	seen := map[string]bool{}
	for i, s := range segments {
		bad := func(field, value, reason string) error {
			return &seo.InputError{Field: fmt.Sprintf("segments[%d]%s", i, field), Value: seo.Clip(value), Reason: reason, Err: seo.ErrInvalidInput}
		}
		if !segmentName.MatchString(s.Name) {
			return nil, bad(".name", s.Name, "a segment name is 1 to 50 letters, digits, _, - or .")
		}
		if seen[s.Name] {
			return nil, bad(".name", s.Name, "segment names must be distinct")
		}
		seen[s.Name] = true
		m := segmentMatcher{Segment: s}
		if s.URL != "" {
			if len(s.URL) > maxSegmentRegexp {
				return nil, bad(".url", s.URL, fmt.Sprintf("the regular expression is longer than %d bytes", maxSegmentRegexp))
			}
			re, n, err := analyzer.CompileRegexp(s.URL)
			if err != nil {
				return nil, bad(".url", s.URL, err.Error())
			}
			m.url, m.urlInsts = re, n
		}
		if s.Value != "" {
			if s.Extract == "" {
				return nil, bad(".value", s.Value, "value needs extract, the name of an extractor")
			}
			if len(s.Value) > maxSegmentRegexp {
				return nil, bad(".value", s.Value, fmt.Sprintf("the regular expression is longer than %d bytes", maxSegmentRegexp))
			}
			re, n, err := analyzer.CompileRegexp(s.Value)
			if err != nil {
				return nil, bad(".value", s.Value, err.Error())
			}
			m.value, m.valueInsts = re, n
		}
		if s.Template != "" && !templateValue.MatchString(s.Template) {
			return nil, bad(".template", s.Template, "a template fingerprint is 12 lowercase hex digits, as the report's templates list them")
		}
		if s.TemplateOf != "" {
			if len(s.TemplateOf) > maxTemplateOf {
				return nil, bad(".templateOf", s.TemplateOf, fmt.Sprintf("the URL is longer than %d bytes", maxTemplateOf))
			}
			if _, err := parseListURL(s.TemplateOf); err != nil {
				return nil, bad(".templateOf", s.TemplateOf, err.Error())
			}
		}
		if s.Status != "" && !segmentStatus.MatchString(s.Status) {
			return nil, bad(".status", s.Status, `a status is three digits ("404") or a class ("4xx")`)
		}
		if s.MinDepth != nil && *s.MinDepth < 0 {
			return nil, bad(".minDepth", strconv.Itoa(*s.MinDepth), "a depth is 0 or more")
		}
		if s.MaxDepth != nil && (*s.MaxDepth < 0 || (s.MinDepth != nil && *s.MaxDepth < *s.MinDepth)) {
			return nil, bad(".maxDepth", strconv.Itoa(*s.MaxDepth), "maxDepth is 0 or more and not below minDepth")
		}
		out = append(out, m)
	}
	return out, nil
}

// cost is the regex work of testing p against m, at most.
func (m *segmentMatcher) cost(p *PageSummary) int64 {
	var c int64
	if m.url != nil {
		c += int64(len(p.URL)+1) * int64(m.urlInsts+1)
	}
	if m.value != nil {
		for _, x := range p.Extracted {
			if x.Name == m.Extract && len(x.Values) > 0 {
				c += int64(len(x.Values[0])+1) * int64(m.valueInsts+1)
				break
			}
		}
	}
	return c
}

// match reports whether p meets every condition of m.
func (m *segmentMatcher) match(p *PageSummary) bool {
	if m.url != nil && !m.url.MatchString(p.URL) {
		return false
	}
	if m.Status != "" {
		st := strconv.Itoa(p.Status)
		if len(st) != 3 || st[0] != m.Status[0] || (m.Status[1] != 'x' && st != m.Status) {
			return false
		}
	}
	if m.MinDepth != nil || m.MaxDepth != nil {
		d := p.depth()
		if d < 0 || (m.MinDepth != nil && d < *m.MinDepth) || (m.MaxDepth != nil && d > *m.MaxDepth) {
			return false
		}
	}
	if m.Extract != "" && !m.matchExtract(p) {
		return false
	}
	if (m.Template != "" || m.TemplateOf != "") && p.Template != m.template {
		return false
	}
	return true
}

// resolveTemplates sets the template of each matcher: its Template, or
// the template of the page at its TemplateOf. It returns, by matcher,
// why a TemplateOf was not resolved ("" when it was or there is none).
func resolveTemplates(ms []segmentMatcher, pages iter.Seq2[int, *PageSummary]) []string {
	reasons := make([]string, len(ms))
	for i := range ms {
		m := &ms[i]
		m.template = m.Template
		if m.TemplateOf == "" {
			continue
		}
		want := m.TemplateOf
		if u, err := parseListURL(want); err == nil {
			want = seo.NormalizeURL(u, nil).String()
		}
		found, tpl := false, ""
		for _, p := range pages {
			if p.URL == want || p.URL == m.TemplateOf || (p.FinalURL != "" && (p.FinalURL == want || p.FinalURL == m.TemplateOf)) {
				found, tpl = true, p.Template
				if tpl != "" {
					break
				}
			}
		}
		switch {
		case !found:
			reasons[i] = "templateOf: the crawl did not fetch this URL"
		case tpl == "":
			reasons[i] = "templateOf: this URL is not an HTML page, so it has no template"
		}
		if m.Template != "" && tpl != "" && tpl != m.Template {
			reasons[i] = "templateOf: this URL's template " + tpl + " is not template " + m.Template
		}
		if reasons[i] != "" {
			// No page matches: an empty template never equals a page's
			// and a page has one template.
			m.template = "-"
			continue
		}
		m.template = tpl
	}
	return reasons
}

// templates lists the templates of the crawled pages, the most pages
// first, at most MaxTemplates, noting the rest in trunc ("templates").
func templates(pages iter.Seq2[int, *PageSummary], trunc *seo.Truncated) []TemplateSummary {
	idx := map[string]int{}
	var out []TemplateSummary
	for _, p := range pages {
		if p.Template == "" || !p.fetched() {
			continue
		}
		k, ok := idx[p.Template]
		if !ok {
			k = len(out)
			idx[p.Template] = k
			out = append(out, TemplateSummary{Template: p.Template, ExampleURL: p.URL})
		}
		out[k].Pages++
		if p.URL < out[k].ExampleURL {
			out[k].ExampleURL = p.URL
		}
	}
	slices.SortFunc(out, func(a, b TemplateSummary) int {
		if a.Pages != b.Pages {
			return b.Pages - a.Pages
		}
		return strings.Compare(a.Template, b.Template)
	})
	if len(out) > MaxTemplates {
		trunc.Note("templates", len(out), MaxTemplates)
		out = out[:MaxTemplates:MaxTemplates]
	}
	return out
}

// matchExtract reports whether p has a value of m.Extract that matches
// m.value.
func (m *segmentMatcher) matchExtract(p *PageSummary) bool {
	for _, x := range p.Extracted {
		if x.Name != m.Extract {
			continue
		}
		if x.Error != "" || x.Count == 0 {
			return false
		}
		if m.value == nil {
			return true
		}
		return len(x.Values) > 0 && m.value.MatchString(x.Values[0])
	}
	return false
}

// segments finds the segment of each crawled page (r.segOf, listed as
// PageSummary.Segment) and counts each segment's pages and findings (the
// page findings and the site findings site, by their URL). It returns nil
// when the crawl has no segments.
func (r *siteRun) segments(site []seo.Finding) []SegmentSummary {
	ms := r.b.segments
	if len(ms) == 0 {
		return nil
	}
	out := make([]SegmentSummary, len(ms)+1)
	reasons := resolveTemplates(ms, r.pages())
	for i := range ms {
		out[i] = SegmentSummary{Name: ms[i].Name, ByID: map[string]int{}, Reason: reasons[i]}
		if ms[i].TemplateOf != "" && reasons[i] == "" {
			out[i].Template = ms[i].template
		}
	}
	out[len(ms)] = SegmentSummary{Name: NoSegment, ByID: map[string]int{}}
	count := func(s *SegmentSummary, id string, n int) {
		s.ByID[id] += n
		switch r.sev[id].Severity {
		case seo.Error:
			s.Findings.Errors += n
		case seo.Warning:
			s.Findings.Warnings += n
		case seo.Notice:
			s.Findings.Notices += n
		}
	}
	r.segOf = make([]int32, r.npages)
	work, fetched, left := int64(0), 0, 0
	for i, p := range r.pages() {
		if !p.fetched() {
			continue
		}
		fetched++
		var cost int64
		for j := range ms {
			cost += ms[j].cost(p)
		}
		if left > 0 || work+cost > segmentBudget {
			left++ // over the budget: in no segment, counted below
			continue
		}
		work += cost
		k := len(ms)
		for j := range ms {
			if ms[j].match(p) {
				k = j
				break
			}
		}
		r.segOf[i] = int32(k + 1)
		s := &out[k]
		s.Pages++
		for _, id := range p.Findings {
			count(s, id, 1)
		}
	}
	for _, f := range site {
		if n, ok := r.b.ids[f.URL]; ok && r.pageOf[n] >= 0 {
			if k := r.segOf[r.pageOf[n]]; k > 0 {
				count(&out[k-1], f.ID, 1)
			}
		}
	}
	if left > 0 {
		why := fmt.Sprintf("segments not matched on %d of %d pages: their regular expressions went over the crawl's budget of %d (bytes × instructions)", left, fetched, segmentBudget)
		for k := range out {
			if out[k].Reason == "" {
				out[k].Reason = why
			} else {
				out[k].Reason += "; " + why
			}
		}
	}
	return out
}
