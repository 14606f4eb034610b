package rankings_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/memstore"
	"github.com/seokit/seokit/seo"
)

var serpResults = []rankings.Result{
	{Position: 1, URL: "https://notexample.com/"},
	{Position: 2, URL: "https://blog.example.com/post"},
	{Position: 3, URL: "https://shop.example.org/"},
	// Positions are the source's organic ranks: not the index in Results.
	{Position: 5, URL: "https://www.example.com/blog/x"},
	{Position: 6, URL: "https://example.com/"},
	{Position: 8, URL: "https://EXAMPLE.com:443/blogger"},
}

func TestMatching(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		domain  string
		rule    rankings.SubdomainRule
		wantPos int // 0: not ranked
		wantURL string
	}{
		{"exact host with www result", "example.com", rankings.ExactHost, 5, "https://www.example.com/blog/x"},
		{"www target strips www", "www.example.com", rankings.ExactHost, 5, "https://www.example.com/blog/x"},
		{"any subdomain", "example.com", rankings.AnySubdomain, 2, "https://blog.example.com/post"},
		{"subdomain target exact", "blog.example.com", rankings.ExactHost, 2, "https://blog.example.com/post"},
		{"other subdomain exact", "shop.example.com", rankings.ExactHost, 0, ""},
		{"notexample is not example", "example.com", rankings.ExactHost, 5, "https://www.example.com/blog/x"},
		{"notexample itself", "notexample.com", rankings.ExactHost, 1, "https://notexample.com/"},
		{"suffix trap any", "ample.com", rankings.AnySubdomain, 0, ""},
		{"url prefix", "example.com/blog", rankings.ExactHost, 5, "https://www.example.com/blog/x"},
		{"url prefix as URL", "https://www.example.com/blog/", rankings.ExactHost, 5, "https://www.example.com/blog/x"},
		{"prefix is segment-wise", "example.com/blo", rankings.ExactHost, 0, ""},
		{"prefix blogger", "example.com/blogger", rankings.ExactHost, 8, "https://EXAMPLE.com:443/blogger"},
		{"other tld", "example.org", rankings.ExactHost, 0, ""},
		{"other tld any", "example.org", rankings.AnySubdomain, 3, "https://shop.example.org/"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := newFake(map[string][]rankings.Result{"kw": serpResults})
			st := memstore.New(nil)
			tr := rankings.NewTracker(src, st, &rankings.TrackerOptions{Subdomains: c.rule})
			got, err := tr.Check(context.Background(), c.domain, []string{"kw"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 {
				t.Fatalf("got %d rankings", len(got))
			}
			r := got[0]
			if c.wantPos == 0 {
				if r.Position != nil {
					t.Errorf("Position = %d (%s), want not ranked", *r.Position, r.URL)
				}
			} else if r.Position == nil || *r.Position != c.wantPos || r.URL != c.wantURL {
				t.Errorf("got %v %q, want %d %q", r.Position, r.URL, c.wantPos, c.wantURL)
			}
			if r.Depth != 100 || r.Source != "fake" {
				t.Errorf("Depth, Source = %d, %q; want 100, fake", r.Depth, r.Source)
			}
			// The observation is stored, not ranked included.
			tg, _ := rankings.ParseTarget(c.domain)
			l, err := st.Latest(context.Background(), rankings.Filter{Domain: tg.String()})
			if err != nil || len(l) != 1 {
				t.Fatalf("Latest = %v, %v; want the observation stored", l, err)
			}
			if (l[0].Position == nil) != (c.wantPos == 0) {
				t.Errorf("stored position %v, want ranked = %v", l[0].Position, c.wantPos != 0)
			}
		})
	}
}

