package logs

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/seokit/seokit/seo/robotstxt"
)

// TestWriteHTML renders testdata/mixed joined with its crawl: the page
// holds both charts as inline SVG with a line per bot, the bots with their
// verdicts and the join's lists with their counts, loads nothing and runs
// no script, and a hostile request target is escaped.
func TestWriteHTML(t *testing.T) {
	robots, err := os.ReadFile("testdata/mixed/robots.txt")
	if err != nil {
		t.Fatal(err)
	}
	hostile := `203.0.113.7 - - [02/Nov/2026:11:00:00 +0000] "GET /<script>alert(1)</script> HTTP/1.1" 200 10 "-" "Googlebot/2.1"` + "\n"
	inputs := append(mixedInputs(t), Reader("hostile", strings.NewReader(hostile)))
	rep, err := Analyze(context.Background(), inputs, &Options{Crawl: mixedCrawl(), Robots: robotstxt.Parse(robots)})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		"<svg", `aria-label="Bot hits per day"`, `aria-label="Responses per day by status class"`,
		"<td>Googlebot</td>", `id="join-orphans"`, "/&lt;script&gt;alert(1)&lt;/script&gt;", `id="join-disallowed"`, "Verification was off",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if n := strings.Count(page, "<polyline"); n < len(rep.Bots) {
		t.Errorf("%d polylines for %d bots and 4 status classes", n, len(rep.Bots))
	}
	for _, bad := range []string{"<script", "src=", "href=\"http"} {
		if strings.Contains(page, bad) {
			t.Errorf("page holds %q", bad)
		}
	}
	// The orphans heading carries the join's own counts.
	j := rep.Join
	if want := "Orphan URLs: fetched by bots, not found by the crawl: " + itoa(j.Orphans.URLs) + " URLs, " + itoa(j.Orphans.Hits) + " hits"; !strings.Contains(page, want) {
		t.Errorf("page lacks %q", want)
	}
	body, err := rep.HTMLBody()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(body), "<html") || !strings.Contains(string(body), `id="join-orphans"`) {
		t.Error("HTMLBody is not the page's body alone")
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
