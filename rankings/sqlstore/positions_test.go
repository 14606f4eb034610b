package sqlstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/sqlstore"
	"github.com/seokit/seokit/seo"
)

// positionsSeries is what ScanPositions reports for one series.
type positionsSeries struct {
	last      rankings.Observation
	days      []int32
	positions []float64
}

// fromHistory derives the ScanPositions answer from History.
func fromHistory(t *testing.T, st *sqlstore.Store, f rankings.Filter) []positionsSeries {
	t.Helper()
	h, err := st.History(context.Background(), f)
	if err != nil {
		t.Fatalf("History(%+v): %v", f, err)
	}
	var out []positionsSeries
	for i := range h {
		o := h[i]
		if n := len(out); n == 0 || out[n-1].last.Keyword != o.Keyword || out[n-1].last.Locale != o.Locale || out[n-1].last.Device != o.Device {
			out = append(out, positionsSeries{})
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

func scanPositions(t *testing.T, st *sqlstore.Store, f rankings.Filter) []positionsSeries {
	t.Helper()
	var out []positionsSeries
	err := st.ScanPositions(context.Background(), f, func(last *rankings.Observation, days []int32, positions []float64) error {
		if len(days) != len(positions) || len(days) == 0 {
			t.Errorf("%s: %d days, %d positions", last.Keyword, len(days), len(positions))
		}
		l := *last
		if l.Position != nil {
			p := *l.Position // last is not ours to keep
			l.Position = &p
		}
		out = append(out, positionsSeries{last: l, days: days, positions: positions})
		return nil
	})
	if err != nil {
		t.Fatalf("ScanPositions(%+v): %v", f, err)
	}
	return out
}

func samePositions(t *testing.T, name string, got, want []positionsSeries) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d series, want %d", name, len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		gl, wl := g.last, w.last
		if gl.Position != nil && wl.Position != nil && *gl.Position == *wl.Position {
			gl.Position, wl.Position = nil, nil
		}
		if !gl.Date.Equal(wl.Date) || !gl.CheckedAt.Equal(wl.CheckedAt) {
			t.Errorf("%s: series %d last dated %v/%v, want %v/%v", name, i, gl.Date, gl.CheckedAt, wl.Date, wl.CheckedAt)
		}
		gl.Date, wl.Date, gl.CheckedAt, wl.CheckedAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
		if fmt.Sprint(gl) != fmt.Sprint(wl) {
			t.Errorf("%s: series %d last = %+v, want %+v", name, i, gl, wl)
		}
		if !slices.Equal(g.days, w.days) || !slices.Equal(g.positions, w.positions) {
			t.Errorf("%s: series %d (%s) days %v positions %v, want %v %v", name, i, w.last.Keyword, g.days, g.positions, w.days, w.positions)
		}
	}
}

// seedPositions records 300 keywords in two locales and devices over 200
// days with gaps, in shuffled batches (so blocks are merged), on two
// domains.
func seedPositions(t *testing.T, st *sqlstore.Store) time.Time {
	t.Helper()
	ctx := context.Background()
	from := time.Date(2025, 11, 20, 0, 0, 0, 0, time.UTC)
	r := rand.New(rand.NewPCG(1, 2))
	var obs []rankings.Observation
	locs := []seo.Locale{{Language: "en", Region: "US"}, {Language: "de", Region: "DE"}}
	for k := range 300 {
		for d := range 200 {
			if r.IntN(4) == 0 {
				continue // not checked that day
			}
			o := rankings.Observation{Domain: "example.com", Keyword: fmt.Sprintf("kw %03d", k), Locale: locs[k%2],
				Device: []rankings.Device{rankings.Desktop, rankings.Mobile}[k/2%2], Date: from.AddDate(0, 0, d),
				URL: fmt.Sprintf("https://example.com/%d/%d", k, d/50), Source: "test", Depth: 100,
				CheckedAt: from.AddDate(0, 0, d).Add(time.Duration(r.IntN(86400)) * time.Second)}
			if r.IntN(5) != 0 {
				p := float64(r.IntN(10000)+100) / 100
				o.Position, o.Average = &p, k%7 == 0
			}
			obs = append(obs, o)
			if k < 20 {
				o.Domain = "other.example"
				obs = append(obs, o)
			}
		}
	}
	r.Shuffle(len(obs), func(i, j int) { obs[i], obs[j] = obs[j], obs[i] })
	for i := 0; i < len(obs); i += 7000 {
		if err := st.Record(ctx, obs[i:min(i+7000, len(obs))]); err != nil {
			t.Fatal(err)
		}
	}
	return from
}

func testScanPositions(t *testing.T, st *sqlstore.Store) {
	from := seedPositions(t, st)
	many := make([]string, 0, 250)
	for k := range 250 {
		many = append(many, fmt.Sprintf("kw %03d", k))
	}
	cases := []struct {
		name string
		f    rankings.Filter
	}{
		{"whole history", rankings.Filter{Domain: "example.com"}},
		{"90 days", rankings.Filter{Domain: "example.com", From: from.AddDate(0, 0, 40), To: from.AddDate(0, 0, 129)}},
		{"one day", rankings.Filter{Domain: "example.com", From: from.AddDate(0, 0, 64), To: from.AddDate(0, 0, 64)}},
		{"before any data", rankings.Filter{Domain: "example.com", To: from.AddDate(0, 0, -1)}},
		{"other domain", rankings.Filter{Domain: "other.example", From: from.AddDate(0, 0, 10)}},
		{"unknown domain", rankings.Filter{Domain: "nothing.example"}},
		{"locale", rankings.Filter{Domain: "example.com", Locale: seo.Locale{Language: "de", Region: "DE"}}},
		{"device", rankings.Filter{Domain: "example.com", Device: rankings.Mobile, From: from.AddDate(0, 0, 100)}},
		{"few keywords", rankings.Filter{Domain: "example.com", Keywords: []string{"kw 007", "kw 123", "missing"}, From: from.AddDate(0, 0, 30)}},
		{"many keywords", rankings.Filter{Domain: "example.com", Keywords: many, To: from.AddDate(0, 0, 150)}},
		{"empty keyword list", rankings.Filter{Domain: "example.com", Keywords: []string{}}},
	}
	for _, parallel := range []bool{false, true} {
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s/parallel=%v", c.name, parallel), func(t *testing.T) {
				if parallel {
					// Several readers by ranges of series ids, even here.
					t.Cleanup(sqlstore.SetParallelSeries(1))
				}
				// Twice: the second run names series from the cache.
				for range 2 {
					samePositions(t, c.name, scanPositions(t, st, c.f), fromHistory(t, st, c.f))
				}
			})
		}
	}
	t.Run("errors", func(t *testing.T) {
		ctx := context.Background()
		if err := st.ScanPositions(ctx, rankings.Filter{}, func(*rankings.Observation, []int32, []float64) error { return nil }); err == nil {
			t.Error("no domain: no error")
		}
		stop := fmt.Errorf("stop")
		n := 0
		err := st.ScanPositions(ctx, rankings.Filter{Domain: "example.com"}, func(*rankings.Observation, []int32, []float64) error { n++; return stop })
		if err != stop || n != 1 {
			t.Errorf("fn's error: got %v after %d calls, want it after 1", err, n)
		}
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if err := st.ScanPositions(cctx, rankings.Filter{Domain: "example.com"}, func(*rankings.Observation, []int32, []float64) error { return nil }); err == nil {
			t.Error("cancelled context: no error")
		}
	})
}

func TestScanPositionsSQLite(t *testing.T) {
	testScanPositions(t, open(t, filepath.Join(t.TempDir(), "r.db")))
}

func TestScanPositionsPostgres(t *testing.T) {
	testScanPositions(t, open(t, migrated.DSN(t)))
}

func TestScanPositionsCorruptBlock(t *testing.T) {
	ctx := context.Background()
	st := open(t, ":memory:")
	p := 1.0
	if err := st.Record(ctx, []rankings.Observation{{Domain: "example.com", Keyword: "k", Date: seoDay(), Position: &p}}); err != nil {
		t.Fatal(err)
	}
	for _, data := range [][]byte{{1, 200}, {1, 0, 1, 70, 1}, {2}, {1, 0, 1, 0, 1, 0, 0, 0, 0}} {
		if _, err := st.DB().Exec(`UPDATE rankings_blocks SET data = ?`, data); err != nil {
			t.Fatal(err)
		}
		err := st.ScanPositions(ctx, rankings.Filter{Domain: "example.com"}, func(*rankings.Observation, []int32, []float64) error { return nil })
		if err == nil {
			t.Errorf("ScanPositions over the corrupt block %v succeeded", data)
		}
	}
}
