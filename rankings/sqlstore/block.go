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

// blockReader decodes a block: b[i:] is what is left. Once err is set,
// reads return garbage; callers check err when done.
type blockReader struct {
	b   []byte
	i   int
	err error
}

// uvarint reads an unsigned varint; the one-byte case, the usual one, is
// inlined.
func (r *blockReader) uvarint() uint64 {
	if i := r.i; i < len(r.b) {
		if c := r.b[i]; c < 0x80 {
			r.i = i + 1
			return uint64(c)
		}
	}
	return r.uvarintSlow()
}

func (r *blockReader) uvarintSlow() uint64 {
	if r.err != nil || r.i >= len(r.b) {
		r.err = errCorrupt
		return 0
	}
	v, n := binary.Uvarint(r.b[r.i:])
	if n <= 0 {
		r.err = errCorrupt
		return 0
	}
	r.i += n
	return v
}

func (r *blockReader) varint() int64 {
	if r.err != nil || r.i >= len(r.b) {
		r.err = errCorrupt
		return 0
	}
	v, n := binary.Varint(r.b[r.i:])
	if n <= 0 {
		r.err = errCorrupt
		return 0
	}
	r.i += n
	return v
}

func (r *blockReader) byte() byte {
	if r.i >= len(r.b) {
		r.err = errCorrupt
		return 0
	}
	r.i++
	return r.b[r.i-1]
}

func (r *blockReader) bytes(n uint64) []byte {
	if r.err != nil || n > uint64(len(r.b)-r.i) {
		r.err = errCorrupt
		return nil
	}
	v := r.b[r.i : r.i+int(n)]
	r.i += int(n)
	return v
}

// blockIter walks the entries of an encoded block without allocating:
// strings stay as byte slices into the block (see str) until a caller
// needs them. The zero value is ready for reset.
type blockIter struct {
	r      blockReader
	bucket int64
	strs   [][]byte // the block's string table, reused between blocks
	names  []string // strs as strings, once fill needed them
	n      uint64   // entries left
	last   int64    // offset of the previous entry

	cur rawEntry // the current entry
}

// rawEntry is an entry as stored: strings as indexes into the block's
// string table.
type rawEntry struct {
	day       int64
	pos       float64
	url, src  uint64 // indexes into blockIter.strs
	depth     int64
	sec, nsec int64 // checked-at
	hasPos    bool
	average   bool
}

// reset starts walking data, a block of bucket; it reads the header.
func (it *blockIter) reset(bucket int64, data []byte) error {
	it.r = blockReader{b: data}
	it.bucket, it.last = bucket, -1
	if it.r.byte() != blockVersion {
		return errCorrupt
	}
	ns := it.r.uvarint()
	if ns > uint64(len(data)) {
		return errCorrupt
	}
	it.strs, it.names = it.strs[:0], it.names[:0]
	for range ns {
		it.strs = append(it.strs, it.r.bytes(it.r.uvarint()))
	}
	it.n = it.r.uvarint()
	if it.r.err != nil || it.n > blockDays {
		return errCorrupt
	}
	return nil
}

// next decodes the next entry; it returns false at the end or on a
// corrupt block (then err reports it). The varints are decoded inline
// here, as this is the loop of every report.
func (it *blockIter) next() bool {
	if it.n == 0 || it.r.err != nil {
		return false
	}
	it.n--
	b, i := it.r.b, it.r.i
	if uint(i+1) >= uint(len(b)) {
		it.r.err = errCorrupt
		return false
	}
	off, flags := int64(b[i]), b[i+1]
	i += 2
	if off >= blockDays || off <= it.last {
		it.r.err = errCorrupt
		return false
	}
	it.last = off
	e := &it.cur
	e.day = it.bucket*blockDays + off
	e.hasPos, e.average = flags&flagPos != 0, flags&flagAverage != 0
	e.pos = 0
	var v uint64
	switch {
	case flags&flagRawPos != 0:
		if i < 0 || i+8 > len(b) {
			it.r.err = errCorrupt
			return false
		}
		e.pos = math.Float64frombits(binary.LittleEndian.Uint64(b[i:]))
		i += 8
	case flags&flagPos != 0:
		if uint(i) < uint(len(b)) && b[i] < 0x80 {
			v, i = uint64(b[i]), i+1
		} else {
			v, i = uvSlow(b, i)
		}
		e.pos = float64(v) / 100
	}
	if uint(i) < uint(len(b)) && b[i] < 0x80 {
		e.url, i = uint64(b[i]), i+1
	} else {
		e.url, i = uvSlow(b, i)
	}
	if uint(i) < uint(len(b)) && b[i] < 0x80 {
		e.src, i = uint64(b[i]), i+1
	} else {
		e.src, i = uvSlow(b, i)
	}
	if uint(i) < uint(len(b)) && b[i] < 0x80 {
		v, i = uint64(b[i]), i+1
	} else {
		v, i = uvSlow(b, i)
	}
	e.depth = int64(v)
	if i < 0 {
		it.r.err = errCorrupt
		return false
	}
	it.r.i = i
	if flags&flagRawTime != 0 {
		e.sec = it.r.varint()
	} else {
		e.sec = e.day*86400 + int64(it.r.uvarint())
	}
	e.nsec = 0
	if flags&flagNanos != 0 {
		e.nsec = int64(it.r.uvarint())
	}
	if it.r.err == nil && (e.url >= uint64(len(it.strs)) || e.src >= uint64(len(it.strs)) || e.nsec < 0 || e.nsec >= 1e9) {
		it.r.err = errCorrupt
	}
	return it.r.err == nil
}

// uvSlow decodes the uvarint at b[i:], returning the index after it, or
// -1 when there is none (i may already be -1).
func uvSlow(b []byte, i int) (uint64, int) {
	if i < 0 || i >= len(b) {
		return 0, -1
	}
	v, n := binary.Uvarint(b[i:])
	if n <= 0 {
		return 0, -1
	}
	return v, i + n
}

// err returns the decoding error, if any.
func (it *blockIter) err() error { return it.r.err }

// interner turns the byte strings of blocks into strings, allocating each
// distinct one once (a report's URLs repeat across blocks and days).
type interner map[string]string

func (in interner) get(b []byte) string {
	if s, ok := in[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(in) < 1<<16 {
		in[s] = s
	}
	return s
}

// fill stores x, an entry of the current block, into e, with its strings
// from in (nil: converted for each block).
func (it *blockIter) fill(x *rawEntry, e *entry, in interner) {
	e.day, e.pos, e.hasPos, e.avg = x.day, x.pos, x.hasPos, x.average
	if len(it.names) != len(it.strs) {
		it.names = it.names[:0]
		for _, b := range it.strs {
			if in == nil {
				it.names = append(it.names, string(b))
			} else {
				it.names = append(it.names, in.get(b))
			}
		}
	}
	e.url, e.src = it.names[x.url], it.names[x.src]
	e.depth = x.depth
	e.checked = time.Unix(x.sec, x.nsec).UTC()
}

// decodeBlock calls fn for each entry of data in day order. The entry is
// reused between calls. in caches strings across blocks; nil means none.
func decodeBlock(bucket int64, data []byte, fn func(e *entry) error) error {
	return decodeBlockInterned(bucket, data, nil, fn)
}

func decodeBlockInterned(bucket int64, data []byte, in interner, fn func(e *entry) error) error {
	var it blockIter
	if err := it.reset(bucket, data); err != nil {
		return err
	}
	var e entry
	for it.next() {
		it.fill(&it.cur, &e, in)
		if err := fn(&e); err != nil {
			return err
		}
	}
	return it.err()
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
