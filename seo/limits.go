package seo

import (
	"context"
	"slices"
	"strings"
)

// Truncation says that a list in a report was cut at its cap: Total items
// were found and Omitted of them are not in the list.
type Truncation struct {
	Total   int `json:"total"`
	Omitted int `json:"omitted"`
}

// Truncated records which lists of a report were cut at their caps, keyed
// by the list's JSON name within the report ("links", "findings",
// "pages", ...). A list that was not cut has no entry, so an empty map
// means the report is complete.
type Truncated map[string]Truncation

// Note records that the list name held total items of which kept are in
// the report. It records nothing when kept >= total.
func (t *Truncated) Note(name string, total, kept int) {
	if kept >= total {
		return
	}
	if *t == nil {
		*t = Truncated{}
	}
	(*t)[name] = Truncation{Total: total, Omitted: total - kept}
}

// Cut is one list of a report cut at its cap, for display: its name, the
// items kept and the total found.
type Cut struct {
	Name         string
	Shown, Total int
}

// Cuts returns the cut lists sorted by name, the order every report view
// shows them in.
func (t Truncated) Cuts() []Cut {
	out := make([]Cut, 0, len(t))
	for name, tr := range t {
		out = append(out, Cut{Name: name, Shown: tr.Total - tr.Omitted, Total: tr.Total})
	}
	slices.SortFunc(out, func(a, b Cut) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// MemoryBudget admits work by an estimate of the memory it will hold. A
// server shares one budget between its heavy operations (admission
// control); the library packages reserve from it, when one is set in
// their options, before they build a large working set.
type MemoryBudget interface {
	// Reserve blocks until bytes can be reserved or ctx ends, and returns
	// the function that gives them back. An error wraps ErrUnavailable
	// when the budget cannot admit the work (saturated, or bytes larger
	// than the whole budget), or is ctx's error.
	Reserve(ctx context.Context, bytes int64) (release func(), err error)
}
