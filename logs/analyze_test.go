package logs

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/compare"
	"github.com/seokit/seokit/seo/robotstxt"
)

// mixedInputs are testdata/mixed's three logs: combined, Cloudflare JSON
// lines gzipped on the fly, and IIS W3C.
func mixedInputs(t *testing.T) []Input {
	t.Helper()
	raw, err := os.ReadFile("testdata/mixed/cloudflare.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	gz := filepath.Join(t.TempDir(), "cloudflare.jsonl.gz")
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write(raw)
	_ = zw.Close()
	if err := os.WriteFile(gz, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return []Input{File("testdata/mixed/access.log"), File(gz), File("testdata/mixed/iis.log")}
}

// mixedCrawl is a crawl of the same site.
func mixedCrawl() compare.Source {
	page := func(u string, status int, indexable bool) crawler.PageSummary {
		return crawler.PageSummary{URL: "https://www.example.com" + u, Status: status, Indexable: indexable, Segment: "all"}
	}
	return compare.Report(&crawler.SiteReport{Pages: []crawler.PageSummary{
		page("/", 200, true), page("/blog/post-1", 200, true), page("/blog/post-2", 500, false),
		page("/old", 301, false), page("/noindex", 200, false), page("/never", 200, true), page("/private/a", 200, true),
	}})
}

// TestAnalyzeKnownAnswers reads three logs of three formats with verified,
// spoofed and unverifiable bots, people and malformed lines, joins them with
// a crawl and robots.txt, and checks every count against the answers
// worked out by hand from testdata/mixed.
func TestAnalyzeKnownAnswers(t *testing.T) {
	d := verifyDNS(t)
	robots, err := os.ReadFile("testdata/mixed/robots.txt")
	if err != nil {
		t.Fatal(err)
	}
	opts := &Options{
		Verifier: NewVerifier(&VerifierOptions{Resolver: NewDNSResolver(d.addr), Ranges: DirRanges("testdata/ranges"), LookupTimeout: 10 * time.Second}),
		Crawl:    mixedCrawl(),
		Robots:   robotstxt.Parse(robots),
	}
	rep, err := Analyze(context.Background(), mixedInputs(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	var formats []Format
	for _, in := range rep.Inputs {
		if in.Error != "" {
			t.Fatalf("input %s: %s", in.Name, in.Error)
		}
		formats = append(formats, in.Format)
	}
	if diff := cmp.Diff([]Format{FormatCombined, FormatJSON, FormatW3C}, formats); diff != "" {
		t.Errorf("formats sniffed (-want +got):\n%s", diff)
	}
	if rep.Lines != 19 || rep.Requests != 15 || rep.Malformed != 2 {
		t.Errorf("lines %d, requests %d, malformed %d; want 19, 15, 2", rep.Lines, rep.Requests, rep.Malformed)
	}
	wantTotals := Totals{Hits: 15, Bytes: 5120*5 + 8000 + 120 + 3000*2 + 900 + 4000 + 200 + 2048,
		BotHits: 13, VerifiedHits: 8, SpoofedHits: 3, UnverifiableHits: 2, RobotsFetches: 1}
	if diff := cmp.Diff(wantTotals, rep.Totals); diff != "" {
		t.Errorf("totals (-want +got):\n%s", diff)
	}
	type row struct {
		Hits, Verified, Spoofed, Unverifiable int64
	}
	got := map[string]row{}
	for _, b := range rep.Bots {
		got[b.Bot.Token] = row{b.Hits, b.Verified, b.Spoofed, b.Unverifiable}
	}
	want := map[string]row{
		"Googlebot":   {Hits: 5, Verified: 5, Spoofed: 2},
		"GPTBot":      {Hits: 2, Verified: 2, Spoofed: 1},
		"ClaudeBot":   {Hits: 1, Unverifiable: 1},
		"Claude-User": {Hits: 1, Unverifiable: 1},
		"bingbot":     {Hits: 1, Verified: 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("bots (-want +got):\n%s", diff)
	}
	// Spoofed Googlebot hits are not Googlebot's: its status mix, bytes
	// and days count the five verified hits only.
	g := rep.Bots[slices.IndexFunc(rep.Bots, func(b BotStats) bool { return b.Bot.Token == "Googlebot" })]
	if g.Status != (StatusMix{S2xx: 4, S5xx: 1}) || g.Bytes != 5120+8000+120+2048 || g.DistinctURLs.Value != 5 || g.RobotsFetches != 1 {
		t.Errorf("Googlebot stats = %+v", g.Stats)
	}
	if len(g.Days) != 2 || g.Days[0].Date != "2026-11-01" || g.Days[0].Hits != 3 || g.Days[1].Hits != 2 {
		t.Errorf("Googlebot days = %+v", g.Days)
	}
	if g.MeanResponseMS == nil || *g.MeanResponseMS != 75 || g.ResponseTimes != 2 {
		t.Errorf("Googlebot mean response = %v over %d, want 75 ms over 2 (30 ms JSON, 120 ms IIS)", g.MeanResponseMS, g.ResponseTimes)
	}
	if len(g.SpoofedSample) != 1 || g.SpoofedSample[0].IP != "203.0.113.9" || g.SpoofedSample[0].Hits != 2 {
		t.Errorf("Googlebot spoofed sample = %+v", g.SpoofedSample)
	}
	if g.PeakHour != 8 || g.FirstSeen.Hour() != 8 || g.LastSeen.Format(time.DateTime) != "2026-11-02 10:00:00" {
		t.Errorf("Googlebot peak hour %d, first %v, last %v", g.PeakHour, g.FirstSeen, g.LastSeen)
	}
	dirs := map[string]int64{}
	for _, d := range rep.Directories {
		dirs[d.Dir] = d.Hits
	}
	if diff := cmp.Diff(map[string]int64{"/": 5, "/blog/": 3, "/private/": 2}, dirs); diff != "" {
		t.Errorf("directories (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]HostStats{{Host: "www.example.com", Hits: 2}}, rep.Hosts); diff != "" {
		t.Errorf("hosts (-want +got):\n%s", diff)
	}
	classes := map[string]int64{}
	for _, c := range rep.Classes {
		classes[string(c.Class)] = c.Hits
	}
	if diff := cmp.Diff(map[string]int64{"search": 6, "ai_training": 3, "user_fetcher": 1, "none": 2}, classes); diff != "" {
		t.Errorf("classes (-want +got):\n%s", diff)
	}

	j := rep.Join
	if j == nil || j.Status != "complete" || j.CrawlPages != 7 {
		t.Fatalf("join = %+v", j)
	}
	urls := func(l URLList) []string {
		var out []string
		for _, u := range l.Sample {
			out = append(out, u.URL)
		}
		slices.Sort(out)
		return out
	}
	checks := []struct {
		name string
		l    URLList
		urls []string
		hits int64
	}{
		{"orphans", j.Orphans, []string{"/blog/", "/orphan", "/search?q=x"}, 3},
		{"never fetched", j.NeverFetched, []string{"/never", "/private/a"}, 0},
		{"redirecting", j.Redirecting, []string{"/old"}, 1},
		{"server errors", j.ServerErrors, []string{"/blog/post-2"}, 1},
		{"parameters", j.Parameters, []string{"/search?q=x"}, 1},
		{"non-indexable", j.NonIndexable, nil, 0},
	}
	for _, c := range checks {
		if diff := cmp.Diff(c.urls, urls(c.l)); diff != "" || c.l.Hits != c.hits || c.l.URLs != int64(len(c.urls)) {
			t.Errorf("%s: %d URLs, %d hits, want %d hits; URLs (-want +got):\n%s", c.name, c.l.URLs, c.l.Hits, c.hits, diff)
		}
	}
	if len(j.Disallowed) != 1 || j.Disallowed[0].Token != "GPTBot" || j.Disallowed[0].Hits != 2 || !j.Disallowed[0].AI ||
		j.Disallowed[0].Sample[0].Rule != "line 2: Disallow: /private/" {
		t.Errorf("disallowed = %+v", j.Disallowed)
	}
	var ids []string
	for _, f := range rep.Findings {
		ids = append(ids, f.ID)
	}
	slices.Sort(ids)
	wantIDs := []string{"logs.ai_bot_ignores_robots", "logs.crawl_waste", "logs.indexable_not_crawled", "logs.malformed_lines",
		"logs.orphan_urls", "logs.search_bot_5xx", "logs.spoofed_bot", "logs.spoofed_bot"}
	if diff := cmp.Diff(wantIDs, ids); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	if rep.MalformedReasons["line does not match the format"] != 1 || rep.MalformedReasons["status is not a 3-digit code"] != 1 {
		t.Errorf("malformed reasons = %v", rep.MalformedReasons)
	}
}

// TestAnalyzeHostile feeds inputs a stranger could send: one line far over
// the cap, binary garbage, a gzip bomb cut by the context, an unreadable
// file. Each is counted or reported, and the next input is still read.
func TestAnalyzeHostile(t *testing.T) {
	long := strings.Repeat("A", 1<<20) + "\n"
	garbage := make([]byte, 64<<10)
	for i := range garbage {
		garbage[i] = byte(i*7 + i>>8)
	}
	good := newGenLog(10, false)
	rep, err := Analyze(context.Background(), []Input{
		Reader("long", strings.NewReader(newGenLog(1, false).line(0)+long)),
		Reader("garbage", bytes.NewReader(garbage)),
		File("testdata/does-not-exist.log"),
		Reader("good", good),
	}, &Options{Format: FormatCombined, MaxLineBytes: 4096})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Inputs[0].Requests != 1 || rep.Inputs[0].Malformed != 1 || rep.MalformedReasons["line too long"] != 1 {
		t.Errorf("long line: %+v, reasons %v", rep.Inputs[0], rep.MalformedReasons)
	}
	if rep.Inputs[1].Requests != 0 || rep.Inputs[1].Malformed == 0 {
		t.Errorf("garbage: %+v", rep.Inputs[1])
	}
	if rep.Inputs[2].Error == "" {
		t.Errorf("missing file: no error recorded")
	}
	if rep.Inputs[3].Requests != 10 {
		t.Errorf("good input after the others: %+v", rep.Inputs[3])
	}
	for _, s := range rep.MalformedSample {
		if len(s.Text) > 210 {
			t.Errorf("sample of %d bytes kept", len(s.Text))
		}
	}

	// A gzip bomb: a few KB that inflate to endless zeros (no newline).
	// The reader skips the endless line without holding it.
	var bomb bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&bomb, gzip.BestCompression)
	zeros := make([]byte, 1<<20)
	for range 64 {
		_, _ = zw.Write(zeros)
	}
	_ = zw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var progress []Progress
	rep, err = Analyze(ctx, []Input{Reader("bomb", bytes.NewReader(bomb.Bytes()))}, &Options{Format: FormatCombined, Progress: func(p Progress) { progress = append(progress, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Malformed != 1 || rep.MalformedReasons["line too long"] != 1 || rep.Inputs[0].Bytes != int64(bomb.Len()) {
		t.Errorf("gzip bomb (%d bytes inflating to 64 MiB): %+v, reasons %v", bomb.Len(), rep.Inputs[0], rep.MalformedReasons)
	}
	if len(progress) != 1 || !progress[0].Done {
		t.Errorf("progress = %+v", progress)
	}
}

// TestMalformedSampleHashed: with HashAddress (the server's reports), a
// malformed line's text is not kept, since the address of a person (no
// bot) in it could not be hashed; without it, the text is the sample.
func TestMalformedSampleHashed(t *testing.T) {
	const person = "203.0.113.77"
	log := person + ` - - [31/Feb/2026:99:99:99 +0000] "GET /account?email=ann@example.com HTTP/1.1" 200 1 "-" "Mozilla/5.0 Firefox/120.0"` + "\n"
	for _, hashed := range []bool{false, true} {
		o := &Options{Format: FormatCombined}
		if hashed {
			o.HashAddress = func(netip.Addr) string { return "hmac:0000000000000000" }
		}
		rep, err := Analyze(context.Background(), []Input{Reader("access.log", strings.NewReader(log))}, o)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.MalformedSample) != 1 || rep.MalformedSample[0].Line != 1 || rep.MalformedSample[0].Reason == "" {
			t.Fatalf("hashed %v: sample %+v; want line 1 with its reason", hashed, rep.MalformedSample)
		}
		b, _ := json.Marshal(rep)
		if got := bytes.Contains(b, []byte(person)); got == hashed {
			t.Errorf("hashed %v: the report holds the address %v; want %v", hashed, got, !hashed)
		}
	}
}

// TestAnalyzeStops checks that a cancelled context stops the read and
// returns what was counted, marked stopped.
func TestAnalyzeStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := &Options{ProgressLines: 10_000, Progress: func(p Progress) {
		if p.Lines == 20_000 {
			cancel()
		}
	}}
	rep, err := Analyze(ctx, []Input{Reader("gen", newGenLog(10_000_000, false))}, opts)
	if err == nil || rep.Status != "stopped" {
		t.Fatalf("err %v, status %q", err, rep.Status)
	}
	if rep.Lines < 20_000 || rep.Lines > 20_000+batchLines {
		t.Fatalf("read %d lines after cancelling at 20,000 (batches of %d)", rep.Lines, batchLines)
	}
	if rep.Requests != rep.Lines || rep.Inputs[0].Requests != rep.Lines {
		t.Fatalf("%d lines read, %d requests counted (%d in the input's stats)", rep.Lines, rep.Requests, rep.Inputs[0].Requests)
	}
}

// TestJoinRobotsUnavailable checks that a robots.txt that could not be had
// (which disallows everything) judges no bot's fetch.
func TestJoinRobotsUnavailable(t *testing.T) {
	rep, err := Analyze(context.Background(), mixedInputs(t), &Options{Crawl: mixedCrawl(), Robots: robotstxt.FromStatus(503, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if j := rep.Join; j == nil || j.Disallowed != nil || !strings.Contains(j.DisallowedReason, "status 503") {
		t.Fatalf("join = %+v", rep.Join)
	}
}

// repeatReader yields n copies of byte c.
type repeatReader struct {
	c byte
	n int64
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	k := min(int64(len(p)), r.n)
	for i := range k {
		p[i] = r.c
	}
	r.n -= k
	return int(k), nil
}

// TestAnalyzeHugeLine streams one line of 100 MB between two good lines
// with the default caps: it is counted as too long, the next line is read,
// and the allocations while reading it stay far below its size (the line
// is never held).
func TestAnalyzeHugeLine(t *testing.T) {
	g := newGenLog(2, false)
	in := io.MultiReader(strings.NewReader(g.line(0)), &repeatReader{c: 'A', n: 100 << 20}, strings.NewReader("\n"+g.line(1)))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	rep, err := Analyze(context.Background(), []Input{Reader("huge", in)}, nil)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Lines != 3 || rep.Requests != 2 || rep.MalformedReasons["line too long"] != 1 {
		t.Fatalf("lines %d, requests %d, reasons %v", rep.Lines, rep.Requests, rep.MalformedReasons)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("allocated %.1f MiB reading a 100 MiB line", float64(alloc)/(1<<20))
	if alloc > 16<<20 {
		t.Fatalf("allocated %d bytes reading a 100 MiB line", alloc)
	}
}

// TestAnalyzeCaps checks the remainders of the caps: with one URL tracked
// and one day kept (verification off: 13 bot hits on 9 URLs, 3 requests
// on the second day), the other URLs' hits and the other day's hits are
// counted apart, and the join says it is partial.
func TestAnalyzeCaps(t *testing.T) {
	rep, err := Analyze(context.Background(), mixedInputs(t), &Options{MaxURLs: 1, MaxDays: 1, Crawl: mixedCrawl()})
	if err != nil {
		t.Fatal(err)
	}
	if rep.URLsTracked != 1 || rep.OtherURLs.Hits != 13-rep.URLs[0].Hits || rep.OtherURLs.URLs.Value != 8 {
		t.Errorf("tracked %d, top %+v, other %+v", rep.URLsTracked, rep.URLs, rep.OtherURLs)
	}
	if len(rep.Days) != 1 || rep.Days[0].Date != "2026-11-01" || rep.HitsOutsideDays != 3 {
		t.Errorf("days %+v, hits outside %d; want 2026-11-01 and 3 hits of 2026-11-02", rep.Days, rep.HitsOutsideDays)
	}
	if rep.Join == nil || rep.Join.Status != "partial" || !strings.Contains(rep.Join.Reason, "beyond the 1 tracked") {
		t.Errorf("join %+v", rep.Join)
	}
}

// TestEmptyReportJSON checks that an empty log gives empty lists, not null
// (which would mean "not computed"), and no join.
func TestEmptyReportJSON(t *testing.T) {
	rep, err := Analyze(context.Background(), []Input{Reader("empty", strings.NewReader(""))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"inputs", "classes", "bots", "days", "urls", "directories", "findings"} {
		if !strings.Contains(string(b), `"`+k+`":[`) {
			t.Errorf("%s is not a list in %s", k, b)
		}
	}
	if !strings.Contains(string(b), `"join":null`) {
		t.Errorf("join is not null in %s", b)
	}
}
