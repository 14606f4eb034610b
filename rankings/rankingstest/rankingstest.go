package rankingstest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/seo"
)

var (
	enUS = seo.Locale{Language: "en", Region: "US"}
	deDE = seo.Locale{Language: "de", Region: "DE"}
	day0 = time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
)

func pos(p float64) *float64 { return &p }

func obs(domain, kw string, loc seo.Locale, dev rankings.Device, date time.Time, p *float64, url string) rankings.Observation {
	return rankings.Observation{Domain: domain, Keyword: kw, Locale: loc, Device: dev, Date: date, Position: p,
		URL: url, Depth: 100, Source: "suite", CheckedAt: date.Add(5*time.Hour + 7*time.Second)}
}

func key(o rankings.Observation) string {
	p := "nil"
	if o.Position != nil {
		p = fmt.Sprint(*o.Position)
	}
	return fmt.Sprintf("%s|%s|%s|%s|%s|%s|%s", o.Domain, o.Keyword, o.Locale, o.Device, o.Date.Format(time.DateOnly), p, o.URL)
}

func keys(os []rankings.Observation) string {
	var b strings.Builder
	for _, o := range os {
		b.WriteString(key(o))
		b.WriteByte('\n')
	}
	return b.String()
}

// RunStore runs the Store conformance suite. open returns a new, empty
// store for each subtest; it should register its own cleanup.
func RunStore(t *testing.T, open func(t *testing.T) rankings.Store) {
	ctx := context.Background()

	t.Run("TrackIdempotent", func(t *testing.T) {
		st := open(t)
		added := day0.Add(time.Hour)
		in := []rankings.Tracked{
			{Domain: "example.com", Keyword: "seo tools", Locale: enUS, Device: rankings.Desktop, AddedAt: added},
			{Domain: "example.com", Keyword: "  rank tracker ", Locale: enUS, AddedAt: added},
		}
		for range 2 {
			if err := st.Track(ctx, in); err != nil {
				t.Fatalf("Track: %v", err)
			}
		}
		// A later Track of the same keyword keeps the first AddedAt.
		if err := st.Track(ctx, []rankings.Tracked{{Domain: "example.com", Keyword: "seo tools", Locale: enUS, Device: rankings.Desktop, AddedAt: added.Add(48 * time.Hour)}}); err != nil {
			t.Fatal(err)
		}
		got, err := st.Tracked(ctx, rankings.Filter{Domain: "example.com"})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 {
			t.Fatalf("Tracked = %d entries %+v, want 2", len(got), got)
		}
		if got[0].Keyword != "rank tracker" || got[0].Device != rankings.Desktop || got[1].Keyword != "seo tools" {
			t.Errorf("Tracked = %+v, want rank tracker (trimmed, desktop) then seo tools", got)
		}
		if !got[1].AddedAt.Equal(added) {
			t.Errorf("AddedAt = %v, want the first Track's %v", got[1].AddedAt, added)
		}
		if err := st.Untrack(ctx, rankings.Filter{Domain: "example.com", Keywords: []string{"seo tools"}}); err != nil {
			t.Fatal(err)
		}
		if err := st.Untrack(ctx, rankings.Filter{Domain: "example.com", Keywords: []string{"seo tools"}}); err != nil {
			t.Fatalf("second Untrack: %v", err)
		}
		got, _ = st.Tracked(ctx, rankings.Filter{Domain: "example.com"})
		if len(got) != 1 || got[0].Keyword != "rank tracker" {
			t.Errorf("after Untrack: %+v, want only rank tracker", got)
		}
	})

	t.Run("TrackedAllDomains", func(t *testing.T) {
		st := open(t)
		if err := st.Track(ctx, []rankings.Tracked{
			{Domain: "b.example", Keyword: "k"}, {Domain: "a.example", Keyword: "k", Device: rankings.Mobile},
		}); err != nil {
			t.Fatal(err)
		}
		all, err := st.Tracked(ctx, rankings.Filter{})
		if err != nil || len(all) != 2 || all[0].Domain != "a.example" || all[0].Device != rankings.Mobile {
			t.Fatalf("Tracked(all) = %+v, %v", all, err)
		}
		mob, _ := st.Tracked(ctx, rankings.Filter{Device: rankings.Mobile})
		if len(mob) != 1 {
			t.Errorf("Tracked(mobile) = %+v", mob)
		}
	})

	t.Run("UntrackKeepsHistory", func(t *testing.T) {
		st := open(t)
		st.Track(ctx, []rankings.Tracked{{Domain: "example.com", Keyword: "k"}})
		if err := st.Record(ctx, []rankings.Observation{obs("example.com", "k", enUS, rankings.Desktop, day0, pos(3), "https://example.com/")}); err != nil {
			t.Fatal(err)
		}
		if err := st.Untrack(ctx, rankings.Filter{Domain: "example.com"}); err != nil {
			t.Fatal(err)
		}
		h, err := st.History(ctx, rankings.Filter{Domain: "example.com"})
		if err != nil || len(h) != 1 {
			t.Fatalf("History after Untrack = %v, %v; want the observation kept", h, err)
		}
	})

	t.Run("BadInput", func(t *testing.T) {
		cases := []struct {
			name  string
			o     rankings.Observation
			field string
		}{
			{"empty keyword", obs("example.com", "  ", enUS, "", day0, pos(1), ""), "observations[1].keyword"},
			{"zero date", obs("example.com", "k", enUS, "", time.Time{}, pos(1), ""), "observations[1].date"},
			{"empty domain", obs("", "k", enUS, "", day0, pos(1), ""), "observations[1].domain"},
			{"bad device", obs("example.com", "k", enUS, "tablet", day0, pos(1), ""), "observations[1].device"},
			{"zero position", obs("example.com", "k", enUS, "", day0, pos(0), ""), "observations[1].position"},
			{"NaN position", obs("example.com", "k", enUS, "", day0, pos(math.NaN()), ""), "observations[1].position"},
			{"long keyword", obs("example.com", strings.Repeat("x", 201), enUS, "", day0, nil, ""), "observations[1].keyword"},
			{"bad locale", obs("example.com", "k", seo.Locale{Language: "zz", Region: "ZZ"}, "", day0, nil, ""), "observations[1].locale"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				st := open(t)
				good := obs("example.com", "good", enUS, "", day0, pos(2), "https://example.com/")
				err := st.Record(ctx, []rankings.Observation{good, c.o})
				ie, ok := seo.AsInputError(err)
				if !ok {
					t.Fatalf("Record = %v, want *seo.InputError", err)
				}
				if ie.Field != c.field {
					t.Errorf("Field = %q, want %q", ie.Field, c.field)
				}
				h, err := st.History(ctx, rankings.Filter{Domain: "example.com"})
				if err != nil {
					t.Fatal(err)
				}
				if len(h) != 0 {
					t.Errorf("a failed batch stored %d observations: %s", len(h), keys(h))
				}
			})
		}
		st := open(t)
		if _, err := st.History(ctx, rankings.Filter{}); !errors.Is(err, seo.ErrInvalidInput) {
			t.Errorf("History without domain = %v, want ErrInvalidInput", err)
		}
		if _, err := st.History(ctx, rankings.Filter{Domain: "example.com", From: day0.AddDate(0, 0, 1), To: day0}); !errors.Is(err, seo.ErrInvalidInput) {
			t.Errorf("History with From after To = %v, want ErrInvalidInput", err)
		}
		if err := st.Track(ctx, []rankings.Tracked{{Domain: "example.com", Keyword: "ok"}, {Domain: "example.com", Keyword: ""}}); !errors.Is(err, seo.ErrInvalidInput) {
			t.Errorf("Track with empty keyword = %v, want ErrInvalidInput", err)
		}
		if tr, _ := st.Tracked(ctx, rankings.Filter{Domain: "example.com"}); len(tr) != 0 {
			t.Errorf("failed Track stored %+v", tr)
		}
		if err := st.Untrack(ctx, rankings.Filter{}); !errors.Is(err, seo.ErrInvalidInput) {
			t.Errorf("Untrack without domain = %v, want ErrInvalidInput", err)
		}
	})

	t.Run("UpsertLatestWins", func(t *testing.T) {
		st := open(t)
		a := obs("example.com", "k", enUS, rankings.Desktop, day0.Add(3*time.Hour), pos(7), "https://example.com/a")
		b := obs("example.com", "k", enUS, rankings.Desktop, day0, pos(4), "https://example.com/b")
		if err := st.Record(ctx, []rankings.Observation{a}); err != nil {
			t.Fatal(err)
		}
		if err := st.Record(ctx, []rankings.Observation{b}); err != nil {
			t.Fatal(err)
		}
		// Within a batch, the later element wins too.
		c := obs("example.com", "k", enUS, rankings.Desktop, day0.AddDate(0, 0, 1), pos(9), "https://example.com/c1")
		d := obs("example.com", "k", enUS, rankings.Desktop, day0.AddDate(0, 0, 1), nil, "")
		if err := st.Record(ctx, []rankings.Observation{c, d}); err != nil {
			t.Fatal(err)
		}
		h, err := st.History(ctx, rankings.Filter{Domain: "example.com"})
		if err != nil {
			t.Fatal(err)
		}
		want := key(b) + "\n" + key(rankings.Observation{Domain: "example.com", Keyword: "k", Locale: enUS, Device: rankings.Desktop, Date: day0.AddDate(0, 0, 1)}) + "\n"
		if keys(h) != want {
			t.Errorf("History =\n%s want\n%s", keys(h), want)
		}
		if len(h) == 2 && !h[0].Date.Equal(day0) {
			t.Errorf("Date = %v, want the UTC day %v", h[0].Date, day0)
		}
	})

	t.Run("RoundTrip", func(t *testing.T) {
		st := open(t)
		checked := time.Date(2025, 3, 1, 13, 14, 15, 123456000, time.FixedZone("X", 3600))
		in := []rankings.Observation{
			{Domain: "Example.COM", Keyword: "avg", Locale: enUS, Device: rankings.Mobile, Date: day0, Position: pos(4.285714285714286),
				URL: "https://example.com/ünï?q=1", Depth: 0, Average: true, Source: "searchconsole-export", CheckedAt: checked},
			{Domain: "example.com", Keyword: "hundredths", Locale: enUS, Device: rankings.Desktop, Date: day0, Position: pos(12.34), Depth: 100, Source: "suite", CheckedAt: checked},
			{Domain: "example.com", Keyword: "none", Device: rankings.Desktop, Date: day0, Position: nil, Depth: 100, Source: "suite", CheckedAt: day0.AddDate(0, 0, 3)},
		}
		if err := st.Record(ctx, in); err != nil {
			t.Fatal(err)
		}
		h, err := st.History(ctx, rankings.Filter{Domain: "example.com"})
		if err != nil || len(h) != 3 {
			t.Fatalf("History = %v, %v", h, err)
		}
		got := h[0]
		if got.Domain != "example.com" || got.Keyword != "avg" || got.Locale != enUS || got.Device != rankings.Mobile ||
			got.Position == nil || *got.Position != 4.285714285714286 || got.URL != in[0].URL || !got.Average ||
			got.Source != "searchconsole-export" || !got.CheckedAt.Equal(checked) || got.CheckedAt.Location() != time.UTC {
			t.Errorf("round trip = %+v (position %v), want %+v", got, got.Position, in[0])
		}
		if h[1].Position == nil || *h[1].Position != 12.34 || h[1].Depth != 100 || h[1].Average {
			t.Errorf("round trip = %+v", h[1])
		}
		if h[2].Position != nil || h[2].Locale != (seo.Locale{}) || !h[2].CheckedAt.Equal(day0.AddDate(0, 0, 3)) {
			t.Errorf("nil position round trip = %+v, want nil position, no locale", h[2])
		}
	})

	t.Run("Filters", func(t *testing.T) {
		st := open(t)
		var in []rankings.Observation
		for d := range 10 {
			date := day0.AddDate(0, 0, d)
			in = append(in,
				obs("example.com", "b kw", enUS, rankings.Desktop, date, pos(float64(d+1)), "https://example.com/b"),
				obs("example.com", "a kw", enUS, rankings.Mobile, date, pos(float64(20-d)), "https://example.com/a"),
				obs("example.com", "a kw", deDE, rankings.Desktop, date, nil, ""),
				obs("other.example", "a kw", enUS, rankings.Desktop, date, pos(1), "https://other.example/"),
			)
		}
		// Days far apart exercise storage split by date.
		in = append(in, obs("example.com", "b kw", enUS, rankings.Desktop, day0.AddDate(1, 0, 0), pos(50), "https://example.com/late"))
		if err := st.Record(ctx, in); err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			name   string
			f      rankings.Filter
			n      int
			first  string
			latest int
		}{
			{"domain", rankings.Filter{Domain: "example.com"}, 31, "example.com|a kw|de-DE|desktop|2025-03-01|nil|", 3},
			{"keyword", rankings.Filter{Domain: "example.com", Keywords: []string{"b kw"}}, 11, "example.com|b kw|en-US|desktop|2025-03-01|1|https://example.com/b", 1},
			{"locale", rankings.Filter{Domain: "example.com", Locale: deDE}, 10, "example.com|a kw|de-DE|desktop|2025-03-01|nil|", 1},
			{"device", rankings.Filter{Domain: "example.com", Device: rankings.Mobile}, 10, "example.com|a kw|en-US|mobile|2025-03-01|20|https://example.com/a", 1},
			{"range", rankings.Filter{Domain: "example.com", From: day0.AddDate(0, 0, 2), To: day0.AddDate(0, 0, 4).Add(5 * time.Hour)}, 9, "example.com|a kw|de-DE|desktop|2025-03-03|nil|", 3},
			{"from only", rankings.Filter{Domain: "example.com", From: day0.AddDate(0, 0, 9)}, 4, "example.com|a kw|de-DE|desktop|2025-03-10|nil|", 3},
			{"empty keywords", rankings.Filter{Domain: "example.com", Keywords: []string{}}, 0, "", 0},
			{"unknown domain", rankings.Filter{Domain: "nothing.example"}, 0, "", 0},
			{"domain case", rankings.Filter{Domain: "OTHER.example"}, 10, "other.example|a kw|en-US|desktop|2025-03-01|1|https://other.example/", 1},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				h, err := st.History(ctx, c.f)
				if err != nil {
					t.Fatal(err)
				}
				if len(h) != c.n {
					t.Fatalf("History = %d observations, want %d:\n%s", len(h), c.n, keys(h))
				}
				if c.n > 0 && key(h[0]) != c.first {
					t.Errorf("first = %s, want %s", key(h[0]), c.first)
				}
				for i := 1; i < len(h); i++ {
					a, b := h[i-1], h[i]
					ka := fmt.Sprintf("%s\x00%s\x00%s", a.Keyword, a.Locale, a.Device)
					kb := fmt.Sprintf("%s\x00%s\x00%s", b.Keyword, b.Locale, b.Device)
					if ka > kb || (ka == kb && !a.Date.Before(b.Date)) {
						t.Fatalf("History not ordered by keyword, locale, device, date at %d: %s then %s", i, key(a), key(b))
					}
				}
				var scanned []rankings.Observation
				if err := rankings.ScanHistory(ctx, st, c.f, func(o *rankings.Observation) error {
					c := *o
					if o.Position != nil {
						c.Position = pos(*o.Position)
					}
					scanned = append(scanned, c)
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				if keys(scanned) != keys(h) {
					t.Errorf("ScanHistory differs from History:\n%s\nvs\n%s", keys(scanned), keys(h))
				}
				l, err := st.Latest(ctx, c.f)
				if err != nil {
					t.Fatal(err)
				}
				if len(l) != c.latest {
					t.Fatalf("Latest = %d, want %d:\n%s", len(l), c.latest, keys(l))
				}
				// Each latest is the last History entry of its series.
				last := map[string]string{}
				for _, o := range h {
					last[fmt.Sprint(o.Keyword, o.Locale, o.Device)] = key(o)
				}
				for _, o := range l {
					if last[fmt.Sprint(o.Keyword, o.Locale, o.Device)] != key(o) {
						t.Errorf("Latest %s is not the newest in range", key(o))
					}
				}
			})
		}
		l, _ := st.Latest(ctx, rankings.Filter{Domain: "example.com", Keywords: []string{"b kw"}})
		if len(l) != 1 || l[0].URL != "https://example.com/late" || *l[0].Position != 50 {
			t.Errorf("Latest = %s, want the 2026 observation", keys(l))
		}
		// Results are copies.
		if len(l) == 1 {
			*l[0].Position = 99
			l2, _ := st.Latest(ctx, rankings.Filter{Domain: "example.com", Keywords: []string{"b kw"}})
			if *l2[0].Position != 50 {
				t.Errorf("changing a returned position changed the store")
			}
		}
	})

	t.Run("ManyKeywords", func(t *testing.T) {
		st := open(t)
		var in []rankings.Observation
		var kws []string
		for k := range 1200 {
			kw := fmt.Sprintf("kw %04d", k)
			kws = append(kws, kw)
			in = append(in, obs("example.com", kw, enUS, rankings.Desktop, day0, pos(float64(k%100+1)), ""))
		}
		if err := st.Record(ctx, in); err != nil {
			t.Fatal(err)
		}
		h, err := st.History(ctx, rankings.Filter{Domain: "example.com", Keywords: kws[:1100]})
		if err != nil || len(h) != 1100 {
			t.Fatalf("History(1100 keywords) = %d, %v", len(h), err)
		}
		for i, o := range h {
			if o.Keyword != kws[i] {
				t.Fatalf("History[%d] = %q, want %q", i, o.Keyword, kws[i])
			}
		}
	})

	t.Run("Concurrent", func(t *testing.T) {
		st := open(t)
		var wg sync.WaitGroup
		errs := make(chan error, 64)
		for g := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 10 {
					o := obs("example.com", fmt.Sprintf("kw %d", g), enUS, rankings.Desktop, day0.AddDate(0, 0, i), pos(float64(i+1)), "")
					if err := st.Record(ctx, []rankings.Observation{o}); err != nil {
						errs <- err
						return
					}
					// Every writer also writes the same shared series.
					s := obs("example.com", "shared", enUS, rankings.Desktop, day0.AddDate(0, 0, g*10+i), pos(1), "")
					if err := st.Record(ctx, []rankings.Observation{s}); err != nil {
						errs <- err
						return
					}
					if err := st.Track(ctx, []rankings.Tracked{{Domain: "example.com", Keyword: "shared"}}); err != nil {
						errs <- err
						return
					}
					if _, err := st.Latest(ctx, rankings.Filter{Domain: "example.com"}); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		h, err := st.History(ctx, rankings.Filter{Domain: "example.com"})
		if err != nil || len(h) != 160 {
			t.Fatalf("History = %d observations, %v; want 160 (no lost writes)", len(h), err)
		}
		tr, _ := st.Tracked(ctx, rankings.Filter{Domain: "example.com"})
		if len(tr) != 1 {
			t.Errorf("Tracked = %+v, want one entry", tr)
		}
	})

	t.Run("Canceled", func(t *testing.T) {
		st := open(t)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if err := st.Record(cctx, []rankings.Observation{obs("example.com", "k", enUS, "", day0, nil, "")}); err == nil {
			t.Error("Record with a cancelled context succeeded")
		}
		h, _ := st.History(ctx, rankings.Filter{Domain: "example.com"})
		if len(h) != 0 {
			t.Errorf("cancelled Record stored %s", keys(h))
		}
	})

	t.Run("Failures", func(t *testing.T) {
		if _, ok := open(t).(rankings.FailureStore); !ok {
			t.Skip("the store does not implement rankings.FailureStore")
		}
		runFailures(t, func(t *testing.T) rankings.FailureStore { return open(t).(rankings.FailureStore) })
	})
}

