package monitor

// Schedules
//
// A Schedule says when a recurring run (a site analysis, a rank check) is
// due, in a project's IANA time zone. ParseSchedule accepts:
//
//	hourly              every hour, on the hour
//	daily               every day at 00:00
//	daily@06:30         every day at 06:30
//	weekly              every Monday at 00:00
//	weekly@fri          every Friday at 00:00
//	weekly@mon 06:00    every Monday at 06:00
//	30 6 * * 1-5        a 5-field cron expression (minute hour
//	                    day-of-month month day-of-week), as crontab(5)
//
// Times are wall-clock times of the zone. Across daylight-saving changes a
// schedule runs once for each wall-clock time it names:
//
//   - a time the clock skips (02:30 when clocks go from 02:00 to 03:00)
//     runs when the clock resumes, at 03:00; several skipped times run
//     once;
//   - a time the clock shows twice (01:30 when clocks go back from 02:00
//     to 01:00) runs at its first occurrence only.
//
// So "daily@02:30" runs exactly once every day, and the time between two
// runs may be an hour shorter or longer than usual around a change.
//
// MinInterval is the shortest nominal time between two runs (wall-clock
// time, ignoring daylight-saving changes): a plan refuses schedules that
// run more often than it allows by comparing it with its minimum.
//
// After downtime a scheduler runs a schedule once, for the latest due time
// missed (LatestDue), and skips the older ones.

import (
	"errors"
	"fmt"
	"math/bits"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/seokit/seokit/seo"
)

// MaxSpecLength caps a schedule specification.
const MaxSpecLength = 128

// Schedule is a parsed recurring schedule in a time zone. Its methods are
// safe for concurrent use.
type Schedule struct {
	spec string
	expr string // the 5-field cron expression
	loc  *time.Location
	cron *cron.SpecSchedule
}

// cronParser parses 5-field expressions, without descriptors ("@every")
// nor a time-zone prefix (the zone is the project's).
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow)

var (
	clockRE = regexp.MustCompile(`^([01]?[0-9]|2[0-3]):([0-5][0-9])$`)
	weekday = map[string]int{
		"sun": 0, "sunday": 0, "mon": 1, "monday": 1, "tue": 2, "tuesday": 2,
		"wed": 3, "wednesday": 3, "thu": 4, "thursday": 4, "fri": 5, "friday": 5,
		"sat": 6, "saturday": 6,
	}
)

// ParseSchedule parses spec (see the forms above) in the IANA time zone
// timeZone ("Europe/Paris"; empty means UTC). A bad spec is a
// *seo.InputError for field "spec", a bad zone one for field "timeZone".
// A cron expression that never matches a date ("0 0 30 2 *") is refused.
func ParseSchedule(spec, timeZone string) (*Schedule, error) {
	loc, err := loadZone(timeZone)
	if err != nil {
		return nil, err
	}
	spec = strings.TrimSpace(spec)
	bad := func(reason string) error {
		return &seo.InputError{Field: "spec", Value: spec, Reason: reason}
	}
	if spec == "" {
		return nil, bad("is empty; use daily, daily@HH:MM, weekly, weekly@mon HH:MM, hourly or a 5-field cron expression")
	}
	if len(spec) > MaxSpecLength {
		return nil, bad(fmt.Sprintf("longer than %d bytes", MaxSpecLength))
	}
	expr, err := keywordExpr(strings.ToLower(spec))
	if err != nil {
		return nil, bad(err.Error())
	}
	if expr == "" { // a cron expression
		if strings.HasPrefix(spec, "@") || strings.Contains(strings.ToUpper(spec), "TZ=") {
			return nil, bad("descriptors and time-zone prefixes are not accepted; give 5 fields (the zone is the project's)")
		}
		if n := len(strings.Fields(spec)); n != 5 {
			return nil, bad(fmt.Sprintf("a cron expression has 5 fields (minute hour day-of-month month day-of-week), got %d", n))
		}
		expr = strings.Join(strings.Fields(spec), " ")
	}
	parsed, err := cronParser.Parse(expr)
	if err != nil {
		// The parser's messages name Go functions ("strconv.Atoi:"): say
		// what a field may hold instead.
		msg := strings.TrimPrefix(err.Error(), "failed to parse ")
		if strings.Contains(msg, "strconv.") {
			msg = "each of the 5 fields (minute hour day-of-month month day-of-week) takes numbers, ranges (1-5), steps (*/15), lists (1,3) or names (mon, jan)"
		}
		return nil, bad(msg)
	}
	cs, ok := parsed.(*cron.SpecSchedule)
	if !ok {
		return nil, bad("not a cron expression")
	}
	s := &Schedule{spec: spec, expr: expr, loc: loc, cron: cs}
	if _, ok := s.minInterval(); !ok {
		return nil, bad("matches no date")
	}
	return s, nil
}

