package rankings_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/memstore"
	"github.com/seokit/seokit/seo"
)

func fp(p float64) *float64 { return &p }

func TestNewRankingStates(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	ranked := &rankings.Observation{Keyword: "k", Position: fp(4), URL: "https://example.com/", Depth: 100, Source: "fake", CheckedAt: at}
	absent := &rankings.Observation{Keyword: "k", Depth: 100, Source: "fake", CheckedAt: at}
	imported := &rankings.Observation{Keyword: "k", Source: rankings.SourceSearchConsoleExport, Average: true, CheckedAt: at}
	later := &rankings.Failure{Keyword: "k", At: at.Add(time.Hour), Source: "fake", Error: "fake: rate limited"}
	earlier := &rankings.Failure{Keyword: "k", At: at.Add(-time.Hour), Source: "fake", Error: "old"}
	cases := []struct {
		name      string
		o         *rankings.Observation
		f         *rankings.Failure
		hasSource bool
		status    rankings.Status
		pos       int // 0: null
		label     string
		reason    string // substring
	}{
		{"ranked", ranked, nil, true, rankings.StatusRanked, 4, "4", ""},
		{"not ranked within depth", absent, nil, true, rankings.StatusNotRanked, 0, "not ranked in the top 100", "not in the top 100 results checked"},
		{"absent from an import", imported, nil, false, rankings.StatusNotRanked, 0, "not in the Search Console export", "Search Console export"},
		{"never checked, source", nil, nil, true, rankings.StatusUnchecked, 0, "unchecked", "never checked"},
		{"never checked, no source", nil, nil, false, rankings.StatusUnchecked, 0, "unchecked", "no SERP source is configured"},
		{"failed, never checked", nil, later, true, rankings.StatusFailed, 0, "check failed", "never checked successfully"},
		{"failed keeps the last position", ranked, later, true, rankings.StatusFailed, 4, "check failed (last position 4)", "from the last successful check"},
		{"failure before a not ranked check", absent, earlier, true, rankings.StatusNotRanked, 0, "not ranked in the top 100", "top 100"},
		{"failure before a ranked check", ranked, earlier, true, rankings.StatusRanked, 4, "4", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := rankings.NewRanking("k", c.o, c.f, c.hasSource)
			if r.Status != c.status || r.Label() != c.label || !strings.Contains(r.Reason, c.reason) {
				t.Errorf("status %q label %q reason %q; want %q %q %q", r.Status, r.Label(), r.Reason, c.status, c.label, c.reason)
			}
			if (r.Position == nil) != (c.pos == 0) || (r.Position != nil && *r.Position != c.pos) {
				t.Errorf("position %v, want %d", r.Position, c.pos)
			}
			if c.status == rankings.StatusFailed && (r.Error != c.f.Error || !r.FailedAt.Equal(c.f.At)) {
				t.Errorf("error %q at %v, want %q at %v", r.Error, r.FailedAt, c.f.Error, c.f.At)
			}
			if c.status != rankings.StatusFailed && r.Error != "" {
				t.Errorf("error %q on a %s entry", r.Error, r.Status)
			}
		})
	}
}

func TestMovementOf(t *testing.T) {
	t.Parallel()
	cases := []struct {
		before, after *float64
		want          rankings.Movement
	}{
		{fp(5), fp(3), rankings.MovedUp},
		{fp(3), fp(5), rankings.MovedDown},
		{fp(4.2), fp(4.2), rankings.Unmoved},
		{nil, fp(7), rankings.NewlyRanked},
		{fp(7), nil, rankings.Lost},
		{nil, nil, rankings.StillNot},
	}
	for _, c := range cases {
		if got := rankings.MovementOf(c.before, c.after); got != c.want {
			t.Errorf("MovementOf(%v, %v) = %q, want %q", c.before, c.after, got, c.want)
		}
	}
}

