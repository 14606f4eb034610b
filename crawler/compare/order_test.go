package compare_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/compare"
)

// TestChangedPagesStatusFirst proves a page that went 200 -> 404 leads the
// changed pages, and survives the cap, however many score moves sort
// before it by URL; and that the text diff prints numbers unquoted and
// titles quoted.
func TestChangedPagesStatusFirst(t *testing.T) {
	old := &crawler.SiteReport{Domain: "example.com"}
	cur := &crawler.SiteReport{Domain: "example.com"}
	for i := range 200 {
		u := fmt.Sprintf("https://example.com/a/%03d", i)
		old.Pages = append(old.Pages, crawler.PageSummary{URL: u, Status: 200, IsHTML: true, Score: ptr(80)})
		cur.Pages = append(cur.Pages, crawler.PageSummary{URL: u, Status: 200, IsHTML: true, Score: ptr(70)})
	}
	old.Pages = append(old.Pages,
		crawler.PageSummary{URL: "https://example.com/z/gone", Status: 200, IsHTML: true, Title: "Oak tables"},
		crawler.PageSummary{URL: "https://example.com/y/noindex", Status: 200, IsHTML: true, Indexable: true})
	cur.Pages = append(cur.Pages,
		crawler.PageSummary{URL: "https://example.com/z/gone", Status: 404, IsHTML: true, Title: "Not found"},
		crawler.PageSummary{URL: "https://example.com/y/noindex", Status: 200, IsHTML: true, Noindex: true})
	d := compare.Reports(old, cur, &compare.Options{MaxChangedPages: 10})
	if d.ChangedPages != 202 || len(d.Changed) != 10 {
		t.Fatalf("changed = %d, %d kept; want 202, 10", d.ChangedPages, len(d.Changed))
	}
	if d.Changed[0].URL != "https://example.com/z/gone" || d.Changed[1].URL != "https://example.com/y/noindex" || d.Changed[2].URL != "https://example.com/a/000" {
		t.Errorf("order = %s, %s, %s; want the status change, the indexability change, then by URL",
			d.Changed[0].URL, d.Changed[1].URL, d.Changed[2].URL)
	}
	var b strings.Builder
	if err := d.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, want := range []string{"status       200 → 404", `title        "Oak tables" → "Not found"`, "score        80 → 70"} {
		if !strings.Contains(text, want) {
			t.Errorf("text diff lacks %q:\n%s", want, text)
		}
	}
	if strings.Index(text, "/z/gone") > strings.Index(text, "/a/000") {
		t.Error("text diff lists a score move before the status change")
	}
}

func ptr(n int) *int { return &n }
