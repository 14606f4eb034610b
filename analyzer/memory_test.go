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
	// longlinks: links with long targets and texts, under the element
	// budget for a whole body: the per-byte cost of parsed content.
	"longlinks": `<a href="/p/%06d/` + strings.Repeat("segment/", 16) + `">` + strings.Repeat("anchor text ", 16) + `</a>`,
	// text: paragraphs of text, the main text and word count of a body.
	"text": `<p>` + strings.Repeat("plain words of main text ", 40) + `</p>`,
}

// worstCaseHead starts every worst-case page; it has 4 elements.
const worstCaseHead = `<!DOCTYPE html><html><head><title>worst case</title></head><body>`

// worstCasePage fills size bytes with the form's element, numbered.
func worstCasePage(form string, size int) []byte {
	pat := worstCaseForms[form]
	var b bytes.Buffer
	b.Grow(size)
	b.WriteString(worstCaseHead)
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
	size, err := strconv.Atoi(os.Getenv("SEOKIT_WORSTCASE_SIZE"))
	if err != nil {
		t.Fatal("SEOKIT_WORSTCASE_SIZE:", err)
	}
	body := worstCasePage(form, size)
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

// runWorstCase runs TestWorstCaseChild for a page of form filling size
// bytes in a fresh process.
func runWorstCase(tb testing.TB, form string, size int) worstCaseResult {
	tb.Helper()
	if _, err := os.Stat("/proc/self/clear_refs"); err != nil {
		tb.Skip("needs Linux /proc to measure peak RSS")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestWorstCaseChild$", "-test.v")
	cmd.Env = append(os.Environ(), "SEOKIT_WORSTCASE_CHILD="+form, "SEOKIT_WORSTCASE_SIZE="+strconv.Itoa(size))
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

// budgetSize is the size of a page of form holding DefaultMaxElements
// elements, the largest parsed whole.
func budgetSize(form string) int {
	el := worstCaseForms[form]
	if strings.Contains(el, "%") {
		el = fmt.Sprintf(el, 0)
	}
	return len(worstCaseHead) + (DefaultMaxElements-4)*len(el)
}

// BenchmarkAnalyzeWorstCase measures, in a child process each, the peak RSS
// growth of analysing one page in each dense form, at the body cap
// (seo.DefaultMaxBodyBytes) and, when smaller, at the size whose elements
// just fit the element budget (the largest tree built), and reports it as
// a multiple of the body size next to EstimateMemory. The EstimateMemory
// constants come from these figures; a peak over the estimate fails.
func BenchmarkAnalyzeWorstCase(b *testing.B) {
	for _, form := range []string{"links", "emptylinks", "images", "paras", "headings", "longlinks", "text"} {
		sizes := []struct {
			name string
			size int
		}{{"cap", seo.DefaultMaxBodyBytes}}
		if n := budgetSize(form); n < seo.DefaultMaxBodyBytes {
			sizes = append(sizes, struct {
				name string
				size int
			}{"budget", n})
		}
		for _, sz := range sizes {
			b.Run(form+"/"+sz.name, func(b *testing.B) {
				var r worstCaseResult
				for range b.N {
					r = runWorstCase(b, form, sz.size)
				}
				x := float64(r.PeakBytes) / float64(r.BodyBytes)
				est := EstimateMemory(r.BodyBytes)
				b.ReportMetric(x, "peak-x-body")
				b.ReportMetric(float64(r.PeakBytes)/1e6, "peak-MB")
				b.ReportMetric(float64(est)/1e6, "estimate-MB")
				b.ReportMetric(float64(r.JSONBytes)/1e6, "json-MB")
				b.ReportMetric(0, "ns/op")
				b.Logf("%s: body %d B, peak %d B (%.1fx body), EstimateMemory %d B, JSON %d B, %d findings",
					form, r.BodyBytes, r.PeakBytes, x, est, r.JSONBytes, r.Findings)
				if r.PeakBytes > est {
					b.Errorf("peak %d B is over EstimateMemory(%d) = %d B", r.PeakBytes, r.BodyBytes, est)
				}
			})
		}
	}
}
