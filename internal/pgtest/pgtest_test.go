package pgtest_test

import (
	"os/exec"
	"strings"
	"testing"

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