// loadZone loads an IANA zone; "Local" is refused (it depends on the
// server).
func loadZone(name string) (*time.Location, error) {
	name = strings.TrimSpace(name)
	if name == "" || name == "UTC" {
		return time.UTC, nil
	}
	if name == "Local" || len(name) > 64 {
		return nil, &seo.InputError{Field: "timeZone", Value: name, Reason: "not an IANA time zone name (such as Europe/Paris)"}
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, &seo.InputError{Field: "timeZone", Value: name, Reason: "not an IANA time zone name (such as Europe/Paris)"}
	}
	return loc, nil
}

// keywordExpr translates the keyword forms into cron expressions; "" (and
// no error) means spec is not a keyword form.
func keywordExpr(spec string) (string, error) {
	kw, arg, hasArg := strings.Cut(spec, "@")
	kw, arg = strings.TrimSpace(kw), strings.TrimSpace(arg)
	switch kw {
	case "hourly":
		if hasArg {
			return "", errors.New("hourly takes no time; use a cron expression such as \"15 * * * *\"")
		}
		return "0 * * * *", nil
	case "daily":
		if !hasArg {
			return "0 0 * * *", nil
		}
		h, m, err := clock(arg)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%d %d * * *", m, h), nil
	case "weekly":
		if !hasArg {
			return "0 0 * * 1", nil
		}
		day, at, _ := strings.Cut(arg, " ")
		d, ok := weekday[day]
		if !ok {
			return "", fmt.Errorf("%q is not a day of the week (mon, tue, wed, thu, fri, sat, sun)", day)
		}
		h, m := 0, 0
		if at = strings.TrimSpace(at); at != "" {
			var err error
			if h, m, err = clock(at); err != nil {
				return "", err
			}
		}
		return fmt.Sprintf("%d %d * * %d", m, h, d), nil
	}
	if hasArg {
		return "", errors.New("unknown form; use daily@HH:MM or weekly@mon HH:MM")
	}
	return "", nil
}

// clock parses "HH:MM" (24-hour).
func clock(s string) (h, m int, err error) {
	g := clockRE.FindStringSubmatch(s)
	if g == nil {
		return 0, 0, fmt.Errorf("%q is not a time of day HH:MM (00:00 to 23:59)", s)
	}
	h, _ = strconv.Atoi(g[1])
	m, _ = strconv.Atoi(g[2])
	return h, m, nil
}

// String returns the specification as given.
func (s *Schedule) String() string { return s.spec }

// Cron returns the schedule as a 5-field cron expression ("30 6 * * 1").
func (s *Schedule) Cron() string { return s.expr }

// Location returns the schedule's time zone.
func (s *Schedule) Location() *time.Location { return s.loc }

// searchDays bounds the search for a matching day: eight years hold two
// 29 Februaries.
const searchDays = 8*366 + 2

// Next returns the first run strictly after after, in the schedule's zone;
// the zero time if there is none within eight years.
func (s *Schedule) Next(after time.Time) time.Time {
	a := after.In(s.loc)
	y, mo, d := a.Date()
	// Calendar days are walked in UTC, which has no daylight-saving
	// changes; the day before after's own is included since a time zone
	// may set its clock back across midnight.
	day := time.Date(y, mo, d, 0, 0, 0, 0, time.UTC).AddDate(0, 0, -1)
	hours := s.cron.Hour &^ (1 << 63)
	minutes := s.cron.Minute &^ (1 << 63)
	lastMinute := 63 - bits.LeadingZeros64(minutes)
	for range searchDays {
		if s.dayMatches(day) {
			y, mo, d := day.Date()
			for hs := hours; hs != 0; hs &= hs - 1 {
				h := bits.TrailingZeros64(hs)
				if !s.instant(y, mo, d, h, lastMinute).After(after) {
					continue // the whole hour is past
				}
				for ms := minutes; ms != 0; ms &= ms - 1 {
					if t := s.instant(y, mo, d, h, bits.TrailingZeros64(ms)); t.After(after) {
						return t
					}
				}
			}
		}
		day = day.AddDate(0, 0, 1)
	}
	return time.Time{}
}

