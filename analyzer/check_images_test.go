package analyzer

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var imageIDs = []string{
	"images.alt_missing", "images.alt_empty", "images.alt_too_long", "images.alt_is_filename",
	"images.alt_duplicate", "images.size_attrs_missing", "images.picture_without_img",
}

func TestImagesChecks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, fixture string
		want          []string
	}{
		{"good images", "good.html", nil},
		{"no alt", "alt_missing.html", []string{"images.alt_missing"}},
		{"no alt, some decorative or hidden", "alt_missing_decorative.html", []string{"images.alt_missing"}},
		{"no alt, some hidden by an inline style", "alt_missing_hidden_style.html", []string{"images.alt_missing"}},
		{"empty alt, only content of a link", "alt_empty_link.html", []string{"images.alt_empty"}},
		{"empty alt, large image", "alt_empty_large.html", []string{"images.alt_empty"}},
		{"long alt", "alt_too_long.html", []string{"images.alt_too_long"}},
		{"camera file name", "alt_is_filename.html", []string{"images.alt_is_filename"}},
		{"alt ends in an extension", "alt_is_filename_ext.html", []string{"images.alt_is_filename"}},
		{"alt equals the file name", "alt_is_filename_same.html", []string{"images.alt_is_filename"}},
		{"same alt, different images", "alt_duplicate.html", []string{"images.alt_duplicate"}},
		{"no height", "size_attrs_missing.html", []string{"images.size_attrs_missing"}},
		{"picture without img", "picture_without_img.html", []string{"images.picture_without_img"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := analyzeFixture(t, filepath.Join("images", tc.fixture), "", nil, nil)
			assertIDs(t, rep, tc.want, without(imageIDs, tc.want...))
		})
	}
}

func TestImagesData(t *testing.T) {
	t.Parallel()
	rep := analyzeFixture(t, "images/good.html", "", nil, nil)
	im := rep.Images
	if im.Total != 6 || im.WithoutAlt != 0 || len(im.List) != 6 {
		t.Fatalf("Images = %d total, %d without alt, %d listed; want 6, 0, 6", im.Total, im.WithoutAlt, len(im.List))
	}
	first := im.List[0]
	if first.Src != "https://example.com/img/harbour.jpg" || first.Alt == nil || *first.Alt != "Warehouses on the old harbour at dusk" ||
		first.Width != "800" || first.Height != "600" {
		t.Errorf("List[0] = %+v", first)
	}
	rep = analyzeFixture(t, "images/alt_missing.html", "", nil, nil)
	if rep.Images.Total != 1 || rep.Images.WithoutAlt != 1 || rep.Images.List[0].Alt != nil {
		t.Errorf("Images = %+v, want one image without alt", rep.Images)
	}
	rep = analyzeFixture(t, "images/alt_missing_decorative.html", "", nil, nil)
	if f := finding(rep, "images.alt_missing"); f == nil || f.Occurrences() != 1 || f.Evidence.Value != "/img/harbour.jpg" {
		t.Errorf("alt_missing = %+v, want the harbour photo alone, not the images marked decorative or hidden", f)
	}
	rep = analyzeFixture(t, "images/alt_missing_hidden_style.html", "", nil, nil)
	if f := finding(rep, "images.alt_missing"); f == nil || f.Occurrences() != 3 || f.Evidence.Value != "/img/quay.jpg" {
		t.Errorf("alt_missing = %+v, want the quay, the boats and the harbour (hidden by the stylesheet only), not the images an inline style hides", f)
	}
	if rep.Images.WithoutAlt != 8 {
		t.Errorf("Images.WithoutAlt = %d, want all 8 images: hidden ones still have no alt", rep.Images.WithoutAlt)
	}
	rep = analyzeFixture(t, "images/alt_duplicate.html", "", nil, nil)
	if f := finding(rep, "images.alt_duplicate"); f == nil || len(f.Evidence.URLs) != 2 {
		t.Errorf("alt_duplicate evidence = %+v, want both image URLs", f)
	}
}

