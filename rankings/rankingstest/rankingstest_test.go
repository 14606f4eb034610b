package rankingstest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/memstore"
	"github.com/seokit/seokit/rankings/rankingstest"
	"github.com/seokit/seokit/seo"
)

// listSource answers a fixed page, or the failure it is told to give, and
// checks its input and ctx, as a driver must.
type listSource struct {
	answer rankingstest.Answer
}

func (listSource) Name() string { return "list" }

func (s listSource) Search(ctx context.Context, q rankings.Query) (*rankings.SERP, error) {
	switch {
	case strings.TrimSpace(q.Keyword) == "":
		return nil, &seo.InputError{Field: "keyword", Reason: "is empty"}
	case q.Device != "" && q.Device != rankings.Desktop && q.Device != rankings.Mobile:
		return nil, &seo.InputError{Field: "device", Value: string(q.Device), Reason: "must be desktop or mobile"}
	case q.Depth < 0:
		return nil, &seo.InputError{Field: "depth", Value: fmt.Sprint(q.Depth), Reason: "must not be negative"}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	switch s.answer {
	case "":
	case rankingstest.Empty:
		return &rankings.SERP{Query: q, Source: "list", Results: []rankings.Result{}}, nil
	case rankingstest.RateLimited:
		return nil, fmt.Errorf("list: %w", seo.ErrRateLimited)
	default:
		return nil, fmt.Errorf("list: %w: %s", seo.ErrUnavailable, s.answer)
	}
	serp := &rankings.SERP{Query: q, Depth: 10, Source: "list", CheckedAt: time.Now(), Results: []rankings.Result{}}
	for _, r := range []rankings.Result{{Position: 1, URL: "https://a.example/"}, {Position: 2, URL: "https://b.example/"}, {Position: 4, URL: "https://c.example/"}} {
		if q.Depth == 0 || r.Position <= q.Depth {
			serp.Results = append(serp.Results, r)
		}
	}
	if q.Depth > 0 {
		serp.Depth = min(serp.Depth, q.Depth)
	}
	return serp, nil
}

func TestRunSource(t *testing.T) {
	rankingstest.RunSource(t, listSource{}, rankingstest.SourceCase{
		Query:        rankings.Query{Keyword: "k"},
		Want:         []rankings.Result{{Position: 1, URL: "https://a.example/"}, {Position: 2, URL: "https://b.example/"}},
		ShallowDepth: 3,
		With: func(t *testing.T, a rankingstest.Answer) rankings.Source {
			return listSource{answer: a}
		},
	})
}

func TestRunStore(t *testing.T) {
	rankingstest.RunStore(t, func(t *testing.T) rankings.Store { return memstore.New(nil) })
}
