package logs

import (
	"bytes"
	"context"
	"io"
	"testing"
)

// BenchmarkIngest analyses a generated combined-format log of one million
// lines held in memory (bots classified, verification off) and reports
// lines per second and MB per second.
func BenchmarkIngest(b *testing.B) {
	const lines = 1_000_000
	data, err := io.ReadAll(newGenLog(lines, false))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		rep, err := Analyze(context.Background(), []Input{Reader("gen", bytes.NewReader(data))}, nil)
		if err != nil || rep.Requests != lines {
			b.Fatalf("requests %d, err %v", rep.Requests, err)
		}
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(lines*b.N)/sec, "lines/s")
	b.ReportMetric(float64(len(data)*b.N)/sec/1e6, "MB/s")
}
