package sqlstore_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/sqlstore"
	"github.com/seokit/seokit/seo"
)

// seed90x10k records 10,000 keywords × 90 days for example.com.
func seed90x10k(b *testing.B, st rankings.Store) (from, to time.Time) {
	b.Helper()
	ctx := context.Background()
	from = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	to = from.AddDate(0, 0, 89)
	obs := make([]rankings.Observation, 0, 900_000)
	loc := seo.Locale{Language: "en", Region: "US"}
	for k := range 10_000 {
		kw := fmt.Sprintf("keyword %05d", k)
		for d := range 90 {
			o := rankings.Observation{Domain: "example.com", Keyword: kw, Locale: loc, Device: rankings.Desktop,
				Date: from.AddDate(0, 0, d), URL: fmt.Sprintf("https://example.com/p/%d", k), Depth: 100, Source: "bench",
				CheckedAt: from.AddDate(0, 0, d).Add(3 * time.Hour)}
			if (k+d)%7 != 0 {
				p := float64((k+d)%100 + 1)
				o.Position = &p
			}
			obs = append(obs, o)
		}
	}
	start := time.Now()
	if err := st.Record(ctx, obs); err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded 900,000 observations in %v", time.Since(start))
	return from, to
}

// BenchmarkHistory90Days10k reads a 90-day history of 10,000 keywords
// (900,000 observations) from an SQLite file.
func BenchmarkHistory90Days10k(b *testing.B) {
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, filepath.Join(b.TempDir(), "r.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	from, to := seed90x10k(b, st)
	f := rankings.Filter{Domain: "example.com", From: from, To: to}
	b.Run("History", func(b *testing.B) {
		var ms []float64
		cpu0 := cpuTime()
		for b.Loop() {
			start := time.Now()
			obs, err := st.History(ctx, f)
			if err != nil {
				b.Fatal(err)
			}
			ms = append(ms, float64(time.Since(start).Microseconds())/1000)
			if len(obs) != 900_000 {
				b.Fatalf("got %d observations, want 900000", len(obs))
			}
		}
		b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(len(ms)), "cpu-ms/op")
		slices.Sort(ms)
		b.ReportMetric(ms[len(ms)/2], "p50-ms")
	})
	b.Run("ScanHistory", func(b *testing.B) {
		var ms []float64
		cpu0 := cpuTime()
		for b.Loop() {
			start := time.Now()
			n := 0
			if err := st.ScanHistory(ctx, f, func(o *rankings.Observation) error { n++; return nil }); err != nil {
				b.Fatal(err)
			}
			ms = append(ms, float64(time.Since(start).Microseconds())/1000)
			if n != 900_000 {
				b.Fatalf("got %d observations, want 900000", n)
			}
		}
		b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(len(ms)), "cpu-ms/op")
		slices.Sort(ms)
		b.ReportMetric(ms[len(ms)/2], "p50-ms")
	})
	// The scheduler's daily write: one observation for each of the 10,000
	// keywords, merged into their blocks.
	b.Run("RecordDay", func(b *testing.B) {
		day := to
		loc := seo.Locale{Language: "en", Region: "US"}
		for b.Loop() {
			day = day.AddDate(0, 0, 1)
			obs := make([]rankings.Observation, 10_000)
			for k := range obs {
				p := float64(k%100 + 1)
				obs[k] = rankings.Observation{Domain: "example.com", Keyword: fmt.Sprintf("keyword %05d", k), Locale: loc,
					Device: rankings.Desktop, Date: day, Position: &p, URL: fmt.Sprintf("https://example.com/p/%d", k), Depth: 100, Source: "bench"}
			}
			if err := st.Record(ctx, obs); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// cpuTime is the CPU time (user and system, all threads, GC included) the
// process has used: on a loaded machine it shows the cost of an operation
// better than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