// dayMatches reports whether the calendar day (a UTC midnight) matches the
// month, day-of-month and day-of-week fields; as in cron, when both day
// fields are restricted either may match.
func (s *Schedule) dayMatches(day time.Time) bool {
	const star = 1 << 63
	c := s.cron
	if c.Month&(1<<uint(day.Month())) == 0 {
		return false
	}
	dom := c.Dom&(1<<uint(day.Day())) != 0
	dow := c.Dow&(1<<uint(day.Weekday())) != 0
	if c.Dom&star != 0 || c.Dow&star != 0 {
		return dom && dow
	}
	return dom || dow
}

// instant is the moment the zone's clock shows the wall time: the first
// of two when the clock shows it twice, the end of the gap when the clock
// skips it.
func (s *Schedule) instant(y int, mo time.Month, d, h, m int) time.Time {
	t := time.Date(y, mo, d, h, m, 0, 0, s.loc)
	want := time.Date(y, mo, d, h, m, 0, 0, time.UTC)
	if got := wall(t); !got.Equal(want) {
		start, end := t.ZoneBounds()
		if got.After(want) {
			return start
		}
		return end
	}
	// The same wall time in the zone in force before this one, when that
	// zone still held then, is the earlier occurrence.
	start, _ := t.ZoneBounds()
	if start.IsZero() {
		return t
	}
	_, off := t.Zone()
	_, prev := start.Add(-time.Second).Zone()
	if e := t.Add(time.Duration(off-prev) * time.Second); e.Before(start) && e.Before(t) && wall(e).Equal(want) {
		return e
	}
	return t
}

// wall is t's wall clock as a UTC time, for comparisons.
func wall(t time.Time) time.Time {
	y, mo, d := t.Date()
	return time.Date(y, mo, d, t.Hour(), t.Minute(), t.Second(), 0, time.UTC)
}

// LatestDue returns the latest run time in [due, now], the zero time when
// due is after now. A scheduler whose stored next run is due runs once, for
// LatestDue(due, now), and then waits for Next(LatestDue(due, now)): runs
// missed during downtime are not run one after another.
func (s *Schedule) LatestDue(due, now time.Time) time.Time {
	if due.After(now) {
		return time.Time{}
	}
	// Find a recent run by looking back over growing windows, then walk
	// forward: a few steps whatever the downtime.
	from := due
	for _, back := range []time.Duration{time.Hour, 26 * time.Hour, 8 * 24 * time.Hour, 32 * 24 * time.Hour, 367 * 24 * time.Hour} {
		if start := now.Add(-back); start.After(due) {
			if n := s.Next(start); !n.IsZero() && !n.After(now) {
				from = n
				break
			}
		}
	}
	latest := from
	for n := s.Next(from); !n.IsZero() && !n.After(now); n = s.Next(n) {
		latest = n
	}
	return latest
}

// MinInterval returns the shortest nominal time between two runs, in
// wall-clock time: "daily" gives 24h, "0 */6 * * *" 6h, "* * * * *" one
// minute. Daylight-saving changes, which shift real gaps by an hour, are
// not counted.
func (s *Schedule) MinInterval() time.Duration {
	d, _ := s.minInterval()
	return d
}

// minInterval computes MinInterval from the times of day and the matching
// days over eight years; ok is false when no day matches.
func (s *Schedule) minInterval() (d time.Duration, ok bool) {
	var times []int // minutes of the day, ascending
	for hs := s.cron.Hour &^ (1 << 63); hs != 0; hs &= hs - 1 {
		for ms := s.cron.Minute &^ (1 << 63); ms != 0; ms &= ms - 1 {
			times = append(times, bits.TrailingZeros64(hs)*60+bits.TrailingZeros64(ms))
		}
	}
	if len(times) == 0 {
		return 0, false
	}
	best := -1
	for i := 1; i < len(times); i++ {
		if g := times[i] - times[i-1]; best < 0 || g < best {
			best = g
		}
	}
	// The smallest gap between two matching days, from a leap year on.
	day := time.Date(2024, time.January, 1, 0, 0, 0, 0, time.UTC)
	prev, gap := -1, -1
	for i := range searchDays {
		if s.dayMatches(day) {
			if prev >= 0 && (gap < 0 || i-prev < gap) {
				gap = i - prev
			}
			prev = i
		}
		day = day.AddDate(0, 0, 1)
	}
	if prev < 0 {
		return 0, false
	}
	if gap > 0 {
		if g := gap*24*60 - (times[len(times)-1] - times[0]); best < 0 || g < best {
			best = g
		}
	}
	if best < 0 { // one run in eight years
		best = searchDays * 24 * 60
	}
	return time.Duration(best) * time.Minute, true
}
