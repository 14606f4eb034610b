package crawler

import (
	"encoding/binary"
	"iter"
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
// cost one or two bytes instead of eight.
type edgeList struct{ off, end uint32 }

// Flags of an encoded edge.
const (
	encNofollow = 1 << iota
	encRedirect
	encFrom
	encShift = 3
)

// appendEdges encodes sorted edges of the page at node onto dst.
func appendEdges(dst []byte, node uint32, es []edge) []byte {
	prev := int64(0)
	for _, e := range es {
		t := int64(e.target())
		d := t - prev
		prev = t
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
	}
	return dst
}

// edgesIn yields the edges encoded in data for the page at node.
func edgesIn(data []byte, node int32) iter.Seq[edge] {
	return func(yield func(edge) bool) {
		prev := int64(0)
		for len(data) > 0 {
			v, n := binary.Uvarint(data)
			data = data[n:]
			z := v >> encShift
			prev += int64(z>>1) ^ -int64(z&1)
			e := edge{from: uint32(node), to: uint32(prev)}
			if v&encNofollow != 0 {
				e.to |= edgeNofollow
			}
			if v&encRedirect != 0 {
				e.to |= edgeRedirect
			}
			if v&encFrom != 0 {
				f, n := binary.Uvarint(data)
				data = data[n:]
				e.from = uint32(f)
			}
			if !yield(e) {
				return
			}
		}
	}
}
