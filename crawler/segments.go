package crawler

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"

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
}

// Segment limits.
const (
	// MaxSegments caps Options.Segments.
	MaxSegments = 50
	// maxSegmentRegexp caps Segment.URL, in bytes.
	maxSegmentRegexp = 1000
	// NoSegment names the SegmentSummary of the pages in no segment.
	NoSegment = "(none)"
)

var (
	segmentName   = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,50}$`)
	segmentStatus = regexp.MustCompile(`^[1-5]([0-9]{2}|xx)$`)
)

// segmentMatcher is a compiled Segment.
type segmentMatcher struct {
	Segment
	url   *regexp.Regexp
	value *regexp.Regexp
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
			re, err := regexp.Compile(s.URL)
			if err != nil {
				return nil, bad(".url", s.URL, "not a regular expression: "+err.Error())
			}
			m.url = re
		}
		if s.Value != "" {
			if s.Extract == "" {
				return nil, bad(".value", s.Value, "value needs extract, the name of an extractor")
			}
			if len(s.Value) > maxSegmentRegexp {
				return nil, bad(".value", s.Value, fmt.Sprintf("the regular expression is longer than %d bytes", maxSegmentRegexp))
			}
			re, err := regexp.Compile(s.Value)
			if err != nil {
				return nil, bad(".value", s.Value, "not a regular expression: "+err.Error())
			}
			m.value = re
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
	return true
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

// segments sets PageSummary.Segment on the crawled pages and counts each
// segment's pages and findings (the page findings and the site findings
// site, by their URL). It returns nil when the crawl has no segments.
func (r *siteRun) segments(site []seo.Finding) []SegmentSummary {
	ms := r.b.segments
	if len(ms) == 0 {
		return nil
	}
	out := make([]SegmentSummary, len(ms)+1)
	for i := range ms {
		out[i] = SegmentSummary{Name: ms[i].Name, ByID: map[string]int{}}
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
	byURL := make(map[string]int, len(r.pages))
	for i := range r.pages {
		p := &r.pages[i]
		if !p.fetched() {
			continue
		}
		k := len(ms)
		for j := range ms {
			if ms[j].match(p) {
				k = j
				p.Segment = ms[j].Name
				break
			}
		}
		byURL[p.URL] = k
		s := &out[k]
		s.Pages++
		for _, id := range p.Findings {
			count(s, id, 1)
		}
	}
	for _, f := range site {
		if k, ok := byURL[f.URL]; ok {
			count(&out[k], f.ID, 1)
		}
	}
	return out
}
