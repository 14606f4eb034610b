package reportstest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/reports"
	"github.com/seokit/seokit/seo"
)

// ScannerStore is a rankings.Store with the reports.PositionScanner
// capability, as rankings/sqlstore has.
type ScannerStore interface {
	rankings.Store
	reports.PositionScanner
}

// scanned is what ScanPositions reports for one series.
type scanned struct {
	last      rankings.Observation
	days      []int32
	positions []float64
}

func (s scanned) String() string {
	p := "nil"
	if s.last.Position != nil {
		p = fmt.Sprint(*s.last.Position)
	}
	l := s.last
	return fmt.Sprintf("%s|%s|%s last %s %s pos %s url %s depth %d avg %v src %s checked %s days %v positions %v",
		l.Keyword, l.Locale, l.Device, l.Date.Format(time.DateOnly), l.Domain, p, l.URL, l.Depth, l.Average, l.Source,
		l.CheckedAt.UTC().Format(time.RFC3339Nano), s.days, s.positions)
}

// RunPositionScanner runs the PositionScanner conformance suite. open
// returns a new, empty store for each call; it should register its own
// cleanup.
func RunPositionScanner(t *testing.T, open func(t *testing.T) ScannerStore) {
	ctx := context.Background()
	st := open(t)
	from := seed(t, st)
	many := make([]string, 0, 20)
	for k := range 20 {
		many = append(many, fmt.Sprintf("kw %02d", k))
	}
	cases := []struct {
		name string
		f    rankings.Filter
	}{
		{"whole history", rankings.Filter{Domain: "example.com"}},
		{"range", rankings.Filter{Domain: "example.com", From: from.AddDate(0, 0, 20), To: from.AddDate(0, 0, 49)}},
		{"one day", rankings.Filter{Domain: "example.com", From: from.AddDate(0, 0, 33), To: from.AddDate(0, 0, 33)}},
		{"from only", rankings.Filter{Domain: "example.com", From: from.AddDate(0, 0, 80)}},
		{"before any data", rankings.Filter{Domain: "example.com", To: from.AddDate(0, 0, -1)}},
		{"other domain", rankings.Filter{Domain: "other.example", From: from.AddDate(0, 0, 10)}},
		{"domain case", rankings.Filter{Domain: "OTHER.Example"}},
		{"unknown domain", rankings.Filter{Domain: "nothing.example"}},
		{"locale", rankings.Filter{Domain: "example.com", Locale: seo.Locale{Language: "de", Region: "DE"}}},
		{"device", rankings.Filter{Domain: "example.com", Device: rankings.Mobile, From: from.AddDate(0, 0, 45)}},
		{"few keywords", rankings.Filter{Domain: "example.com", Keywords: []string{"kw 07", "kw 13", "missing"}, From: from.AddDate(0, 0, 30)}},
		{"many keywords", rankings.Filter{Domain: "example.com", Keywords: many, To: from.AddDate(0, 0, 60)}},
		{"empty keyword list", rankings.Filter{Domain: "example.com", Keywords: []string{}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, want := scan(t, st, c.f), fromHistory(t, st, c.f)
			if len(got) != len(want) {
				t.Errorf("ScanPositions reported %d series, History has %d", len(got), len(want))
			}
			for i := range min(len(got), len(want)) {
				if g, w := got[i].String(), want[i].String(); g != w {
					t.Errorf("series %d:\n got %s\nwant %s", i, g, w)
				}
			}
		})
	}
	t.Run("Errors", func(t *testing.T) {
		nop := func(*rankings.Observation, []int32, []float64) error { return nil }
		if err := st.ScanPositions(ctx, rankings.Filter{}, nop); !errors.Is(err, seo.ErrInvalidInput) {
			t.Errorf("ScanPositions without a domain = %v, want ErrInvalidInput", err)
		}
		stop := errors.New("stop")
		n := 0
		err := st.ScanPositions(ctx, rankings.Filter{Domain: "example.com"}, func(*rankings.Observation, []int32, []float64) error { n++; return stop })
		if !errors.Is(err, stop) || n != 1 {
			t.Errorf("fn's error: got %v after %d calls, want it after 1", err, n)
		}
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if err := st.ScanPositions(cctx, rankings.Filter{Domain: "example.com"}, nop); err == nil {
			t.Error("ScanPositions with a cancelled context succeeded")
		}
	})
	t.Run("Empty", func(t *testing.T) {
		e := open(t)
		if got := scan(t, e, rankings.Filter{Domain: "example.com"}); len(got) != 0 {
			t.Errorf("an empty store reported %v", got)
		}
	})
}

