package sqlitefrontier

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/seo"
)

// Dir keeps one frontier file per job in a directory, for the API server
// (it serves as httpapi.Frontiers): a job interrupted by a restart resumes
// from its file. The files are this instance's own, so several instances
// resume a job only when it runs again where it ran before; see the
// redisfrontier package for frontiers shared by instances. The zero value
// is not usable; call NewDir.
type Dir struct {
	path string
	opts *Options
}

// NewDir returns the frontiers kept in the directory path, creating it
// (mode 0700) when it does not exist. A directory that cannot be created
// or written to is an error now, not at the first job. opts, which may be
// nil, apply to every file.
func NewDir(path string, opts *Options) (*Dir, error) {
	if path == "" {
		return nil, &seo.InputError{Field: "path", Reason: "is empty", Err: seo.ErrInvalidInput}
	}
	if err := os.MkdirAll(path, 0o700); err != nil {
		return nil, fmt.Errorf("sqlitefrontier: frontier directory: %w", err)
	}
	f, err := os.CreateTemp(path, ".probe-*")
	if err != nil {
		return nil, fmt.Errorf("sqlitefrontier: frontier directory %s is not writable: %w", path, err)
	}
	f.Close()
	os.Remove(f.Name())
	return &Dir{path: path, opts: opts}, nil
}

// file returns the path of the job's frontier file.
func (d *Dir) file(jobID string) (string, error) {
	if jobID == "" || strings.ContainsAny(jobID, `/\:`) || strings.HasPrefix(jobID, ".") {
		return "", &seo.InputError{Field: "jobID", Value: jobID, Reason: "must be a plain file name", Err: seo.ErrInvalidInput}
	}
	return filepath.Join(d.path, jobID+".frontier"), nil
}

// Open opens the job's frontier file, creating it when it does not exist,
// and queues again the items its last run left in flight.
func (d *Dir) Open(ctx context.Context, jobID string) (crawler.Frontier, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, err := d.file(jobID)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(d.path, 0o700); err != nil {
		return nil, fmt.Errorf("sqlitefrontier: %w", err)
	}
	return Open(p, d.opts)
}

// Remove deletes the job's frontier file and its SQLite journal files.
func (d *Dir) Remove(ctx context.Context, jobID string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p, err := d.file(jobID)
	if err != nil {
		return err
	}
	var errs []error
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(p + suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("sqlitefrontier: remove: %w", err)
	}
	return nil
}

// Component names the frontiers in the API's outage messages and health
// checks (httpapi.Component).
func (d *Dir) Component() string { return "frontier files" }
