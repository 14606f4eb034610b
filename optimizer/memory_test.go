package optimizer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/internal/proctest"
	"github.com/seokit/seokit/seo"
)

// memShape is one input shape of the memory test: a text of about n bytes
// in a locale.
type memShape struct {
	name, locale, format string
	keywords             []string
	gen                  func(tb testing.TB, n int) string
	// prose shapes must stay within proseLimitRatio times the input.
	prose bool
}

// repeatTo repeats unit (with an optional sequence number) until the text
// has n bytes.
func repeatTo(n int, unit func(i int) string) string {
	var b strings.Builder
	b.Grow(n + 1024)
	for i := 0; b.Len() < n; i++ {
		b.WriteString(unit(i))
	}
	s := b.String()
	return s[:min(len(s), n)]
}

func langShape(lang string) memShape {
	return memShape{name: lang, locale: benchLocales[lang], keywords: benchKeywords[lang], prose: true, gen: func(tb testing.TB, n int) string {
		base := benchText(tb, lang, 3000)
		return repeatTo(n, func(int) string { return base })
	}}
}

var memShapes = []memShape{
	langShape("en"), langShape("de"), langShape("fr"), langShape("ru"),
	{name: "ja", locale: "ja-JP", keywords: []string{"コーヒー"}, prose: true, gen: func(_ testing.TB, n int) string {
		return repeatTo(n, func(i int) string {
			s := "家でおいしいコーヒーを淹れるのは、多くの人が思うよりも簡単です。新鮮な豆を使い、挽きたての粉で淹れましょう。"
			if i%5 == 4 {
				s += "\n\n"
			}
			return s
		})
	}},
	{name: "one-word", locale: "en-US", keywords: []string{"coffee"}, prose: true, gen: func(_ testing.TB, n int) string {
		return strings.Repeat("a", n)
	}},
	{name: "one-sentence", locale: "en-US", keywords: []string{"brew coffee"}, prose: true, gen: func(_ testing.TB, n int) string {
		return repeatTo(n, func(i int) string { return "the coffee is brewed by a barista and it was served with care " })
	}},
	{name: "line-paragraphs", locale: "en-US", keywords: []string{"coffee"}, gen: func(_ testing.TB, n int) string {
		return repeatTo(n, func(i int) string { return "Coffee " + strconv.Itoa(i) + "\n\n" })
	}},
	{name: "html-links", locale: "en-US", format: FormatHTML, keywords: []string{"coffee"}, gen: func(_ testing.TB, n int) string {
		return repeatTo(n, func(i int) string {
			return `<p><a href="/c` + strconv.Itoa(i) + `">coffee</a> <img alt="coffee cup" src="x.png"></p>`
		})
	}},
	{name: "md-headings", locale: "de-DE", format: FormatMarkdown, keywords: []string{"Kaffee"}, gen: func(_ testing.TB, n int) string {
		return repeatTo(n, func(i int) string { return "## Kaffee " + strconv.Itoa(i) + "\n\nDer Kaffee wird gekocht.\n\n" })
	}},
	// About 1.75 million distinct random word forms: all but the first
	// vocabCap of them are analysed outside the form table.
	{name: "random-forms", locale: "en-US", keywords: []string{"coffee"}, gen: func(_ testing.TB, n int) string {
		return repeatTo(n, func(i int) string { return randomForm(i) + sentenceEnd(i) })
	}},
	// One 10 MiB German "word": never stemmed (it is longer than maxStemBytes).
	{name: "huge-word-de", locale: "de-DE", keywords: []string{"Kaffee"}, prose: true, gen: func(_ testing.TB, n int) string {
		return repeatTo(n, func(int) string { return "Donaudampfschifffahrtsgesellschaftskapitänsmütze" })
	}},
}

// randomForm returns the i-th of 26^5 distinct five-letter forms, in an
// order that looks random.
func randomForm(i int) string {
	v := (i * 7919) % 11881376 // 26^5; 7919 is prime to 26
	var b [5]byte
	for k := range b {
		b[k] = byte('a' + v%26)
		v /= 26
	}
	return string(b[:])
}

