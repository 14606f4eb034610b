package seo

import (
	"encoding/json"
	"fmt"
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

// Finding is one problem found by a check.
type Finding struct {
	ID       string   `json:"id"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
	Evidence Evidence `json:"evidence"`
	URL      string   `json:"url"`
}

// String formats the finding for people: "warning title.too_long: message".
func (f Finding) String() string {
	return fmt.Sprintf("%s %s: %s", f.Severity, f.ID, f.Message)
}

// MaxEvidenceValue is the longest evidence value kept, in runes; longer
// values are cut and end in "…".
const MaxEvidenceValue = 300

// Clip shortens s to at most MaxEvidenceValue runes for use as evidence.
func Clip(s string) string {
	if len(s) <= MaxEvidenceValue {
		return s
	}
	n := 0
	for i := range s {
		if n == MaxEvidenceValue {
			return s[:i] + "…"
		}
		n++
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
