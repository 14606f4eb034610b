package reports_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/memstore"
	"github.com/seokit/seokit/reports"
)

// Two Search Console exports: a query only in the earlier one is lost,
// one only in the later one is new (not "unchanged"), and the HTML table
// says "not ranked" rather than a bare dash.
func TestReportOfTwoExports(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	feb := time.Date(2025, 2, 28, 0, 0, 0, 0, time.UTC)
	mar := time.Date(2025, 3, 31, 0, 0, 0, 0, time.UTC)
	st := memstore.New(nil)
	for d, body := range map[time.Time]string{
		feb: "Top queries,Position\nkept,3\ngone,8\n",
		mar: "Top queries,Position\nkept,3\narrived,4\n",
	} {
		if _, err := rankings.ImportSearchConsole(ctx, st, strings.NewReader(body), rankings.ImportOptions{Domain: "example.com", Date: d}); err != nil {
			t.Fatal(err)
		}
	}
	b := reports.New(st, nil, &reports.Options{Now: func() time.Time { return mar.Add(24 * time.Hour) }})
	rep, err := b.Build(ctx, "example.com", feb, mar, nil)
	if err != nil {
		t.Fatal(err)
	}
	rk := rep.Metrics.Rankings
	if rk.Unchanged != 1 || rk.New != 1 || rk.Lost != 1 {
		t.Errorf("unchanged %d, new %d, lost %d; want 1 each", rk.Unchanged, rk.New, rk.Lost)
	}
	status := map[string]string{}
	for _, r := range rk.Keywords {
		status[r.Keyword] = r.Status
	}
	if status["kept"] != "unchanged" || status["gone"] != "lost" || status["arrived"] != "new" {
		t.Errorf("statuses = %v", status)
	}
	var buf bytes.Buffer
	if err := reports.WriteHTML(&buf, rep, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "not ranked") {
		t.Error("the HTML report does not say \"not ranked\" for a position-less row")
	}
}
