package crawler

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/seokit/seokit/analyzer"
)

// Sink receives the full report of every crawled page, once, as soon as the
// page is analysed. Put is called from several goroutines at once; the
// report must not be kept past the call unless the sink copies what it
// needs (the crawler drops it afterwards). An error from Put stops the crawl.
type Sink interface {
	Put(ctx context.Context, rep *analyzer.Report) error
}

// SinkFunc adapts a function to a Sink.
type SinkFunc func(ctx context.Context, rep *analyzer.Report) error

var _ Sink = SinkFunc(nil)

// Put calls f.
func (f SinkFunc) Put(ctx context.Context, rep *analyzer.Report) error { return f(ctx, rep) }

var _ Sink = (*JSONLinesSink)(nil)

// JSONLinesSink writes each report as one line of JSON to a writer.
type JSONLinesSink struct {
	mu  sync.Mutex
	enc *json.Encoder
	n   int
}

// NewJSONLinesSink returns a sink writing JSON lines to w. Writes are
// serialised; w needs no locking of its own.
func NewJSONLinesSink(w io.Writer) *JSONLinesSink {
	return &JSONLinesSink{enc: json.NewEncoder(w)}
}

// Put writes rep as one line.
func (s *JSONLinesSink) Put(ctx context.Context, rep *analyzer.Report) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.enc.Encode(rep); err != nil {
		return fmt.Errorf("crawler: write report: %w", err)
	}
	s.n++
	return nil
}

// Count returns the number of reports written.
func (s *JSONLinesSink) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}
