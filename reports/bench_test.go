//go:build linux || darwin

package reports_test

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
	"github.com/seokit/seokit/reports"
)

// BenchmarkBuild90Days10k builds a 90-day report over 10,000 tracked
// keywords (900,000 observations, one in seven not ranked) stored in an
// SQLite file by rankings/sqlstore, with volumes for every keyword. It
// reports the median build time as p50-ms.
func BenchmarkBuild90Days10k(b *testing.B) {
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, filepath.Join(b.TempDir(), "r.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	from := date("2026-01-01")
	to := from.AddDate(0, 0, 89)
	all := make([]rankings.Observation, 0, 900_000)
	tracked := make([]rankings.Tracked, 0, 10_000)
	vol := &volumes{table: make(map[string]int, 10_000)}
	for k := range 10_000 {
		kw := fmt.Sprintf("keyword %05d", k)
		tracked = append(tracked, rankings.Tracked{Domain: "example.com", Keyword: kw, Locale: enUS, Device: rankings.Desktop, AddedAt: from})
		vol.table[kw] = 10 * (k%1000 + 1)
		for d := range 90 {
			o := obs(kw, from.AddDate(0, 0, d).Format("2006-01-02"), nil)
			if (k+d)%7 != 0 {
				o.Position = pos(float64((k+d)%100 + 1))
			}
			all = append(all, o)
		}
	}
	start := time.Now()
	if err := st.Track(ctx, tracked); err != nil {
		b.Fatal(err)
	}
	if err := st.Record(ctx, all); err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded 900,000 observations in %v", time.Since(start).Round(time.Millisecond))

	bld := reports.New(st, vol, &reports.Options{Now: func() time.Time { return to.Add(time.Hour) }})
	var ms, cpu []float64
	for b.Loop() {
		c0 := cpuTime()
		t0 := time.Now()
		rep, err := bld.Build(ctx, "example.com", from, to, nil)
		if err != nil {
			b.Fatal(err)
		}
		ms = append(ms, float64(time.Since(t0).Microseconds())/1000)
		cpu = append(cpu, float64((cpuTime()-c0).Microseconds())/1000)
		if r := rep.Metrics.Rankings; r.Tracked != 10_000 || r.Checked != 10_000 || len(r.Daily) != 90 {
			b.Fatalf("tracked %d checked %d days %d", r.Tracked, r.Checked, len(r.Daily))
		}
	}
	slices.Sort(ms)
	slices.Sort(cpu)
	b.ReportMetric(ms[len(ms)/2], "p50-ms")
	// CPU time of the process (all threads, GC included) per build: less
	// sensitive than wall time to other processes sharing the machine.
	b.ReportMetric(cpu[len(cpu)/2], "cpu-p50-ms")

	// The share of the store: reading the same history alone.
	var scan []float64
	for range len(ms) {
		t0 := time.Now()
		n := 0
		err := rankings.ScanHistory(ctx, st, rankings.Filter{Domain: "example.com", From: from, To: to}, func(*rankings.Observation) error { n++; return nil })
		if err != nil || n != 900_000 {
			b.Fatalf("scan: %d observations, %v", n, err)
		}
		scan = append(scan, float64(time.Since(t0).Microseconds())/1000)
	}
	slices.Sort(scan)
	b.ReportMetric(scan[len(scan)/2], "scan-p50-ms")
}

// cpuTime is the user and system CPU time of the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
