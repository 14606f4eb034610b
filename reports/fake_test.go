package reports_test

import (
	"context"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/seokit/seokit/keywords"
	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/seo"
)

// memStore is a minimal in-memory rankings.Store for these tests.
type memStore struct {
	mu      sync.Mutex
	tracked []rankings.Tracked
	obs     []rankings.Observation
	err     error
}

var _ rankings.Store = (*memStore)(nil)

func (m *memStore) Track(_ context.Context, ks []rankings.Tracked) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.tracked = append(m.tracked, ks...)
	return nil
}

func (m *memStore) Untrack(context.Context, rankings.Filter) error { return nil }

func (m *memStore) Tracked(_ context.Context, f rankings.Filter) ([]rankings.Tracked, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []rankings.Tracked
	for _, t := range m.tracked {
		if t.Domain == f.Domain && (f.Locale == seo.Locale{} || f.Locale == t.Locale) && (f.Device == "" || f.Device == t.Device) {
			out = append(out, t)
		}
	}
	return out, nil
}

func (m *memStore) Record(_ context.Context, obs []rankings.Observation) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.obs = append(m.obs, obs...)
	return nil
}

func (m *memStore) Latest(context.Context, rankings.Filter) ([]rankings.Observation, error) {
	return nil, nil
}

func (m *memStore) History(_ context.Context, f rankings.Filter) ([]rankings.Observation, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return nil, m.err
	}
	var out []rankings.Observation
	for _, o := range m.obs {
		if o.Domain != f.Domain || (f.Locale != seo.Locale{} && f.Locale != o.Locale) || (f.Device != "" && f.Device != o.Device) {
			continue
		}
		if (!f.From.IsZero() && o.Date.Before(f.From)) || (!f.To.IsZero() && o.Date.After(f.To)) {
			continue
		}
		out = append(out, o)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Keyword != b.Keyword {
			return a.Keyword < b.Keyword
		}
		if a.Locale != b.Locale {
			return a.Locale.String() < b.Locale.String()
		}
		if a.Device != b.Device {
			return a.Device < b.Device
		}
		return a.Date.Before(b.Date)
	})
	return out, nil
}

// volumes is a Volumes over a fixed table that records its calls.
type volumes struct {
	mu      sync.Mutex
	table   map[string]int
	batches []int
	err     error
}

func (v *volumes) Volumes(_ context.Context, kws []string, _ seo.Locale) ([]keywords.Keyword, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.batches = append(v.batches, len(kws))
	if v.err != nil {
		return nil, v.err
	}
	var out []keywords.Keyword
	for _, k := range kws {
		if n, ok := v.table[strings.ToLower(k)]; ok {
			out = append(out, keywords.Keyword{Keyword: strings.ToUpper(k), Volume: &n, Source: "keyword-planner"})
		}
	}
	return out, nil
}

func date(s string) time.Time {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return t
}

func pos(p float64) *float64 { return &p }

var enUS = seo.Locale{Language: "en", Region: "US"}

// obs makes an observation of example.com on desktop in en-US.
func obs(kw, d string, p *float64) rankings.Observation {
	return rankings.Observation{Domain: "example.com", Keyword: kw, Locale: enUS, Device: rankings.Desktop,
		Date: date(d), Position: p, URL: "https://example.com/" + strings.ReplaceAll(kw, " ", "-"), Depth: 100, Source: "test"}
}
