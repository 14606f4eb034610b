package sqlitefrontier_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/sqlitefrontier"
	"github.com/seokit/seokit/seo"
)

func TestDir(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "frontiers")
	dir, err := sqlitefrontier.NewDir(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("NewDir created the directory before any job: %v", err)
	}
	for _, id := range []string{"", "../job", "a/b", `a\b`, ".hidden", "c:d"} {
		if _, err := dir.Open(ctx, id); !errors.Is(err, seo.ErrInvalidInput) {
			t.Errorf("Open(%q): %v, want ErrInvalidInput", id, err)
		}
	}
	// Two jobs, two files; the second job does not see the first's URLs.
	f1, err := dir.Open(ctx, "job_1")
	if err != nil {
		t.Fatal(err)
	}
	f1.Push(ctx, []crawler.Item{{URL: "https://example.com/"}})
	f1.Close()
	f2, err := dir.Open(ctx, "job_2")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := f2.Len(ctx); n != 0 {
		t.Errorf("job_2's frontier holds %d items of job_1", n)
	}
	f2.Close()
	f1, _ = dir.Open(ctx, "job_1")
	if n, _ := f1.Len(ctx); n != 1 {
		t.Errorf("reopened job_1 holds %d items, want 1", n)
	}
	f1.Close()
	for _, id := range []string{"job_1", "job_1", "job_never"} {
		if err := dir.Remove(ctx, id); err != nil {
			t.Errorf("Remove(%q): %v", id, err)
		}
	}
	left, _ := filepath.Glob(filepath.Join(path, "job_1*"))
	if len(left) != 0 {
		t.Errorf("files left after Remove: %v", left)
	}
}
