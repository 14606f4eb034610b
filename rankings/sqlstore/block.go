package sqlstore

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"time"
)

// Observations are kept in blocks: one row per (domain, keyword, locale,
// device, bucket), where a bucket is blockDays consecutive days. A 90-day
// report over 10,000 keywords then reads about 25,000 rows instead of
// 900,000, which is what makes it fast on SQLite.
const blockDays = 64

// blockVersion is the first byte of every encoded block.
const blockVersion = 1

// entry is one observation inside a block.
type entry struct {
	day     int64 // days since 1970-01-01
	pos     float64
	hasPos  bool
	avg     bool
	url     string
	src     string
	depth   int64
	checked time.Time
}

var errCorrupt = errors.New("sqlstore: corrupt observation block")

// Entry flags.
const (
	flagPos     = 1 << iota // a position follows
	flagAverage             // the position is an average
	flagRawPos              // the position is a float64, not hundredths
	flagRawTime             // checked-at is Unix seconds, not seconds into the day
	flagNanos               // checked-at nanoseconds follow
)

// encodeBlock encodes entries, which must be sorted by day without
// duplicates.
//
// Layout: version byte; uvarint string count and the strings (uvarint
// length, bytes); uvarint entry count; per entry: day offset within the
// bucket (byte), flags (byte), the position (uvarint hundredths when that
// is exact, else 8 bytes little-endian float64), uvarint URL index, uvarint
// source index, uvarint depth, checked-at (uvarint seconds since the
// entry's day began, or varint Unix seconds when outside that day; then
// uvarint nanoseconds when not zero). A typical entry takes about ten
// bytes.
func encodeBlock(bucket int64, es []entry) []byte {
	var strs []string
	idx := map[string]uint64{}
	intern := func(s string) uint64 {
		if i, ok := idx[s]; ok {
			return i
		}
		i := uint64(len(strs))
		idx[s] = i
		strs = append(strs, s)
		return i
	}
	type ref struct{ url, src uint64 }
	refs := make([]ref, len(es))
	for i := range es {
		refs[i] = ref{intern(es[i].url), intern(es[i].src)}
	}
	b := make([]byte, 0, 16+len(es)*12)
	b = append(b, blockVersion)
	b = binary.AppendUvarint(b, uint64(len(strs)))
	for _, s := range strs {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendUvarint(b, uint64(len(es)))
	for i, e := range es {
		b = append(b, byte(e.day-bucket*blockDays))
		var flags byte
		hundredths := math.Round(e.pos * 100)
		if e.hasPos {
			flags |= flagPos
			if hundredths/100 != e.pos || hundredths < 0 || hundredths > 1<<52 {
				flags |= flagRawPos
			}
		}
		if e.avg {
			flags |= flagAverage
		}
		into := e.checked.Unix() - e.day*86400
		if into < 0 || into >= 86400 {
			flags |= flagRawTime
		}
		if e.checked.Nanosecond() != 0 {
			flags |= flagNanos
		}
		b = append(b, flags)
		switch {
		case flags&flagRawPos != 0:
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(e.pos))
		case flags&flagPos != 0:
			b = binary.AppendUvarint(b, uint64(hundredths))
		}
		b = binary.AppendUvarint(b, refs[i].url)
		b = binary.AppendUvarint(b, refs[i].src)
		b = binary.AppendUvarint(b, uint64(e.depth))
		if flags&flagRawTime != 0 {
			b = binary.AppendVarint(b, e.checked.Unix())
		} else {
			b = binary.AppendUvarint(b, uint64(into))
		}
		if flags&flagNanos != 0 {
			b = binary.AppendUvarint(b, uint64(e.checked.Nanosecond()))
		}
	}
	return b
}

// blockReader decodes a block.
type blockReader struct {
	b   []byte
	err error
}

func (r *blockReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errCorrupt
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *blockReader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errCorrupt
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *blockReader) byte() byte {
	if r.err != nil || len(r.b) == 0 {
		r.err = errCorrupt
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *blockReader) bytes(n uint64) []byte {
	if r.err != nil || n > uint64(len(r.b)) {
		r.err = errCorrupt
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

// decodeBlock calls fn for each entry of data in day order. The entry is
// reused between calls.
func decodeBlock(bucket int64, data []byte, fn func(e *entry) error) error {
	r := &blockReader{b: data}
	if r.byte() != blockVersion {
		return errCorrupt
	}
	ns := r.uvarint()
	if ns > uint64(len(data)) {
		return errCorrupt
	}
	strs := make([]string, 0, ns)
	for range ns {
		strs = append(strs, string(r.bytes(r.uvarint())))
	}
	n := r.uvarint()
	if r.err != nil || n > blockDays {
		return errCorrupt
	}
	var e entry
	last := int64(-1)
	for range n {
		off := int64(r.byte())
		flags := r.byte()
		if off >= blockDays || off <= last {
			return errCorrupt
		}
		last = off
		e.day = bucket*blockDays + off
		e.hasPos, e.avg = flags&flagPos != 0, flags&flagAverage != 0
		e.pos = 0
		switch {
		case flags&flagRawPos != 0:
			if b := r.bytes(8); b != nil {
				e.pos = math.Float64frombits(binary.LittleEndian.Uint64(b))
			}
		case flags&flagPos != 0:
			e.pos = float64(r.uvarint()) / 100
		}
		u, s := r.uvarint(), r.uvarint()
		e.depth = int64(r.uvarint())
		var sec int64
		if flags&flagRawTime != 0 {
			sec = r.varint()
		} else {
			sec = e.day*86400 + int64(r.uvarint())
		}
		var nsec uint64
		if flags&flagNanos != 0 {
			nsec = r.uvarint()
		}
		if r.err != nil || u >= uint64(len(strs)) || s >= uint64(len(strs)) || nsec >= 1e9 {
			return errCorrupt
		}
		e.url, e.src = strs[u], strs[s]
		e.checked = time.Unix(sec, int64(nsec)).UTC()
		if err := fn(&e); err != nil {
			return err
		}
	}
	if r.err != nil {
		return r.err
	}
	return nil
}

// mergeBlock returns old with the entries of add stored over it (an entry
// of add replaces one of old on the same day), sorted by day.
// It also returns the first and last day stored and the entry count.
func mergeBlock(bucket int64, old []byte, add []entry) (data []byte, first, last, n int64, err error) {
	var es []entry
	if len(old) > 0 {
		if err := decodeBlock(bucket, old, func(e *entry) error {
			es = append(es, *e)
			return nil
		}); err != nil {
			return nil, 0, 0, 0, err
		}
	}
	for _, a := range add {
		i, found := slices.BinarySearchFunc(es, a.day, func(e entry, d int64) int { return int(e.day - d) })
		if found {
			es[i] = a
		} else {
			es = slices.Insert(es, i, a)
		}
	}
	if len(es) == 0 {
		return nil, 0, 0, 0, errCorrupt
	}
	return encodeBlock(bucket, es), es[0].day, es[len(es)-1].day, int64(len(es)), nil
}
