package optimizer

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
)

// TestConcurrent runs analyses in parallel: the shared model and word
// lists must be safe for concurrent use (run with -race), and results must
// not depend on what else runs.
func TestConcurrent(t *testing.T) {
	t.Parallel()
	langs := []string{"en", "de", "ru", "en"}
	want := make([]*Report, len(langs))
	reqs := make([]Request, len(langs))
	for i, l := range langs {
		reqs[i] = Request{Content: benchText(t, l, 300), Keywords: benchKeywords[l], Locale: benchLocales[l]}
		want[i] = optimize(t, reqs[i])
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			i := g % len(langs)
			r, err := Optimize(context.Background(), reqs[i])
			if err != nil {
				errs <- err.Error()
				return
			}
			if r.Stats != want[i].Stats || score(r.SEOScore) != score(want[i].SEOScore) || score(r.ReadabilityScore) != score(want[i].ReadabilityScore) {
				errs <- "results differ under concurrency for " + langs[i]
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestJSON checks the wire shape of a report.
func TestJSON(t *testing.T) {
	t.Parallel()
	r := optimize(t, Request{Content: "Coffee is good. Coffee is hot. Coffee is dark.", Keywords: []string{"coffee"}})
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"locale", "language", "supported", "detected", "format", "seoScore", "readabilityScore", "stats", "readability", "keyphrases", "assessments", "findings", "suggestions"} {
		if _, ok := m[k]; !ok {
			t.Errorf("no %q in %s", k, b)
		}
	}
	s := string(b)
	for _, k := range []string{`"id":"readability.consecutive_openings"`, `"severity":"warning"`, `"spans":[{"start":0,"end":46}]`} {
		if !strings.Contains(s, k) {
			t.Errorf("no %s in %s", k, s)
		}
	}
}
