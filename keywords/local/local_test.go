package local_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seokit/seokit/keywords"
	"github.com/seokit/seokit/keywords/keywordstest"
	"github.com/seokit/seokit/keywords/local"
	"github.com/seokit/seokit/seo"
)

var enUS = seo.Locale{Language: "en", Region: "US"}

// database returns where open puts a test's store: an SQLite file, or a
// fresh PostgreSQL database while TestPostgres runs the tests again.
var database = func(t *testing.T) string { return filepath.Join(t.TempDir(), "kw.db") }

func open(t *testing.T, opts *local.Options) *local.Store {
	t.Helper()
	s, err := local.Open(context.Background(), database(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func importFile(t *testing.T, s *local.Store, name string, f local.Format) *local.ImportReport {
	t.Helper()
	fh, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	rep, err := s.Import(context.Background(), fh, f, enUS)
	if err != nil {
		t.Fatalf("Import(%s): %v", name, err)
	}
	return rep
}

func byPhrase(kws []keywords.Keyword) map[string]keywords.Keyword {
	m := map[string]keywords.Keyword{}
	for _, k := range kws {
		m[k.Keyword] = k
	}
	return m
}

func intp(v int) *int { return &v }

func eqInt(a, b *int) bool { return (a == nil && b == nil) || (a != nil && b != nil && *a == *b) }

func show(p *int) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprint(*p)
}

func TestConformance(t *testing.T) {
	s := open(t, nil)
	importFile(t, s, "keyword-planner-utf16.csv", "")
	importFile(t, s, "search-console-queries.csv", "")
	importFile(t, s, "semrush-keyword-magic.csv", "")
	keywordstest.RunSource(t, s, keywordstest.Case{
		Seed:    "running shoes",
		Locale:  enUS,
		Known:   []string{"running shoes", "trail running shoes", "nike running shoes"},
		Sources: []string{"local", "keyword-planner", "search-console", "semrush"},
	})
}

func TestCacheConformance(t *testing.T) {
	keywordstest.RunCache(t, open(t, nil))
}

func TestInMemory(t *testing.T) {
	for _, path := range []string{"", ":memory:"} {
		s, err := local.Open(context.Background(), path, nil)
		if err != nil {
			t.Fatalf("Open(%q): %v", path, err)
		}
		if err := s.Put(context.Background(), []keywords.Keyword{{Keyword: "trail shoes", Volume: intp(10), Source: "api"}}, enUS); err != nil {
			t.Fatal(err)
		}
		if n, _ := s.Count(context.Background(), enUS); n != 1 {
			t.Errorf("Open(%q): %d keywords after one Put", path, n)
		}
		s.Close()
	}
}

func TestImportFormats(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		format   local.Format
		detected local.Format
		imported int
		skipped  int
		errLines []int
		check    map[string]keywords.Keyword // phrase -> expected figures
	}{
		{
			name: "keyword planner utf-16 tab", file: "keyword-planner-utf16.csv", detected: local.KeywordPlanner, imported: 7,
			check: map[string]keywords.Keyword{
				"running shoes":          {Volume: intp(90500), PaidCompetition: intp(100), Source: "keyword-planner"},
				"marathon training plan": {Volume: intp(22200), PaidCompetition: intp(12), Source: "keyword-planner"},
			},
		},
		{
			name: "keyword planner utf-8 comma with buckets", file: "keyword-planner-utf8.csv", format: local.KeywordPlanner, detected: local.KeywordPlanner, imported: 3,
			check: map[string]keywords.Keyword{
				"running shoes":            {VolumeRange: "10K – 100K", PaidCompetition: intp(100), Source: "keyword-planner"},
				"waterproof running shoes": {VolumeRange: "1K – 10K", PaidCompetition: intp(97), Source: "keyword-planner"},
				"running socks":            {Volume: intp(4400), PaidCompetition: intp(100), Source: "keyword-planner"},
			},
		},
		{
			name: "search console queries", file: "search-console-queries.csv", detected: local.SearchConsole, imported: 5,
			check: map[string]keywords.Keyword{
				"running shoes":    {Source: "search-console", SearchConsole: &keywords.SearchConsoleStats{Clicks: 412, Impressions: 18234}},
				"barefoot running": {Source: "search-console", SearchConsole: &keywords.SearchConsoleStats{Clicks: 12, Impressions: 1450}},
			},
		},
		{
			name: "semrush keyword magic", file: "semrush-keyword-magic.csv", detected: local.Semrush, imported: 4,
			check: map[string]keywords.Keyword{
				"running shoes":               {Volume: intp(90500), Difficulty: intp(95), DifficultyMethod: "imported:semrush", Source: "semrush"},
				"running shoes for flat feet": {Volume: intp(8100), Difficulty: intp(61), DifficultyMethod: "imported:semrush", Source: "semrush"},
			},
		},
		{
			name: "broken rows", file: "semrush-broken-rows.csv", detected: local.Semrush, imported: 3, skipped: 5,
			errLines: []int{3, 4, 5, 6, 7},
			check: map[string]keywords.Keyword{
				"running tights": {Volume: intp(6600), Difficulty: intp(45), DifficultyMethod: "imported:semrush", Source: "semrush"},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t, nil)
			rep := importFile(t, s, tc.file, tc.format)
			if rep.Format != tc.detected || rep.Imported != tc.imported || rep.Skipped != tc.skipped {
				t.Fatalf("report %+v, want format %s, %d imported, %d skipped", rep, tc.detected, tc.imported, tc.skipped)
			}
			var lines []int
			for _, e := range rep.Errors {
				lines = append(lines, e.Line)
				if e.Reason == "" {
					t.Errorf("line %d: no reason", e.Line)
				}
			}
			if fmt.Sprint(lines) != fmt.Sprint(tc.errLines) && !(len(lines) == 0 && len(tc.errLines) == 0) {
				t.Errorf("error lines %v, want %v (%+v)", lines, tc.errLines, rep.Errors)
			}
			if n, _ := s.Count(context.Background(), enUS); n != tc.imported {
				t.Errorf("stored %d keywords, want %d", n, tc.imported)
			}
			var ask []string
			for p := range tc.check {
				ask = append(ask, p)
			}
			got, err := s.Volumes(context.Background(), ask, enUS)
			if err != nil {
				t.Fatal(err)
			}
			m := byPhrase(got)
			for p, want := range tc.check {
				k, ok := m[p]
				if !ok {
					t.Errorf("%q not stored", p)
					continue
				}
				if !eqInt(k.Volume, want.Volume) || !eqInt(k.Difficulty, want.Difficulty) || !eqInt(k.PaidCompetition, want.PaidCompetition) ||
					k.DifficultyMethod != want.DifficultyMethod || k.Source != want.Source || k.VolumeRange != want.VolumeRange {
					t.Errorf("%q = volume %s range %q difficulty %s (%q) paid %s source %q; want volume %s range %q difficulty %s (%q) paid %s source %q",
						p, show(k.Volume), k.VolumeRange, show(k.Difficulty), k.DifficultyMethod, show(k.PaidCompetition), k.Source,
						show(want.Volume), want.VolumeRange, show(want.Difficulty), want.DifficultyMethod, show(want.PaidCompetition), want.Source)
				}
				if want.SearchConsole != nil {
					if k.SearchConsole == nil || k.SearchConsole.Clicks != want.SearchConsole.Clicks || k.SearchConsole.Impressions != want.SearchConsole.Impressions {
						t.Errorf("%q search console %+v, want %+v", p, k.SearchConsole, want.SearchConsole)
					}
					if k.Volume != nil {
						t.Errorf("%q: impressions became a volume %d", p, *k.Volume)
					}
				}
				if k.UpdatedAt.IsZero() {
					t.Errorf("%q: no UpdatedAt", p)
				}
			}
		})
	}
}

