package riverjobs_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/riverjobs"
	"github.com/seokit/seokit/httpapi/store"
)

// BenchmarkEnqueue measures inserting site analyses into River (unique by
// job, as the API does on every POST) on the loopback PostgreSQL.
func BenchmarkEnqueue(b *testing.B) {
	dsn := migrated.DSN(b)
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	q, err := riverjobs.New(ctx, pool, &riverjobs.Options{InsertOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		i++
		if err := q.Enqueue(ctx, &store.Job{ID: fmt.Sprintf("job_bench%d", i), AccountID: "acct_bench"}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
}

// BenchmarkSiteJobRoundTrip measures a one-page site analysis from POST to
// "succeeded" as seen by the client, through an API-only instance and a
// worker instance sharing River and the store.
func BenchmarkSiteJobRoundTrip(b *testing.B) {
	dsn := migrated.DSN(b)
	api := startInstance(b, dsn, &riverjobs.Options{InsertOnly: true}, &httpapi.Options{BurstRate: 1e6, Burst: 1e6})
	startInstance(b, dsn, &riverjobs.Options{Workers: 4})
	key := newAccount(b, api.st, "bench@example.com")
	site := newSlowSite(b, 1, 0)
	body := fmt.Sprintf(`{"domain":%q}`, site.domain(b))
	for b.Loop() {
		j := submit(b, api.url, key, body)
		waitJobEvery(b, api.url, key, j.ID, 5*time.Millisecond, func(j httpapi.Job) bool { return j.Status == "succeeded" })
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
	// Where the time goes: from insert to a worker taking the job, and the
	// run itself (crawl, store writes), as River recorded them.
	var pickup, work float64
	err := api.pool.QueryRow(context.Background(), `SELECT
		coalesce(avg(extract(epoch FROM attempted_at - created_at)), 0),
		coalesce(avg(extract(epoch FROM finalized_at - attempted_at)), 0)
		FROM river_job WHERE kind = $1 AND state = 'completed'`, riverjobs.KindSiteAnalysis).Scan(&pickup, &work)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(pickup*1000, "ms-pickup")
	b.ReportMetric(work*1000, "ms-run")
}
