package compare_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/seokit/seokit/internal/proctest"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/compare"
	"github.com/seokit/seokit/crawler/crawlertest"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
)

// writeLargeReport writes a site report of n pages to path page by page,
// so that writing it holds no report in memory. Pages whose index is a
// multiple of changeEvery get another title and one more finding; the
// version shifts the URL range by shift pages (added and removed pages).
func writeLargeReport(b testing.TB, path string, n, shift, changeEvery int, version int) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	head := crawler.SiteReport{Domain: "shop.example", StartURL: "https://shop.example/",
		StartedAt: time.Date(2026, 11, 1+version, 3, 0, 0, 0, time.UTC)}
	hb, _ := json.Marshal(head)
	w.Write(hb[:len(hb)-1]) // drop the closing brace, then add the pages
	w.WriteString(`,"pages":[`)
	// Page finding IDs, the first on every page.
	ids := []string{"title.too_long", "description.missing", "images.alt_missing", "links.broken_internal",
		"headings.multiple_h1", "http.no_compression", "canonical.missing", "social.og_image_missing"}
	enc := json.NewEncoder(w)
	for i := range n {
		k := i + shift
		depth := 1 + k%7
		score := 60 + k%40
		p := crawler.PageSummary{
			URL: fmt.Sprintf("https://shop.example/products/%07d/item-with-a-longer-slug", k), Status: 200,
			Depth: &depth, IsHTML: true, Indexable: true,
			Title:       fmt.Sprintf("Product %d | A shop with a long title for its products", k),
			Description: fmt.Sprintf("Buy product %d at the shop: free delivery, returns within thirty days and more.", k),
			H1:          fmt.Sprintf("Product %d", k),
			Canonical:   fmt.Sprintf("https://shop.example/products/%07d/item-with-a-longer-slug", k),
			WordCount:   300 + k%500, Score: &score, Inlinks: 3 + k%20, LinkScore: float64(k%100) / 2,
			Findings: ids[:1+k%5], ResponseMs: int64(20 + k%50), Bytes: 20000,
		}
		if version == 2 && k%changeEvery == 0 {
			p.Title += " (new)"
			p.Findings = ids[:2+k%5]
		}
		if i > 0 {
			w.WriteByte(',')
		}
		if err := enc.Encode(&p); err != nil {
			b.Fatal(err)
		}
	}
	w.WriteString(`]}`)
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkCompare compares two stored 100,000-page site reports (JSON
// files of about 60 MB each, 1,000 pages added and removed, 10,000 changed)
// streamed from disk, and reports the time and the process's peak RSS
// during the comparison (the peak is reset after the files are written).
// Targets: under 3 s and under 300 MB. Run it with
//
//	go test ./crawler/compare -run '^$' -bench BenchmarkCompare -benchtime 1x
func BenchmarkCompare(b *testing.B) {
	const n = 100_000
	dir := b.TempDir()
	oldPath, newPath := filepath.Join(dir, "old.json"), filepath.Join(dir, "new.json")
	writeLargeReport(b, oldPath, n, 0, 10, 1)
	writeLargeReport(b, newPath, n, 1000, 10, 2)
	runtime.GC()
	resetPeak := crawlertest.ResetPeakRSS()
	b.ResetTimer()
	var d *compare.Diff
	cpu0 := proctest.CPUTime()
	start := time.Now()
	for range b.N {
		var err error
		d, err = compare.Sites(context.Background(), compare.File(oldPath), compare.File(newPath), nil)
		if err != nil {
			b.Fatal(err)
		}
	}
	elapsed := time.Since(start) / time.Duration(b.N)
	cpu := (proctest.CPUTime() - cpu0) / time.Duration(b.N)
	b.StopTimer()
	peak := crawlertest.PeakRSS()
	if d.Added.Count != 1000 || d.Removed.Count != 1000 || d.ChangedPages < 9000 {
		b.Fatalf("diff: %d added, %d removed, %d changed; want 1000, 1000, about 9,900", d.Added.Count, d.Removed.Count, d.ChangedPages)
	}
	st, _ := os.Stat(oldPath)
	b.ReportMetric(elapsed.Seconds(), "s/compare")
	b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
	verdict := "targets met"
	if elapsed > 3*time.Second || peak > 300<<20 {
		verdict = "TARGETS MISSED"
	}
	peakNote := "peak RSS since the files were written"
	if !resetPeak {
		peakNote = "peak RSS of the whole benchmark (could not reset it)"
	}
	fmt.Printf("compare: 2 × %d pages (%.0f MB JSON each): %.2f s wall, %.2f s CPU (user+system, all threads), %s %.0f MB; %d added, %d removed, %d changed, %d finding IDs; targets < 3 s and < 300 MB: %s\n",
		n, float64(st.Size())/(1<<20), elapsed.Seconds(), cpu.Seconds(), peakNote, float64(peak)/(1<<20),
		d.Added.Count, d.Removed.Count, d.ChangedPages, len(d.Findings), verdict)
}

// BenchmarkCompareStored compares two 100,000-page analyses stored in the
// API's SQLite store (sqlstore, results compressed) as the diff endpoint
// does: each job read with its compressed result (store.JobResults) and
// its JSON decompressed as Sites streams it. It reports the time and
// the peak RSS during the comparison (reset after the jobs are stored).
// Targets: under 3 s and under 300 MB. Run it with
//
//	go test ./crawler/compare -run '^$' -bench BenchmarkCompareStored -benchtime 1x
func BenchmarkCompareStored(b *testing.B) {
	const n = 100_000
	ctx := context.Background()
	dir := b.TempDir()
	st, err := sqlstore.Open(ctx, filepath.Join(dir, "api.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	a := &store.Account{Email: "bench@example.com", Name: "Bench", Plan: store.Enterprise}
	if err := st.CreateAccount(ctx, a); err != nil {
		b.Fatal(err)
	}
	var ids [2]string
	var jsonSize int
	var storeTime time.Duration
	for i, v := range []struct{ shift, version int }{{0, 1}, {1000, 2}} {
		path := filepath.Join(dir, fmt.Sprintf("report%d.json", i))
		writeLargeReport(b, path, n, v.shift, 10, v.version)
		res, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		jsonSize = len(res)
		j := &store.Job{AccountID: a.ID, Kind: "site", Status: store.JobSucceeded, Request: []byte(`{"domain":"shop.example"}`), Result: res}
		start := time.Now()
		if err := st.CreateJob(ctx, j); err != nil {
			b.Fatal(err)
		}
		storeTime += time.Since(start)
		ids[i] = j.ID
		os.Remove(path)
	}
	_, probe, err := st.JobResult(ctx, a.ID, ids[0])
	if err != nil {
		b.Fatal(err)
	}
	storedSize := probe.StoredSize()
	probe = nil
	runtime.GC()
	debug.FreeOSMemory()
	resetPeak := crawlertest.ResetPeakRSS()
	b.ResetTimer()
	var d *compare.Diff
	cpu0 := proctest.CPUTime()
	start := time.Now()
	for range b.N {
		var src [2]compare.Source
		for i, id := range ids {
			_, res, err := st.JobResult(ctx, a.ID, id)
			if err != nil {
				b.Fatal(err)
			}
			src[i] = compare.Reader(id, res.Open)
		}
		if d, err = compare.Sites(ctx, src[0], src[1], nil); err != nil {
			b.Fatal(err)
		}
	}
	elapsed := time.Since(start) / time.Duration(b.N)
	cpu := (proctest.CPUTime() - cpu0) / time.Duration(b.N)
	b.StopTimer()
	peak := crawlertest.PeakRSS()
	if d.Added.Count != 1000 || d.Removed.Count != 1000 || d.ChangedPages < 9000 {
		b.Fatalf("diff: %d added, %d removed, %d changed; want 1000, 1000, about 9,900", d.Added.Count, d.Removed.Count, d.ChangedPages)
	}
	b.ReportMetric(elapsed.Seconds(), "s/compare")
	b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
	verdict := "targets met"
	if elapsed > 3*time.Second || peak > 300<<20 {
		verdict = "TARGETS MISSED"
	}
	peakNote := "peak RSS since the jobs were stored"
	if !resetPeak {
		peakNote = "peak RSS of the whole benchmark (could not reset it)"
	}
	fmt.Printf("compare: 2 stored analyses (SQLite) × %d pages (%.0f MB JSON, stored compressed in %.1f MB each, %.2f s to store both): %.2f s wall, %.2f s CPU (user+system, all threads), %s %.0f MB; %d added, %d removed, %d changed; targets < 3 s and < 300 MB: %s\n",
		n, float64(jsonSize)/(1<<20), float64(storedSize)/(1<<20), storeTime.Seconds(), elapsed.Seconds(), cpu.Seconds(), peakNote, float64(peak)/(1<<20),
		d.Added.Count, d.Removed.Count, d.ChangedPages, verdict)
}