// seed records 24 keywords in two locales and devices over 90 days with
// gaps, unranked days and averages, on two domains, in shuffled batches,
// and rewrites some days (the later write wins). It returns the first day.
func seed(t *testing.T, st rankings.Store) time.Time {
	t.Helper()
	from := time.Date(2025, 11, 20, 0, 0, 0, 0, time.UTC)
	r := rand.New(rand.NewPCG(1, 2))
	locs := []seo.Locale{{Language: "en", Region: "US"}, {Language: "de", Region: "DE"}}
	var obs []rankings.Observation
	for k := range 24 {
		for d := range 90 {
			if r.IntN(4) == 0 {
				continue // not checked that day
			}
			o := rankings.Observation{Domain: "example.com", Keyword: fmt.Sprintf("kw %02d", k), Locale: locs[k%2],
				Device: []rankings.Device{rankings.Desktop, rankings.Mobile}[k/2%2], Date: from.AddDate(0, 0, d),
				URL: fmt.Sprintf("https://example.com/%d/%d", k, d/30), Source: "suite", Depth: 100,
				CheckedAt: from.AddDate(0, 0, d).Add(time.Duration(r.IntN(86400)) * time.Second)}
			if r.IntN(5) != 0 {
				p := float64(r.IntN(10000)+100) / 100
				o.Position, o.Average = &p, k%7 == 0
			}
			obs = append(obs, o)
			if k < 5 {
				o.Domain = "other.example"
				obs = append(obs, o)
			}
		}
	}
	r.Shuffle(len(obs), func(i, j int) { obs[i], obs[j] = obs[j], obs[i] })
	for i := 0; i < len(obs); i += 500 {
		if err := st.Record(context.Background(), obs[i:min(i+500, len(obs))]); err != nil {
			t.Fatal(err)
		}
	}
	var again []rankings.Observation
	for i := 0; i < len(obs); i += 37 {
		o := obs[i]
		p := float64(i%90 + 1)
		o.Position, o.URL = &p, o.URL+"?again"
		again = append(again, o)
	}
	if err := st.Record(context.Background(), again); err != nil {
		t.Fatal(err)
	}
	return from
}

// fromHistory derives the ScanPositions answer from History.
func fromHistory(t *testing.T, st rankings.Store, f rankings.Filter) []scanned {
	t.Helper()
	h, err := st.History(context.Background(), f)
	if err != nil {
		t.Fatalf("History(%+v): %v", f, err)
	}
	var out []scanned
	for _, o := range h {
		if n := len(out); n == 0 || out[n-1].last.Keyword != o.Keyword || out[n-1].last.Locale != o.Locale || out[n-1].last.Device != o.Device {
			out = append(out, scanned{})
		}
		s := &out[len(out)-1]
		s.last = o
		s.days = append(s.days, int32(rankings.DayNumber(o.Date)))
		p := 0.0
		if o.Position != nil {
			p = *o.Position
		}
		s.positions = append(s.positions, p)
	}
	return out
}

// scan collects ScanPositions' series, keeping the slices it was given
// (they are the caller's) and copying last (it is not).
func scan(t *testing.T, st reports.PositionScanner, f rankings.Filter) []scanned {
	t.Helper()
	var out []scanned
	err := st.ScanPositions(context.Background(), f, func(last *rankings.Observation, days []int32, positions []float64) error {
		if last == nil {
			t.Error("fn called without an observation")
			return nil
		}
		if len(days) == 0 || len(days) != len(positions) {
			t.Errorf("%s: %d days, %d positions", last.Keyword, len(days), len(positions))
		}
		if !slices.IsSorted(days) || len(slices.Compact(slices.Clone(days))) != len(days) {
			t.Errorf("%s: days %v not strictly ascending", last.Keyword, days)
		}
		for _, p := range positions {
			if p < 0 || (p > 0 && p < 1) {
				t.Errorf("%s: position %v, want 0 (not ranked) or at least 1", last.Keyword, p)
			}
		}
		l := *last
		if l.Position != nil {
			p := *l.Position
			l.Position = &p
		}
		out = append(out, scanned{last: l, days: days, positions: positions})
		return nil
	})
	if err != nil {
		t.Fatalf("ScanPositions(%+v): %v", f, err)
	}
	return out
}