func TestFailureIsNeverNotRanked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src := newFake(map[string][]rankings.Result{"a": serpResults, "c": serpResults})
	src.setFail("b", seo.ErrRateLimited)
	st := memstore.New(nil)
	tr := rankings.NewTracker(src, st, nil)
	got, err := tr.Check(ctx, "example.com", []string{"a", "b", "c"}, nil)
	if !errors.Is(err, seo.ErrRateLimited) {
		t.Fatalf("Check = %v, %v; want an error wrapping ErrRateLimited", got, err)
	}
	if !strings.Contains(err.Error(), `"b"`) {
		t.Errorf("error %q does not name the keyword", err)
	}
	h, _ := st.History(ctx, rankings.Filter{Domain: "example.com"})
	var kws []string
	for _, o := range h {
		kws = append(kws, o.Keyword)
	}
	if strings.Join(kws, ",") != "a,c" {
		t.Errorf("stored %v, want a and c only (nothing for the failed b)", kws)
	}
	if len(got) != 3 || got[0].Status != rankings.StatusRanked || got[1].Status != rankings.StatusFailed || got[2].Status != rankings.StatusRanked {
		t.Errorf("Check entries = %+v, want ranked, failed, ranked", got)
	}
	// Rankings does not hide the failure behind a null position.
	rs, err := tr.Rankings(ctx, "example.com", []string{"b"}, nil)
	if err != nil || len(rs) != 1 || rs[0].Status != rankings.StatusFailed || !strings.Contains(rs[0].Error, "rate limit") {
		t.Errorf("Rankings(b) = %+v, %v; want status failed with the provider's error", rs, err)
	}
	if h, _ := st.History(ctx, rankings.Filter{Domain: "example.com", Keywords: []string{"b"}}); len(h) != 0 {
		t.Errorf("stored %v for a failed keyword", h)
	}
}

func TestBadAnswerIsAnError(t *testing.T) {
	t.Parallel()
	src := newFake(map[string][]rankings.Result{"k": {{Position: 0, URL: "https://example.com/"}}})
	st := memstore.New(nil)
	_, err := rankings.NewTracker(src, st, nil).Check(context.Background(), "example.com", []string{"k"}, nil)
	if !errors.Is(err, seo.ErrUnavailable) {
		t.Errorf("position 0 from a source = %v, want ErrUnavailable", err)
	}
}

func TestCheckInputErrors(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 201)
	cases := []struct {
		name     string
		domain   string
		keywords []string
		opts     *rankings.CheckOptions
		field    string
	}{
		{"empty domain", "", []string{"k"}, nil, "domain"},
		{"spaces in domain", "exa mple.com", []string{"k"}, nil, "domain"},
		{"single label", "localhostx", []string{"k"}, nil, "domain"},
		{"query in target", "example.com/a?b=c", []string{"k"}, nil, "domain"},
		{"scheme only", "https://", []string{"k"}, nil, "domain"},
		{"no keywords", "example.com", nil, nil, "keywords"},
		{"empty keyword", "example.com", []string{"ok", "  "}, nil, "keywords[1]"},
		{"long keyword", "example.com", []string{long}, nil, "keywords[0]"},
		{"control character", "example.com", []string{"a\x00b"}, nil, "keywords[0]"},
		{"too many", "example.com", []string{"a", "b", "c", "d"}, nil, "keywords"},
		{"bad device", "example.com", []string{"a"}, &rankings.CheckOptions{Device: "tablet"}, "device"},
		{"bad locale", "example.com", []string{"a"}, &rankings.CheckOptions{Locale: seo.Locale{Language: "xx", Region: "QQ"}}, "locale"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := newFake(nil)
			tr := rankings.NewTracker(src, memstore.New(nil), &rankings.TrackerOptions{MaxKeywords: 3})
			for _, call := range []func() error{
				func() error { _, err := tr.Check(context.Background(), c.domain, c.keywords, c.opts); return err },
				func() error { _, err := tr.Rankings(context.Background(), c.domain, c.keywords, c.opts); return err },
				func() error { return tr.Track(context.Background(), c.domain, c.keywords, c.opts) },
			} {
				err := call()
				ie, ok := seo.AsInputError(err)
				if !ok {
					t.Fatalf("err = %v, want *seo.InputError", err)
				}
				if ie.Field != c.field {
					t.Errorf("Field = %q, want %q (%v)", ie.Field, c.field, err)
				}
			}
			src.mu.Lock()
			defer src.mu.Unlock()
			if len(src.calls) != 0 {
				t.Errorf("source called on bad input: %v", src.calls)
			}
		})
	}
}

