package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/logs"
)

// bigLogReport is the report of a generated log that fills every list
// of a report to the caps of the server's parse (logs.Options' defaults):
// 450 days, 1,500 directories, 3,000 URLs, 8 bots, malformed lines, and a
// crawl join whose lists hold their full samples.
func bigLogReport(t *testing.T) []byte {
	t.Helper()
	uas := []string{
		googlebotUA,
		"Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
		"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.1; +https://openai.com/gptbot)",
		"Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)",
		"Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)",
		"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)",
		"Mozilla/5.0 (compatible; DuckDuckBot-Https/1.1; https://duckduckgo.com/duckduckbot)",
		"facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
		firefoxUA,
	}
	statuses := []int{200, 200, 200, 301, 404, 500}
	var b strings.Builder
	day0 := time.Date(2025, 9, 1, 10, 0, 0, 0, time.UTC)
	for i := range 60_000 {
		at := day0.AddDate(0, 0, i%450).Add(time.Duration(i) * time.Second % (12 * time.Hour))
		fmt.Fprintf(&b, "%s - - [%s] \"GET /section-%d/page-%d?ref=%d HTTP/1.1\" %d %d \"-\" \"%s\"\n",
			verifiedIP, at.Format("02/Jan/2006:15:04:05 -0700"), i%1500, i%3000, i%7, statuses[i%len(statuses)], 512+i%4096, uas[i%len(uas)])
		if i%2000 == 0 {
			b.WriteString("not a request line " + strings.Repeat("x", 300) + "\n")
		}
	}
	rep, err := logs.Analyze(context.Background(), []logs.Input{logs.Reader("big.log", strings.NewReader(b.String()))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sample := func(kind string) logs.URLList {
		l := logs.URLList{URLs: 500, Hits: 5000}
		for i := range 20 {
			l.Sample = append(l.Sample, logs.JoinURL{URL: fmt.Sprintf("https://oak.example/%s/page-%d", kind, i), Hits: int64(i), LogStatus: 200, CrawlStatus: 404})
		}
		return l
	}
	rep.Join = &logs.Join{Status: "complete", CrawlPages: 10_000, Orphans: sample("orphan"), NeverFetched: sample("never"),
		NonIndexable: sample("noindex"), Redirecting: sample("moved"), ClientErrors: sample("gone"), ServerErrors: sample("broken"),
		Parameters: sample("params")}
	for _, tok := range []string{"Googlebot", "bingbot", "GPTBot", "ClaudeBot"} {
		rep.Join.Disallowed = append(rep.Join.Disallowed, logs.Disallowed{Token: tok, Class: "search", URLList: sample("private-" + tok)})
	}
	out, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// storeLogReport stores a succeeded log upload of the project with report.
func storeLogReport(t *testing.T, a *testAPI, accountID, projectID string, report []byte) string {
	t.Helper()
	req, _ := json.Marshal(logRequest{ProjectID: projectID, Name: "big.log", Format: "combined"})
	now := time.Now()
	j := &store.Job{ID: logJobPrefix + randomID(24), AccountID: accountID, Kind: logJobKind, Status: store.JobSucceeded, Request: req,
		Result: report, CreatedAt: now, StartedAt: now, FinishedAt: now}
	if err := a.st.CreateJob(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	return j.ID
}

// TestLogReportAdmission: a page of a log report's list decodes the
// stored report as a report read of the admission control (it decoded
// outside it, any number at once): while the account's report read is
// held another is 429 at once naming the limit, another account's is
// served; it reserves logReportDecodeFactor times the stored size from
// the memory budget (with one byte less free it is refused 503). A page
// allocates no more than logReportDecodeFactor per report byte, and
// Logs.Report with the report's HTML in a page (the dashboard's read) no
// more than logReportHTMLFactor.
func TestLogReportAdmission(t *testing.T) {
	const wait = 200 * time.Millisecond
	a := newTestAPI(t, &Options{AllowPrivate: true, LogDir: t.TempDir(), Limits: map[store.Plan]int{store.Free: 10_000},
		Admission: &AdmissionOptions{Wait: wait}})
	p := a.createProject(a.key, `{"domain":"oak.example"}`)
	bAcct, bKey := a.account("b@example.com", store.Free, "read", "write")
	pb := a.createProject(bKey, `{"domain":"oak.example"}`)
	rep := bigLogReport(t)
	mine, theirs := storeLogReport(t, a, a.acct.ID, p.ID, rep), storeLogReport(t, a, bAcct.ID, pb.ID, rep)
	list := func(pid, id string) string { return "/v1/projects/" + pid + "/logs/" + id + "/lists/urls?limit=100" }

	hold, err := a.srv.adm.acquireSlot(context.Background(), KindReport, a.acct.ID, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	if e := apiErr(t, a.call("GET", list(p.ID, mine), a.key, ""), 429, CodeRateLimited); !strings.Contains(e.Message, "report reads") {
		t.Errorf("a list page while the account's report read is held: %q, want the report reads' limit", e.Message)
	}
	wantStatus(t, a.call("GET", list(pb.ID, theirs), bKey, ""), 200)
	hold()

	// The page reserves logReportDecodeFactor times the stored size: with
	// one byte less than that free it waits, then is refused.
	need := int64(len(rep)) * logReportDecodeFactor
	taken, err := a.srv.adm.mem.reserve(context.Background(), a.srv.adm.mem.total-need+1)
	if err != nil {
		t.Fatal(err)
	}
	apiErr(t, a.call("GET", list(p.ID, mine), a.key, ""), 503, CodeUnavailable)
	taken()
	taken, err = a.srv.adm.mem.reserve(context.Background(), a.srv.adm.mem.total-need)
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, a.call("GET", list(p.ID, mine), a.key, ""), 200)
	taken()
	if n := a.srv.adm.kinds[KindReport].inFlight.Load(); n != 0 {
		t.Errorf("%d report reads in flight after the answers, want 0", n)
	}

	// What a page and the dashboard's read (the report and its HTML)
	// allocate, per byte of stored report.
	measure := func(f func() error) float64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		before := ms.TotalAlloc
		if err := f(); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&ms)
		return float64(ms.TotalAlloc-before) / float64(len(rep))
	}
	ctx := context.Background()
	page := measure(func() error {
		_, err := a.srv.Logs().Page(ctx, a.acct.ID, p.ID, mine, "urls", 0, service.MaxList)
		return err
	})
	htmlRead := func() error {
		_, r, done, err := a.srv.Logs().Report(ctx, a.acct.ID, p.ID, mine)
		if err != nil {
			return err
		}
		defer done()
		h, err := r.HTMLBody()
		if err != nil {
			return err
		}
		// The dashboard's render buffers its page, HTML and all.
		var page bytes.Buffer
		_, err = io.Copy(&page, strings.NewReader(string(h)))
		return err
	}
	htmlRead() // the first parses the report's templates
	html := measure(htmlRead)
	t.Logf("a %d-byte log report: a list page allocated %.2f bytes per report byte (it reserves %d), the report with its HTML in a page %.2f (it reserves %d)",
		len(rep), page, logReportDecodeFactor, html, logReportHTMLFactor)
	if raceEnabled {
		return // the race detector allocates more
	}
	if page > logReportDecodeFactor {
		t.Errorf("a list page allocated %.2f bytes per report byte, more than the %d it reserves", page, logReportDecodeFactor)
	}
	if html > logReportHTMLFactor {
		t.Errorf("a report read with its HTML allocated %.2f bytes per report byte, more than the %d it reserves", html, logReportHTMLFactor)
	}
}
