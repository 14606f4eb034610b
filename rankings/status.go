package rankings

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/seokit/seokit/seo"
)

// Status is the state of a keyword's latest ranking: what is known, not
// only a position.
type Status string

// Ranking states.
const (
	// StatusRanked: the latest check found the domain; Position is set.
	StatusRanked Status = "ranked"
	// StatusNotRanked: the latest check looked through Depth organic
	// results (0: an unknown number, as in imported data) and the domain
	// was not among them.
	StatusNotRanked Status = "not_ranked"
	// StatusUnchecked: nothing is known: no source is configured and
	// nothing was imported, or the keyword was never checked.
	StatusUnchecked Status = "unchecked"
	// StatusFailed: the latest check failed (the provider answered an
	// error); Error says why. Position, URL and CheckedAt, when set, are
	// those of the last successful check.
	StatusFailed Status = "failed"
)

// Failure is a check of a keyword that the provider failed. Stores that
// implement [FailureStore] keep the latest one per series, so that a
// failed check is reported as such and never as "not ranked".
type Failure struct {
	Domain  string
	Keyword string
	Locale  seo.Locale
	Device  Device
	// At is when the check failed.
	At time.Time
	// Source is the driver name.
	Source string
	// Error is the provider's error, safe to show (see [FailureMessage]).
	Error string
}

// FailureStore is an optional Store capability: it keeps the latest failed
// check per domain, keyword, locale and device. rankings/memstore and
// rankings/sqlstore implement it; the Tracker records failures in stores
// that do and otherwise only returns them.
type FailureStore interface {
	// RecordFailures stores failures; a later one of the same series
	// replaces an earlier one.
	RecordFailures(ctx context.Context, fs []Failure) error
	// LatestFailures returns the latest failure per keyword, locale and
	// device matching f (From and To are ignored), ordered by keyword,
	// locale and device.
	LatestFailures(ctx context.Context, f Filter) ([]Failure, error)
}

// maxFailureMessage bounds the stored error text, in bytes.
const maxFailureMessage = 500

// FailureMessage returns err as text that may be shown to users and
// stored: one line, at most 500 bytes, with the generic "rankings: check"
// prefix removed. Drivers already keep credentials out of their errors
// (see Source); this removes any URL query string as a second guard.
func FailureMessage(err error) string {
	if err == nil {
		return ""
	}
	s := strings.Join(strings.Fields(err.Error()), " ")
	// Query strings of URLs can carry API keys.
	var b strings.Builder
	for i, w := range strings.Split(s, " ") {
		if i > 0 {
			b.WriteByte(' ')
		}
		if strings.Contains(w, "://") {
			if q := strings.IndexAny(w, "?#"); q >= 0 {
				w = w[:q] + "?…"
			}
		}
		b.WriteString(w)
	}
	s = b.String()
	if len(s) > maxFailureMessage {
		s = strings.ToValidUTF8(s[:maxFailureMessage], "") + "…"
	}
	return s
}

