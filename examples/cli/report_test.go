package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/keywords"
	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/memstore"
	"github.com/seokit/seokit/reports"
)

// runCLI runs the command line with args and returns its exit code and
// output.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, &out, &errOut)
	if err != nil {
		errOut.WriteString(err.Error())
	}
	return exitCode(err), out.String(), errOut.String()
}

// fixedClock sets the commands' clock to day (at noon UTC) for one test.
func fixedClock(t *testing.T, day string) {
	t.Helper()
	d, err := time.Parse("2006-01-02", day)
	if err != nil {
		t.Fatal(err)
	}
	old := now
	now = func() time.Time { return d.Add(12 * time.Hour) }
	t.Cleanup(func() { now = old })
}

// TestNewUserFlow is a user without any provider account: they import a
// Keyword Planner download and two Search Console exports, then get
// suggestions, rankings and a report from them.
func TestNewUserFlow(t *testing.T) {
	fixedClock(t, "2026-02-01")
	db := filepath.Join(t.TempDir(), "seokit-data.db")

	code, out, errOut := runCLI(t, "keywords", "import", "-db", db, "testdata/keyword-planner.csv")
	if code != 0 {
		t.Fatalf("import keyword planner: %d %s", code, errOut)
	}
	for _, want := range []string{"keyword-planner format, 5 keywords imported, 2 lines skipped", "line 8:", "line 9:"} {
		if !strings.Contains(out, want) {
			t.Errorf("keyword planner import output lacks %q:\n%s", want, out)
		}
	}
	code, out, errOut = runCLI(t, "keywords", "import", "-db", db, "-format", "search-console", "testdata/gsc-queries-2026-01-31.csv")
	if code != 0 || !strings.Contains(out, "4 keywords imported, 0 lines skipped") {
		t.Fatalf("import search console: %d %s %s", code, out, errOut)
	}

	code, out, errOut = runCLI(t, "keywords", "suggest", "-db", db, "-json", "-limit", "20", "running", "shoes")
	if code != 0 {
		t.Fatalf("suggest: %d %s", code, errOut)
	}
	var sug keywords.Suggestions
	if err := json.Unmarshal([]byte(out), &sug); err != nil {
		t.Fatal(err)
	}
	vols := map[string]int{}
	for _, k := range sug.Suggestions {
		if k.Volume != nil {
			vols[k.Keyword] = *k.Volume
		}
	}
	if vols["trail running shoes"] != 9900 || vols["running shoes for flat feet"] != 6600 {
		t.Errorf("suggestions lack the imported volumes: %v", vols)
	}

	for _, day := range []string{"2026-01-15", "2026-01-31"} {
		code, out, errOut = runCLI(t, "rankings", "track", "-db", db, "-domain", "example.com",
			"-import-gsc", "testdata/gsc-queries-"+day+".csv", "-date", day)
		if code != 0 {
			t.Fatalf("import gsc %s: %d %s %s", day, code, out, errOut)
		}
		if !strings.Contains(out, "4 queries imported") {
			t.Errorf("import gsc %s output: %s", day, out)
		}
		if day == "2026-01-31" && !strings.Contains(out, "since the export of 2026-01-15: 1 improved, 1 declined, 1 unchanged, 1 new, 1 lost") {
			t.Errorf("second import does not compare with the first: %s", out)
		}
	}

	html := filepath.Join(t.TempDir(), "report.html")
	code, out, errOut = runCLI(t, "report", "-db", db, "-domain", "example.com", "-start", "2026-01-01", "-end", "2026-01-31", "-json", "-html", html)
	if code != 0 {
		t.Fatalf("report: %d %s", code, errOut)
	}
	var rep reports.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	r := rep.Metrics.Rankings
	// End-date positions: trail 3.2, flat feet 14.5, clean 3.0, waterproof
	// 9.1 (2026-01-31 export); barefoot (only in the 2026-01-15 export) is
	// lost, waterproof (only in the 2026-01-31 one) new.
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"tracked", r.Tracked, 5}, {"ranked", r.Ranked, 4}, {"top3", r.Top3, 1}, {"top10", r.Top10, 3},
		{"top20", r.Top20, 4}, {"improved", r.Improved, 1}, {"declined", r.Declined, 1}, {"unchanged", r.Unchanged, 1},
		{"new", r.New, 1}, {"lost", r.Lost, 1}, {"not ranked", r.NotRanked, 1},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	// 100 * (9900*CTR(3.2) + 6600*CTR(14.5) + 1300*CTR(3) + 1900*CTR(9.1) + 2900*0) / (22600*CTR(1))
	// = 100 * (950.4 + 31.35 + 132.6 + 35.53) / 8994.8
	if v := rep.Metrics.Visibility; v == nil || *v != 12.78 || rep.Metrics.VisibilityWeights != "volume" {
		t.Errorf("visibility %v (%s), want 12.78 (volume)", v, rep.Metrics.VisibilityWeights)
	}
	if tr := rep.Metrics.Traffic; tr.EstimatedMonthlyClicks == nil || *tr.EstimatedMonthlyClicks != 1149.9 || !tr.Estimated {
		t.Errorf("traffic %+v, want an estimate of 1149.9 clicks/month", tr)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(page, []byte("<svg")) || !bytes.Contains(page, []byte("<polyline")) || bytes.Contains(page, []byte("<script")) {
		t.Errorf("html report without charts or with scripts")
	}

	code, out, _ = runCLI(t, "report", "-db", db, "-domain", "example.com", "-start", "2026-01-01", "-end", "2026-01-31")
	if code != 0 || !strings.Contains(out, "Visibility    12.78 / 100") || !strings.Contains(out, "trail running shoes") {
		t.Errorf("text report: %d\n%s", code, out)
	}
}