// runFailures checks a rankings.FailureStore: the latest failure per
// series wins, filters apply, a bad batch stores nothing, and failures do
// not touch the observations.
func runFailures(t *testing.T, open func(t *testing.T) rankings.FailureStore) {
	ctx := context.Background()
	at := day0.Add(3 * time.Hour)
	fail := func(kw string, loc seo.Locale, at time.Time, msg string) rankings.Failure {
		return rankings.Failure{Domain: "example.com", Keyword: kw, Locale: loc, At: at, Source: "suite", Error: msg}
	}
	t.Run("LatestWins", func(t *testing.T) {
		fs := open(t)
		if err := fs.RecordFailures(ctx, []rankings.Failure{fail("b", enUS, at, "first"), fail(" a ", enUS, at, "a failed"), fail("b", deDE, at, "de")}); err != nil {
			t.Fatal(err)
		}
		// A later failure replaces the earlier; an older one arriving late does not.
		if err := fs.RecordFailures(ctx, []rankings.Failure{fail("b", enUS, at.Add(time.Hour), "second")}); err != nil {
			t.Fatal(err)
		}
		if err := fs.RecordFailures(ctx, []rankings.Failure{fail("b", enUS, at.Add(-time.Hour), "stale")}); err != nil {
			t.Fatal(err)
		}
		got, err := fs.LatestFailures(ctx, rankings.Filter{Domain: "example.com", Locale: enUS})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].Keyword != "a" || got[1].Keyword != "b" || got[1].Error != "second" ||
			!got[1].At.Equal(at.Add(time.Hour)) || got[1].Device != rankings.Desktop || got[1].Locale != enUS || got[1].Source != "suite" {
			t.Fatalf("LatestFailures = %+v, want a, then b with the later failure", got)
		}
		got, err = fs.LatestFailures(ctx, rankings.Filter{Domain: "example.com", Keywords: []string{"b"}})
		if err != nil || len(got) != 2 || got[0].Locale != deDE || got[1].Locale != enUS {
			t.Errorf("LatestFailures(b) = %+v, %v; want de-DE then en-US", got, err)
		}
		if got, err := fs.LatestFailures(ctx, rankings.Filter{Domain: "other.com"}); err != nil || len(got) != 0 {
			t.Errorf("LatestFailures(other.com) = %+v, %v; want none", got, err)
		}
		if st, ok := fs.(rankings.Store); ok {
			if h, _ := st.History(ctx, rankings.Filter{Domain: "example.com"}); len(h) != 0 {
				t.Errorf("failures stored observations %s", keys(h))
			}
		}
	})
	t.Run("BadBatch", func(t *testing.T) {
		fs := open(t)
		err := fs.RecordFailures(ctx, []rankings.Failure{fail("ok", enUS, at, "x"), fail("", enUS, at, "x")})
		if ie, ok := seo.AsInputError(err); !ok || ie.Field != "failures[1].keyword" {
			t.Fatalf("RecordFailures = %v, want an *seo.InputError for failures[1].keyword", err)
		}
		if got, _ := fs.LatestFailures(ctx, rankings.Filter{Domain: "example.com"}); len(got) != 0 {
			t.Errorf("a rejected batch stored %+v", got)
		}
		if _, err := fs.LatestFailures(ctx, rankings.Filter{}); !errors.Is(err, seo.ErrInvalidInput) {
			t.Errorf("LatestFailures without a domain = %v, want ErrInvalidInput", err)
		}
	})
}