func TestFailureMessageIsSafe(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("serpapi: %w: Get \"https://serpapi.com/search.json?api_key=SECRET&q=x\": EOF\n  more", seo.ErrUnavailable)
	got := rankings.FailureMessage(err)
	if strings.Contains(got, "SECRET") || strings.Contains(got, "\n") || !strings.Contains(got, "https://serpapi.com/search.json") {
		t.Errorf("FailureMessage = %q", got)
	}
	if long := rankings.FailureMessage(errors.New(strings.Repeat("é", 600))); len(long) > 510 {
		t.Errorf("FailureMessage kept %d bytes", len(long))
	}
}

// Without a source, a keyword never observed is "unchecked" and says why;
// it is never a null position that reads as "not ranked".
func TestRankingsWithoutSourceAreUnchecked(t *testing.T) {
	t.Parallel()
	tr := rankings.NewTracker(nil, memstore.New(nil), nil)
	got, err := tr.Rankings(context.Background(), "example.com", []string{"a"}, nil)
	if err != nil || len(got) != 1 {
		t.Fatal(got, err)
	}
	if got[0].Status != rankings.StatusUnchecked || !strings.Contains(got[0].Reason, "no SERP source") {
		t.Errorf("entry = %+v, want unchecked because no source is configured", got[0])
	}
	if tr.HasSource() || tr.SourceName() != "" {
		t.Error("HasSource without a source")
	}
}

// A failed check never overwrites the previous position, and the failure
// is kept by the store: a tracker without a source (another process, a
// restart) still reports it.
func TestFailedCheckKeepsPositionAndIsStored(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	src := newFake(map[string][]rankings.Result{"k": serpResults})
	src.now = clock
	st := memstore.New(nil)
	tr := rankings.NewTracker(src, st, &rankings.TrackerOptions{Now: clock})
	if got, err := tr.Rankings(ctx, "example.com", []string{"k"}, nil); err != nil || got[0].Status != rankings.StatusRanked || *got[0].Position != 5 {
		t.Fatalf("first check = %+v, %v", got, err)
	}
	now = now.Add(48 * time.Hour)
	src.setFail("k", seo.ErrRateLimited)
	got, err := tr.Rankings(ctx, "example.com", []string{"k"}, nil)
	if err != nil || got[0].Status != rankings.StatusFailed || got[0].Position == nil || *got[0].Position != 5 || !got[0].FailedAt.Equal(now) {
		t.Fatalf("after a failure = %+v, %v; want failed with the last position 5", got, err)
	}
	if h, _ := st.History(ctx, rankings.Filter{Domain: "example.com"}); len(h) != 1 || h[0].Position == nil {
		t.Errorf("history %+v, want only the ranked observation", h)
	}
	again, err := rankings.NewTracker(nil, st, &rankings.TrackerOptions{Now: clock}).Rankings(ctx, "example.com", []string{"k"}, nil)
	if err != nil || again[0].Status != rankings.StatusFailed || !strings.Contains(again[0].Error, "rate limited") {
		t.Errorf("store-only tracker = %+v, %v; want the stored failure", again, err)
	}
	// A later successful check clears the failed state.
	now = now.Add(48 * time.Hour)
	src.setFail("k", nil)
	if got, err := tr.Rankings(ctx, "example.com", []string{"k"}, nil); err != nil || got[0].Status != rankings.StatusRanked || got[0].Error != "" {
		t.Errorf("after recovery = %+v, %v; want ranked", got, err)
	}
}

// The daily pass records its failures too.
func TestRecheckDueRecordsFailures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src := newFake(nil)
	src.setFail("k", seo.ErrUnavailable)
	st := memstore.New(nil)
	tr := rankings.NewTracker(src, st, &rankings.TrackerOptions{Now: func() time.Time { return time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC) }})
	if err := tr.Track(ctx, "example.com", []string{"k"}, nil); err != nil {
		t.Fatal(err)
	}
	rep, err := tr.RecheckDue(ctx)
	if err != nil || len(rep.Failed) != 1 {
		t.Fatalf("RecheckDue = %+v, %v", rep, err)
	}
	fs, err := st.LatestFailures(ctx, rankings.Filter{Domain: "example.com"})
	if err != nil || len(fs) != 1 || fs[0].Keyword != "k" || fs[0].Source != "fake" {
		t.Errorf("LatestFailures = %+v, %v; want the failure of k", fs, err)
	}
}
