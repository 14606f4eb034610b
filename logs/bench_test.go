package logs

import (
	"bytes"
	"context"
	"io"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkIngest analyses a generated combined-format log of one million
// lines held in memory (two thirds bots, a third of those spoofing
// Googlebot) and reports lines and MB per second of wall time, and lines
// per second of CPU time (the figure a shared machine does not skew).
// "classify" matches bots with verification off; "verify" also verifies
// every bot hit against local range files and a DNS server on loopback.
func BenchmarkIngest(b *testing.B) {
	const lines = 1_000_000
	data, err := io.ReadAll(newGenLog(lines, false))
	if err != nil {
		b.Fatal(err)
	}
	d := verifyDNS(b)
	for _, c := range []struct {
		name string
		opts func() *Options
	}{
		{"classify", func() *Options { return nil }},
		{"verify", func() *Options {
			return &Options{Verifier: NewVerifier(&VerifierOptions{Resolver: NewDNSResolver(d.addr), Ranges: DirRanges("testdata/ranges"), LookupTimeout: 10 * time.Second})}
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			cpu0 := cpuTime()
			b.ResetTimer()
			for range b.N {
				opts := c.opts()
				rep, err := Analyze(context.Background(), []Input{Reader("gen", bytes.NewReader(data))}, opts)
				if err != nil || rep.Requests != lines {
					b.Fatalf("requests %d, err %v", rep.Requests, err)
				}
				if opts != nil && (rep.Totals.VerifiedHits == 0 || rep.Totals.SpoofedHits == 0) {
					b.Fatalf("verification: %+v", rep.Totals)
				}
			}
			b.StopTimer()
			sec := b.Elapsed().Seconds()
			b.ReportMetric(float64(lines*b.N)/sec, "lines/s")
			b.ReportMetric(float64(len(data)*b.N)/sec/1e6, "MB/s")
			b.ReportMetric(float64(lines*b.N)/(cpuTime()-cpu0).Seconds(), "lines/cpu-s")
		})
	}
}
