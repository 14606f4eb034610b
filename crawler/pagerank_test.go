package crawler

import (
	"math"
	"testing"
)

func graphOf(n int, edges [][2]int32) csrGraph {
	var from, to []int32
	for _, e := range edges {
		from, to = append(from, e[0]), append(to, e[1])
	}
	return newCSR(n, from, to)
}

func TestPageRank(t *testing.T) {
	tests := []struct {
		name  string
		n     int
		edges [][2]int32
		// order lists nodes from highest to lowest rank (strictly).
		order []int
		// equal lists pairs of nodes expected to have the same rank.
		equal [][2]int
		want  map[int]float64 // exact ranks where known
	}{
		{
			name:  "hub ranks above leaves",
			n:     5,
			edges: [][2]int32{{1, 0}, {2, 0}, {3, 0}, {4, 0}, {0, 1}},
			order: []int{0, 1, 2},
			equal: [][2]int{{2, 3}, {3, 4}},
		},
		{
			name:  "two-node cycle splits evenly",
			n:     2,
			edges: [][2]int32{{0, 1}, {1, 0}},
			want:  map[int]float64{0: 0.5, 1: 0.5},
		},
		{
			name:  "dangling page mass is redistributed",
			n:     3,
			edges: [][2]int32{{0, 1}, {0, 2}, {1, 2}},
			order: []int{2, 1, 0},
		},
		{
			name:  "no edges gives a uniform rank",
			n:     4,
			want:  map[int]float64{0: 0.25, 1: 0.25, 2: 0.25, 3: 0.25},
			equal: [][2]int{{0, 3}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rank := pageRank(graphOf(tc.n, tc.edges))
			if len(rank) != tc.n {
				t.Fatalf("got %d ranks, want %d", len(rank), tc.n)
			}
			sum := 0.0
			for _, r := range rank {
				sum += r
			}
			if math.Abs(sum-1) > 1e-6 {
				t.Errorf("ranks sum to %v, want 1", sum)
			}
			for k := 1; k < len(tc.order); k++ {
				a, b := tc.order[k-1], tc.order[k]
				if rank[a] <= rank[b] {
					t.Errorf("rank[%d]=%v should exceed rank[%d]=%v", a, rank[a], b, rank[b])
				}
			}
			for _, p := range tc.equal {
				if math.Abs(rank[p[0]]-rank[p[1]]) > 1e-9 {
					t.Errorf("rank[%d]=%v and rank[%d]=%v should be equal", p[0], rank[p[0]], p[1], rank[p[1]])
				}
			}
			for node, w := range tc.want {
				if math.Abs(rank[node]-w) > 1e-6 {
					t.Errorf("rank[%d] = %v, want %v", node, rank[node], w)
				}
			}
		})
	}
}

func TestLinkScores(t *testing.T) {
	tests := []struct {
		name string
		rank []float64
		want []float64
	}{
		{"log scale from min to max", []float64{0.01, 0.1, 1}, []float64{0, 50, 100}},
		{"all equal", []float64{0.2, 0.2}, []float64{100, 100}},
		{"empty", nil, []float64{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := linkScores(tc.rank)
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if math.Abs(got[i]-tc.want[i]) > 0.05 {
					t.Errorf("score[%d] = %v, want %v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func BenchmarkPageRank(b *testing.B) {
	const n, out = 20000, 30
	var from, to []int32
	for u := range int32(n) {
		for k := range int32(out) {
			from = append(from, u)
			to = append(to, (u*7919+k*104729)%n)
		}
	}
	g := newCSR(n, from, to)
	for b.Loop() {
		pageRank(g)
	}
}