func TestImportMonthly(t *testing.T) {
	s := open(t, nil)
	importFile(t, s, "keyword-planner-utf16.csv", local.KeywordPlanner)
	got, err := s.Volumes(context.Background(), []string{"trail running shoes"}, enUS)
	if err != nil || len(got) != 1 {
		t.Fatalf("Volumes = %v, %v", got, err)
	}
	m := got[0].Monthly
	if len(m) != 12 || m[0] != (keywords.MonthlyVolume{Year: 2024, Month: 1, Volume: 33100}) || m[11] != (keywords.MonthlyVolume{Year: 2024, Month: 12, Volume: 33100}) || m[3].Volume != 49500 {
		t.Errorf("monthly %+v", m)
	}
}

func TestSearchConsoleKeepsPlannerVolume(t *testing.T) {
	for _, order := range [][]string{
		{"keyword-planner-utf16.csv", "search-console-queries.csv"},
		{"search-console-queries.csv", "keyword-planner-utf16.csv"},
	} {
		t.Run(strings.Join(order, " then "), func(t *testing.T) {
			s := open(t, nil)
			for _, f := range order {
				importFile(t, s, f, "")
			}
			got, err := s.Volumes(context.Background(), []string{"running shoes"}, enUS)
			if err != nil || len(got) != 1 {
				t.Fatalf("Volumes = %v, %v", got, err)
			}
			k := got[0]
			if k.Volume == nil || *k.Volume != 90500 || k.Source != "keyword-planner" {
				t.Errorf("volume %s from %q, want 90500 from keyword-planner", show(k.Volume), k.Source)
			}
			if k.SearchConsole == nil || k.SearchConsole.Impressions != 18234 {
				t.Errorf("search console figures lost: %+v", k.SearchConsole)
			}
		})
	}
}

