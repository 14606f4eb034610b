package keywords_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seokit/seokit/keywords"
	"github.com/seokit/seokit/seo"
)

// counting is a source that counts Suggest calls, answers with its
// current volume and, when gate is set, waits for it before answering.
type counting struct {
	name    string
	calls   atomic.Int64
	volume  atomic.Int64
	version atomic.Uint64
	fail    atomic.Bool
	gate    chan struct{}
}

func (c *counting) Name() string { return c.name }

func (c *counting) Suggest(ctx context.Context, seed string, _ seo.Locale, limit int) ([]keywords.Keyword, error) {
	c.calls.Add(1)
	if c.gate != nil {
		select {
		case <-c.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if c.fail.Load() {
		return nil, seo.ErrUnavailable
	}
	v := int(c.volume.Load())
	return []keywords.Keyword{{Keyword: keywords.NormalizePhrase(seed), Volume: &v, Source: c.name},
		{Keyword: keywords.NormalizePhrase(seed) + " sale", Source: c.name}}, nil
}

func (c *counting) Volumes(context.Context, []string, seo.Locale) ([]keywords.Keyword, error) {
	return nil, nil
}

// versioned is a counting source that reports a data version.
type versioned struct{ *counting }

func (v versioned) DataVersion() uint64 { return v.version.Load() }

var _ keywords.Versioned = versioned{}

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newClock() *clock { return &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)} }

func volumeOf(t *testing.T, res *keywords.Suggestions) int {
	t.Helper()
	if len(res.Suggestions) == 0 || res.Suggestions[0].Volume == nil {
		t.Fatalf("answer without a volume: %+v", res)
	}
	return *res.Suggestions[0].Volume
}

