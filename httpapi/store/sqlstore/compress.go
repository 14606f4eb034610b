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

// unpackCapped is unpackResult with the cap max.
func unpackCapped(stored []byte, max int) ([]byte, error) {
	z, ok := bytes.CutPrefix(stored, []byte(resultMarker))
	if !ok {
		return stored, nil // written before compression
	}
	r, err := openPacked(z, max)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	// The gzip trailer states the length (modulo 2^32, and the cap is
	// below that); a false one only sizes the first buffer, capped.
	buf := bytes.NewBuffer(make([]byte, 0, packedSize(z, max)+1))
	if _, err := buf.ReadFrom(r); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// openResult returns the JSON of a stored result as a stream that fails
// past store.MaxJobResultBytes; it reads stored, which must not change.
func openResult(stored []byte) (io.ReadCloser, error) {
	z, ok := bytes.CutPrefix(stored, []byte(resultMarker))
	if !ok {
		return io.NopCloser(bytes.NewReader(stored)), nil
	}
	return openPacked(z, store.MaxJobResultBytes)
}

// openPacked opens a gzip stream, its output capped at max bytes.
func openPacked(z []byte, max int) (io.ReadCloser, error) {
	zr, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		return nil, fmt.Errorf("sqlstore: stored job result: %w", err)
	}
	zr.Multistream(false)
	return &cappedReader{zr: zr, left: int64(max)}, nil
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
	if len(z) < 4 {
		return 0
	}
	return int(min(binary.LittleEndian.Uint32(z[len(z)-4:]), uint32(max)))
}
