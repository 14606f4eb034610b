package crawlertest

import (
	"slices"
	"time"
)

// MaxInWindow returns the most of times that fall in any window of length
// w: the peak a per-host rate test holds against its limit.
func MaxInWindow(times []time.Time, w time.Duration) int {
	ts := slices.Clone(times)
	slices.SortFunc(ts, func(a, b time.Time) int { return a.Compare(b) })
	best, lo := 0, 0
	for hi := range ts {
		for ts[hi].Sub(ts[lo]) >= w {
			lo++
		}
		best = max(best, hi-lo+1)
	}
	return best
}
