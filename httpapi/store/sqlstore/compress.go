package sqlstore

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

// Job results are stored gzip-compressed behind resultMarker; a result
// without the marker is a row written before compression and is read as
// stored. The marker begins with a NUL byte, which no JSON text begins
// with, so the two formats never mix up. Site reports shrink 7 to 21
// times (the golden reports of the crawler's tests; the 56 MB synthetic
// 100,000-page report of BenchmarkCompareStored to 2.6 MB).
const resultMarker = "\x00seokit-gzip\x00"

// resultLevel trades the CPU of the one write at the end of an analysis
// for the size of every stored row.
const resultLevel = gzip.DefaultCompression

var gzipWriters = sync.Pool{New: func() any {
	w, _ := gzip.NewWriterLevel(io.Discard, resultLevel)
	return w
}}

// errResultTooLarge is the error of reading a stored result whose JSON is
// larger than its cap (store.MaxJobResultBytes): a corrupt or hostile row.
var errResultTooLarge = errors.New("sqlstore: stored job result: decompresses to more than its cap")

// packResult returns the stored form of a job result's JSON: nil for none,
// otherwise the marker and the gzip stream. A result larger than
// store.MaxJobResultBytes is a *seo.InputError.
func packResult(b []byte) ([]byte, error) {
	if len(b) == 0 {
		return nil, nil
	}
	if len(b) > store.MaxJobResultBytes {
		return nil, &seo.InputError{Field: "result", Value: strconv.Itoa(len(b)) + " bytes",
			Reason: "is larger than " + strconv.Itoa(store.MaxJobResultBytes) + " bytes"}
	}
	var buf bytes.Buffer
	buf.Grow(len(resultMarker) + len(b)/4 + 1024)
	buf.WriteString(resultMarker)
	zw := gzipWriters.Get().(*gzip.Writer)
	defer gzipWriters.Put(zw)
	zw.Reset(&buf)
	if _, err := zw.Write(b); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// unpackResult returns the JSON of a stored result, decompressing at most
// store.MaxJobResultBytes: a row that would decompress to more (a zip
// bomb) is an error, and no more than the cap is ever held.
func unpackResult(stored []byte) ([]byte, error) {
	return unpackCapped(stored, store.MaxJobResultBytes)
}

// unpackCapped is unpackResult with the cap max. The buffer is allocated
// once, at the length the gzip trailer records, after that length was
// checked against max and before anything is decompressed; a stream that
// inflates past it is an error, so a bomb costs at most what its trailer
// admits to (and at most max), whatever it would inflate to.
func unpackCapped(stored []byte, max int) ([]byte, error) {
	z, ok := bytes.CutPrefix(stored, []byte(resultMarker))
	if !ok {
		return stored, nil // written before compression
	}
	r, n, err := openPacked(z, max)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			err = fmt.Errorf("sqlstore: stored job result: shorter than the %d bytes its trailer records: %w", n, io.ErrUnexpectedEOF)
		}
		return nil, err
	}
	// The stream must end here (this read also checks its CRC).
	if _, err := r.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		if err == nil {
			err = errResultTooLarge
		}
		return nil, err
	}
	return buf, nil
}

// openResult returns the JSON of a stored result as a stream that fails
// past store.MaxJobResultBytes or past the length its gzip trailer records;
// it reads stored, which must not change.
func openResult(stored []byte) (io.ReadCloser, error) {
	z, ok := bytes.CutPrefix(stored, []byte(resultMarker))
	if !ok {
		return io.NopCloser(bytes.NewReader(stored)), nil
	}
	r, _, err := openPacked(z, store.MaxJobResultBytes)
	return r, err
}

// openPacked opens a gzip stream whose output is capped at the length its
// trailer records, n, which must be at most max: a longer claim is
// errResultTooLarge before anything is decompressed, and a stream that
// inflates past its claim (a corrupt row or a bomb with a false trailer)
// fails at n bytes. A valid stream always ends at its claim (the length is
// recorded modulo 2^32, and max is below that).
func openPacked(z []byte, max int) (io.ReadCloser, int, error) {
	n, ok := trailerSize(z)
	if !ok {
		return nil, 0, fmt.Errorf("sqlstore: stored job result: %w", io.ErrUnexpectedEOF)
	}
	if n > int64(max) {
		return nil, 0, fmt.Errorf("%w (its trailer records %d bytes, the cap is %d)", errResultTooLarge, n, max)
	}
	zr, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		return nil, 0, fmt.Errorf("sqlstore: stored job result: %w", err)
	}
	zr.Multistream(false)
	return &cappedReader{zr: zr, left: n}, int(n), nil
}

// cappedReader fails a decompressed stream that grows past its cap.
type cappedReader struct {
	zr   *gzip.Reader
	left int64
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		// At the cap: the stream must end here.
		var one [1]byte
		for {
			n, err := c.zr.Read(one[:])
			if n > 0 {
				return 0, errResultTooLarge
			}
			if err != nil {
				return 0, wrapGzip(err)
			}
		}
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.zr.Read(p)
	c.left -= int64(n)
	if errors.Is(err, io.EOF) && c.left > 0 {
		// Shorter than its trailer records (gzip checks the length it
		// read against the trailer, so this is a corrupt row).
		return n, fmt.Errorf("sqlstore: stored job result: %w", io.ErrUnexpectedEOF)
	}
	return n, wrapGzip(err)
}

func (c *cappedReader) Close() error { return c.zr.Close() }

// wrapGzip names a corrupt stream; io.EOF passes unchanged.
func wrapGzip(err error) error {
	if err == nil || errors.Is(err, io.EOF) {
		return err
	}
	return fmt.Errorf("sqlstore: stored job result: %w", err)
}

var _ store.JobResults = (*Store)(nil)

// JobResult returns the account's job without decompressing its result:
// the StoredResult holds the compressed bytes read with the job (one
// statement, so a concurrent delete or prune either happened before and
// the job is store.ErrNotFound, or after and the result is whole) and
// decompresses them as they are read.
func (s *Store) JobResult(ctx context.Context, accountID, id string) (*store.Job, store.StoredResult, error) {
	j, err := s.storedJob(ctx, accountID, id)
	if err != nil {
		return nil, nil, err
	}
	stored := j.Result
	j.Result = nil
	if len(stored) == 0 {
		return j, nil, nil
	}
	return j, storedResult(stored), nil
}

// storedResult is a result as stored, opened as its JSON.
type storedResult []byte

func (r storedResult) Open() (io.ReadCloser, error) { return openResult(r) }

func (r storedResult) StoredSize() int { return len(r) }

func (r storedResult) Size() int {
	z, ok := bytes.CutPrefix(r, []byte(resultMarker))
	if !ok {
		return len(r)
	}
	return packedSize(z, store.MaxJobResultBytes)
}

// packedSize is the length a gzip stream's trailer records (modulo 2^32;
// the cap is below that), at most max.
func packedSize(z []byte, max int) int {
	n, _ := trailerSize(z)
	return int(min(n, int64(max)))
}

// trailerSize is the length a gzip stream's trailer records (its last four
// bytes, little-endian); ok is false for a stream too short to have one.
func trailerSize(z []byte) (n int64, ok bool) {
	if len(z) < 4 {
		return 0, false
	}
	return int64(binary.LittleEndian.Uint32(z[len(z)-4:])), true
}