// TestReportNotMeasured: tracked keywords never checked print "not
// measured" with the reason, never a visibility or position of 0.
func TestReportNotMeasured(t *testing.T) {
	t.Parallel()
	st := memstore.New(nil)
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var ts []rankings.Tracked
	for _, k := range []string{"green tea", "black tea"} {
		ts = append(ts, rankings.Tracked{Domain: "example.com", Keyword: k, Device: rankings.Desktop, AddedAt: day})
	}
	if err := st.Track(context.Background(), ts); err != nil {
		t.Fatal(err)
	}
	b := reports.New(st, nil, &reports.Options{Now: func() time.Time { return day.AddDate(0, 1, 0) }})
	rep, err := b.Build(context.Background(), "example.com", day, day.AddDate(0, 0, 6), nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	printPerformanceReport(&buf, rep, "")
	out := buf.String()
	for _, want := range []string{
		"Visibility    not measured (no keyword checked in the range)",
		"Average pos.  not measured (no keyword checked in the range)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "0.00 / 100") {
		t.Errorf("report shows a visibility of 0:\n%s", out)
	}
}

func TestReportBadInput(t *testing.T) {
	fixedClock(t, "2026-02-01")
	db := filepath.Join(t.TempDir(), "seokit-data.db")
	for _, c := range []struct {
		name string
		args []string
		msg  string
	}{
		{"start after end", []string{"-domain", "example.com", "-start", "2026-01-31", "-end", "2026-01-01"}, "invalid start: is after end"},
		{"not YYYY-MM-DD", []string{"-domain", "example.com", "-start", "01/01/2026", "-end", "2026-01-31"}, "invalid start: must be a calendar date written YYYY-MM-DD"},
		{"ten years", []string{"-domain", "example.com", "-start", "2016-01-01", "-end", "2026-01-01"}, "invalid end: range of 3654 days is longer than the limit of 366 days"},
		{"future start", []string{"-domain", "example.com", "-start", "2026-03-01", "-end", "2026-03-02"}, "invalid start: is in the future"},
		{"no domain", []string{"-start", "2026-01-01", "-end", "2026-01-31"}, "-domain is required"},
		{"bad domain", []string{"-domain", "not a domain", "-start", "2026-01-01", "-end", "2026-01-31"}, "invalid domain"},
		{"bad curve", []string{"-domain", "example.com", "-ctr-model", "made-up"}, "unknown CTR curve"},
		{"bad device", []string{"-domain", "example.com", "-device", "tablet"}, "must be desktop or mobile"},
		{"bad locale", []string{"-domain", "example.com", "-locale", "english"}, "invalid locale"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, append([]string{"report", "-db", db}, c.args...)...)
			if code != 2 || !strings.Contains(errOut, c.msg) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut, c.msg)
			}
		})
	}
}

func TestReportClampsAndDefaults(t *testing.T) {
	fixedClock(t, "2026-02-01")
	db := filepath.Join(t.TempDir(), "seokit-data.db")
	code, out, errOut := runCLI(t, "report", "-db", db, "-domain", "example.com", "-json")
	if code != 0 {
		t.Fatalf("%d %s", code, errOut)
	}
	var rep reports.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Start != "2026-01-03" || rep.End != "2026-02-01" {
		t.Errorf("default range %s..%s, want the last 30 days 2026-01-03..2026-02-01", rep.Start, rep.End)
	}
	code, out, _ = runCLI(t, "report", "-db", db, "-domain", "example.com", "-start", "2026-01-20", "-end", "2026-02-20")
	if code != 0 || !strings.Contains(out, "asked until 2026-02-20; clamped to today") {
		t.Errorf("clamped report: %d %s", code, out)
	}
}
