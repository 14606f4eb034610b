package reportstest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/memstore"
	"github.com/seokit/seokit/reports"
	"github.com/seokit/seokit/reports/reportstest"
	"github.com/seokit/seokit/seo"
)

var (
	sep1  = time.Date(2024, 9, 1, 0, 0, 0, 0, time.UTC)
	sep30 = time.Date(2024, 9, 30, 0, 0, 0, 0, time.UTC)
)

// listTraffic measures two days of example.com, or gives the answer it is
// told to give, and checks its input and ctx, as a driver must.
type listTraffic struct {
	answer reportstest.Answer
}

func (listTraffic) Name() string { return "list" }

func (s listTraffic) Traffic(ctx context.Context, domain string, start, end time.Time) (*reports.Traffic, error) {
	switch {
	case domain == "" || strings.Contains(domain, "/"):
		return nil, &seo.InputError{Field: "domain", Value: domain, Reason: "must be a domain name"}
	case start.IsZero():
		return nil, &seo.InputError{Field: "start", Reason: "is missing"}
	case end.IsZero():
		return nil, &seo.InputError{Field: "end", Reason: "is missing"}
	case start.After(end):
		return nil, &seo.InputError{Field: "start", Reason: "is after end"}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	switch s.answer {
	case "":
	case reportstest.Empty:
		return &reports.Traffic{Source: "list"}, nil
	case reportstest.RateLimited:
		return nil, fmt.Errorf("list: %w", seo.ErrRateLimited)
	default:
		return nil, fmt.Errorf("list: %w: %s", seo.ErrUnavailable, s.answer)
	}
	n := func(v int) *int { return &v }
	return &reports.Traffic{Source: "list", Sessions: n(5), Daily: []reports.DailyTraffic{
		{Date: "2024-09-02", Sessions: n(2)}, {Date: "2024-09-10", Sessions: n(3)},
	}}, nil
}

func TestRunTrafficSource(t *testing.T) {
	reportstest.RunTrafficSource(t, listTraffic{}, reportstest.TrafficCase{
		Domain: "example.com", Start: sep1, End: sep30,
		With: func(t *testing.T, a reportstest.Answer) reports.TrafficSource { return listTraffic{answer: a} },
	})
}

// historyScanner is the reference PositionScanner: it derives the series
// from rankings.ScanHistory.
type historyScanner struct{ rankings.Store }

func (h historyScanner) ScanPositions(ctx context.Context, f rankings.Filter, fn func(*rankings.Observation, []int32, []float64) error) error {
	var (
		last      *rankings.Observation
		days      []int32
		positions []float64
	)
	flush := func() error {
		if last == nil {
			return nil
		}
		err := fn(last, days, positions)
		last, days, positions = nil, nil, nil
		return err
	}
	err := rankings.ScanHistory(ctx, h.Store, f, func(o *rankings.Observation) error {
		if last != nil && (last.Keyword != o.Keyword || last.Locale != o.Locale || last.Device != o.Device) {
			if err := flush(); err != nil {
				return err
			}
		}
		c := *o
		last = &c
		days = append(days, int32(rankings.DayNumber(o.Date)))
		p := 0.0
		if o.Position != nil {
			p = *o.Position
		}
		positions = append(positions, p)
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}

func TestRunPositionScanner(t *testing.T) {
	reportstest.RunPositionScanner(t, func(t *testing.T) reportstest.ScannerStore { return historyScanner{memstore.New(nil)} })
}
