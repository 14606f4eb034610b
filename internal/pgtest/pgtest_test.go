package pgtest_test

import (
	"context"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seokit/seokit/internal/pgtest"
)

func TestDSN(t *testing.T) {
	dsn := pgtest.DSN(t)
	if !strings.HasPrefix(dsn, "postgres://postgres@127.0.0.1:") {
		t.Fatalf("DSN = %q", dsn)
	}
	psql, err := exec.LookPath("psql")
	if err != nil {
		t.Skip("SKIP: no psql client to query the server")
	}
	out, err := exec.Command(psql, dsn, "-tAc", "SELECT 40+2").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "42" {
		t.Fatalf("query: %v: %s", err, out)
	}
}

// TestTemplate: each DSN is a copy of what setup built, setup runs once,
// and a copy's writes stay in that copy.
func TestTemplate(t *testing.T) {
	var runs atomic.Int32
	tpl := pgtest.NewTemplate("pgtest_template", func(ctx context.Context, dsn string) error {
		runs.Add(1)
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, "CREATE TABLE t (n int); INSERT INTO t VALUES (42)")
		return err
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sum := func(dsn string) int {
		t.Helper()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		var n int
		if err := conn.QueryRow(ctx, "SELECT COALESCE(SUM(n), 0) FROM t").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	a, b := tpl.DSN(t), tpl.DSN(t)
	if a == b {
		t.Fatalf("two copies share the DSN %q", a)
	}
	conn, err := pgx.Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	if got, want := sum(a), 43; got != want {
		t.Errorf("copy a: sum %d, want %d", got, want)
	}
	if got, want := sum(b), 42; got != want {
		t.Errorf("copy b: sum %d, want %d (a's write leaked into it)", got, want)
	}
	if n := runs.Load(); n != 1 {
		t.Errorf("setup ran %d times, want once", n)
	}
}