// TestNewUser is the flow of a user without a provider account: import a
// Keyword Planner download and a Search Console export, then ask.
func TestNewUser(t *testing.T) {
	s := open(t, nil)
	importFile(t, s, "keyword-planner-utf16.csv", "")
	importFile(t, s, "search-console-queries.csv", "")
	sg := keywords.NewSuggester([]keywords.Source{s}, &keywords.SuggesterOptions{Cache: s})
	res, err := sg.Suggest(context.Background(), "running shoes", enUS, &keywords.SuggestOptions{Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Suggestions) == 0 || res.Suggestions[0].Keyword != "running shoes" {
		t.Fatalf("first suggestion %+v, want the exact phrase", res.Suggestions)
	}
	m := byPhrase(res.Suggestions)
	want := map[string]int{"running shoes": 90500, "trail running shoes": 40500, "best running shoes": 49500, "running shoes for women": 33100}
	for p, v := range want {
		k, ok := m[p]
		if !ok || k.Volume == nil || *k.Volume != v || k.Source != "keyword-planner" {
			t.Errorf("%q = %+v, want volume %d from the planner file", p, k, v)
		}
	}
	// Search Console only: known phrase, no volume.
	if k, ok := m["running shoe sizing guide"]; !ok || k.Volume != nil || k.SearchConsole == nil {
		t.Errorf("search console phrase = %+v, %v; want it without volume and with its figures", k, ok)
	}
	// Every idea is a phrase of the imported files, none generated from
	// the query, and says why it is listed.
	for _, k := range res.Suggestions {
		if k.Expansion || k.Why == "" {
			t.Errorf("idea %+v: generated or without a reason", k)
		}
	}
	// A second call is served from the cache with its age.
	again, err := sg.Suggest(context.Background(), "Running  Shoes", enUS, &keywords.SuggestOptions{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if again.CachedAt.IsZero() || len(again.Suggestions) != len(res.Suggestions) {
		t.Errorf("second answer cached at %v with %d entries", again.CachedAt, len(again.Suggestions))
	}
}

func TestSuggestMatching(t *testing.T) {
	s := open(t, nil)
	put := func(p string, v int) keywords.Keyword {
		return keywords.Keyword{Keyword: p, Volume: intp(v), Source: "api"}
	}
	err := s.Put(context.Background(), []keywords.Keyword{
		put("shoes for running", 500), put("running shoe", 100), put("runner shoes sale", 900),
		put("running shoes men", 50), put("red shoes", 5000), put("how running shoes", 70),
	}, enUS)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		seed string
		want []string // matches in order, before expansions
	}{
		{"exact then prefix then stems by volume", "running shoes", []string{"running shoe", "running shoes men", "shoes for running", "how running shoes"}},
		{"prefix of a phrase by volume", "running sh", []string{"running shoe", "running shoes men"}},
		{"prefix then single stem by volume", "shoe", []string{"shoes for running", "red shoes", "runner shoes sale", "running shoe", "how running shoes", "running shoes men"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Suggest(context.Background(), tc.seed, enUS, 20)
			if err != nil {
				t.Fatal(err)
			}
			var matches []string
			for _, k := range got {
				if !k.Expansion {
					matches = append(matches, k.Keyword)
				}
			}
			if fmt.Sprint(matches) != fmt.Sprint(tc.want) {
				t.Errorf("matches %q, want %q", matches, tc.want)
			}
		})
	}
	// "how running shoes" is in the table: a match with its volume; "why
	// running shoes" is not, and no template makes it up.
	got, _ := s.Suggest(context.Background(), "running shoes", enUS, 20)
	m := byPhrase(got)
	if k := m["how running shoes"]; k.Expansion || k.Volume == nil || *k.Volume != 70 {
		t.Errorf("stored phrase = %+v", k)
	}
	if k, ok := m["why running shoes"]; ok {
		t.Errorf("generated phrase = %+v", k)
	}
}

// TestNoTemplatePhrases: with nothing stored, no language answers
// template phrases ("can zapato", "zapato 2026", "beste zapato").
func TestNoTemplatePhrases(t *testing.T) {
	s := open(t, nil)
	for _, lang := range []string{"de", "en", "es", "fr", "it", "nl", "pt", "ru"} {
		loc := seo.Locale{Language: lang, Region: "US"}
		got, err := s.Suggest(context.Background(), "zapato", loc, 30)
		if err != nil {
			t.Fatalf("%s: %v", lang, err)
		}
		if len(got) != 0 {
			t.Errorf("%s: %d ideas from an empty table: %+v", lang, len(got), got)
		}
	}
}

func TestImportBadFiles(t *testing.T) {
	notCSV, _ := os.ReadFile("testdata/not-csv.bin")
	sc, _ := os.ReadFile("testdata/search-console-queries.csv")
	tests := []struct {
		name   string
		body   io.Reader
		format local.Format
		loc    seo.Locale
		field  string
	}{
		{"not csv", strings.NewReader(string(notCSV)), "", enUS, "file"},
		{"empty", strings.NewReader(""), "", enUS, "file"},
		{"no header", strings.NewReader("a,b,c\n1,2,3\n"), "", enUS, "file"},
		{"json", strings.NewReader(`{"keywords":[{"keyword":"x","volume":1}]}`), "", enUS, "file"},
		{"declared format differs", strings.NewReader(string(sc)), local.Semrush, enUS, "file"},
		{"unknown format", strings.NewReader(string(sc)), "ahrefs", enUS, "format"},
		{"unknown locale", strings.NewReader(string(sc)), "", seo.Locale{Language: "xx", Region: "QQ"}, "locale"},
		{"no locale", strings.NewReader(string(sc)), "", seo.Locale{}, "locale"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t, nil)
			rep, err := s.Import(context.Background(), tc.body, tc.format, tc.loc)
			ie, ok := seo.AsInputError(err)
			if !ok || ie.Field != tc.field {
				t.Fatalf("Import = %+v, %v; want an input error for %q", rep, err, tc.field)
			}
			if n, _ := s.Count(context.Background(), enUS); n != 0 {
				t.Errorf("%d keywords stored after a refused file", n)
			}
		})
	}
}

