package storetest

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

func testScreenshots(ctx context.Context, t *testing.T, s store.Store, ss store.Screenshots) {
	a := mustAccount(ctx, t, s, "shots@example.com")
	b := mustAccount(ctx, t, s, "shots2@example.com")
	j := &store.Job{AccountID: a.ID, Kind: "site"}
	if err := s.CreateJob(ctx, j); err != nil {
		t.Fatalf("CreateJob: %v", err)
	}
	const page = "https://example.com/a?b=1"
	png := []byte("\x89PNG\r\n\x1a\nfirst")
	if _, err := ss.Screenshot(ctx, a.ID, j.ID, page); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Screenshot before any PutScreenshot: err = %v, want ErrNotFound", err)
	}
	if err := ss.PutScreenshot(ctx, j.ID, page, png); err != nil {
		t.Fatalf("PutScreenshot: %v", err)
	}
	got, err := ss.Screenshot(ctx, a.ID, j.ID, page)
	if err != nil || !bytes.Equal(got, png) {
		t.Errorf("Screenshot = %q, %v; want %q", got, err, png)
	}
	again := []byte("\x89PNG\r\n\x1a\nsecond")
	if err := ss.PutScreenshot(ctx, j.ID, page, again); err != nil {
		t.Fatalf("PutScreenshot again: %v", err)
	}
	if got, err := ss.Screenshot(ctx, a.ID, j.ID, page); err != nil || !bytes.Equal(got, again) {
		t.Errorf("Screenshot after replacing = %q, %v; want %q", got, err, again)
	}
	if _, err := ss.Screenshot(ctx, b.ID, j.ID, page); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Screenshot of another account's job: err = %v, want ErrNotFound", err)
	}
	if _, err := ss.Screenshot(ctx, a.ID, j.ID, page+"&c"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Screenshot of another page: err = %v, want ErrNotFound", err)
	}
	if err := ss.PutScreenshot(ctx, "job_missing", page, png); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("PutScreenshot for an unknown job: err = %v, want ErrNotFound", err)
	}
	bad := []struct {
		name, url string
		png       []byte
	}{
		{"empty URL", "", png},
		{"empty image", page, nil},
		{"too large", page, make([]byte, store.MaxScreenshotBytes+1)},
	}
	for _, tt := range bad {
		if err := ss.PutScreenshot(ctx, j.ID, tt.url, tt.png); !errors.Is(err, seo.ErrInvalidInput) {
			t.Errorf("PutScreenshot with %s: err = %v, want ErrInvalidInput", tt.name, err)
		}
	}
}
