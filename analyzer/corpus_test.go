package analyzer

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"testing"
	"time"

	"github.com/seokit/seokit/internal/proctest"

	"golang.org/x/net/html"
)

// corpusPages loads the saved pages named by SEOKIT_CORPUS, or skips.
func corpusPages(tb testing.TB) (names []string, pages [][]byte) {
	tb.Helper()
	dir := os.Getenv("SEOKIT_CORPUS")
	if dir == "" {
		tb.Skip("SEOKIT_CORPUS is not set: set it to a folder of saved .html pages to run the corpus tests and benchmarks")
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.html"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("SEOKIT_CORPUS=%s holds no .html files (%v)", dir, err)
	}
	sort.Strings(files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		names = append(names, filepath.Base(f))
		pages = append(pages, b)
	}
	return names, pages
}

var corpusHeader = http.Header{"Content-Type": {"text/html"}}

// TestCorpus analyses every saved page at full depth: no panic, a score in
// range, findings that are all in the catalogue, page data extracted.
func TestCorpus(t *testing.T) {
	t.Parallel()
	names, pages := corpusPages(t)
	withTitle := 0
	for i, body := range pages {
		rep, err := AnalyzeHTML(context.Background(), "https://example.com/"+names[i], corpusHeader, body, &Options{Depth: Complete})
		if err != nil {
			t.Fatalf("%s: %v", names[i], err)
		}
		if rep.Score == nil {
			t.Fatalf("%s: no score (%s)", names[i], rep.ScoreReason)
		}
		if rep.Score.Value < 0 || rep.Score.Value > 100 {
			t.Errorf("%s: score %d out of range", names[i], rep.Score.Value)
		}
		for _, f := range rep.Findings {
			if _, ok := catalog[f.ID]; !ok {
				t.Errorf("%s: finding %s is not in the catalogue", names[i], f.ID)
			}
		}
		if rep.Title != nil && rep.Title.Text != "" {
			withTitle++
		}
	}
	if withTitle < len(pages)/2 {
		t.Errorf("only %d of %d corpus pages had a title extracted", withTitle, len(pages))
	}
}

// BenchmarkAnalyzeVsParse measures full analysis (depth complete, no
// network) of every corpus page against a bare html.Parse of the same bytes,
// in the same run, and reports both throughputs, their ratio and the bytes
// allocated per page, and the ratio of their process CPU times. The
// issue's target is ratio >= 0.7.
func BenchmarkAnalyzeVsParse(b *testing.B) {
	names, pages := corpusPages(b)
	var total int64
	for _, p := range pages {
		total += int64(len(p))
	}
	ctx := context.Background()
	opts := &Options{Depth: Complete}
	var parseTime, analyzeTime, parseCPU, analyzeCPU time.Duration
	var ms0, ms1 runtime.MemStats
	var analyzeAlloc uint64
	b.ResetTimer()
	for range b.N {
		// Parse and analysis alternate page by page so that both see the
		// same machine load; the ratio is what the target is about. The
		// process CPU time of each (the collector's included) is the figure
		// a loaded machine changes least.
		for i, p := range pages {
			cpu, start := proctest.CPUTime(), time.Now()
			if _, err := html.Parse(bytes.NewReader(p)); err != nil {
				b.Fatal(err)
			}
			parseTime += time.Since(start)
			parseCPU += proctest.CPUTime() - cpu

			runtime.ReadMemStats(&ms0)
			cpu, start = proctest.CPUTime(), time.Now()
			if _, err := AnalyzeHTML(ctx, "https://example.com/"+names[i], corpusHeader, p, opts); err != nil {
				b.Fatal(err)
			}
			analyzeTime += time.Since(start)
			analyzeCPU += proctest.CPUTime() - cpu
			runtime.ReadMemStats(&ms1)
			analyzeAlloc += ms1.TotalAlloc - ms0.TotalAlloc
		}
	}
	b.StopTimer()
	mb := float64(total) * float64(b.N) / 1e6
	parseMBs, analyzeMBs := mb/parseTime.Seconds(), mb/analyzeTime.Seconds()
	cpuRatio := 0.0
	if analyzeCPU > 0 {
		cpuRatio = float64(parseCPU) / float64(analyzeCPU)
	}
	b.ReportMetric(parseMBs, "parse-MB/s")
	b.ReportMetric(analyzeMBs, "analyze-MB/s")
	b.ReportMetric(analyzeMBs/parseMBs, "ratio")
	b.ReportMetric(cpuRatio, "cpu-ratio")
	b.ReportMetric(float64(analyzeAlloc)/float64(len(pages)*b.N), "alloc-B/page")
	b.ReportMetric(0, "ns/op")
	n := float64(len(pages) * b.N)
	b.Logf("CPU per page: html.Parse %.2f ms, analysis %.2f ms, parse/analysis %.2f",
		float64(parseCPU)/n/1e6, float64(analyzeCPU)/n/1e6, cpuRatio)
	b.Logf("%d pages, %.1f MB: html.Parse %.1f MB/s, analysis %.1f MB/s, ratio %.2f (target >= 0.7), %.0f KB allocated per page",
		len(names), float64(total)/1e6, parseMBs, analyzeMBs, analyzeMBs/parseMBs, float64(analyzeAlloc)/n/1024)
}