// sentenceEnd returns what follows word i of a generated text: a space, or
// every 12 words the end of a sentence, and every 8 sentences of a
// paragraph.
func sentenceEnd(i int) string {
	switch {
	case i%96 == 95:
		return ".\n\n"
	case i%12 == 11:
		return ". "
	}
	return " "
}

// peakHeap runs fn while sampling the heap's object bytes every
// millisecond and returns the peak above the heap in use before fn. The
// sampler ends before it returns.
func peakHeap(fn func()) uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	stop := proctest.SamplePeak("/memory/classes/heap/objects:bytes", time.Millisecond)
	fn()
	peak := stop()
	if peak < base {
		return 0
	}
	return peak - base
}

// TestOptimizeMemory optimises 10 MiB texts of several shapes, each in a
// fresh process (so that one shape's garbage cannot hide another's peak),
// and checks that the peak heap stays within EstimateMemory, and within
// proseLimitRatio times the input for prose. The peak is sampled every
// millisecond, so a busy machine can only make it read lower, never fail
// the test by itself. Each shape must also finish within maxLargeTime, a
// bound for a busy machine (a quiet core needs a few seconds).
func TestOptimizeMemory(t *testing.T) {
	if os.Getenv("SEOKIT_OPTIMIZER_MEM_SHAPE") != "" {
		t.Skip("child process")
	}
	if testing.Short() || raceEnabled {
		t.Skip("optimises 10 MiB texts (not in -short or -race runs)")
	}
	for _, sh := range memShapes {
		t.Run(sh.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperMemory$", "-test.count=1")
			cmd.Env = append(os.Environ(), "SEOKIT_OPTIMIZER_MEM_SHAPE="+sh.name)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("helper: %v\n%s", err, out)
			}
			_, after, ok := strings.Cut(string(out), "mem-ratio=")
			if !ok {
				t.Fatalf("helper printed no figure:\n%s", out)
			}
			ratio, err := strconv.ParseFloat(strings.Fields(after)[0], 64)
			if err != nil {
				t.Fatal(err)
			}
			_, peakField, _ := strings.Cut(string(out), "peak-heap=")
			peak, err := strconv.ParseInt(strings.Fields(peakField)[0], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			line, _, _ := strings.Cut(string(out[strings.Index(string(out), "shape="):]), "\n")
			t.Log(line)
			_, timeField, _ := strings.Cut(string(out), " time=")
			took, err := time.ParseDuration(strings.Fields(timeField)[0])
			if err != nil {
				t.Fatal(err)
			}
			if took > maxLargeTime {
				t.Errorf("optimising took %s, want at most %s", took, maxLargeTime)
			}
			if est := EstimateMemory(MaxContentBytes); peak > est {
				t.Errorf("peak heap %d exceeds EstimateMemory %d", peak, est)
			}
			if sh.prose && ratio > proseLimitRatio {
				t.Errorf("peak heap is %.1f times the input, want at most %d for prose", ratio, proseLimitRatio)
			}
		})
	}
}

// proseLimitRatio is the largest peak heap accepted for prose, as a
// multiple of the input's size.
const proseLimitRatio = 8

// maxLargeTime is the longest TestOptimizeMemory accepts for one 10 MiB
// shape.
const maxLargeTime = 20 * time.Second

// vmHWM returns the process's peak resident set size in bytes, or 0
// where /proc is missing.
func vmHWM() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	_, after, ok := strings.Cut(string(b), "VmHWM:")
	if !ok {
		return 0
	}
	kb, _ := strconv.ParseInt(strings.Fields(after)[0], 10, 64)
	return kb << 10
}