// TestImagesFindingCap checks that a page full of images does not flood the
// report: one finding per ID that counts every occurrence and keeps
// MaxExamples examples, the rest counted in Truncated.
func TestImagesFindingCap(t *testing.T) {
	t.Parallel()
	var sb strings.Builder
	sb.WriteString(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Harbour plan: council debates new flats</title></head><body><h1>Gallery</h1>`)
	for i := range 40 {
		fmt.Fprintf(&sb, `<img src="/g/%d.jpg">`, i)
	}
	sb.WriteString(`</body></html>`)
	rep := analyzeString(t, sb.String(), "", nil, nil)
	n := 0
	for _, f := range rep.Findings {
		if f.ID == "images.alt_missing" {
			n++
			if f.Count != 40 || len(f.Examples) != DefaultMaxExamples || f.Evidence.URLs[0] == f.Examples[0].URLs[0] {
				t.Errorf("alt_missing ×%d with %d examples (%+v, then %+v), want ×40 with %d further ones", f.Count, len(f.Examples), f.Evidence, f.Examples, DefaultMaxExamples)
			}
		}
	}
	if n != 1 {
		t.Errorf("alt_missing reported in %d findings, want one", n)
	}
	// alt_missing and size_attrs_missing: 40 each, 1+5 each kept.
	if got := rep.Truncated["findings"]; got.Omitted != 68 {
		t.Errorf("Truncated[findings] = %+v with %d findings kept, want 68 omitted", got, len(rep.Findings))
	}
	if rep.Images.Total != 40 || rep.Images.WithoutAlt != 40 {
		t.Errorf("Images = %d/%d, want 40/40", rep.Images.Total, rep.Images.WithoutAlt)
	}
}

func TestAltLooksLikeFilename(t *testing.T) {
	t.Parallel()
	tests := []struct {
		alt, src string
		want     bool
	}{
		{"IMG_1234", "/a.jpg", true},
		{"DSC0001", "/a.jpg", true},
		{"PXL_20240501_101010123", "/a.jpg", true},
		{"Screenshot 2024-05-01 at 10.10.10", "/a.png", true},
		{"banner.png", "/b.png", true},
		{"team-photo", "/img/team-photo.jpg", true},
		{"Our team at the harbour", "/img/team-photo.jpg", false},
		{"Image of the new flats", "/a.jpg", false},
		{"Photo 1 of 3", "/a.jpg", false},
		{"A photo.jpg taken at night", "/a.jpg", false},
	}
	for _, tc := range tests {
		t.Run(tc.alt, func(t *testing.T) {
			if got := altLooksLikeFilename(strings.ToLower(tc.alt), tc.src) != ""; got != tc.want {
				t.Errorf("altLooksLikeFilename(%q, %q) = %v, want %v", tc.alt, tc.src, got, tc.want)
			}
		})
	}
}

// TestImagesListSources checks the sources Report.Images lists, which
// reuse the image resources' resolved URLs where their src trims to the
// same reference: each is the src as imageSrc reads it, resolved against
// the <base>, whether or not the element has a resource of its own.
func TestImagesListSources(t *testing.T) {
	t.Parallel()
	body := `<!doctype html><html><head><base href="/dir/"><title>t</title></head><body>
<img src=" a.png ">
<img data-src="lazy.png">
<svg><image href="svg.png"/></svg><svg><img src="out.png"></svg>
<img srcset="set.png 2x">
<img src="` + "\u00a0b.png\u00a0" + `">
<img src="data:image/png;base64,AAAA">
<img src="../c.png?q=%20#f">
<img src="https://cdn.example/d.png">
</body></html>`
	rep, err := AnalyzeHTML(context.Background(), "https://example.com/page", nil, []byte(body), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, im := range rep.Images.List {
		got = append(got, im.Src)
	}
	// An <img> in <svg> leaves it, as the parser ends foreign content
	// there; the svg <image> is no <img>. U+00A0 is white space to imageSrc's TrimSpace, not to the URL
	// parser: b.png is listed trimmed, as before the reuse.
	want := []string{"https://example.com/dir/a.png", "https://example.com/dir/lazy.png", "https://example.com/dir/out.png",
		"https://example.com/dir/set.png",
		"https://example.com/dir/b.png", "data:image/png;base64,AAAA", "https://example.com/c.png?q=%20#f", "https://cdn.example/d.png"}
	if !slices.Equal(got, want) {
		t.Errorf("Images.List sources\n got %q\nwant %q", got, want)
	}
}
