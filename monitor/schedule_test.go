package monitor

import (
	"errors"
	"testing"
	"time"

	"github.com/seokit/seokit/seo"
)

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Skipf("time zone %s not available: %v", name, err)
	}
	return loc
}

func TestScheduleNext(t *testing.T) {
	t.Parallel()
	z := func(y int, mo time.Month, d, h, m int) time.Time { return time.Date(y, mo, d, h, m, 0, 0, time.UTC) }
	tests := []struct {
		name, spec, zone string
		after            time.Time
		want             []time.Time // successive runs
	}{
		{"daily UTC", "daily", "", z(2026, 1, 1, 0, 0), []time.Time{z(2026, 1, 2, 0, 0), z(2026, 1, 3, 0, 0)}},
		{"daily at", "daily@06:30", "UTC", z(2026, 1, 1, 6, 29), []time.Time{z(2026, 1, 1, 6, 30), z(2026, 1, 2, 6, 30)}},
		{"sub-second after", "daily@06:30", "UTC", z(2026, 1, 1, 6, 30).Add(time.Nanosecond), []time.Time{z(2026, 1, 2, 6, 30)}},
		{"weekly is monday midnight", "weekly", "UTC", z(2026, 11, 25, 0, 0), []time.Time{z(2026, 11, 30, 0, 0), z(2026, 12, 7, 0, 0)}},
		{"weekly at", "Weekly@FRI 18:05", "UTC", z(2026, 11, 27, 18, 5), []time.Time{z(2026, 12, 4, 18, 5)}},
		{"cron weekdays", "0 9 * * 1-5", "UTC", z(2026, 11, 27, 10, 0), []time.Time{z(2026, 11, 30, 9, 0), z(2026, 12, 1, 9, 0)}},
		{"cron day-of-month or day-of-week", "0 0 1 * sun", "UTC", z(2026, 11, 27, 0, 0), []time.Time{z(2026, 11, 29, 0, 0), z(2026, 12, 1, 0, 0), z(2026, 12, 6, 0, 0)}},
		{"leap day", "0 0 29 2 *", "UTC", z(2026, 1, 1, 0, 0), []time.Time{z(2028, 2, 29, 0, 0), z(2032, 2, 29, 0, 0)}},

		// America/New_York: clocks go 02:00 EST -> 03:00 EDT on 8 March
		// 2026 and 02:00 EDT -> 01:00 EST on 1 November 2026.
		{"NY daily in the spring gap runs when the clock resumes", "daily@02:30", "America/New_York",
			z(2026, 3, 7, 7, 30), []time.Time{z(2026, 3, 8, 7, 0), z(2026, 3, 9, 6, 30), z(2026, 3, 10, 6, 30)}},
		{"NY daily before the gap", "daily@01:30", "America/New_York",
			z(2026, 3, 7, 6, 30), []time.Time{z(2026, 3, 8, 6, 30), z(2026, 3, 9, 5, 30)}},
		{"NY skipped times run once", "*/15 2 * * *", "America/New_York",
			z(2026, 3, 8, 6, 59), []time.Time{z(2026, 3, 8, 7, 0), z(2026, 3, 9, 6, 0)}},
		{"NY hourly in spring", "hourly", "America/New_York",
			z(2026, 3, 8, 5, 30), []time.Time{z(2026, 3, 8, 6, 0), z(2026, 3, 8, 7, 0), z(2026, 3, 8, 8, 0)}},
		{"NY repeated time runs once, at its first occurrence", "daily@01:30", "America/New_York",
			z(2026, 10, 31, 5, 30), []time.Time{z(2026, 11, 1, 5, 30), z(2026, 11, 2, 6, 30)}},
		{"NY after the first occurrence", "daily@01:30", "America/New_York",
			z(2026, 11, 1, 6, 0), []time.Time{z(2026, 11, 2, 6, 30)}},
		{"NY hourly in autumn skips the repeated hour", "hourly", "America/New_York",
			z(2026, 11, 1, 4, 30), []time.Time{z(2026, 11, 1, 5, 0), z(2026, 11, 1, 7, 0), z(2026, 11, 1, 8, 0)}},

		// Europe/Paris: 02:00 CET -> 03:00 CEST on 29 March 2026, 03:00
		// CEST -> 02:00 CET on 25 October 2026.
		{"Paris daily in the spring gap", "daily@02:30", "Europe/Paris",
			z(2026, 3, 28, 1, 30), []time.Time{z(2026, 3, 29, 1, 0), z(2026, 3, 30, 0, 30)}},
		{"Paris daily in the repeated hour", "daily@02:30", "Europe/Paris",
			z(2026, 10, 24, 0, 30), []time.Time{z(2026, 10, 25, 0, 30), z(2026, 10, 26, 1, 30)}},
		{"Paris weekly across the change", "weekly@sun 02:15", "Europe/Paris",
			z(2026, 3, 22, 1, 15), []time.Time{z(2026, 3, 29, 1, 0), z(2026, 4, 5, 0, 15)}},
		{"Paris weekly@mon 06:00", "weekly@mon 06:00", "Europe/Paris",
			z(2026, 3, 29, 12, 0), []time.Time{z(2026, 3, 30, 4, 0)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.zone != "" {
				mustZone(t, tt.zone)
			}
			s, err := ParseSchedule(tt.spec, tt.zone)
			if err != nil {
				t.Fatal(err)
			}
			at := tt.after
			for i, want := range tt.want {
				got := s.Next(at)
				if !got.Equal(want) {
					t.Fatalf("run %d after %v: got %v, want %v", i+1, at.UTC(), got.UTC(), want)
				}
				if got.Location() != s.Location() {
					t.Errorf("run %d in %v, want the schedule's zone", i+1, got.Location())
				}
				at = got
			}
		})
	}
}

