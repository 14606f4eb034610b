package crawler

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/seokit/seokit/analyzer"
)

// ScreenshotSink receives the viewport screenshot (PNG) of every page a
// crawl renders with screenshots on (Options.Analyzer's RenderRequest
// Screenshot). PutScreenshot is called from several goroutines at once;
// png must not be kept past the call. An error from it does not stop the
// crawl: the page is reported without a screenshot.
type ScreenshotSink interface {
	PutScreenshot(ctx context.Context, pageURL string, png []byte) error
}

// ErrScreenshotsFull is returned by a DirScreenshots sink that holds its
// maximum number of files.
var ErrScreenshotsFull = errors.New("crawler: screenshot limit reached")

// DefaultMaxScreenshots caps the files of a DirScreenshots sink.
const DefaultMaxScreenshots = 10_000

// ScreenshotName is the file name DirScreenshots gives the screenshot of
// pageURL: the hex SHA-256 of the URL (its first 32 digits) and ".png", so
// that crawled URLs never make paths.
func ScreenshotName(pageURL string) string {
	h := sha256.Sum256([]byte(pageURL))
	return hex.EncodeToString(h[:16]) + ".png"
}

// DirSink is a ScreenshotSink writing PNG files into a directory (see
// DirScreenshots).
type DirSink struct {
	dir string
	max int

	mu      sync.Mutex
	n       int
	omitted int
}

var _ ScreenshotSink = (*DirSink)(nil)

// DirScreenshots returns a sink writing each screenshot to
// dir/ScreenshotName(pageURL), at most DefaultMaxScreenshots files; later
// ones are counted (Omitted) and refused with ErrScreenshotsFull. The
// directory is created when missing.
func DirScreenshots(dir string) (*DirSink, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("crawler: screenshots: %w", err)
	}
	return &DirSink{dir: dir, max: DefaultMaxScreenshots}, nil
}

// SetMax changes the cap on files written; n <= 0 keeps the default.
func (d *DirSink) SetMax(n int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if n <= 0 {
		n = DefaultMaxScreenshots
	}
	d.max = n
}

// PutScreenshot writes png as dir/ScreenshotName(pageURL).
func (d *DirSink) PutScreenshot(ctx context.Context, pageURL string, png []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	d.mu.Lock()
	if d.n >= d.max {
		d.omitted++
		d.mu.Unlock()
		return ErrScreenshotsFull
	}
	d.n++
	d.mu.Unlock()
	if err := os.WriteFile(filepath.Join(d.dir, ScreenshotName(pageURL)), png, 0o644); err != nil {
		d.mu.Lock()
		d.n--
		d.mu.Unlock()
		return fmt.Errorf("crawler: screenshot: %w", err)
	}
	return nil
}

// Written returns the number of files written; Omitted the screenshots
// refused at the cap.
func (d *DirSink) Written() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.n
}

// Omitted returns the number of screenshots refused at the cap.
func (d *DirSink) Omitted() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.omitted
}

// Dir returns the sink's directory.
func (d *DirSink) Dir() string { return d.dir }

// putScreenshot gives the viewport screenshot of rep to Options.Screenshots
// and reports whether it was stored.
func (cr *crawl) putScreenshot(ctx context.Context, pageURL string, rep *analyzer.Report) bool {
	if cr.o.Screenshots == nil || rep.Render == nil || len(rep.Render.Screenshot) == 0 {
		return false
	}
	if err := cr.o.Screenshots.PutScreenshot(ctx, pageURL, rep.Render.Screenshot); err != nil {
		cr.shotsOmitted.Add(1)
		return false
	}
	return true
}
