package sqldb

import "testing"

func TestDollar(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"SELECT 1", "SELECT 1"},
		{"SELECT n FROM t WHERE a = ? AND b = ?", "SELECT n FROM t WHERE a = $1 AND b = $2"},
		{"INSERT INTO t VALUES (?,?,?,?,?,?,?,?,?,?,?)", "INSERT INTO t VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11)"},
	} {
		if got := Dollar(tc.in); got != tc.want {
			t.Errorf("Dollar(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
