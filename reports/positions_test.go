package reports_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/sqlstore"
	"github.com/seokit/seokit/reports"
	"github.com/seokit/seokit/seo"
)

var _ reports.PositionScanner = (*sqlstore.Store)(nil)

// historyOnly hides the store's PositionScanner (and HistoryScanner), so
// that Build reads it through History.
type historyOnly struct{ rankings.Store }

// TestPositionScannerSameReport builds the same reports from an SQL store
// through its PositionScanner and through History: they must be equal.
func TestPositionScannerSameReport(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, filepath.Join(t.TempDir(), "r.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	from := date("2026-01-01")
	de := seo.Locale{Language: "de", Region: "DE"}
	vol := &volumes{table: map[string]int{}}
	var tracked []rankings.Tracked
	var all []rankings.Observation
	for k := range 60 {
		kw := fmt.Sprintf("keyword %02d", k)
		loc := enUS
		if k%3 == 0 {
			loc = de
		}
		dev := rankings.Desktop
		if k%4 == 0 {
			dev = rankings.Mobile
		}
		if k%5 != 0 {
			vol.table[kw] = 100 * (k + 1)
		}
		tracked = append(tracked, rankings.Tracked{Domain: "example.com", Keyword: kw, Locale: loc, Device: dev, AddedAt: from})
		if k >= 55 {
			continue // tracked, never checked
		}
		for d := k % 3; d < 100; d += 1 + k%4 {
			o := obs(kw, from.AddDate(0, 0, d).Format("2006-01-02"), nil)
			o.Locale, o.Device = loc, dev
			o.URL = fmt.Sprintf("https://example.com/%d/%d", k, d/30)
			if (k+d)%6 != 0 {
				o.Position = pos(float64((k*7+d)%60) + 1 + float64(k%2)*0.25)
				o.Average = k%2 == 1
			}
			all = append(all, o)
		}
	}
	if err := st.Track(ctx, tracked); err != nil {
		t.Fatal(err)
	}
	if err := st.Record(ctx, all); err != nil {
		t.Fatal(err)
	}
	now := func() time.Time { return from.AddDate(0, 0, 120) }
	cases := []struct {
		name       string
		start, end time.Time
		bo         reports.BuildOptions
	}{
		{"whole", from, from.AddDate(0, 0, 99), reports.BuildOptions{History: true}},
		{"middle", from.AddDate(0, 0, 20), from.AddDate(0, 0, 70), reports.BuildOptions{Keywords: 10}},
		{"one day", from.AddDate(0, 0, 64), from.AddDate(0, 0, 64), reports.BuildOptions{}},
		{"german mobile", from, from.AddDate(0, 0, 99), reports.BuildOptions{Locale: de, Device: rankings.Mobile, History: true}},
		{"after the data", from.AddDate(0, 0, 101), from.AddDate(0, 0, 110), reports.BuildOptions{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fast, err := reports.New(st, vol, &reports.Options{Now: now}).Build(ctx, "example.com", c.start, c.end, &c.bo)
			if err != nil {
				t.Fatal(err)
			}
			slow, err := reports.New(historyOnly{st}, vol, &reports.Options{Now: now}).Build(ctx, "example.com", c.start, c.end, &c.bo)
			if err != nil {
				t.Fatal(err)
			}
			a, _ := json.Marshal(fast)
			b, _ := json.Marshal(slow)
			if string(a) != string(b) {
				t.Errorf("report through ScanPositions differs from the one through History:\n%s\n%s", a, b)
			}
			if c.name == "whole" && (fast.Metrics.Rankings.Checked != 55 || fast.Metrics.Rankings.Unchecked != 5) {
				t.Errorf("checked %d unchecked %d, want 55 and 5", fast.Metrics.Rankings.Checked, fast.Metrics.Rankings.Unchecked)
			}
		})
	}
}

// scanner is a store whose ScanPositions answers given series, to check
// how Build treats what a PositionScanner returns.
type scanner struct {
	*memStore
	days [][]int32
}

func (s *scanner) ScanPositions(_ context.Context, f rankings.Filter, fn func(*rankings.Observation, []int32, []float64) error) error {
	for i, d := range s.days {
		o := obs(fmt.Sprintf("kw %d", i), "2026-01-01", nil)
		if err := fn(&o, d, make([]float64, len(d))); err != nil {
			return err
		}
	}
	return nil
}

func TestPositionScannerChecks(t *testing.T) {
	t.Parallel()
	first := int32(rankings.DayNumber(date("2026-01-01")))
	now := func() time.Time { return date("2026-02-01") }
	cases := []struct {
		name    string
		days    [][]int32
		checked int
		err     bool
	}{
		{"in range", [][]int32{{first, first + 1, first + 2}}, 1, false},
		{"outside the range dropped", [][]int32{{first - 5, first - 1}, {first + 1, first + 40}}, 1, false},
		{"not ascending", [][]int32{{first + 2, first + 1}}, 0, true},
		{"repeated day", [][]int32{{first, first}}, 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := &scanner{memStore: &memStore{}, days: c.days}
			rep, err := reports.New(st, nil, &reports.Options{Now: now}).Build(context.Background(), "example.com", date("2026-01-01"), date("2026-01-10"), nil)
			if c.err {
				if err == nil || !strings.Contains(err.Error(), "not ascending") {
					t.Errorf("err = %v, want one saying the days are not ascending", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := rep.Metrics.Rankings.Checked; got != c.checked {
				t.Errorf("checked %d, want %d", got, c.checked)
			}
		})
	}
}
