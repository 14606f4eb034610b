package chromium

import (
	"bytes"
	"errors"
	"image/png"
	"testing"

	"github.com/seokit/seokit/render"
)

// TestScreenshots takes viewport and full-page PNGs in real Chromium with
// the mobile device metrics (412×915 CSS pixels at 2.625 device pixels per
// CSS pixel) and checks their sizes in CSS pixels.
func TestScreenshots(t *testing.T) {
	bctx := testBrowser(t)
	srv := vitalsSite(t)
	tests := []struct {
		path      string
		shot      render.Shot
		wantFullH int // 0: no full-page PNG wanted
	}{
		{"/fast", render.NoShot, 0},
		{"/fast", render.Viewport, 0},
		{"/fast", render.FullPage, 915}, // a short page: the viewport's height
		{"/long", render.FullPage, -1},  // taller than the viewport, under the cap
		{"/huge", render.FullPage, maxShotHeight},
	}
	for _, tt := range tests {
		t.Run(tt.path+" "+string(tt.shot), func(t *testing.T) {
			tctx := testTab(t, bctx, srv.URL+tt.path, "")
			var res render.Result
			if err := takeScreenshots(tctx, tt.shot, &res); err != nil {
				t.Fatalf("takeScreenshots: %v", err)
			}
			if tt.shot == render.NoShot {
				if res.Screenshot != nil || res.FullScreenshot != nil {
					t.Fatal("screenshots taken without a request")
				}
				return
			}
			w, h := pngSize(t, res.Screenshot)
			t.Logf("viewport PNG %d×%d, %d bytes", w, h, len(res.Screenshot))
			if w != 412 || h != 915 {
				t.Errorf("viewport PNG %d×%d, want 412×915", w, h)
			}
			if tt.wantFullH == 0 {
				if res.FullScreenshot != nil {
					t.Error("full-page PNG taken for a viewport request")
				}
				return
			}
			fw, fh := pngSize(t, res.FullScreenshot)
			t.Logf("full-page PNG %d×%d, %d bytes", fw, fh, len(res.FullScreenshot))
			switch {
			case fw != 412:
				t.Errorf("full-page PNG %d px wide, want 412", fw)
			case tt.wantFullH < 0 && (fh <= 915 || fh >= maxShotHeight):
				t.Errorf("full-page PNG %d px tall, want between the viewport's 915 and the cap", fh)
			case tt.wantFullH > 0 && fh != tt.wantFullH:
				t.Errorf("full-page PNG %d px tall, want %d", fh, tt.wantFullH)
			}
		})
	}
}

func pngSize(t *testing.T, b []byte) (int, int) {
	t.Helper()
	if b == nil {
		t.Fatal("no PNG")
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("decode PNG: %v", err)
	}
	r := img.Bounds()
	first, uniform := img.At(r.Min.X, r.Min.Y), true
	for y := r.Min.Y; y < r.Max.Y && uniform; y += 7 {
		for x := r.Min.X; x < r.Max.X && uniform; x += 7 {
			uniform = img.At(x, y) == first
		}
	}
	if uniform {
		t.Error("the PNG is one colour: the page was not drawn")
	}
	return r.Dx(), r.Dy()
}

// TestShotTooLarge checks that an oversized PNG is refused with
// errShotTooLarge.
func TestShotTooLarge(t *testing.T) {
	err := checkShot(make([]byte, maxShotBytes+1), "full-page")
	if !errors.Is(err, errShotTooLarge) {
		t.Fatalf("err = %v, want errShotTooLarge", err)
	}
	t.Log(err)
}
