package seo

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
)

// Severity ranks how much a finding matters. The zero value is invalid so a
// forgotten severity is caught rather than silently treated as a notice.
type Severity int

// Severities, from least to most serious. Their score weights are in [Severity.Weight].
const (
	Notice Severity = iota + 1
	Warning
	Error
)

// String returns "notice", "warning" or "error".
func (s Severity) String() string {
	switch s {
	case Notice:
		return "notice"
	case Warning:
		return "warning"
	case Error:
		return "error"
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// Weight is the number of points one distinct finding ID of this severity
// subtracts from a score: 10 for errors, 4 for warnings, 1 for notices.
func (s Severity) Weight() int {
	switch s {
	case Error:
		return 10
	case Warning:
		return 4
	case Notice:
		return 1
	}
	return 0
}

// ParseSeverity parses "error", "warning" or "notice" (case-insensitive).
func ParseSeverity(s string) (Severity, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "error":
		return Error, nil
	case "warning":
		return Warning, nil
	case "notice":
		return Notice, nil
	}
	return 0, &InputError{Field: "severity", Value: s, Reason: `must be "error", "warning" or "notice"`}
}

// MarshalText encodes the severity as its name, so JSON shows "warning".
func (s Severity) MarshalText() ([]byte, error) {
	if s < Notice || s > Error {
		return nil, fmt.Errorf("seo: invalid severity %d", int(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText decodes a severity name.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Scope says what a check needs to run; see CHECKS.md.
type Scope string

// Scopes of the check catalogue.
const (
	ScopePage   Scope = "page"   // the document and its response
	ScopeLink   Scope = "link"   // a fetch of each referenced URL (link checking, crawls)
	ScopeMobile Scope = "mobile" // a smartphone fetch compared with the desktop one
	ScopeSite   Scope = "site"   // the whole crawl
)

// CheckInfo describes one check ID of the catalogue.
type CheckInfo struct {
	ID       string   `json:"id"`
	Severity Severity `json:"severity"`
	Scope    Scope    `json:"scope"`
	// Summary is a one-line description of what triggers the check.
	Summary string `json:"summary"`
	// Source names the standard or tool the rule follows, with its URL,
	// e.g. "Lighthouse crawlable-anchors; Google: Make your links crawlable
	// (https://...)". Empty when the rule is seokit's own.
	Source string `json:"source,omitempty"`
	// Differs says how and why seokit deliberately differs from Lighthouse,
	// Yoast, Screaming Frog or the source it follows. Empty when it does not.
	Differs string `json:"differs,omitempty"`
	// Minor marks a low-value notice (a hardening header, a social preview
	// tag) that fires on most pages: it ranks below every other finding
	// (see [Priority]). A severity raised above notice ranks as usual.
	Minor bool `json:"minor,omitempty"`
}

// Area returns the part of the ID before its last dot ("title" for
// "title.missing", "structured_data.article" for
// "structured_data.article.missing_recommended" is reported as "structured_data").
func (c CheckInfo) Area() string { return AreaOf(c.ID) }

// AreaOf returns the area of a check ID: the text before the first dot.
func AreaOf(id string) string {
	if i := strings.IndexByte(id, '.'); i >= 0 {
		return id[:i]
	}
	return id
}

// Evidence says where and why a finding fired. Every field is optional;
// checks fill what they know.
type Evidence struct {
	// Element is the element or header concerned, e.g. "<title>" or "X-Robots-Tag".
	Element string `json:"element,omitempty"`
	// Value is the offending value, trimmed to a readable length.
	Value string `json:"value,omitempty"`
	// Measured and Threshold carry a number compared with its limit.
	Measured  *float64 `json:"measured,omitempty"`
	Threshold *float64 `json:"threshold,omitempty"`
	// Line and Offset locate the element in the document (1-based line, 0-based byte) where known.
	Line   int `json:"line,omitempty"`
	Offset int `json:"offset,omitempty"`
	// URLs lists the other URLs involved (link targets, duplicate pages).
	URLs []string `json:"urls,omitempty"`
	// Detail holds any further facts as short text.
	Detail string `json:"detail,omitempty"`
}

// Measure returns evidence for a number measured against a threshold.
func Measure(element string, measured, threshold float64) Evidence {
	return Evidence{Element: element, Measured: &measured, Threshold: &threshold}
}

// Finding is one problem found by a check. A report holds one finding per
// ID and page: occurrences of the same ID are grouped into it (see
// [GroupFindings]), Count says how many there were, Evidence describes the
// first and Examples a few more.
type Finding struct {
	ID       string   `json:"id"`
	Severity Severity `json:"severity"`
	// Message describes the first occurrence.
	Message  string   `json:"message"`
	Evidence Evidence `json:"evidence"`
	URL      string   `json:"url"`
	// Count is the number of occurrences the finding stands for, at least
	// 1 in every report (zero is read as 1, see [Finding.Occurrences]).
	Count int `json:"count"`
	// Examples holds the evidence of further occurrences, a few at most;
	// the first occurrence's is Evidence. Count may exceed 1+len(Examples).
	Examples []Evidence `json:"examples,omitempty"`
	// Priority ranks the finding for fixing, 0-100, higher first; see
	// [Priority] for the formula.
	Priority int `json:"priority"`
}

// String formats the finding for people: "warning title.too_long: message",
// with " (×n)" when it stands for n > 1 occurrences.
func (f Finding) String() string {
	if n := f.Occurrences(); n > 1 {
		return fmt.Sprintf("%s %s: %s (×%d)", f.Severity, f.ID, f.Message, n)
	}
	return fmt.Sprintf("%s %s: %s", f.Severity, f.ID, f.Message)
}

// Occurrences returns Count, or 1 when Count is not set.
func (f Finding) Occurrences() int { return max(f.Count, 1) }

// GroupFindings groups fs by ID, in the order each ID is first seen: one
// finding per ID, with the first finding's message, evidence and URL, the
// most severe severity of the group, Count the sum of the occurrences and
// Examples the evidence of at most maxExamples further occurrences (taken
// in order from the Examples and Evidence of the grouped findings). Priority
// is kept from the first finding; callers set it with [Priority] once the
// count is known. fs is not modified; examples are shared, not copied.
func GroupFindings(fs []Finding, maxExamples int) []Finding {
	maxExamples = max(maxExamples, 0)
	out := make([]Finding, 0, len(fs))
	at := make(map[string]int, len(fs))
	for _, f := range fs {
		k, ok := at[f.ID]
		if !ok {
			at[f.ID] = len(out)
			f.Count = f.Occurrences()
			f.Examples = f.Examples[:min(len(f.Examples), maxExamples):min(len(f.Examples), maxExamples)]
			if len(f.Examples) == 0 {
				f.Examples = nil
			}
			out = append(out, f)
			continue
		}
		g := &out[k]
		g.Count += f.Occurrences()
		g.Severity = max(g.Severity, f.Severity)
		for _, ev := range append([]Evidence{f.Evidence}, f.Examples...) {
			if len(g.Examples) >= maxExamples {
				break
			}
			g.Examples = append(g.Examples, ev)
		}
	}
	return out
}

// Priority bands per severity: a finding of a severity always ranks above
// every finding of a lower one, whatever their reach.
const (
	priorityMinor   = 0  // minor notices: 0-9
	priorityNotice  = 10 // notices: 10-39
	priorityWarning = 40 // warnings: 40-69
	priorityError   = 70 // errors: 70-100
)

// Priority ranks a finding for fixing, from 0 to 100, higher first:
//
//	priority = low + round((high - low) × reach)
//
// where [low, high] is the band of the severity: errors 70-100, warnings
// 40-69, notices 10-39, and minor notices (minor set, severity notice) 0-9.
// Errors thus always outrank warnings, warnings notices, and notices the
// low-value notices of [CheckInfo.Minor]; within a band, more reach ranks
// higher. reach is the share of the scope affected, from 0 to 1 (clamped):
// [PageReach] of the occurrences for a finding on one page, [SiteReach] of
// the pages affected for a finding across a site.
func Priority(sev Severity, reach float64, minor bool) int {
	lo, hi := priorityNotice, priorityWarning-1
	switch {
	case sev >= Error:
		lo, hi = priorityError, 100
	case sev == Warning:
		lo, hi = priorityWarning, priorityError-1
	case minor || sev < Notice:
		lo, hi = priorityMinor, priorityNotice-1
	}
	if math.IsNaN(reach) {
		reach = 0
	}
	reach = min(max(reach, 0), 1)
	return lo + int(math.Round(float64(hi-lo)*reach))
}

// PageReach is the reach of a finding with n occurrences on one page:
// 1 - 1/n, so one occurrence is 0, two 0.5, ten 0.9.
func PageReach(n int) float64 {
	if n <= 1 {
		return 0
	}
	return 1 - 1/float64(n)
}

// SiteReach is the reach of a finding on pages of the total pages
// analysed: pages/total, at most 1, and 0 when total is 0.
func SiteReach(pages, total int) float64 {
	if total <= 0 {
		return 0
	}
	return min(float64(pages)/float64(total), 1)
}

// SortByPriority sorts fs by Priority, highest first, then by ID; the
// order of findings with equal priority and ID is kept.
func SortByPriority(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].Priority != fs[j].Priority {
			return fs[i].Priority > fs[j].Priority
		}
		return fs[i].ID < fs[j].ID
	})
}

// MaxEvidenceValue is the longest evidence value kept, in runes; longer
// values are cut and end in "…".
const MaxEvidenceValue = 300

// Clip shortens s to at most MaxEvidenceValue runes for use as evidence.
func Clip(s string) string { return ClipTo(s, MaxEvidenceValue) }

// ClipTo shortens s to at most n runes; a cut string ends in "…".
func ClipTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	c := 0
	for i := range s {
		if c == n {
			return s[:i] + "…"
		}
		c++
	}
	return s
}

var _ json.Marshaler = Counts{}

// Counts holds the number of distinct finding IDs per severity.
type Counts struct {
	Errors, Warnings, Notices int
}

// MarshalJSON encodes the counts as {"error":n,"warning":n,"notice":n}. It
// has a value receiver so that a Counts encodes the same way whether or not
// it is addressable (a Score held by value in a map or an interface).
func (c Counts) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]int{"error": c.Errors, "warning": c.Warnings, "notice": c.Notices})
}

// UnmarshalJSON decodes the form written by MarshalJSON.
func (c *Counts) UnmarshalJSON(b []byte) error {
	var m map[string]int
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	c.Errors, c.Warnings, c.Notices = m["error"], m["warning"], m["notice"]
	return nil
}