// failingReader returns data then an error, as a broken upload does.
type failingReader struct {
	r io.Reader
}

func (f *failingReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if errors.Is(err, io.EOF) {
		return n, errors.New("connection reset")
	}
	return n, err
}

func TestImportReadErrorWritesNothing(t *testing.T) {
	s := open(t, nil)
	var b strings.Builder
	b.WriteString("Keyword,Intent,Volume,Keyword Difficulty\n")
	for i := range 1000 {
		fmt.Fprintf(&b, "keyword number %d,Informational,%d,10\n", i, i)
	}
	_, err := s.Import(context.Background(), &failingReader{strings.NewReader(b.String())}, "", enUS)
	if err == nil || !strings.Contains(err.Error(), "connection reset") {
		t.Fatalf("Import = %v, want the read error", err)
	}
	if n, _ := s.Count(context.Background(), enUS); n != 0 {
		t.Errorf("%d keywords stored after a failed import", n)
	}
}

func TestImportErrorListCapped(t *testing.T) {
	s := open(t, nil)
	var b strings.Builder
	b.WriteString("Keyword,Volume\n")
	for i := range 250 {
		fmt.Fprintf(&b, "bad %d,many\n", i)
	}
	b.WriteString("good one,10\n")
	rep, err := s.Import(context.Background(), strings.NewReader(b.String()), "", enUS)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Imported != 1 || rep.Skipped != 250 || len(rep.Errors) != local.MaxListedErrors || rep.Errors[0].Line != 2 {
		t.Errorf("report: %d imported, %d skipped, %d listed, first %+v", rep.Imported, rep.Skipped, len(rep.Errors), rep.Errors[0])
	}
}

