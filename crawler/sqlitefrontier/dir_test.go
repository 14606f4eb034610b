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
	if fi, err := os.Stat(path); err != nil || !fi.IsDir() {
		t.Errorf("NewDir did not create the directory: %v", err)
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

func TestNewDirRefusesUnwritable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// A directory under a regular file can be neither created nor written.
	if _, err := sqlitefrontier.NewDir(filepath.Join(file, "sub"), nil); err == nil {
		t.Fatal("NewDir under a regular file: no error")
	}
	dir := filepath.Join(t.TempDir(), "a", "b")
	if _, err := sqlitefrontier.NewDir(dir, nil); err != nil {
		t.Fatalf("NewDir(%s): %v", dir, err)
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Errorf("NewDir left %v in the directory (%v)", entries, err)
	}
}
