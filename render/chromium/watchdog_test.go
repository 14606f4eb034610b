package chromium

import (
	"testing"
	"time"
)

// TestPSSMarkBound: a recent PSS reading bounds the tree by the reading
// plus the resident growth since, never above the resident sizes; an old
// reading, or none, leaves the resident sizes.
func TestPSSMarkBound(t *testing.T) {
	const mib = 1 << 20
	now := time.Now()
	for _, c := range []struct {
		name string
		m    pssMark
		rss  int64
		want int64
	}{
		{"no reading", pssMark{}, 1200 * mib, 1200 * mib},
		{"recent, no growth", pssMark{at: now, pss: 500 * mib, rss: 1200 * mib}, 1200 * mib, 500 * mib},
		{"recent, grown", pssMark{at: now, pss: 500 * mib, rss: 1200 * mib}, 1500 * mib, 800 * mib},
		{"recent, shrunk", pssMark{at: now, pss: 500 * mib, rss: 1200 * mib}, 400 * mib, 400 * mib},
		{"old", pssMark{at: now.Add(-2 * pssEvery), pss: 500 * mib, rss: 1200 * mib}, 1200 * mib, 1200 * mib},
	} {
		if got := c.m.bound(c.rss, now); got != c.want {
			t.Errorf("%s: bound(%d MiB) = %d MiB, want %d MiB", c.name, c.rss/mib, got/mib, c.want/mib)
		}
	}
}
