package rankingstest_test

import (
	"context"
	"testing"
	"time"

	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/memstore"
	"github.com/seokit/seokit/rankings/rankingstest"
)

// listSource answers a fixed page and honours ctx, as a driver must.
type listSource struct{}

func (listSource) Name() string { return "list" }

func (listSource) Search(ctx context.Context, q rankings.Query) (*rankings.SERP, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &rankings.SERP{Query: q, Depth: 10, Source: "list", CheckedAt: time.Now(), Results: []rankings.Result{
		{Position: 1, URL: "https://a.example/"}, {Position: 2, URL: "https://b.example/"}, {Position: 4, URL: "https://c.example/"},
	}}, nil
}

func TestRunSource(t *testing.T) {
	rankingstest.RunSource(t, listSource{}, rankingstest.SourceCase{
		Query: rankings.Query{Keyword: "k"},
		Want:  []rankings.Result{{Position: 1, URL: "https://a.example/"}, {Position: 2, URL: "https://b.example/"}},
	})
}

func TestRunStore(t *testing.T) {
	rankingstest.RunStore(t, func(t *testing.T) rankings.Store { return memstore.New(nil) })
}