// TestScheduleNextYear walks a year of daily runs in zones with
// daylight-saving changes: one run per local day, at the named wall time
// except on the day the clock skips it.
func TestScheduleNextYear(t *testing.T) {
	t.Parallel()
	for _, zone := range []string{"America/New_York", "Europe/Paris", "Australia/Lord_Howe", "UTC"} {
		loc := mustZone(t, zone)
		for _, spec := range []string{"daily@02:30", "daily@01:30", "daily@00:00", "daily@23:59"} {
			s, err := ParseSchedule(spec, zone)
			if err != nil {
				t.Fatal(err)
			}
			h, m, _ := clock(spec[len("daily@"):])
			at := time.Date(2026, 1, 1, 0, 0, 0, 0, loc).Add(-time.Second)
			for day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC); day.Year() == 2026; day = day.AddDate(0, 0, 1) {
				got := s.Next(at)
				gy, gm, gd := got.Date()
				if gy != day.Year() || gm != day.Month() || gd != day.Day() {
					t.Fatalf("%s %s: run after %v is %v, want one on %s", zone, spec, at, got, day.Format(time.DateOnly))
				}
				if got.Hour() != h || got.Minute() != m {
					// Only a skipped wall time moves, to the end of the gap.
					start, _ := got.ZoneBounds()
					if !got.Equal(start) || time.Date(gy, gm, gd, h, m, 0, 0, loc).Hour() == h {
						t.Errorf("%s %s: run at %v, want %02d:%02d", zone, spec, got, h, m)
					}
				}
				at = got
			}
		}
	}
}

func TestParseScheduleErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ spec, zone, field string }{
		{"", "", "spec"},
		{"   ", "", "spec"},
		{"daily@25:00", "", "spec"},
		{"daily@6", "", "spec"},
		{"weekly@someday", "", "spec"},
		{"weekly@mon 6pm", "", "spec"},
		{"hourly@15", "", "spec"},
		{"monthly@1", "", "spec"},
		{"* * *", "", "spec"},
		{"0 0 0 * * *", "", "spec"},
		{"61 * * * *", "", "spec"},
		{"0 0 30 2 *", "", "spec"},
		{"@every 1h", "", "spec"},
		{"@daily", "", "spec"},
		{"CRON_TZ=UTC 0 0 * * *", "", "spec"},
		{"TZ=UTC 0 0 * * *", "", "spec"},
		{string(make([]byte, MaxSpecLength+1)), "", "spec"},
		{"daily", "Mars/Phobos", "timeZone"},
		{"daily", "Local", "timeZone"},
		{"daily", "../../etc/passwd", "timeZone"},
	}
	for _, tt := range tests {
		_, err := ParseSchedule(tt.spec, tt.zone)
		ie, ok := seo.AsInputError(err)
		if !ok || ie.Field != tt.field || !errors.Is(err, seo.ErrInvalidInput) {
			t.Errorf("ParseSchedule(%q, %q) = %v, want an InputError for %s", tt.spec, tt.zone, err, tt.field)
		}
	}
}

func TestScheduleMinInterval(t *testing.T) {
	t.Parallel()
	tests := []struct {
		spec string
		want time.Duration
	}{
		{"daily", 24 * time.Hour},
		{"daily@06:00", 24 * time.Hour},
		{"hourly", time.Hour},
		{"weekly@mon 06:00", 7 * 24 * time.Hour},
		{"* * * * *", time.Minute},
		{"*/5 * * * *", 5 * time.Minute},
		{"0 0,12 * * *", 12 * time.Hour},
		{"0 0,23 * * *", time.Hour},
		{"30 23 * * 1,2", 24 * time.Hour},
		{"0 6 * * 1-5", 24 * time.Hour},
		{"0 6 * * 1,4", 3 * 24 * time.Hour},
		{"0 0 1 * *", 28 * 24 * time.Hour},
		{"0 0 29 2 *", 4*366*24*time.Hour - 24*time.Hour*3},
	}
	for _, tt := range tests {
		s, err := ParseSchedule(tt.spec, "Europe/Paris")
		if err != nil {
			t.Fatal(err)
		}
		if got := s.MinInterval(); got != tt.want {
			t.Errorf("%q: MinInterval %v, want %v", tt.spec, got, tt.want)
		}
	}
}

func TestScheduleLatestDue(t *testing.T) {
	t.Parallel()
	z := func(d, h, m int) time.Time { return time.Date(2026, 11, d, h, m, 0, 0, time.UTC) }
	tests := []struct {
		spec           string
		due, now, want time.Time
	}{
		{"daily@06:00", z(23, 6, 0), z(23, 6, 0), z(23, 6, 0)},
		{"daily@06:00", z(23, 6, 0), z(25, 9, 0), z(25, 6, 0)},
		{"daily@06:00", z(23, 6, 0), z(25, 5, 59), z(24, 6, 0)},
		{"daily@06:00", z(23, 6, 0), z(23, 5, 0), time.Time{}},
		{"hourly", z(1, 0, 0), z(26, 13, 30), z(26, 13, 0)},
		{"* * * * *", z(1, 0, 0), z(26, 13, 30).Add(30 * time.Second), z(26, 13, 30)},
		{"weekly@mon 06:00", z(2, 6, 0), z(26, 13, 30), z(23, 6, 0)},
		{"0 0 1 * *", time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), z(26, 13, 30), z(1, 0, 0)},
	}
	for _, tt := range tests {
		s, err := ParseSchedule(tt.spec, "UTC")
		if err != nil {
			t.Fatal(err)
		}
		if got := s.LatestDue(tt.due, tt.now); !got.Equal(tt.want) {
			t.Errorf("%q LatestDue(%v, %v) = %v, want %v", tt.spec, tt.due, tt.now, got, tt.want)
		}
	}
}

func TestScheduleAccessors(t *testing.T) {
	t.Parallel()
	s, err := ParseSchedule(" weekly@mon 06:00 ", "Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	if s.String() != "weekly@mon 06:00" || s.Cron() != "0 6 * * 1" || s.Location().String() != "Europe/Paris" {
		t.Errorf("got %q, %q, %v", s.String(), s.Cron(), s.Location())
	}
}
