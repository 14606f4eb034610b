package analyzer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/seokit/seokit/seo"
)

// worstCaseForms are dense documents that maximise what the analysis
// builds per body byte: each is one element repeated up to the body cap.
var worstCaseForms = map[string]string{
	// links: the densest followable link, one listed link each.
	"links": `<a href="/p/%06d">x</a>`,
	// emptylinks: a link without text, one links.empty_text finding each.
	"emptylinks": `<a href="/p/%06d"></a>`,
	// images: an image without alt or size, three findings each.
	"images": `<img src="/i/%06d.png">`,
	// paras: the shortest element, each closing the one before (the
	// parser refuses deep nesting, so a flat tree is the largest).
	"paras": `<p>`,
	// headings: an h2 each, one outline entry each.
	"headings": `<h2>h%06d</h2>`,
}

// worstCasePage fills size bytes with the form's element, numbered.
func worstCasePage(form string, size int) []byte {
	pat := worstCaseForms[form]
	var b bytes.Buffer
	b.Grow(size)
	head := `<!DOCTYPE html><html><head><title>worst case</title></head><body>`
	b.WriteString(head)
	for i := 0; ; i++ {
		s := pat
		if strings.Contains(pat, "%") {
			s = fmt.Sprintf(pat, i%1_000_000)
		}
		if b.Len()+len(s) > size {
			break
		}
		b.WriteString(s)
	}
	return b.Bytes()
}

// worstCaseResult is what the child process measures.
type worstCaseResult struct {
	BodyBytes int   `json:"bodyBytes"`
	PeakBytes int64 `json:"peakBytes"` // VmHWM growth during the analysis
	JSONBytes int   `json:"jsonBytes"`
	Findings  int   `json:"findings"`
}

// procStatus reads a "Vm...:  N kB" line of /proc/self/status in bytes.
func procStatus(field string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return -1
}

// TestWorstCaseChild is the child process of BenchmarkAnalyzeWorstCase: it
// analyses one worst-case page and prints the peak RSS growth as JSON.
func TestWorstCaseChild(t *testing.T) {
	form := os.Getenv("SEOKIT_WORSTCASE_CHILD")
	if form == "" {
		t.Skip("run by BenchmarkAnalyzeWorstCase")
	}
	body := worstCasePage(form, seo.DefaultMaxBodyBytes)
	runtime.GC()
	// Reset the peak to the current RSS (Linux clear_refs 5).
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Skip("cannot reset VmHWM:", err)
	}
	base := procStatus("VmRSS")
	opts := &Options{Depth: Complete}
	if prof := os.Getenv("SEOKIT_WORSTCASE_HEAPPROFILE"); prof != "" {
		// Profile the live heap once every check has run, near its peak.
		opts.Checks = []Check{{Area: "profile", Run: func(*Page, *Reporter) {
			runtime.GC()
			f, err := os.Create(prof)
			if err == nil {
				pprof.WriteHeapProfile(f)
				f.Close()
			}
		}}}
	}
	if os.Getenv("SEOKIT_WORSTCASE_PARSEONLY") != "" {
		html.Parse(bytes.NewReader(body))
		fmt.Printf("PARSEONLY peak %d\n", procStatus("VmHWM")-base)
	}
	rep, err := AnalyzeHTML(context.Background(), "https://example.com/", http.Header{"Content-Type": {"text/html"}}, body, opts)
	if err != nil {
		t.Fatal(err)
	}
	peak := procStatus("VmHWM") - base
	js, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(worstCaseResult{BodyBytes: len(body), PeakBytes: peak, JSONBytes: len(js), Findings: len(rep.Findings)})
	fmt.Printf("WORSTCASE %s\n", out)
}

// runWorstCase runs TestWorstCaseChild for form in a fresh process.
func runWorstCase(tb testing.TB, form string) worstCaseResult {
	tb.Helper()
	if _, err := os.Stat("/proc/self/clear_refs"); err != nil {
		tb.Skip("needs Linux /proc to measure peak RSS")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestWorstCaseChild$", "-test.v")
	cmd.Env = append(os.Environ(), "SEOKIT_WORSTCASE_CHILD="+form)
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("child %s: %v\n%s", form, err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, "WORSTCASE "); ok {
			var r worstCaseResult
			if err := json.Unmarshal([]byte(rest), &r); err != nil {
				tb.Fatal(err)
			}
			return r
		}
	}
	tb.Skipf("child %s printed no figures:\n%s", form, out)
	return worstCaseResult{}
}

// BenchmarkAnalyzeWorstCase measures, in a child process each, the peak RSS
// growth of analysing one page at the body cap (seo.DefaultMaxBodyBytes) in
// each dense form, and reports it as a multiple of the body size. The
// EstimateMemory constant comes from these figures.
func BenchmarkAnalyzeWorstCase(b *testing.B) {
	for _, form := range []string{"links", "emptylinks", "images", "paras", "headings"} {
		b.Run(form, func(b *testing.B) {
			var r worstCaseResult
			for range b.N {
				r = runWorstCase(b, form)
			}
			x := float64(r.PeakBytes) / float64(r.BodyBytes)
			b.ReportMetric(x, "peak-x-body")
			b.ReportMetric(float64(r.PeakBytes)/1e6, "peak-MB")
			b.ReportMetric(float64(r.JSONBytes)/1e6, "json-MB")
			b.ReportMetric(0, "ns/op")
			b.Logf("%s: body %d B, peak %d B (%.1fx body), JSON %d B, %d findings", form, r.BodyBytes, r.PeakBytes, x, r.JSONBytes, r.Findings)
		})
	}
}