func TestMemoryCacheServesRepeatsWithAge(t *testing.T) {
	t.Parallel()
	src := &counting{name: "a"}
	src.volume.Store(100)
	clk := newClock()
	sg := keywords.NewSuggester([]keywords.Source{src}, &keywords.SuggesterOptions{Now: clk.now, MemoryCacheTTL: time.Minute})
	ctx := context.Background()
	first, err := sg.Suggest(ctx, "Running Shoes", enUS, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !first.CachedAt.IsZero() || first.AgeSeconds != 0 {
		t.Errorf("fresh answer says CachedAt %v, age %d", first.CachedAt, first.AgeSeconds)
	}
	computed := clk.now()
	src.volume.Store(200) // the source changes; the cached answer must not
	clk.add(25 * time.Second)
	second, err := sg.Suggest(ctx, "  running   SHOES ", enUS, nil)
	if err != nil {
		t.Fatal(err)
	}
	if src.calls.Load() != 1 {
		t.Errorf("source asked %d times, want 1", src.calls.Load())
	}
	if !second.CachedAt.Equal(computed) || second.AgeSeconds != 25 {
		t.Errorf("cached answer: CachedAt %v age %d, want %v and 25", second.CachedAt, second.AgeSeconds, computed)
	}
	if second.Query != "running   SHOES" || volumeOf(t, second) != 100 {
		t.Errorf("cached answer: query %q volume %d, want the caller's spelling and 100", second.Query, volumeOf(t, second))
	}
	if second.Sources[0] != "a" {
		t.Errorf("cached answer lost its sources: %v", second.Sources)
	}

	clk.add(36 * time.Second) // 61 s after the computation: past the TTL
	third, err := sg.Suggest(ctx, "running shoes", enUS, nil)
	if err != nil {
		t.Fatal(err)
	}
	if src.calls.Load() != 2 || volumeOf(t, third) != 200 || !third.CachedAt.IsZero() {
		t.Errorf("after the TTL: calls %d volume %d CachedAt %v, want a fresh answer of 200", src.calls.Load(), volumeOf(t, third), third.CachedAt)
	}
}

func TestMemoryCacheKeys(t *testing.T) {
	t.Parallel()
	deDE := seo.Locale{Language: "de", Region: "DE"}
	tests := []struct {
		name   string
		query  string
		loc    seo.Locale
		limit  int
		asked  bool // whether the second call reaches the source
		second string
	}{
		{"same query", "shoes", enUS, 0, false, "shoes"},
		{"case and spaces", "shoes", enUS, 0, false, " SHOES "},
		{"other limit", "shoes", enUS, 10, true, "shoes"},
		{"other locale", "shoes", deDE, 0, true, "shoes"},
		{"other query", "shoes", enUS, 0, true, "boots"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := &counting{name: "a"}
			sg := keywords.NewSuggester([]keywords.Source{src}, nil)
			if _, err := sg.Suggest(context.Background(), "shoes", enUS, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := sg.Suggest(context.Background(), tc.second, tc.loc, &keywords.SuggestOptions{Limit: tc.limit}); err != nil {
				t.Fatal(err)
			}
			if got := src.calls.Load() == 2; got != tc.asked {
				t.Errorf("source asked %d times; want second call to reach it: %v", src.calls.Load(), tc.asked)
			}
		})
	}
}

func TestMemoryCacheVersionedSourceInvalidates(t *testing.T) {
	t.Parallel()
	src := versioned{&counting{name: "local"}}
	src.volume.Store(5)
	sg := keywords.NewSuggester([]keywords.Source{src}, &keywords.SuggesterOptions{MemoryCacheTTL: time.Hour})
	ctx := context.Background()
	if _, err := sg.Suggest(ctx, "lamp", enUS, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := sg.Suggest(ctx, "lamp", enUS, nil); err != nil || src.calls.Load() != 1 {
		t.Fatalf("repeat: calls %d err %v, want a memory hit", src.calls.Load(), err)
	}
	// An import: the data and its version change.
	src.volume.Store(7)
	src.version.Add(1)
	res, err := sg.Suggest(ctx, "lamp", enUS, nil)
	if err != nil {
		t.Fatal(err)
	}
	if src.calls.Load() != 2 || volumeOf(t, res) != 7 {
		t.Errorf("after a data change: calls %d volume %d, want a fresh answer of 7", src.calls.Load(), volumeOf(t, res))
	}
}

func TestMemoryCachePurge(t *testing.T) {
	t.Parallel()
	src := &counting{name: "a"}
	sg := keywords.NewSuggester([]keywords.Source{src}, nil)
	ctx := context.Background()
	sg.Suggest(ctx, "desk", enUS, nil)
	sg.Purge()
	if _, err := sg.Suggest(ctx, "desk", enUS, nil); err != nil {
		t.Fatal(err)
	}
	if src.calls.Load() != 2 {
		t.Errorf("after Purge the source was asked %d times in all, want 2", src.calls.Load())
	}
}

func TestMemoryCacheSkipsPartialAnswersAndErrors(t *testing.T) {
	t.Parallel()
	ok := &counting{name: "ok"}
	bad := &counting{name: "bad"}
	bad.fail.Store(true)
	sg := keywords.NewSuggester([]keywords.Source{ok, bad}, nil)
	ctx := context.Background()
	first, err := sg.Suggest(ctx, "tent", enUS, nil)
	if err != nil || len(first.Failed) != 1 {
		t.Fatalf("first = %+v, %v; want a partial answer", first, err)
	}
	bad.fail.Store(false)
	second, err := sg.Suggest(ctx, "tent", enUS, nil)
	if err != nil || len(second.Failed) != 0 || ok.calls.Load() != 2 {
		t.Errorf("second = %+v, %v, %d calls; a partial answer must not be served from memory", second, err, ok.calls.Load())
	}

	// All sources failing is an error and nothing is kept either.
	only := &counting{name: "only"}
	only.fail.Store(true)
	sg = keywords.NewSuggester([]keywords.Source{only}, nil)
	if _, err := sg.Suggest(ctx, "tent", enUS, nil); !errors.Is(err, seo.ErrUnavailable) {
		t.Fatalf("err %v, want ErrUnavailable", err)
	}
	only.fail.Store(false)
	if _, err := sg.Suggest(ctx, "tent", enUS, nil); err != nil || only.calls.Load() != 2 {
		t.Errorf("after recovery: err %v, calls %d; want the source asked again", err, only.calls.Load())
	}
}

func TestMemoryCacheOff(t *testing.T) {
	t.Parallel()
	src := &counting{name: "a"}
	sg := keywords.NewSuggester([]keywords.Source{src}, &keywords.SuggesterOptions{MemoryCacheBytes: -1})
	for range 3 {
		if _, err := sg.Suggest(context.Background(), "rug", enUS, nil); err != nil {
			t.Fatal(err)
		}
	}
	if src.calls.Load() != 3 {
		t.Errorf("source asked %d times with the memory cache off, want 3", src.calls.Load())
	}
}

func TestMemoryCacheCallerCopies(t *testing.T) {
	t.Parallel()
	src := &counting{name: "a"}
	src.volume.Store(9)
	sg := keywords.NewSuggester([]keywords.Source{src}, nil)
	ctx := context.Background()
	first, _ := sg.Suggest(ctx, "mug", enUS, nil)
	first.Suggestions[0].Keyword = "changed by the caller"
	first.Sources[0] = "changed"
	second, _ := sg.Suggest(ctx, "mug", enUS, nil)
	second.Suggestions = second.Suggestions[:0]
	third, _ := sg.Suggest(ctx, "mug", enUS, nil)
	if third.Suggestions[0].Keyword != "mug" || third.Sources[0] != "a" || len(third.Suggestions) != 2 {
		t.Errorf("a caller's changes reached the cache: %+v", third)
	}
}

// TestMemoryCacheCoalesces: concurrent identical misses ask the sources
// once; the others wait for that answer.
func TestMemoryCacheCoalesces(t *testing.T) {
	src := &counting{name: "a", gate: make(chan struct{})}
	sg := keywords.NewSuggester([]keywords.Source{src}, nil)
	const n = 20
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			res, err := sg.Suggest(context.Background(), "kettle", enUS, nil)
			if err == nil && len(res.Suggestions) != 2 {
				err = errors.New("short answer")
			}
			errs <- err
		})
	}
	for src.calls.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // let the others queue behind the first
	close(src.gate)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := src.calls.Load(); got != 1 {
		t.Errorf("source asked %d times for %d concurrent identical queries, want 1", got, n)
	}
}