// TestHelperMemory is run by TestOptimizeMemory in a fresh process.
func TestHelperMemory(t *testing.T) {
	name := os.Getenv("SEOKIT_OPTIMIZER_MEM_SHAPE")
	if name == "" {
		t.Skip("run by TestOptimizeMemory in a fresh process")
	}
	var sh memShape
	for _, s := range memShapes {
		if s.name == name {
			sh = s
		}
	}
	if sh.gen == nil {
		t.Fatalf("unknown shape %q", name)
	}
	// Warm up the shared models and word lists outside the measurement.
	WarmUp()
	if _, err := Optimize(context.Background(), Request{Content: benchText(t, "en", 300), Locale: sh.locale, Keywords: sh.keywords}); err != nil {
		t.Fatal(err)
	}
	text := sh.gen(t, MaxContentBytes)
	req := Request{Content: text, Format: sh.format, Locale: sh.locale, Keywords: sh.keywords, Title: "Coffee at home", Description: "How to brew coffee."}
	debug.FreeOSMemory()
	hwm0 := vmHWM()
	var r *Report
	var err error
	start := time.Now()
	peak := peakHeap(func() { r, err = Optimize(context.Background(), req) })
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	fmt.Printf("shape=%s input=%d peak-heap=%d mem-ratio=%.2f rss-hwm-growth=%d words=%d sentences=%d findings=%d seconds=%.2f time=%s\n",
		name, len(text), peak, float64(peak)/float64(len(text)), vmHWM()-hwm0, r.Stats.Words, r.Stats.Sentences, len(r.Findings), took.Seconds(), took.Round(time.Millisecond))
}

// BenchmarkOptimizeLarge optimises a 10 MiB text of each memory-test
// shape and reports the peak heap above the heap in use before, as a
// multiple of the input, and the seconds per text (TestOptimizeMemory
// measures both in fresh processes; this one is for profiling).
func BenchmarkOptimizeLarge(b *testing.B) {
	WarmUp()
	for _, sh := range memShapes {
		b.Run(sh.name, func(b *testing.B) {
			text := sh.gen(b, MaxContentBytes)
			req := Request{Content: text, Format: sh.format, Locale: sh.locale, Keywords: sh.keywords}
			var peak uint64
			for b.Loop() {
				peak = max(peak, peakHeap(func() {
					if _, err := Optimize(context.Background(), req); err != nil {
						b.Error(err)
					}
				}))
			}
			b.ReportMetric(float64(peak)/float64(len(text)), "peak/input")
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/op")
		})
	}
}

// budget is a seo.MemoryBudget that records reservations.
type budget struct {
	err             error
	reserved, peak  int64
	reserves, frees int
}

func (b *budget) Reserve(_ context.Context, n int64) (func(), error) {
	if b.err != nil {
		return nil, b.err
	}
	b.reserves++
	b.reserved += n
	b.peak = max(b.peak, b.reserved)
	return func() { b.frees++; b.reserved -= n }, nil
}

func TestOptimizeReservesMemory(t *testing.T) {
	t.Parallel()
	text := benchText(t, "en", 300)
	tests := []struct {
		name    string
		b       *budget
		content string
		wantErr error
	}{
		{"reserved and released", &budget{}, text, nil},
		{"refused", &budget{err: fmt.Errorf("budget full: %w", seo.ErrUnavailable)}, text, seo.ErrUnavailable},
		{"invalid input is not charged", &budget{}, strings.Repeat("a", MaxContentBytes+1), seo.ErrInvalidInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Optimize(context.Background(), Request{Content: tt.content, Locale: "en-US", Keywords: []string{"coffee"}, Memory: tt.b})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if tt.wantErr != nil {
				if tt.b.reserves != 0 || tt.b.frees != 0 {
					t.Errorf("reserves %d, frees %d after an error, want none", tt.b.reserves, tt.b.frees)
				}
				return
			}
			if tt.b.reserves != 1 || tt.b.frees != 1 || tt.b.reserved != 0 {
				t.Errorf("reserves %d, frees %d, still reserved %d; want 1, 1, 0", tt.b.reserves, tt.b.frees, tt.b.reserved)
			}
			if want := EstimateMemory(len(tt.content)); tt.b.peak != want {
				t.Errorf("reserved %d, want EstimateMemory = %d", tt.b.peak, want)
			}
		})
	}
}

func TestEstimateMemory(t *testing.T) {
	t.Parallel()
	for _, n := range []int{-1, 0, 1000, MaxContentBytes} {
		got := EstimateMemory(n)
		if got < memoryBase || got < int64(memoryPerByte)*int64(n) {
			t.Errorf("EstimateMemory(%d) = %d, below the model", n, got)
		}
	}
	if got := EstimateMemory(MaxContentBytes); got > 300<<20 {
		t.Errorf("EstimateMemory(MaxContentBytes) = %d MB, want at most 300 MB", got>>20)
	}
}