func TestBadInput(t *testing.T) {
	s := open(t, nil)
	ctx := context.Background()
	many := make([]string, 10_000)
	for i := range many {
		many[i] = fmt.Sprintf("kw %d", i)
	}
	tests := []struct {
		name  string
		call  func() error
		field string
	}{
		{"empty query", func() error { _, err := s.Suggest(ctx, "  ", enUS, 10); return err }, "query"},
		{"eleven words", func() error { _, err := s.Suggest(ctx, "a b c d e f g h i j k", enUS, 10); return err }, "query"},
		{"limit zero", func() error { _, err := s.Suggest(ctx, "shoes", enUS, 0); return err }, "limit"},
		{"unknown locale", func() error {
			_, err := s.Suggest(ctx, "shoes", seo.Locale{Language: "zz", Region: "US"}, 10)
			return err
		}, "locale"},
		{"10,000 keywords", func() error { _, err := s.Volumes(ctx, many, enUS); return err }, "keywords"},
		{"empty keyword in volumes", func() error { _, err := s.Volumes(ctx, []string{"ok", ""}, enUS); return err }, "keywords[1]"},
		{"put negative volume", func() error {
			return s.Put(ctx, []keywords.Keyword{{Keyword: "a", Volume: intp(1), Source: "api"}, {Keyword: "b", Volume: intp(-1), Source: "api"}}, enUS)
		}, "keywords[1]"},
		{"put no source", func() error { return s.Put(ctx, []keywords.Keyword{{Keyword: "a"}}, enUS) }, "keywords[0]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ie, ok := seo.AsInputError(tc.call())
			if !ok || ie.Field != tc.field {
				t.Fatalf("error %v, want an input error for %q", ie, tc.field)
			}
		})
	}
	if n, _ := s.Count(ctx, enUS); n != 0 {
		t.Errorf("%d keywords stored by refused calls", n)
	}
}

// fakeUpstream is a provider in front of which the store caches.
type fakeUpstream struct {
	calls   atomic.Int32
	suggest func(ctx context.Context, seed string) ([]keywords.Keyword, error)
	volumes func(ctx context.Context, kws []string) ([]keywords.Keyword, error)
}

func (f *fakeUpstream) Name() string { return "provider" }
func (f *fakeUpstream) Suggest(ctx context.Context, seed string, _ seo.Locale, _ int) ([]keywords.Keyword, error) {
	f.calls.Add(1)
	return f.suggest(ctx, seed)
}
func (f *fakeUpstream) Volumes(ctx context.Context, kws []string, _ seo.Locale) ([]keywords.Keyword, error) {
	f.calls.Add(1)
	return f.volumes(ctx, kws)
}

