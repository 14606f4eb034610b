package keywords_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/keywords"
	"github.com/seokit/seokit/seo"
)

var enUS = seo.Locale{Language: "en", Region: "US"}

type fake struct {
	name    string
	kws     []keywords.Keyword
	err     error
	block   bool
	volumes map[string]int
}

func (f *fake) Name() string { return f.name }

func (f *fake) Suggest(ctx context.Context, _ string, _ seo.Locale, limit int) ([]keywords.Keyword, error) {
	if f.block {
		<-ctx.Done()
		return nil, fmt.Errorf("%s: %w", f.name, errors.Join(seo.ErrUnavailable, ctx.Err()))
	}
	return f.kws, f.err
}

func (f *fake) Volumes(_ context.Context, kws []string, _ seo.Locale) ([]keywords.Keyword, error) {
	var out []keywords.Keyword
	for _, k := range kws {
		if v, ok := f.volumes[k]; ok {
			out = append(out, keywords.Keyword{Keyword: k, Volume: &v, Source: f.name})
		}
	}
	return out, nil
}

func kw(p string, v int, src string) keywords.Keyword {
	return keywords.Keyword{Keyword: p, Volume: &v, Source: src}
}

func TestSuggestValidation(t *testing.T) {
	t.Parallel()
	sg := keywords.NewSuggester([]keywords.Source{&fake{name: "a"}}, nil)
	tests := []struct {
		name  string
		query string
		loc   seo.Locale
		limit int
		field string
	}{
		{"empty", "", enUS, 0, "query"},
		{"punctuation only", " ?! ", enUS, 0, "query"},
		{"201 characters", strings.Repeat("a", 201), enUS, 0, "query"},
		{"11 words", strings.Repeat("w ", 11), enUS, 0, "query"},
		{"no locale", "shoes", seo.Locale{}, 0, "locale"},
		{"unknown locale", "shoes", seo.Locale{Language: "en", Region: "QQ"}, 0, "locale"},
		{"negative limit", "shoes", enUS, -1, "limit"},
		{"limit 1001", "shoes", enUS, 1001, "limit"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := sg.Suggest(context.Background(), tc.query, tc.loc, &keywords.SuggestOptions{Limit: tc.limit})
			ie, ok := seo.AsInputError(err)
			if !ok || ie.Field != tc.field {
				t.Fatalf("err %v, want an input error for %q", err, tc.field)
			}
		})
	}
}

func TestSuggestMerge(t *testing.T) {
	a := &fake{name: "a", kws: []keywords.Keyword{
		{Keyword: "Running Shoe", Source: "a", Expansion: false},
		kw("shoes for running", 10, "a"),
		{Keyword: "why running shoes", Source: "a", Expansion: true},
	}}
	b := &fake{name: "b", kws: []keywords.Keyword{kw("running shoes", 900, "b"), kw("running shoes sale", 50, "b"), kw("red running shoes", 4000, "b")},
		volumes: map[string]int{"why running shoes": 30}}
	bad := &fake{name: "broken", err: errors.New("boom")}
	slow := &fake{name: "slow", block: true}
	sg := keywords.NewSuggester([]keywords.Source{a, b, bad, slow}, &keywords.SuggesterOptions{SourceTimeout: 20 * time.Millisecond})
	res, err := sg.Suggest(context.Background(), "running shoes", enUS, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, k := range res.Suggestions {
		v := "nil"
		if k.Volume != nil {
			v = fmt.Sprint(*k.Volume)
		}
		got = append(got, fmt.Sprintf("%s=%s/%s", k.Keyword, v, k.Source))
	}
	want := []string{"running shoes=900/b", "running shoes sale=50/b", "red running shoes=4000/b", "why running shoes=30/b", "shoes for running=10/a"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	if fmt.Sprint(res.Sources) != "[a b]" || fmt.Sprint(res.Failed) != "[broken slow]" {
		t.Errorf("sources %v failed %v", res.Sources, res.Failed)
	}
}

func TestSuggestAllFail(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		srcs []keywords.Source
		want error
	}{
		{"errors", []keywords.Source{&fake{name: "a", err: errors.New("x")}, &fake{name: "b", err: seo.ErrRateLimited}}, seo.ErrUnavailable},
		{"garbage", []keywords.Source{&fake{name: "a", kws: []keywords.Keyword{kw("x", -3, "a")}}}, seo.ErrUnavailable},
		{"timeout", []keywords.Source{&fake{name: "a", block: true}}, seo.ErrUnavailable},
		{"no sources", nil, seo.ErrUnavailable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sg := keywords.NewSuggester(tc.srcs, &keywords.SuggesterOptions{SourceTimeout: 10 * time.Millisecond})
			_, err := sg.Suggest(context.Background(), "shoes", enUS, nil)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
		})
	}
}

type memCache struct {
	s   *keywords.Suggestions
	lim int
	at  time.Time
}

func (m *memCache) GetSuggestions(_ context.Context, q string, loc seo.Locale, limit int) (*keywords.Suggestions, error) {
	if m.s == nil || m.lim < limit || keywords.NormalizePhrase(q) != keywords.NormalizePhrase(m.s.Query) {
		return nil, seo.ErrNotFound
	}
	c := *m.s
	c.CachedAt = m.at
	return &c, nil
}

func (m *memCache) PutSuggestions(_ context.Context, s *keywords.Suggestions, limit int, at time.Time) error {
	m.s, m.lim, m.at = s, limit, at
	return nil
}

func TestSuggestCacheAge(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	src := &fake{name: "a", kws: []keywords.Keyword{kw("shoes", 1, "a")}}
	c := &memCache{}
	sg := keywords.NewSuggester([]keywords.Source{src}, &keywords.SuggesterOptions{Cache: c, MaxAge: time.Hour, Now: func() time.Time { return now }})
	first, err := sg.Suggest(context.Background(), "shoes", enUS, nil)
	if err != nil || !first.CachedAt.IsZero() {
		t.Fatalf("first = %+v, %v", first, err)
	}
	src.kws = []keywords.Keyword{kw("shoes", 2, "a")}
	now = now.Add(30 * time.Minute)
	second, _ := sg.Suggest(context.Background(), "shoes", enUS, nil)
	if second.CachedAt.IsZero() || second.AgeSeconds != 1800 || *second.Suggestions[0].Volume != 1 {
		t.Errorf("second = %+v, want the cached answer, 1800 s old", second)
	}
	now = now.Add(time.Hour)
	third, _ := sg.Suggest(context.Background(), "shoes", enUS, nil)
	if !third.CachedAt.IsZero() || *third.Suggestions[0].Volume != 2 {
		t.Errorf("third = %+v, want a fresh answer after MaxAge", third)
	}
}

func TestFoldKey(t *testing.T) {
	t.Parallel()
	tests := []struct{ lang, a, b string }{
		{"en", "Running Shoes", "running shoe"},
		{"en", "Café  Menus", "cafe menus"},
		{"de", "Laufschuhe", "laufschuh"},
		{"fr", "chaussures de course", "Chaussure de course"},
	}
	for _, tc := range tests {
		if ka, kb := keywords.FoldKey(tc.lang, tc.a), keywords.FoldKey(tc.lang, tc.b); ka != kb {
			t.Errorf("%s: FoldKey(%q)=%q, FoldKey(%q)=%q", tc.lang, tc.a, ka, tc.b, kb)
		}
	}
}
