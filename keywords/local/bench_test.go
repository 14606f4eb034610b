package local_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/keywords"
	"github.com/seokit/seokit/keywords/local"
)

// benchWords is the vocabulary of the generated table: common words of
// shopping, sport, food, travel and software searches, written for this
// benchmark.
var benchWords = strings.Fields(`
shoes running trail women men kids best cheap buy online sale near me review
price size guide how to what is why can does vs free download app software
laptop phone case charger cable wireless headphones speaker camera lens
coffee tea recipe easy vegan chicken soup bread cake pasta salad dinner
lunch breakfast healthy quick slow cooker oven air fryer grill pizza
hotel flight cheap deals travel insurance car rental beach resort city
weather tomorrow today weekend news football basketball tennis golf yoga
gym workout plan beginners home training marathon cycling bike helmet
jacket coat boots dress shirt jeans sneakers sandals winter summer
garden plants flowers seeds soil indoor outdoor furniture table chair
sofa bed mattress pillow lamp kitchen bathroom paint wall floor tiles
insurance loan mortgage credit card bank account savings tax return
python java javascript tutorial course certificate university college
job interview resume salary remote work part time career skills
dog cat food toys training puppy kitten vet health symptoms treatment
pain back knee headache sleep diet weight loss protein vitamins
book novel author series movie streaming tv show music guitar piano
lessons game console pc gaming keyboard mouse monitor desk office
wedding birthday gift ideas party decorations christmas halloween
water bottle backpack tent camping hiking fishing hunting kayak
electric solar battery energy heating cooling air conditioner repair
service plumber electrician cleaning moving company local reviews
`)

// benchPath caches the generated table across benchmark runs.
func benchPath() string {
	return filepath.Join(os.TempDir(), "seokit-keywords-local-bench-1m-v3.db")
}

// buildBench writes n generated keywords: 2 to 4 words drawn with a Zipf
// distribution over benchWords (s=1.1), and Zipf-like volumes
// 1,000,000 / rank^1.07 over a shuffled rank, so that a few phrases are
// popular and most are rare, as in real keyword tables. The figures are
// synthetic benchmark data.
func buildBench(b *testing.B, path string, n int) {
	ctx := context.Background()
	tmp := path + ".building"
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(tmp + suffix)
	}
	s, err := local.Open(ctx, tmp, nil)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(r, 1.1, 4, uint64(len(benchWords)-1))
	seen := make(map[string]bool, n)
	ranks := r.Perm(n)
	batch := make([]keywords.Keyword, 0, 20_000)
	start := time.Now()
	i := 0
	for i < n {
		words := make([]string, 2+r.IntN(3))
		for j := range words {
			words[j] = benchWords[zipf.Uint64()]
		}
		p := strings.Join(words, " ")
		f := keywords.FoldKey("en", p)
		if seen[f] {
			continue
		}
		seen[f] = true
		v := int(1e6 / math.Pow(float64(ranks[i]+1), 1.07))
		batch = append(batch, keywords.Keyword{Keyword: p, Volume: &v, Source: "bench"})
		i++
		if len(batch) == cap(batch) || i == n {
			if err := s.Put(ctx, batch, enUS); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
	b.Logf("built %d keywords in %v", n, time.Since(start).Round(time.Second))
}

// BenchmarkSuggest1M measures Suggest over a table of 1,000,000 keywords
// (built once, cached in the temp directory) with seeds of one and two
// words drawn like the table's words, and reports the p50 and p99 latency.
func BenchmarkSuggest1M(b *testing.B) {
	const n = 1_000_000
	path := benchPath()
	if _, err := os.Stat(path); err != nil {
		buildBench(b, path, n)
	}
	ctx := context.Background()
	s, err := local.Open(ctx, path, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if got, _ := s.Count(ctx, enUS); got != n {
		b.Fatalf("table has %d keywords, want %d; remove %s", got, n, path)
	}
	r := rand.New(rand.NewPCG(3, 4))
	zipf := rand.NewZipf(r, 1.1, 4, uint64(len(benchWords)-1))
	seeds := make([]string, 1000)
	for i := range seeds {
		seeds[i] = benchWords[zipf.Uint64()]
		if i%2 == 1 {
			seeds[i] += " " + benchWords[zipf.Uint64()]
		}
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		t0 := time.Now()
		kws, err := s.Suggest(ctx, seeds[i%len(seeds)], enUS, 50)
		lat = append(lat, time.Since(t0))
		if err != nil || len(kws) == 0 {
			b.Fatalf("Suggest(%q) = %d, %v", seeds[i%len(seeds)], len(kws), err)
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[int(p*float64(len(lat)-1))]) / float64(time.Millisecond)
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	fmt.Fprintf(os.Stderr, "BenchmarkSuggest1M: %d queries, p50 %.2f ms, p99 %.2f ms, max %.2f ms\n", len(lat), pct(0.5), pct(0.99), pct(1))
}
