package crawler

import (
	"encoding/binary"
	"hash/maphash"
	"iter"
	"slices"
)

// Edge flags, kept in the high bits of edge.to.
const (
	edgeNofollow uint32 = 1 << 31
	edgeRedirect uint32 = 1 << 30
	edgeIDMask          = edgeRedirect - 1
)

// edge is one edge: interned node ids, flags in the high bits of to.
type edge struct{ from, to uint32 }

func (e edge) target() int32 { return int32(e.to & edgeIDMask) }

func (e edge) nofollow() bool { return e.to&edgeNofollow != 0 }

func (e edge) redirect() bool { return e.to&edgeRedirect != 0 }

// edgeList locates the edges of one page in the builder's edge arena:
// arena[off:end].
//
// Edges are stored sorted by (from, target) as one uvarint each: the
// zigzag-encoded difference to the previous target, shifted left by three
// for the flags (nofollow, redirect, and "another varint with the from node
// follows"). Nearly every edge starts at its page's node, which is implied;
// the targets of a page are close ids (menus, neighbours), so most edges
// cost one or two bytes instead of eight, and the runs many pages repeat
// (a menu's links) are stored once (edgeRuns).
type edgeList struct{ off, end uint32 }

// Flags of an encoded edge. encFrom followed by the page's own node,
// which an edge never names (its from node is implied), marks a reference
// to a shared run instead (see edgeRuns): the run's index in place of the
// target's difference.
const (
	encNofollow = 1 << iota
	encRedirect
	encFrom
	encShift = 3
)

// edgeEncoder encodes the edges of one page, each against the previous
// target.
type edgeEncoder struct{ prev int64 }

// append encodes e, an edge of the page at node, onto dst.
func (enc *edgeEncoder) append(dst []byte, node uint32, e edge) []byte {
	t := int64(e.target())
	d := t - enc.prev
	enc.prev = t
	v := uint64(d<<1) ^ uint64(d>>63) // zigzag
	v <<= encShift
	if e.nofollow() {
		v |= encNofollow
	}
	if e.redirect() {
		v |= encRedirect
	}
	if e.from != node {
		v |= encFrom
	}
	dst = binary.AppendUvarint(dst, v)
	if e.from != node {
		dst = binary.AppendUvarint(dst, uint64(e.from))
	}
	return dst
}

// appendEdges encodes sorted edges of the page at node onto dst, without
// shared runs.
func appendEdges(dst []byte, node uint32, es []edge) []byte {
	var enc edgeEncoder
	for _, e := range es {
		dst = enc.append(dst, node, e)
	}
	return dst
}

// edgeRuns shares the runs of edges that many pages repeat: the links of
// a site's menu or footer, the same on every page, are the page's edges to
// the same block of node ids (the menu's targets are found early, so their
// ids are close). A page's own edges to one block of 1<<runBlockBits ids,
// when there are at least minRun of them, are encoded on their own; the
// second page with the same bytes stores them here, and it and every page
// after it refer to them (encRun) instead of repeating them. A menu of 500
// categories costs each page a few bytes instead of 500.
type edgeRuns struct {
	runs [][]byte         // by reference
	ids  map[string]int32 // runs' indexes, by their bytes
	// seen holds the hashes of runs met once, so a run no other page
	// repeats is not kept twice.
	seen map[uint64]struct{}
	buf  []byte
}

// Bounds of edgeRuns.
const (
	runBlockBits = 12
	minRun       = 32
	maxRuns      = 1 << 12
	maxRunSeen   = 1 << 16
)

// appendPage encodes the sorted edges of the page at node onto dst,
// sharing their runs.
func (rs *edgeRuns) appendPage(dst []byte, node uint32, es []edge) []byte {
	var enc edgeEncoder
	for i := 0; i < len(es); {
		j := i + 1
		if es[i].from == node {
			block := es[i].target() >> runBlockBits
			for j < len(es) && es[j].from == node && es[j].target()>>runBlockBits == block {
				j++
			}
		}
		if j-i >= minRun {
			if ref, ok := rs.share(node, es[i:j]); ok {
				dst = binary.AppendUvarint(dst, uint64(ref)<<encShift|encFrom)
				dst = binary.AppendUvarint(dst, uint64(node))
				enc.prev = int64(es[j-1].target())
				i = j
				continue
			}
		}
		for ; i < j; i++ {
			dst = enc.append(dst, node, es[i])
		}
	}
	return dst
}

// share returns the reference of the run es of edges of the page at node,
// when another page had the same run.
func (rs *edgeRuns) share(node uint32, es []edge) (int32, bool) {
	rs.buf = appendEdges(rs.buf[:0], node, es)
	if ref, ok := rs.ids[string(rs.buf)]; ok {
		return ref, true
	}
	if len(rs.runs) >= maxRuns {
		return 0, false
	}
	h := maphash.Bytes(runSeed, rs.buf)
	if _, ok := rs.seen[h]; !ok {
		if len(rs.seen) < maxRunSeen {
			if rs.seen == nil {
				rs.seen = map[uint64]struct{}{}
			}
			rs.seen[h] = struct{}{}
		}
		return 0, false
	}
	if rs.ids == nil {
		rs.ids = map[string]int32{}
	}
	ref := int32(len(rs.runs))
	rs.ids[string(rs.buf)] = ref
	rs.runs = append(rs.runs, slices.Clone(rs.buf))
	return ref, true
}

// runSeed seeds the hashes of edgeRuns.seen.
var runSeed = maphash.MakeSeed()

// decodeEdges appends to dst the edges encoded in data for the page at
// node, reading the shared runs it refers to from runs. PageRank, which
// reads every page's edges in each of its rounds, decodes into a slice it
// reuses; edgesIn yields them.
func decodeEdges(dst []edge, data []byte, node int32, runs [][]byte) []edge {
	prev := int64(0)
	for len(data) > 0 {
		v, n := binary.Uvarint(data)
		data = data[n:]
		from := uint64(node)
		if v&encFrom != 0 {
			from, n = binary.Uvarint(data)
			data = data[n:]
			if from == uint64(node) {
				k := len(dst)
				dst = decodeEdges(dst, runs[v>>encShift], node, nil)
				if len(dst) > k {
					prev = int64(dst[len(dst)-1].target())
				}
				continue
			}
		}
		z := v >> encShift
		prev += int64(z>>1) ^ -int64(z&1)
		e := edge{from: uint32(from), to: uint32(prev)}
		if v&encNofollow != 0 {
			e.to |= edgeNofollow
		}
		if v&encRedirect != 0 {
			e.to |= edgeRedirect
		}
		dst = append(dst, e)
	}
	return dst
}

// edgesIn yields the edges encoded in data for the page at node, reading
// the shared runs it refers to from runs (decodeEdges, into a buffer on
// the stack for a page's usual links).
func edgesIn(data []byte, node int32, runs [][]byte) iter.Seq[edge] {
	return func(yield func(edge) bool) {
		var buf [128]edge
		for _, e := range decodeEdges(buf[:0], data, node, runs) {
			if !yield(e) {
				return
			}
		}
	}
}