// TestMemoryCacheWaiterHonoursContext: a caller waiting for another's
// computation gives up with its own context.
func TestMemoryCacheWaiterHonoursContext(t *testing.T) {
	src := &counting{name: "a", gate: make(chan struct{})}
	// The source answers only when the test ends; its timeout is far off,
	// so a waiter back within 30 s came back on its own deadline.
	sg := keywords.NewSuggester([]keywords.Source{src}, &keywords.SuggesterOptions{SourceTimeout: time.Minute})
	var wg sync.WaitGroup
	defer wg.Wait()
	defer close(src.gate)
	wg.Go(func() { sg.Suggest(context.Background(), "oven", enUS, nil) })
	for src.calls.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := sg.Suggest(ctx, "oven", enUS, nil)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 30*time.Second {
		t.Errorf("waiter: err %v after %v, want its deadline", err, time.Since(start))
	}
}

// TestSuggestJSON: SuggestJSON writes what json.Marshal writes of
// Suggest's answer, fresh and from memory, and leaves b alone on errors.
func TestSuggestJSON(t *testing.T) {
	t.Parallel()
	src := &counting{name: "a"}
	src.volume.Store(40)
	clk := newClock()
	sg := keywords.NewSuggester([]keywords.Source{src}, &keywords.SuggesterOptions{Now: clk.now})
	ref := keywords.NewSuggester([]keywords.Source{src}, &keywords.SuggesterOptions{Now: clk.now, MemoryCacheBytes: -1})
	ctx := context.Background()
	for i, q := range []string{"Oak <Table> & Chairs", "oak  <table> & chairs", "lamp"} {
		got, err := sg.SuggestJSON(ctx, []byte("x"), q, enUS, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := sg.Suggest(ctx, q, enUS, nil) // from memory now
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(res)
		if i == 1 && !strings.Contains(string(got), `"ageSeconds":3`) {
			t.Errorf("second query: %s, want a memory answer 3 s old", got)
		}
		if i != 1 {
			// The first call of a query is fresh: compare it with the
			// answer of a Suggester without memory.
			fresh, _ := ref.Suggest(ctx, q, enUS, nil)
			want, _ = json.Marshal(fresh)
		}
		if string(got) != "x"+string(want) {
			t.Errorf("%q:\n%s\nwant\nx%s", q, got, want)
		}
		clk.add(3 * time.Second)
	}
	if src.calls.Load() != 4 { // two queries through sg, two through ref
		t.Errorf("source asked %d times, want 4", src.calls.Load())
	}
	b, err := sg.SuggestJSON(ctx, []byte("keep"), "", enUS, nil)
	if _, ok := seo.AsInputError(err); !ok || string(b) != "keep" {
		t.Errorf("bad query: %q, %v; want b unchanged and an input error", b, err)
	}
}

// TestMemoryCacheNeverExceedsMaxAge: an answer taken from the persistent
// Cache near the end of its MaxAge is not served from memory past it.
func TestMemoryCacheNeverExceedsMaxAge(t *testing.T) {
	t.Parallel()
	src := &counting{name: "a"}
	src.volume.Store(1)
	clk := newClock()
	pc := &memCache{}
	sg := keywords.NewSuggester([]keywords.Source{src}, &keywords.SuggesterOptions{
		Cache: pc, MaxAge: time.Hour, MemoryCacheTTL: 10 * time.Minute, Now: clk.now})
	ctx := context.Background()
	if _, err := sg.Suggest(ctx, "sofa", enUS, nil); err != nil { // computed, stored in both caches
		t.Fatal(err)
	}
	clk.add(11 * time.Minute) // past the memory TTL: the persistent answer is read
	if res, err := sg.Suggest(ctx, "sofa", enUS, nil); err != nil || res.AgeSeconds != 660 || src.calls.Load() != 1 {
		t.Fatalf("at 11 min: %+v, %v, %d calls; want the persistent answer", res, err, src.calls.Load())
	}
	clk.add(44 * time.Minute) // 55 min: past the memory TTL again
	if res, _ := sg.Suggest(ctx, "sofa", enUS, nil); res.AgeSeconds != 3300 || src.calls.Load() != 1 {
		t.Fatalf("at 55 min: age %d, %d calls", res.AgeSeconds, src.calls.Load())
	}
	clk.add(6 * time.Minute) // 61 min: within the memory TTL, past MaxAge
	src.volume.Store(2)
	res, err := sg.Suggest(ctx, "sofa", enUS, nil)
	if err != nil || src.calls.Load() != 2 || volumeOf(t, res) != 2 || res.AgeSeconds != 0 {
		t.Errorf("at 61 min: %+v, %v, %d calls; want a fresh answer", res, err, src.calls.Load())
	}
}
