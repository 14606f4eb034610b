package reports

import (
	"fmt"
	"strings"
	"time"

	"github.com/seokit/seokit/seo"
)

// DefaultMaxDays is the longest report range when Options.MaxDays is zero:
// 366 days, a leap year.
const DefaultMaxDays = 366

// DateLayout is the only date form reports accept and print: YYYY-MM-DD.
const DateLayout = "2006-01-02"

// ParseRange parses the start and end dates of a report as the API and
// the command line take them: YYYY-MM-DD only, start not after end, at
// most maxDays days inclusive (maxDays <= 0 means DefaultMaxDays), start
// not after today (UTC, taken from now). An end after today is accepted
// and returned as given: Builder.Build clamps it to today, so "this month"
// works mid-month, and the report shows the day used (End) and the day
// asked for (RequestedEnd). Errors are *seo.InputError naming "start" or
// "end".
func ParseRange(start, end string, now time.Time, maxDays int) (time.Time, time.Time, error) {
	s, err := ParseDay("start", start)
	if err != nil {
		return time.Time{}, time.Time{}, err
	}
	e, err := ParseDay("end", end)
	if err != nil {
		return time.Time{}, time.Time{}, err
	}
	if _, _, _, err := checkRange(s, e, now, maxDays); err != nil {
		return time.Time{}, time.Time{}, err
	}
	return s, e, nil
}

// ParseDay parses one date of a report, named field in its error: YYYY-MM-DD
// only, after 0001-01-01 (time.Time's zero, which the range checks read as
// a date not given). Errors are *seo.InputError naming field.
func ParseDay(field, v string) (time.Time, error) {
	t := strings.TrimSpace(v)
	if t == "" {
		return time.Time{}, &seo.InputError{Field: field, Reason: "is required, as YYYY-MM-DD"}
	}
	d, err := time.Parse(DateLayout, t)
	if err != nil || len(t) != len(DateLayout) {
		return time.Time{}, &seo.InputError{Field: field, Value: v,
			Reason: "must be a calendar date written YYYY-MM-DD, such as 2026-01-31"}
	}
	if d.IsZero() {
		// 0001-01-01 is time.Time's zero, which the range checks read
		// as a date not given.
		return time.Time{}, &seo.InputError{Field: field, Value: v, Reason: "must be a date after 0001-01-01"}
	}
	return d, nil
}

// day truncates t to its UTC calendar day.
func day(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// checkRange validates a range of UTC days and clamps its end to today.
// clamped reports whether it did.
func checkRange(start, end, now time.Time, maxDays int) (s, e time.Time, clamped bool, err error) {
	if maxDays <= 0 {
		maxDays = DefaultMaxDays
	}
	if start.IsZero() {
		return s, e, false, &seo.InputError{Field: "start", Reason: "is required"}
	}
	if end.IsZero() {
		return s, e, false, &seo.InputError{Field: "end", Reason: "is required"}
	}
	s, e = day(start), day(end)
	if s.After(e) {
		return s, e, false, &seo.InputError{Field: "start", Value: s.Format(DateLayout),
			Reason: fmt.Sprintf("is after end %s", e.Format(DateLayout))}
	}
	if n := days(s, e); n > maxDays {
		return s, e, false, &seo.InputError{Field: "end", Value: e.Format(DateLayout),
			Reason: fmt.Sprintf("range of %d days is longer than the limit of %d days", n, maxDays)}
	}
	today := day(now)
	if s.After(today) {
		return s, e, false, &seo.InputError{Field: "start", Value: s.Format(DateLayout),
			Reason: fmt.Sprintf("is in the future (today is %s)", today.Format(DateLayout))}
	}
	if e.After(today) {
		return s, today, true, nil
	}
	return s, e, false, nil
}

// days counts the days of [s, e] inclusive.
func days(s, e time.Time) int {
	return int(e.Sub(s).Hours()/24) + 1
}

var errIncomplete = fmt.Errorf("report has no metrics: %w", seo.ErrInvalidInput)
