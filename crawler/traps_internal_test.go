package crawler

import (
	"net/url"
	"testing"
)

func TestCalendarOutOfRange(t *testing.T) {
	const year = 2026
	tests := []struct {
		name, value string
		want        bool
	}{
		{"month", "12", false}, {"month", "1", false}, {"month", "13", true}, {"month", "0", true}, {"month", "-3", true},
		{"Month", "13", true}, {"cal_month", "13", true}, {"calMonth", "13", true}, {"startMonth", "0", true},
		{"day", "31", false}, {"day", "32", true}, {"week", "53", false}, {"week", "54", true},
		{"quarter", "4", false}, {"quarter", "5", true}, {"hour", "0", false}, {"hour", "24", true},
		{"year", "2026", false}, {"year", "1970", false}, {"year", "2036", false}, {"year", "2037", true}, {"year", "1965", true},
		{"date", "2026-05-01", false}, {"date", "20260501", false}, {"date", "2026-05", false},
		{"date", "2026-13-01", true}, {"date", "2026-00-10", true}, {"date", "2026-05-32", true}, {"date", "2099-01-01", true}, {"event_date", "1900-01-01", true},
		{"date", "tomorrow", false}, {"month", "may", false},
		// Not calendar names: left to the other rules.
		{"page", "5000", false}, {"birthday", "99", false}, {"monthly", "99", false}, {"id", "-4", false},
	}
	for _, tc := range tests {
		t.Run(tc.name+"="+tc.value, func(t *testing.T) {
			n, isInt := signedInteger(tc.value)
			if got := calendarOutOfRange(tc.name, tc.value, n, isInt, year); got != tc.want {
				t.Errorf("calendarOutOfRange(%q, %q) = %v, want %v", tc.name, tc.value, got, tc.want)
			}
		})
	}
}

// TestTrapNegativeNumber: an integer parameter seen at zero or above and
// then below zero is a calendar trap; one that is only ever negative (a
// time zone offset) or only ever positive (pagination) is not.
func TestTrapNegativeNumber(t *testing.T) {
	tests := []struct {
		name   string
		urls   []string
		trapAt int // index of the URL the trap fires on; -1 for none
	}{
		{"counts down through zero", []string{"https://a.example/cal?m=1", "https://a.example/cal?m=0", "https://a.example/cal?m=-1"}, 2},
		{"percent-encoded minus", []string{"https://a.example/cal?m=2", "https://a.example/cal?m=%2D1"}, 1},
		{"negative first, then positive", []string{"https://a.example/cal?m=-1", "https://a.example/cal?m=1"}, 1},
		{"only negative", []string{"https://a.example/t?tz=-5", "https://a.example/t?tz=-8"}, -1},
		{"only positive", []string{"https://a.example/l?page=1", "https://a.example/l?page=2", "https://a.example/l?page=3"}, -1},
		{"other parameters apart", []string{"https://a.example/cal?m=1&v=a", "https://a.example/cal?m=-1&v=b"}, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := newTrapGuard()
			for i, raw := range tc.urls {
				u, err := url.Parse(raw)
				if err != nil {
					t.Fatal(err)
				}
				ok := g.allows(u, raw, i+1, "https://a.example/")
				if want := i != tc.trapAt; ok != want {
					t.Errorf("allows(%s) = %v, want %v", raw, ok, want)
				}
			}
			if tc.trapAt >= 0 {
				if l := g.list(); len(l) != 1 || l[0].Reason != TrapCalendar {
					t.Errorf("traps %+v, want one calendar trap", l)
				}
			}
		})
	}
}