// stepContext is a context that is done from the cancelAt-th call of Err
// on (never when cancelAt is 0), with DeadlineExceeded, so that a test
// stops Optimize at a chosen point of its work whatever the machine's
// speed. It counts the calls.
type stepContext struct {
	context.Context
	mu       sync.Mutex
	cancelAt int
	calls    int
	done     chan struct{}
	endedAt  time.Time // when the cancelAt-th call came
}

func newStepContext(cancelAt int) *stepContext {
	return &stepContext{Context: context.Background(), cancelAt: cancelAt, done: make(chan struct{})}
}

func (c *stepContext) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	if c.cancelAt > 0 && c.calls >= c.cancelAt {
		if c.calls == c.cancelAt {
			c.endedAt = time.Now()
			close(c.done)
		}
		return context.DeadlineExceeded
	}
	return nil
}

func (c *stepContext) Done() <-chan struct{} { return c.done }

func (c *stepContext) ended() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.endedAt
}

func (c *stepContext) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls
}

// TestOptimizeStopsWhenCancelled optimises a 10 MiB text of every
// memory-test shape with a context already cancelled, and with one that
// ends part way through the work: at the 1st, 8th, 64th or 512th look
// Optimize takes at it (different steps of the work), or, for a shape
// whose whole work takes fewer looks (measured by that run), half way.
// Optimize must then return the context's error within a few more looks:
// the long loops look every cancelEvery steps. The points are counted in
// looks, not time, so a fast machine and a busy one give the same.
func TestOptimizeStopsWhenCancelled(t *testing.T) {
	// After the context ends, each loop still running looks at it once
	// more at most before returning; a few dozen looks is a few dozen
	// times cancelEvery steps of work.
	const maxLooksAfter = 64
	// The time from the context's end to the return is bounded only
	// loosely, for a busy machine: without the looks a 10 MiB text takes
	// seconds of CPU, and minutes for some shapes before they were bounded.
	limit := 5 * time.Second
	if raceEnabled {
		limit *= 3
	}
	for i, sh := range memShapes {
		t.Run(sh.name, func(t *testing.T) {
			text := sh.gen(t, MaxContentBytes)
			req := Request{Content: text, Format: sh.format, Locale: sh.locale, Keywords: sh.keywords, Title: "Coffee at home"}

			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if _, err := Optimize(ctx, req); !errors.Is(err, context.Canceled) {
				t.Errorf("cancelled: error %v, want context.Canceled", err)
			}

			at := []int{1, 8, 64, 512}[i%4]
			ctxAt := newStepContext(at)
			start := time.Now()
			_, err := Optimize(ctxAt, req)
			if looks := ctxAt.count(); err == nil && looks < at {
				// The whole work took fewer looks: end it half way.
				if looks < 2 {
					t.Fatalf("Optimize looked at its context %d times in %s of work, want at least 2", looks, time.Since(start).Round(time.Millisecond))
				}
				t.Logf("the whole work takes %d looks at the context", looks)
				at = looks / 2
				ctxAt = newStepContext(at)
				start = time.Now()
				_, err = Optimize(ctxAt, req)
			}
			returned := time.Now()
			took := returned.Sub(start)
			if e := ctxAt.ended(); !e.IsZero() && returned.Sub(e) > limit {
				t.Errorf("context ended at look %d: returned %s later, want at most %s", at, returned.Sub(e).Round(time.Millisecond), limit)
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("context ended at look %d: error %v, want context.DeadlineExceeded", at, err)
			}
			after := ctxAt.count() - at
			if after > maxLooksAfter {
				t.Errorf("context ended at look %d: Optimize looked %d more times before returning, want at most %d", at, after, maxLooksAfter)
			}
			t.Logf("context ended at look %d: returned after %d more looks, %s in all", at, after, took.Round(time.Millisecond))
		})
	}
}
