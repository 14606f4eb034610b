package rankings_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/memstore"
	"github.com/seokit/seokit/seo"
)

func openFixture(t *testing.T, name string) *os.File {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

var gscDate = time.Date(2025, 2, 28, 0, 0, 0, 0, time.UTC)

// A new user with no provider account imports a Search Console export and
// gets rankings from it.
func TestImportSearchConsoleThenRankings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := memstore.New(nil)
	rep, err := rankings.ImportSearchConsole(ctx, st, openFixture(t, "gsc-queries.csv"), rankings.ImportOptions{
		Domain: "www.example.com", Date: gscDate, Locale: seo.Locale{Language: "en", Region: "US"}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Imported != 4 || len(rep.Skipped) != 0 {
		t.Fatalf("report = %+v, want 4 imported", rep)
	}
	tr := rankings.NewTracker(nil, st, nil)
	got, err := tr.Rankings(ctx, "example.com", []string{"seo audit tool", "keyword research, free", "site speed test", "never seen"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		pos int
		avg float64
	}
	wants := []want{{4, 4.27}, {12, 11.5}, {37, 37}, {0, 0}}
	for i, w := range wants {
		r := got[i]
		if w.pos == 0 {
			if r.Position != nil || !r.CheckedAt.IsZero() {
				t.Errorf("%s = %+v, want never checked", r.Keyword, r)
			}
			continue
		}
		if r.Position == nil || *r.Position != w.pos || r.AveragePosition == nil || *r.AveragePosition != w.avg || !r.Average || r.Source != "searchconsole-export" {
			t.Errorf("%s = %+v, want position %d, average %v", r.Keyword, r, w.pos, w.avg)
		}
	}
	tracked, _ := st.Tracked(ctx, rankings.Filter{Domain: "example.com"})
	if len(tracked) != 5 { // 4 imported + "never seen" tracked by Rankings
		t.Errorf("tracked %d keywords, want 5: %+v", len(tracked), tracked)
	}
}

func TestImportSearchConsoleBadRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := memstore.New(nil)
	rep, err := rankings.ImportSearchConsole(ctx, st, openFixture(t, "gsc-queries-bad.csv"), rankings.ImportOptions{Domain: "example.com", Date: gscDate})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Imported != 2 {
		t.Errorf("imported %d, want 2", rep.Imported)
	}
	var lines []int
	for _, s := range rep.Skipped {
		lines = append(lines, s.Line)
	}
	if len(lines) != 4 || lines[0] != 3 || lines[1] != 4 || lines[2] != 5 || lines[3] != 6 {
		t.Errorf("skipped lines %v (%+v), want 3 4 5 6", lines, rep.Skipped)
	}
}

func TestImportErrorsStoreNothing(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		file  string
		body  string
		opts  rankings.ImportOptions
		field string
	}{
		{"no domain", "gsc-queries.csv", "", rankings.ImportOptions{Date: gscDate}, "domain"},
		{"no date", "gsc-queries.csv", "", rankings.ImportOptions{Domain: "example.com"}, "date"},
		{"bad device", "gsc-queries.csv", "", rankings.ImportOptions{Domain: "example.com", Date: gscDate, Device: "watch"}, "device"},
		{"wrong columns", "not-gsc.csv", "", rankings.ImportOptions{Domain: "example.com", Date: gscDate}, "file"},
		{"empty", "", "", rankings.ImportOptions{Domain: "example.com", Date: gscDate}, "file"},
		{"only bad rows", "", "Top queries,Position\n,3\nx,zero\n", rankings.ImportOptions{Domain: "example.com", Date: gscDate}, "file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := memstore.New(nil)
			var err error
			if c.file != "" {
				_, err = rankings.ImportSearchConsole(context.Background(), st, openFixture(t, c.file), c.opts)
			} else {
				_, err = rankings.ImportSearchConsole(context.Background(), st, strings.NewReader(c.body), c.opts)
			}
			ie, ok := seo.AsInputError(err)
			if !ok || ie.Field != c.field {
				t.Fatalf("err = %v, want *seo.InputError for %q", err, c.field)
			}
			tr, _ := st.Tracked(context.Background(), rankings.Filter{})
			if len(tr) != 0 {
				t.Errorf("a failed import tracked %+v", tr)
			}
		})
	}
}