func provided(p string, v int) keywords.Keyword {
	return keywords.Keyword{Keyword: p, Volume: intp(v), Source: "provider", Difficulty: intp(30), DifficultyMethod: "provider:kd"}
}

func TestCacheThrough(t *testing.T) {
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	up := &fakeUpstream{
		suggest: func(context.Context, string) ([]keywords.Keyword, error) {
			return []keywords.Keyword{provided("trail running", 8100), provided("trail running shoes", 40500)}, nil
		},
		volumes: func(_ context.Context, kws []string) ([]keywords.Keyword, error) {
			var out []keywords.Keyword
			for _, k := range kws {
				if k == "ultra marathon" {
					out = append(out, provided(k, 6600))
				}
			}
			return out, nil
		},
	}
	s := open(t, &local.Options{Upstream: up, MaxAge: 24 * time.Hour, Now: func() time.Time { return now }})
	ctx := context.Background()

	got, err := s.Suggest(ctx, "trail running", enUS, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Source != "provider" || up.calls.Load() != 1 {
		t.Fatalf("first Suggest = %+v after %d calls", got, up.calls.Load())
	}
	got, err = s.Suggest(ctx, "trail running", enUS, 10)
	if err != nil {
		t.Fatal(err)
	}
	if up.calls.Load() != 1 {
		t.Errorf("fresh seed asked upstream again")
	}
	if m := byPhrase(got); m["trail running shoes"].Volume == nil || *m["trail running shoes"].Volume != 40500 || m["trail running shoes"].Source != "provider" {
		t.Errorf("stored answer %+v", got)
	}
	now = now.Add(25 * time.Hour)
	if _, err := s.Suggest(ctx, "trail running", enUS, 10); err != nil || up.calls.Load() != 2 {
		t.Errorf("stale seed: err %v, %d calls, want a second upstream call", err, up.calls.Load())
	}

	vols, err := s.Volumes(ctx, []string{"ultra marathon", "unknown thing"}, enUS)
	if err != nil || len(vols) != 1 || *vols[0].Volume != 6600 {
		t.Fatalf("Volumes = %+v, %v", vols, err)
	}
	calls := up.calls.Load()
	if _, err := s.Volumes(ctx, []string{"ultra marathon", "unknown thing"}, enUS); err != nil || up.calls.Load() != calls {
		t.Errorf("second Volumes asked upstream again (%d calls, err %v)", up.calls.Load()-calls, err)
	}
}

func TestCacheThroughFailures(t *testing.T) {
	tests := []struct {
		name    string
		suggest func(ctx context.Context, seed string) ([]keywords.Keyword, error)
		want    error
	}{
		{"timeout", func(ctx context.Context, _ string) ([]keywords.Keyword, error) {
			<-ctx.Done()
			return nil, fmt.Errorf("provider: %w", ctx.Err())
		}, seo.ErrUnavailable},
		{"garbage volume", func(context.Context, string) ([]keywords.Keyword, error) {
			return []keywords.Keyword{provided("good one", 10), provided("bad one", -40)}, nil
		}, seo.ErrUnavailable},
		{"garbage difficulty", func(context.Context, string) ([]keywords.Keyword, error) {
			k := provided("good one", 10)
			k.Difficulty = intp(400)
			return []keywords.Keyword{provided("fine", 1), k}, nil
		}, seo.ErrUnavailable},
		{"empty phrase", func(context.Context, string) ([]keywords.Keyword, error) {
			return []keywords.Keyword{provided("fine", 1), provided(" ", 5)}, nil
		}, seo.ErrUnavailable},
		{"rate limited", func(context.Context, string) ([]keywords.Keyword, error) {
			return nil, fmt.Errorf("provider: 429: %w", seo.ErrRateLimited)
		}, seo.ErrRateLimited},
		{"plain error", func(context.Context, string) ([]keywords.Keyword, error) {
			return nil, errors.New("unexpected end of JSON input")
		}, seo.ErrUnavailable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			up := &fakeUpstream{suggest: tc.suggest}
			s := open(t, &local.Options{Upstream: up})
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			_, err := s.Suggest(ctx, "trail running", enUS, 10)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Suggest = %v, want %v", err, tc.want)
			}
			if n, _ := s.Count(context.Background(), enUS); n != 0 {
				t.Errorf("%d keywords stored from a failed upstream answer", n)
			}
		})
	}
}