func TestNoSource(t *testing.T) {
	t.Parallel()
	tr := rankings.NewTracker(nil, memstore.New(nil), nil)
	if _, err := tr.Check(context.Background(), "example.com", []string{"k"}, nil); !errors.Is(err, seo.ErrUnavailable) || !strings.Contains(err.Error(), "no SERP source configured") {
		t.Errorf("Check without source = %v, want ErrUnavailable", err)
	}
	got, err := tr.Rankings(context.Background(), "example.com", []string{"k"}, nil)
	if err != nil || len(got) != 1 || got[0].Position != nil || !got[0].CheckedAt.IsZero() {
		t.Errorf("Rankings without source or data = %+v, %v; want one never-checked entry", got, err)
	}
}

func TestDedupOrderAndConcurrency(t *testing.T) {
	t.Parallel()
	res := map[string][]rankings.Result{}
	var kws []string
	for _, k := range []string{"k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8"} {
		res[k] = []rankings.Result{{Position: 1, URL: "https://example.com/" + k}}
		kws = append(kws, k)
	}
	src := newFake(res)
	src.delay = 5 * time.Millisecond
	tr := rankings.NewTracker(src, memstore.New(nil), &rankings.TrackerOptions{Concurrency: 2})
	got, err := tr.Check(context.Background(), "example.com", append(kws, " k1 ", "k2"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(kws) {
		t.Fatalf("got %d rankings, want %d (duplicates removed)", len(got), len(kws))
	}
	for i, r := range got {
		if r.Keyword != kws[i] || r.URL != "https://example.com/"+kws[i] {
			t.Errorf("got[%d] = %s %s, want the keywords' order", i, r.Keyword, r.URL)
		}
	}
	if m := src.maxSeen.Load(); m > 2 || m < 1 {
		t.Errorf("max concurrent searches = %d, want 1..2", m)
	}
	if src.callsOf("k1") != 1 {
		t.Errorf("k1 searched %d times, want 1", src.callsOf("k1"))
	}
}

func TestRankingsFreshness(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	src := newFake(map[string][]rankings.Result{"k": {{Position: 4, URL: "https://example.com/k"}}})
	st := memstore.New(nil)
	tr := rankings.NewTracker(src, st, &rankings.TrackerOptions{Now: func() time.Time { return now }, MaxAge: 6 * time.Hour})
	for i, want := range []int{1, 1, 2} {
		if i == 2 {
			now = now.Add(7 * time.Hour) // past MaxAge after the 10:00 check
		}
		got, err := tr.Rankings(ctx, "example.com", []string{"k"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got[0].Position == nil || *got[0].Position != 4 {
			t.Fatalf("Rankings = %+v", got)
		}
		if c := src.callsOf("k"); c != want {
			t.Errorf("call %d: source searched %d times, want %d", i, c, want)
		}
	}
	tracked, _ := st.Tracked(ctx, rankings.Filter{Domain: "example.com"})
	if len(tracked) != 1 || tracked[0].Keyword != "k" || tracked[0].Locale.String() != "en-US" {
		t.Errorf("Tracked = %+v, want k in en-US", tracked)
	}
	if err := tr.Untrack(ctx, "example.com", nil, nil); err != nil {
		t.Fatal(err)
	}
	if tracked, _ := st.Tracked(ctx, rankings.Filter{Domain: "example.com"}); len(tracked) != 0 {
		t.Errorf("after Untrack: %+v", tracked)
	}
}

func TestRankingOfAverage(t *testing.T) {
	t.Parallel()
	p := 4.5
	r := rankings.RankingOf(rankings.Observation{Keyword: "k", Position: &p, Average: true})
	if r.Position == nil || *r.Position != 5 || r.AveragePosition == nil || *r.AveragePosition != 4.5 || !r.Average {
		t.Errorf("RankingOf(average 4.5) = %+v, want position 5 and averagePosition 4.5", r)
	}
	q := 3.0
	r = rankings.RankingOf(rankings.Observation{Keyword: "k", Position: &q})
	if r.AveragePosition != nil || *r.Position != 3 {
		t.Errorf("RankingOf(3) = %+v", r)
	}
}

// TestParseTargetHost: the host of a target goes through the one domain
// parser (seo.ParseHost, seo.ParseDomain): a port is refused, not dropped,
// and the DNS's lengths apply; the path prefix is kept.
func TestParseTargetHost(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want string // Target.String(); "" for an error on domain
	}{
		{"example.com", "example.com"},
		{"WWW.Example.com/Blog/", "example.com/Blog"},
		{"https://www.example.com/blog/", "example.com/blog"},
		{"example.com:8080", ""},
		{"example.com:8080/blog", ""},
		{"https://example.com:8443/blog", ""},
		{"a..example.com", ""},
		{strings.Repeat("a", 64) + ".com/blog", ""},
		{"https://" + strings.Repeat("a", 64) + ".com/", ""},
		{"example.com/blog?x=1", ""},
		{"example", ""},
	}
	for _, tc := range tests {
		got, err := rankings.ParseTarget(tc.in)
		if tc.want == "" {
			if ie, ok := seo.AsInputError(err); !ok || ie.Field != "domain" || ie.Value != tc.in {
				t.Errorf("ParseTarget(%q) = %v, %v; want an InputError on domain carrying the input", tc.in, got, err)
			}
			continue
		}
		if err != nil || got.String() != tc.want {
			t.Errorf("ParseTarget(%q) = %v, %v; want %s", tc.in, got, err, tc.want)
		}
	}
}

// TestBeforeSearch: Rankings tells BeforeSearch how many keywords it is
// about to search (the stale ones only), and a refusal from it is the
// call's error with nothing searched and nothing tracked, since the daily
// re-checks would search a tracked keyword anyway.
func TestBeforeSearch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src := newFake(map[string][]rankings.Result{"a": serpResults, "b": serpResults})
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	src.now = func() time.Time { return now }
	st := memstore.New(nil)
	tr := rankings.NewTracker(src, st, &rankings.TrackerOptions{Now: func() time.Time { return now }})
	var asked []int
	refuse := errors.New("quota spent")
	opts := &rankings.CheckOptions{BeforeSearch: func(_ context.Context, n int) error {
		asked = append(asked, n)
		return refuse
	}}
	if _, err := tr.Rankings(ctx, "example.com", []string{"a", "b"}, opts); !errors.Is(err, refuse) {
		t.Fatalf("Rankings = %v, want the refusal", err)
	}
	if src.callsOf("a")+src.callsOf("b") != 0 {
		t.Errorf("a refused call searched: a %d, b %d times", src.callsOf("a"), src.callsOf("b"))
	}
	if tk, _ := st.Tracked(ctx, rankings.Filter{Domain: "example.com"}); len(tk) != 0 {
		t.Errorf("a refused call tracked %+v", tk)
	}
	if _, err := tr.Rankings(ctx, "example.com", []string{"a"}, nil); err != nil {
		t.Fatal(err)
	}
	opts.BeforeSearch = func(_ context.Context, n int) error { asked = append(asked, n); return nil }
	if _, err := tr.Rankings(ctx, "example.com", []string{"a", "b"}, opts); err != nil {
		t.Fatal(err)
	}
	if len(asked) != 2 || asked[0] != 2 || asked[1] != 1 {
		t.Errorf("BeforeSearch asked %v, want [2 1] (a was checked just before)", asked)
	}
	if src.callsOf("a") != 1 || src.callsOf("b") != 1 {
		t.Errorf("searched a %d, b %d times; want once each", src.callsOf("a"), src.callsOf("b"))
	}
}
