package pgtest_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seokit/seokit/internal/pgtest"
)

// TestPrivateServerStopStart: committed rows survive a stop, connecting
// fails while stopped, and the DSN works again after Start.
func TestPrivateServerStopStart(t *testing.T) {
	s := pgtest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.DSN())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE t (n int); INSERT INTO t VALUES (42)"); err != nil {
		t.Fatal(err)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := s.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	var n int
	if err := conn.QueryRow(ctx, "SELECT n FROM t").Scan(&n); err == nil {
		t.Error("query on a stopped server succeeded")
	}
	conn.Close(ctx)
	short, cancelShort := context.WithTimeout(ctx, 5*time.Second)
	if c, err := pgx.Connect(short, s.DSN()); err == nil {
		c.Close(ctx)
		t.Error("connected to a stopped server")
	}
	cancelShort()
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	conn, err = pgx.Connect(ctx, s.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := conn.QueryRow(ctx, "SELECT n FROM t").Scan(&n); err != nil || n != 42 {
		t.Errorf("after restart: n = %d, %v; want 42", n, err)
	}
}