func TestSuggesterMergesSources(t *testing.T) {
	s := open(t, nil)
	importFile(t, s, "search-console-queries.csv", "")
	up := &fakeUpstream{
		suggest: func(context.Context, string) ([]keywords.Keyword, error) {
			return []keywords.Keyword{provided("Running Shoe", 90500), provided("trail running shoe", 40500)}, nil
		},
		volumes: func(_ context.Context, kws []string) ([]keywords.Keyword, error) {
			var out []keywords.Keyword
			for _, k := range kws {
				if k == "how to lace running shoes" {
					out = append(out, provided(k, 1900))
				}
			}
			return out, nil
		},
	}
	failing := &fakeUpstream{suggest: func(context.Context, string) ([]keywords.Keyword, error) { return nil, seo.ErrUnavailable }}
	sg := keywords.NewSuggester([]keywords.Source{s, up, named{failing}}, nil)
	res, err := sg.Suggest(context.Background(), "running shoes", enUS, &keywords.SuggestOptions{Limit: 30})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(res.Failed) != "[failing]" || fmt.Sprint(res.Sources) != "[local provider]" {
		t.Errorf("sources %v failed %v", res.Sources, res.Failed)
	}
	first := res.Suggestions[0]
	if first.Volume == nil || *first.Volume != 90500 || first.Source != "provider" || first.SearchConsole == nil {
		t.Errorf("merged exact phrase %+v: want the provider's volume and the imported Search Console figures", first)
	}
	count := 0
	for _, k := range res.Suggestions {
		if keywords.FoldKey("en", k.Keyword) == keywords.FoldKey("en", "running shoes") {
			count++
		}
	}
	if count != 1 {
		t.Errorf("%d entries fold to running shoes", count)
	}
	if k := byPhrase(res.Suggestions)["how to lace running shoes"]; k.Volume == nil || *k.Volume != 1900 || k.Source != "provider" {
		t.Errorf("volume not filled from the other source: %+v", k)
	}
}

type named struct{ *fakeUpstream }

func (named) Name() string { return "failing" }

// A Suggester keeping answers in memory shows a keyword the Store just
// stored on the next request, not after the cache's lifetime.
func TestImportVisibleThroughMemoryCache(t *testing.T) {
	s := open(t, nil)
	ctx := context.Background()
	vol := func(n int) *int { return &n }
	if err := s.Put(ctx, []keywords.Keyword{{Keyword: "trail running", Volume: vol(900), Source: "imported:test"}}, enUS); err != nil {
		t.Fatal(err)
	}
	sg := keywords.NewSuggester([]keywords.Source{s}, &keywords.SuggesterOptions{MemoryCacheTTL: time.Hour})
	has := func(phrase string) bool {
		res, err := sg.Suggest(ctx, "trail running", enUS, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range res.Suggestions {
			if k.Keyword == phrase {
				return true
			}
		}
		return false
	}
	if !has("trail running") || has("trail running shoes") {
		t.Fatal("first answer is not what was stored")
	}
	v := s.DataVersion()
	if err := s.Put(ctx, []keywords.Keyword{{Keyword: "trail running shoes", Volume: vol(400), Source: "imported:test"}}, enUS); err != nil {
		t.Fatal(err)
	}
	if s.DataVersion() == v {
		t.Fatal("DataVersion did not change with a write")
	}
	if !has("trail running shoes") {
		t.Fatal("the new keyword is not suggested after the write: the cached answer was served")
	}
}