// failingStore fails every Record, as a store losing its database would.
type failingStore struct{ *memstore.Store }

func (failingStore) Record(context.Context, []rankings.Observation) error {
	return errors.New("disk full")
}

func TestImportRecordFailureTracksNothing(t *testing.T) {
	t.Parallel()
	st := failingStore{memstore.New(nil)}
	_, err := rankings.ImportSearchConsole(context.Background(), st, openFixture(t, "gsc-queries.csv"), rankings.ImportOptions{Domain: "example.com", Date: gscDate})
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("err = %v, want the store's error", err)
	}
	if tr, _ := st.Tracked(context.Background(), rankings.Filter{}); len(tr) != 0 {
		t.Errorf("tracked %+v after a failed Record", tr)
	}
}

func TestImportTooLarge(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("Top queries,Position,Note\n")
	line := "keyword,3," + strings.Repeat("x", 4000) + "\n"
	for b.Len() < rankings.MaxImportBytes+100 {
		b.WriteString(line)
	}
	st := memstore.New(nil)
	_, err := rankings.ImportSearchConsole(context.Background(), st, strings.NewReader(b.String()), rankings.ImportOptions{Domain: "example.com", Date: gscDate})
	if !errors.Is(err, seo.ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	if h, _ := st.History(context.Background(), rankings.Filter{Domain: "example.com"}); len(h) != 0 {
		t.Errorf("stored %d observations from a rejected file", len(h))
	}
}

func TestImportCSV(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := memstore.New(nil)
	rep, err := rankings.ImportCSV(ctx, st, openFixture(t, "history.csv"), rankings.ImportOptions{Domain: "example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Imported != 4 || len(rep.Skipped) != 3 {
		t.Fatalf("report = %+v, want 4 imported, 3 skipped", rep)
	}
	for i, line := range []int{6, 7, 8} {
		if rep.Skipped[i].Line != line {
			t.Errorf("skipped[%d] line %d, want %d (%s)", i, rep.Skipped[i].Line, line, rep.Skipped[i].Reason)
		}
	}
	h, err := st.History(ctx, rankings.Filter{Domain: "example.com", Keywords: []string{"seo audit tool"}})
	if err != nil || len(h) != 3 {
		t.Fatalf("History = %+v, %v", h, err)
	}
	// desktop 03-01 (5), desktop 03-02 (4), mobile 03-02 (not ranked).
	if *h[0].Position != 5 || *h[1].Position != 4 || h[2].Device != rankings.Mobile || h[2].Position != nil || h[0].Source != "csv-import" {
		t.Errorf("History = %+v", h)
	}
	de, _ := st.History(ctx, rankings.Filter{Domain: "example.com", Locale: seo.Locale{Language: "de", Region: "DE"}})
	if len(de) != 1 || de[0].Position != nil || de[0].Device != rankings.Desktop {
		t.Errorf("de-DE history = %+v, want one not-ranked desktop row", de)
	}
	if _, err := rankings.ImportCSV(ctx, st, strings.NewReader("keyword,position\nx,1\n"), rankings.ImportOptions{Domain: "example.com"}); !errors.Is(err, seo.ErrInvalidInput) {
		t.Errorf("CSV without date column = %v, want ErrInvalidInput", err)
	}
}

// movements classifies each keyword's history from its first to its last
// observation, as a report over the whole range does.
func movements(t *testing.T, st rankings.Store) map[string]rankings.Movement {
	t.Helper()
	h, err := st.History(context.Background(), rankings.Filter{Domain: "example.com"})
	if err != nil {
		t.Fatal(err)
	}
	first := map[string]*float64{}
	last := map[string]*float64{}
	for _, o := range h {
		if _, ok := first[o.Keyword]; !ok {
			first[o.Keyword] = o.Position
		}
		last[o.Keyword] = o.Position
	}
	out := map[string]rankings.Movement{}
	for k := range first {
		out[k] = rankings.MovementOf(first[k], last[k])
	}
	return out
}

// A query only in the earlier of two exports is lost, one only in the
// later is new, whichever export is imported first.
func TestImportSearchConsoleNewAndLost(t *testing.T) {
	t.Parallel()
	feb := time.Date(2025, 2, 28, 0, 0, 0, 0, time.UTC)
	mar := time.Date(2025, 3, 31, 0, 0, 0, 0, time.UTC)
	files := map[time.Time]string{
		feb: "Top queries,Clicks,Impressions,CTR,Position\na,1,10,10%,3\nb,1,10,10%,5\nc,1,10,10%,8\n",
		mar: "Top queries,Clicks,Impressions,CTR,Position\na,1,10,10%,2\nb,1,10,10%,5\nd,1,10,10%,4\n",
	}
	want := map[string]rankings.Movement{"a": rankings.MovedUp, "b": rankings.Unmoved, "c": rankings.Lost, "d": rankings.NewlyRanked}
	cases := []struct {
		name    string
		order   []time.Time
		changes *rankings.ImportChanges // of the second import
	}{
		{"in order", []time.Time{feb, mar}, &rankings.ImportChanges{Previous: "2025-02-28", Improved: 1, Unchanged: 1, New: 1, Lost: 1}},
		{"later export first", []time.Time{mar, feb}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			st := memstore.New(nil)
			var rep *rankings.ImportReport
			for _, d := range c.order {
				var err error
				rep, err = rankings.ImportSearchConsole(ctx, st, strings.NewReader(files[d]), rankings.ImportOptions{Domain: "example.com", Date: d, Locale: seo.Locale{Language: "en", Region: "US"}})
				if err != nil {
					t.Fatal(err)
				}
			}
			if rep.Imported != 3 {
				t.Errorf("imported %d, want 3", rep.Imported)
			}
			if (rep.Changes == nil) != (c.changes == nil) || (c.changes != nil && *rep.Changes != *c.changes) {
				t.Errorf("Changes = %+v, want %+v", rep.Changes, c.changes)
			}
			got := movements(t, st)
			for k, w := range want {
				if got[k] != w {
					t.Errorf("%s: %q, want %q", k, got[k], w)
				}
			}
			// The lost query is reported as not in the latest export, not
			// with its old position.
			rs, err := rankings.NewTracker(nil, st, nil).Rankings(ctx, "example.com", []string{"c", "d"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if rs[0].Status != rankings.StatusNotRanked || rs[0].Position != nil || !strings.Contains(rs[0].Reason, "Search Console export") {
				t.Errorf("c = %+v, want not_ranked: not in the export", rs[0])
			}
			if rs[1].Status != rankings.StatusRanked || *rs[1].Position != 4 {
				t.Errorf("d = %+v, want ranked 4", rs[1])
			}
		})
	}
}

// An observation another source stored on an export's day is kept: the
// export's absence does not overwrite a checked position.
func TestImportSearchConsoleKeepsOtherSources(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	feb := time.Date(2025, 2, 28, 0, 0, 0, 0, time.UTC)
	mar := time.Date(2025, 3, 31, 0, 0, 0, 0, time.UTC)
	st := memstore.New(nil)
	if _, err := rankings.ImportSearchConsole(ctx, st, strings.NewReader("Top queries,Position\nc,8\n"), rankings.ImportOptions{Domain: "example.com", Date: feb}); err != nil {
		t.Fatal(err)
	}
	p := 6.0
	if err := st.Record(ctx, []rankings.Observation{{Domain: "example.com", Keyword: "c", Date: mar, Position: &p, Depth: 100, Source: "serpapi"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := rankings.ImportSearchConsole(ctx, st, strings.NewReader("Top queries,Position\nd,4\n"), rankings.ImportOptions{Domain: "example.com", Date: mar}); err != nil {
		t.Fatal(err)
	}
	l, err := st.Latest(ctx, rankings.Filter{Domain: "example.com", Keywords: []string{"c"}})
	if err != nil || len(l) != 1 || l[0].Position == nil || *l[0].Position != 6 || l[0].Source != "serpapi" {
		t.Errorf("Latest(c) = %+v, %v; want the serpapi position kept", l, err)
	}
}
