package reports_test

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/reports"
)

func TestWriteHTML(t *testing.T) {
	t.Parallel()
	st := sample()
	evil := obs(`<script>alert(1)</script>`, "2026-01-02", pos(4))
	evil.URL = `https://example.com/"><img src=x onerror=alert(1)>`
	st.obs = append(st.obs, evil)
	b := reports.New(st, sampleVolumes(), &reports.Options{Now: fixedNow})
	rep, err := b.Build(context.Background(), "example.com", date("2026-01-01"), date("2026-01-03"), &reports.BuildOptions{History: true})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := reports.WriteHTML(&buf, rep, nil); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{
		"SEO performance report: example.com",
		"Visibility (0-100)", "Ranked and top-10 keywords", "Position history (1 at the top)",
		"<polyline", "91.24", // visibility tile
		"estimated</span> Monthly clicks</dt><dd>403.1",
		"fps-2024&#43;aol-2006", // html/template escapes +
		"&lt;script&gt;alert(1)&lt;/script&gt;",
		"no analytics source connected",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, bad := range []string{"<script", "<img", "ZgotmplZ", `src="http`, `href="http`, "@import"} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	// Position chart: "a" goes from 3 (day 1) to 1 (day 3); inverted axis,
	// so its last point is higher on the page (smaller y) than its first.
	re := regexp.MustCompile(`points="(\d+),(\d+) (\d+),(\d+) (\d+),(\d+)"><title>a</title>`)
	m := re.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no 3-day line for keyword a")
	}
	if !(m[6] < m[2]) || len(m[6]) > len(m[2]) {
		t.Errorf("position 1 is not above position 3: first y %s, last y %s", m[2], m[6])
	}
}

func TestWriteHTMLMeasuredAndEmpty(t *testing.T) {
	t.Parallel()
	clicks := 42
	src := trafficSource{t: &reports.Traffic{Source: "searchconsole", Clicks: &clicks}}
	rep, err := reports.New(&memStore{}, nil, &reports.Options{Now: fixedNow, Traffic: src}).
		Build(context.Background(), "example.com", date("2026-01-01"), date("2026-01-01"), nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := reports.WriteHTML(&buf, rep, nil); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{"measured</span> Clicks</dt><dd>42", "No position history", "no traffic estimate"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if err := reports.WriteHTML(&buf, &reports.Report{}, nil); err == nil {
		t.Error("a report without metrics was written")
	}
}

// TestWriteHTMLNotMeasured: a report of keywords never checked shows
// "not measured" with the reason, not a visibility of 0.00.
func TestWriteHTMLNotMeasured(t *testing.T) {
	t.Parallel()
	st := &memStore{}
	st.tracked = []rankings.Tracked{{Domain: "example.com", Keyword: "a", Locale: enUS, Device: rankings.Desktop, AddedAt: date("2025-12-31")}}
	rep, err := reports.New(st, sampleVolumes(), &reports.Options{Now: fixedNow}).
		Build(context.Background(), "example.com", date("2026-01-01"), date("2026-01-03"), nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := reports.WriteHTML(&buf, rep, nil); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{
		`<div class="num">not measured</div><div class="lbl">Visibility / 100 (no keyword checked in the range)`,
		`<div class="num">not measured</div><div class="lbl">Average position (ranked): no keyword checked in the range`,
		"Monthly clicks</dt><dd>not measured",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, ">0.00<") {
		t.Error("page shows a visibility of 0.00")
	}
}
