package crawler

import (
	"math"
)

// PageRank parameters used for PageSummary.LinkScore.
const (
	// pageRankDamping is the probability of following a link rather than
	// jumping to a random page.
	pageRankDamping = 0.85
	// pageRankTolerance stops the iteration once the L1 change of the rank
	// vector falls below it.
	pageRankTolerance = 1e-6
	// pageRankMaxIterations bounds the iteration.
	pageRankMaxIterations = 100
)

// csrGraph is a directed graph in compressed sparse row form: the targets of
// node u are targets[offsets[u]:offsets[u+1]].
type csrGraph struct {
	offsets []int32
	targets []int32
}

// linkGraph is a directed graph PageRank runs over: nodes 0..nodes()-1.
type linkGraph interface {
	nodes() int
	// targetsOf returns the targets of node u, using buf as scratch.
	targetsOf(u int, buf []int32) []int32
}

func (g csrGraph) nodes() int { return len(g.offsets) - 1 }
func (g csrGraph) targetsOf(u int, _ []int32) []int32 {
	return g.targets[g.offsets[u]:g.offsets[u+1]]
}

// newCSR builds a graph of n nodes from parallel from/to slices.
func newCSR(n int, from, to []int32) csrGraph {
	g := csrGraph{offsets: make([]int32, n+1), targets: make([]int32, len(from))}
	for _, f := range from {
		g.offsets[f+1]++
	}
	for i := 0; i < n; i++ {
		g.offsets[i+1] += g.offsets[i]
	}
	pos := make([]int32, n)
	copy(pos, g.offsets[:n])
	for i, f := range from {
		g.targets[pos[f]] = to[i]
		pos[f]++
	}
	return g
}

// pageRank computes the PageRank of every node of g by power iteration with
// damping 0.85. The rank of pages without outlinks (dangling mass) is spread
// evenly over all pages, so the ranks always sum to 1. Iteration stops when
// the L1 change drops below 1e-6 or after 100 rounds. Duplicate edges count
// once each; callers pass distinct edges.
func pageRank(g linkGraph) []float64 {
	n := g.nodes()
	if n <= 0 {
		return nil
	}
	rank := make([]float64, n)
	next := make([]float64, n)
	for i := range rank {
		rank[i] = 1 / float64(n)
	}
	base := (1 - pageRankDamping) / float64(n)
	var buf []int32
	for range pageRankMaxIterations {
		dangling := 0.0
		for i := range next {
			next[i] = 0
		}
		for u := 0; u < n; u++ {
			ts := g.targetsOf(u, buf[:0])
			if len(ts) == 0 {
				dangling += rank[u]
				continue
			}
			if cap(ts) > cap(buf) {
				buf = ts
			}
			share := rank[u] / float64(len(ts))
			for _, v := range ts {
				next[v] += share
			}
		}
		jump := base + pageRankDamping*dangling/float64(n)
		diff := 0.0
		for i := range next {
			next[i] = jump + pageRankDamping*next[i]
			diff += math.Abs(next[i] - rank[i])
		}
		rank, next = next, rank
		if diff < pageRankTolerance {
			break
		}
	}
	return rank
}

// linkScores maps PageRank values onto 0-100 on a logarithmic scale: the
// best-linked page scores 100, the least-linked 0, and a page whose rank is
// the geometric mean of the two scores 50. A log scale is used because
// PageRank follows a power law: on a linear scale every page but the home
// page would score near 0. When all ranks are equal every page scores 100.
// Scores are rounded to one decimal.
func linkScores(rank []float64) []float64 {
	out := make([]float64, len(rank))
	if len(rank) == 0 {
		return out
	}
	lo, hi := rank[0], rank[0]
	for _, r := range rank {
		lo, hi = min(lo, r), max(hi, r)
	}
	if lo <= 0 || hi/lo < 1+1e-9 {
		for i := range out {
			out[i] = 100
		}
		return out
	}
	span := math.Log(hi / lo)
	for i, r := range rank {
		out[i] = math.Round(1000*math.Log(r/lo)/span) / 10
	}
	return out
}
