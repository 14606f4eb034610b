package sqlstore

import (
	"context"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/internal/pgtest"
	"github.com/seokit/seokit/internal/sqldb"
)

// TestOutboxMigration opens a database written at schema version 6 (alert
// deliveries in their own table, callbacks retried by the job runner): its
// alert deliveries move to the outbox unchanged, and the callbacks of jobs
// that ended with their callback pending are queued, due at once.
func TestOutboxMigration(t *testing.T) {
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			dsn := filepath.Join(t.TempDir(), "v6.db")
			if name == "postgres" {
				dsn = pgtest.DSN(t)
			}
			db, err := sqldb.Open(dsn, nil)
			if err != nil {
				t.Fatal(err)
			}
			v6 := &sqldb.Schema{VersionTable: schema.VersionTable, LockID: schema.LockID, Migrations: migrations[:7]}
			if err := db.Migrate(ctx, v6); err != nil {
				t.Fatal(err)
			}
			const at = 1_700_000_000_000_000
			for _, q := range []string{
				`INSERT INTO accounts (id, email, name, password_hash, plan, daily_limit, admin, created_at) VALUES ('acct_1', 'a@example.com', 'A', '', 'free', 0, 0, 1)`,
				`INSERT INTO projects (id, account_id, name, domain, time_zone, config, keywords, created_at, updated_at) VALUES ('prj_1', 'acct_1', 'Shop', 'shop.example.com', 'UTC', NULL, '', 1, 1)`,
				`INSERT INTO alert_rules (id, account_id, project_id, kind, params, channel, target, secret, muted, muted_until, created_at, updated_at)
					VALUES ('alr_1', 'acct_1', 'prj_1', 'score_drop', NULL, 'slack', 'https://hooks.example.com/s', '', 0, NULL, 1, 1)`,
				`INSERT INTO alert_deliveries (id, account_id, project_id, rule_id, job_id, dedupe_key, change_key, payload, state, attempts, next_attempt, last_error, created_at, delivered_at)
					VALUES ('dlv_alert', 'acct_1', 'prj_1', 'alr_1', 'job_x', 'fp', 'ck', '{"title":"t"}', 'pending', 2, 5, 'timeout', 2, NULL)`,
				// Ended with the callback pending: queued. Delivered, still
				// running, or without a URL: not.
				`INSERT INTO jobs (id, account_id, kind, status, error, callback_url, callback_state, created_at, finished_at, updated_at)
					VALUES ('job_pending', 'acct_1', 'site', 'failed', '', 'https://hooks.example.com/cb', 'pending', 1, 3, 3)`,
				`INSERT INTO jobs (id, account_id, kind, status, error, callback_url, callback_state, created_at, finished_at, updated_at)
					VALUES ('job_sent', 'acct_1', 'site', 'succeeded', '', 'https://hooks.example.com/cb', 'delivered', 1, 3, 3)`,
				`INSERT INTO jobs (id, account_id, kind, status, error, callback_url, callback_state, created_at, finished_at, updated_at)
					VALUES ('job_running', 'acct_1', 'site', 'running', '', 'https://hooks.example.com/cb', '', 1, NULL, 3)`,
				`INSERT INTO jobs (id, account_id, kind, status, error, callback_url, callback_state, created_at, finished_at, updated_at)
					VALUES ('job_nourl', 'acct_1', 'site', 'canceled', '', '', '', 1, 3, 3)`,
			} {
				if _, err := db.ExecContext(ctx, db.Q(q)); err != nil {
					t.Fatalf("%v: %.80s", err, q)
				}
			}
			db.Close()

			st, err := Open(ctx, dsn, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			ds, err := st.ClaimDeliveries(ctx, time.UnixMicro(at), time.Minute, 10, 0)
			if err != nil {
				t.Fatal(err)
			}
			sort.Slice(ds, func(i, j int) bool { return ds[i].Kind < ds[j].Kind })
			var got []string
			for _, d := range ds {
				got = append(got, d.Kind+":"+d.JobID)
			}
			if strings.Join(got, " ") != "alert:job_x callback:job_pending" {
				t.Fatalf("outbox after the migration: %v, want the alert and job_pending's callback", got)
			}
			a, cb := ds[0], ds[1]
			if a.ID != "dlv_alert" || a.RuleID != "alr_1" || a.ProjectID != "prj_1" || a.Attempts != 2 || a.LastError != "timeout" || string(a.Payload) != `{"title":"t"}` || a.DedupeKey != "fp" {
				t.Errorf("migrated alert delivery %+v", a)
			}
			if cb.Target != "https://hooks.example.com/cb" || cb.AccountID != "acct_1" || cb.Attempts != 0 || cb.State != store.DeliveryPending {
				t.Errorf("queued callback %+v", cb)
			}
			if log, err := st.AlertDeliveries(ctx, "acct_1", "prj_1", 0); err != nil || len(log) != 1 {
				t.Errorf("alert log after the migration: %d, %v", len(log), err)
			}
		})
	}
}