// NewRanking is the one place where a ranking entry and its Status are
// derived. o is the keyword's latest observation (nil: none), fail its
// latest failed check (nil: none) and hasSource whether a search results
// source is configured to check it.
//
//   - A failure later than the observation (or with no observation) is
//     StatusFailed; the last position, if any, is kept.
//   - An observation with a position is StatusRanked.
//   - An observation without one is StatusNotRanked within its Depth.
//   - Nothing is StatusUnchecked, with a Reason saying whether a source is
//     configured.
func NewRanking(keyword string, o *Observation, fail *Failure, hasSource bool) Ranking {
	r := Ranking{Keyword: keyword}
	if o != nil {
		r.Keyword = o.Keyword
		r.URL, r.Average, r.Depth, r.Source, r.CheckedAt = o.URL, o.Average, o.Depth, o.Source, o.CheckedAt
		if o.Position != nil {
			p := int(math.Round(*o.Position))
			r.Position = &p
			if o.Average {
				a := *o.Position
				r.AveragePosition = &a
			}
		}
	}
	switch {
	case fail != nil && (o == nil || fail.At.After(o.CheckedAt)):
		r.Status = StatusFailed
		r.Error = fail.Error
		r.FailedAt = fail.At
		if r.Source == "" {
			r.Source = fail.Source
		}
		r.Reason = "the latest check failed"
		if fail.Source != "" {
			r.Reason = "the latest check with " + fail.Source + " failed"
		}
		if o != nil {
			r.Reason += "; position, url and checkedAt are from the last successful check"
		} else {
			r.Reason += "; it was never checked successfully"
		}
	case o == nil:
		r.Status = StatusUnchecked
		r.Reason = "never checked"
		if !hasSource {
			r.Reason = "not checked: no SERP source is configured and no position was imported for this keyword"
		}
	case o.Position != nil:
		r.Status = StatusRanked
	default:
		r.Status = StatusNotRanked
		r.Reason = NotRankedReason(o.Depth, o.Source)
	}
	return r
}

// NotRankedReason says what a position-less observation means: not in
// the top depth results checked, or, for imported data (depth 0), not in
// the imported data.
func NotRankedReason(depth int, source string) string {
	switch {
	case source == SourceSearchConsoleExport:
		return "not in the Search Console export of that day"
	case depth > 0:
		return "not in the top " + strconv.Itoa(depth) + " results checked"
	case source != "":
		return "not ranked according to " + source + " (depth checked unknown)"
	}
	return "not ranked (depth checked unknown)"
}

// Label is a short human text for r's state, the same in every output:
// "4", "4 (average 4.27)", "not ranked in the top 100", "unchecked",
// "failed: ...".
func (r Ranking) Label() string {
	switch r.Status {
	case StatusRanked:
		return positionLabel(r)
	case StatusNotRanked:
		if r.Depth > 0 {
			return "not ranked in the top " + strconv.Itoa(r.Depth)
		}
		if r.Source == SourceSearchConsoleExport {
			return "not in the Search Console export"
		}
		return "not ranked"
	case StatusFailed:
		s := "check failed"
		if r.Position != nil {
			s += " (last position " + positionLabel(r) + ")"
		}
		return s
	}
	return "unchecked"
}

func positionLabel(r Ranking) string {
	if r.Position == nil {
		return ""
	}
	s := strconv.Itoa(*r.Position)
	if r.AveragePosition != nil {
		s += " (average " + strconv.FormatFloat(*r.AveragePosition, 'f', -1, 64) + ")"
	}
	return s
}

// Movement is how a keyword's position changed between two observations.
type Movement string

// Movements. The values are those of reports' keyword rows.
const (
	MovedUp     Movement = "improved"   // ranked both times, better position now
	MovedDown   Movement = "declined"   // ranked both times, worse position now
	Unmoved     Movement = "unchanged"  // ranked both times at the same position
	NewlyRanked Movement = "new"        // not ranked before, ranked now
	Lost        Movement = "lost"       // ranked before, not ranked now
	StillNot    Movement = "not-ranked" // not ranked either time
)

// MovementOf is the one place where a change of position is classified:
// before and after are positions, nil meaning "checked, not ranked". A
// keyword missing from one of two snapshots must be given as nil there
// (see ImportSearchConsole), never as the other snapshot's position.
func MovementOf(before, after *float64) Movement {
	switch {
	case before != nil && after != nil:
		switch {
		case *after < *before:
			return MovedUp
		case *after > *before:
			return MovedDown
		}
		return Unmoved
	case after != nil:
		return NewlyRanked
	case before != nil:
		return Lost
	}
	return StillNot
}

// errNoSource is the error of checks without a Source.
var errNoSource = fmt.Errorf("rankings: no SERP source configured: %w", seo.ErrUnavailable)
