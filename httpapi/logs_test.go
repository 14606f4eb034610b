package httpapi

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/plans"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/storetest"
	"github.com/seokit/seokit/logs"
	"github.com/seokit/seokit/monitor"
)

// logSite is a small site: / links to /a and /moved (a redirect to /a);
// /orphan and /private/x answer but nothing links to them; robots.txt
// disallows /private/ to Googlebot.
func logSite(t *testing.T) *httptest.Server {
	t.Helper()
	page := func(title, body string) string {
		return `<!doctype html><html lang="en"><head><title>` + title + `</title><meta name="description" content="` + title +
			` page of the log test site"></head><body><h1>` + title + `</h1>` + body + `</body></html>`
	}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			io.WriteString(w, "User-agent: Googlebot\nDisallow: /private/\n\nUser-agent: *\nAllow: /\n")
		case "/":
			io.WriteString(w, page("Home", `<a href="/a">A</a> <a href="/moved">Moved</a>`))
		case "/a":
			io.WriteString(w, page("A", `<a href="/">Home</a>`))
		case "/moved":
			http.Redirect(w, r, "/a", http.StatusMovedPermanently)
		case "/orphan", "/private/x":
			io.WriteString(w, page("Hidden", `<a href="/">Home</a>`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(site.Close)
	return site
}

// logVerifier verifies Googlebot by local copies of Google's range files
// (66.249.64.0/27), without DNS.
func logVerifier(t *testing.T) *logs.Verifier {
	t.Helper()
	dir := t.TempDir()
	const ranges = `{"creationTime": "2026-11-30T23:00:02.000000", "prefixes": [{"ipv4Prefix": "66.249.64.0/27"}]}`
	for _, n := range []string{"google-common", "google-special", "google-user", "google-user-g"} {
		if err := os.WriteFile(filepath.Join(dir, n+".json"), []byte(ranges), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return logs.NewVerifier(&logs.VerifierOptions{Ranges: logs.DirRanges(dir), DisableDNS: true})
}

// combinedLine is one combined-format line of 2026-12-01.
func combinedLine(ip, path string, status int, ua string, sec int) string {
	return fmt.Sprintf("%s - - [01/Dec/2026:10:%02d:%02d +0000] \"GET %s HTTP/1.1\" %d 512 \"-\" \"%s\"\n", ip, sec/60, sec%60, path, status, ua)
}

const (
	googlebotUA = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
	firefoxUA   = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
	verifiedIP  = "66.249.64.5"
	spoofIP     = "203.0.113.50"
	humanIP     = "198.51.100.23"
)

// testLog is the log of the join test: verified Googlebot hits on / (2),
// /a (5), /orphan (3), /moved (4) and /private/x (2), a spoofed Googlebot
// on /a (6) and a person on / (10).
func testLog() string {
	var b strings.Builder
	n := 0
	add := func(ip, path string, status, times int, ua string) {
		for range times {
			b.WriteString(combinedLine(ip, path, status, ua, n))
			n++
		}
	}
	add(verifiedIP, "/", 200, 2, googlebotUA)
	add(verifiedIP, "/a", 200, 5, googlebotUA)
	add(verifiedIP, "/orphan", 200, 3, googlebotUA)
	add(verifiedIP, "/moved", 301, 4, googlebotUA)
	add(verifiedIP, "/private/x", 200, 2, googlebotUA)
	add(spoofIP, "/a", 200, 6, googlebotUA)
	add(humanIP, "/", 200, 10, firefoxUA)
	return b.String()
}

func gzipped(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.Bytes()
}

// upload posts body as a log of project pid.
func (a *testAPI) upload(key, pid, query string, body []byte) *http.Response {
	a.t.Helper()
	r, err := http.NewRequest("POST", "/v1/projects/"+pid+"/logs"+query, bytes.NewReader(body))
	if err != nil {
		a.t.Fatal(err)
	}
	r.Header.Set("Content-Type", "application/octet-stream")
	r.Header.Set("X-API-Key", key)
	return a.do(r)
}

// waitLog polls the log upload until its parse has ended or 30 s pass.
func waitLog(t *testing.T, a *testAPI, key, pid, id string) (service.LogJob, []byte) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp := a.call("GET", "/v1/projects/"+pid+"/logs/"+id, key, "")
		wantStatus(t, resp, 200)
		b, _ := io.ReadAll(resp.Body)
		var j service.LogJob
		if err := json.Unmarshal(b, &j); err != nil {
			t.Fatal(err)
		}
		if j.Status != "queued" && j.Status != "running" {
			return j, b
		}
		if time.Now().After(deadline) {
			t.Fatalf("log parse never ended: %s", b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestLogUploadJoinedWithCrawl uploads a gzip log to a project with a
// crawl: the parse runs as a job, verifies Googlebot by its ranges, and the
// report joins the log with the project's latest analysis (orphans,
// redirecting URLs, fetches robots.txt disallows) with the right counts;
// the report's lists page; client addresses of people are in no stored
// byte and spoofing addresses are stored only hashed with the project's
// key; log uploads stay out of the site-analysis list.
func TestLogUploadJoinedWithCrawl(t *testing.T) {
	site := logSite(t)
	host := hostOf(t, site.URL)
	spool := t.TempDir()
	a := newTestAPI(t, &Options{AllowPrivate: true, LogDir: spool, LogVerifier: logVerifier(t), Limits: map[store.Plan]int{store.Free: 10_000},
		AlertPollInterval: 20 * time.Millisecond})
	p := a.createProject(a.key, fmt.Sprintf(`{"domain":%q,"config":{"maxPages":10}}`, host))
	// Alert rules on bot behaviour: bot_disallowed fires on the joined log
	// (Googlebot fetched /private/x); bot_5xx_rising has one day of log
	// and no 5xx, so stays silent.
	hook := &hookReceiver{}
	disallowed := createRule(t, a, a.key, p.ID, fmt.Sprintf(`{"kind":"bot_disallowed","channel":"webhook","target":%q}`, newHook(t, hook)))
	quiet := &hookReceiver{}
	createRule(t, a, a.key, p.ID, fmt.Sprintf(`{"kind":"bot_5xx_rising","channel":"webhook","target":%q}`, newHook(t, quiet)))

	// Without a crawl, the report has no join and says why.
	resp := a.upload(a.key, p.ID, "?name=before.log", []byte(testLog()))
	wantStatus(t, resp, 202)
	var first service.LogJob
	readJSON(t, resp, &first)
	if first.Status != "queued" || first.Name != "before.log" || first.Bytes != int64(len(testLog())) || resp.Header.Get("Location") != first.Links.Self {
		t.Fatalf("upload answered %+v (Location %q)", first, resp.Header.Get("Location"))
	}
	j, _ := waitLog(t, a, a.key, p.ID, first.ID)
	if j.Status != "succeeded" || j.CrawlJob != "" || j.Summary == nil || j.Summary.Lines != 32 {
		t.Fatalf("parse without a crawl: %+v", j)
	}
	resp = a.call("GET", "/v1/projects/"+p.ID+"/logs/"+first.ID+"/lists/orphans", a.key, "")
	wantStatus(t, resp, 200)
	var pg service.LogPage
	readJSON(t, resp, &pg)
	if pg.Total != 0 || pg.Reason == "" || string(pg.Items) != "[]" {
		t.Errorf("orphans without a crawl: %+v; want none, with the reason", pg)
	}

	// The crawl, then the log again, gzip.
	resp = a.call("POST", "/v1/analyze/site", a.key, `{"projectId":"`+p.ID+`"}`)
	wantStatus(t, resp, 202)
	var crawl Job
	readJSON(t, resp, &crawl)
	if c := waitJob(t, a, a.key, crawl.ID, func(j Job) bool { return j.Status != "queued" && j.Status != "running" }); c.Status != "succeeded" {
		t.Fatalf("crawl %s: %s", c.Status, c.Error)
	}
	resp = a.upload(a.key, p.ID, "?name=access.log.gz", gzipped(t, testLog()))
	wantStatus(t, resp, 202)
	var up service.LogJob
	readJSON(t, resp, &up)
	j, body := waitLog(t, a, a.key, p.ID, up.ID)
	if j.Status != "succeeded" || j.CrawlJob != crawl.ID {
		t.Fatalf("parse: %s %q, joined with %q; want succeeded, joined with %s", j.Status, j.Error, j.CrawlJob, crawl.ID)
	}
	var rep logs.Report
	if err := json.Unmarshal(j.Result, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Lines != 32 || rep.Requests != 32 || rep.Totals.BotHits != 22 || rep.Totals.VerifiedHits != 16 || rep.Totals.SpoofedHits != 6 {
		t.Errorf("totals %+v lines %d", rep.Totals, rep.Lines)
	}
	if len(rep.Bots) != 1 || rep.Bots[0].Bot.Token != "Googlebot" || rep.Bots[0].Hits != 16 || rep.Bots[0].Spoofed != 6 {
		t.Fatalf("bots %+v; want Googlebot with 16 hits and 6 spoofed", rep.Bots)
	}
	if s := rep.Bots[0].SpoofedSample; len(s) != 1 || !strings.HasPrefix(s[0].IP, "hmac:") || s[0].Hits != 6 {
		t.Errorf("spoofed sample %+v; want one address, hashed", s)
	}
	if rep.Join == nil {
		t.Fatal("no join")
	}
	list := func(name string) (service.LogPage, map[string]int64) {
		resp := a.call("GET", "/v1/projects/"+p.ID+"/logs/"+up.ID+"/lists/"+name+"?limit=100", a.key, "")
		wantStatus(t, resp, 200)
		var pg service.LogPage
		readJSON(t, resp, &pg)
		var items []logs.JoinURL
		json.Unmarshal(pg.Items, &items)
		m := map[string]int64{}
		for _, u := range items {
			m[u.URL] = u.Hits
		}
		return pg, m
	}
	if _, m := list("orphans"); m["/orphan"] != 3 || m["/private/x"] != 2 || m["/a"] != 0 {
		t.Errorf("orphans %v; want /orphan 3 hits, /private/x 2", m)
	}
	if _, m := list("redirecting"); m["/moved"] != 4 || len(m) != 1 {
		t.Errorf("redirecting %v; want /moved with 4 hits", m)
	}
	resp = a.call("GET", "/v1/projects/"+p.ID+"/logs/"+up.ID+"/lists/disallowed", a.key, "")
	wantStatus(t, resp, 200)
	readJSON(t, resp, &pg)
	var dis []logs.Disallowed
	json.Unmarshal(pg.Items, &dis)
	if len(dis) != 1 || dis[0].Token != "Googlebot" || dis[0].Hits != 2 || len(dis[0].Sample) != 1 || dis[0].Sample[0].URL != "/private/x" {
		t.Errorf("disallowed %+v; want Googlebot's 2 hits on /private/x", dis)
	}
	resp = a.call("GET", "/v1/projects/"+p.ID+"/logs/"+up.ID+"/lists/urls?limit=2&offset=1", a.key, "")
	wantStatus(t, resp, 200)
	readJSON(t, resp, &pg)
	var urls []logs.URLStats
	json.Unmarshal(pg.Items, &urls)
	if pg.Total != len(rep.URLs) || len(urls) != 2 || urls[0].URL != rep.URLs[1].URL {
		t.Errorf("urls page: total %d, %d items; want %d, 2 from the second", pg.Total, len(urls), len(rep.URLs))
	}
	apiErr(t, a.call("GET", "/v1/projects/"+p.ID+"/logs/"+up.ID+"/lists/nope", a.key, ""), 400, CodeInvalidRequest)

	// Privacy: neither address is in the answer; the person's in no stored
	// byte, the spoofer's only hashed.
	for _, ip := range []string{humanIP, spoofIP} {
		if bytes.Contains(body, []byte(ip)) {
			t.Errorf("the answer holds client address %s", ip)
		}
	}
	if d, ok := a.st.(storetest.Dumper); ok {
		dump, err := d.Dump(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(dump, []byte(humanIP)) || bytes.Contains(dump, []byte(spoofIP)) {
			t.Error("the store holds a client address in the clear")
		}
	}
	other := a.srv.logAddressKey("prj_other")
	if hashAddress(other, spoofIP) == rep.Bots[0].SpoofedSample[0].IP || hashAddress(a.srv.logAddressKey(p.ID), spoofIP) != rep.Bots[0].SpoofedSample[0].IP {
		t.Error("the address hash is not the project's own")
	}
	// The bot_disallowed alert was sent for the joined log only (the first
	// had no join), naming Googlebot and the URL.
	eventually(t, "the bot_disallowed alert", func() bool {
		bodies, _, _ := hook.got()
		return len(bodies) == 1
	})
	bodies, _, _ := hook.got()
	var alert monitor.Alert
	if err := json.Unmarshal(bodies[0], &alert); err != nil {
		t.Fatal(err)
	}
	if alert.Kind != monitor.KindBotDisallowed || alert.Rule != disallowed.ID || alert.Count != 1 || alert.Changes[0].Subject != "Googlebot" ||
		len(alert.Changes[0].Examples) != 1 || alert.Changes[0].Examples[0] != "/private/x" || !strings.Contains(alert.Links.Analysis, up.ID) {
		t.Errorf("alert %+v", alert)
	}
	if ds := deliveries(t, a, p.ID); len(ds) != 1 || ds[0].RuleID != disallowed.ID {
		t.Errorf("deliveries %+v; want the bot_disallowed one only", ds)
	}
	if _, _, n := quiet.got(); n != 0 {
		t.Errorf("bot_5xx_rising sent %d alerts for a log without 5xx", n)
	}
	// The spool is emptied as parses end.
	if ents, _ := os.ReadDir(spool); len(ents) != 0 {
		t.Errorf("spool holds %d files after the parses", len(ents))
	}

	// Lists: the project's uploads, newest first; site analyses leave
	// them out, and their routes do not serve them.
	resp = a.call("GET", "/v1/projects/"+p.ID+"/logs", a.key, "")
	wantStatus(t, resp, 200)
	var ll service.LogJobList
	readJSON(t, resp, &ll)
	if len(ll.Logs) != 2 || ll.Logs[0].ID != up.ID || ll.Logs[1].ID != first.ID || ll.Logs[0].Result != nil || ll.Logs[0].Summary == nil {
		t.Errorf("log list %+v", ll.Logs)
	}
	resp = a.call("GET", "/v1/analyze/site", a.key, "")
	wantStatus(t, resp, 200)
	var jl JobList
	readJSON(t, resp, &jl)
	if len(jl.Jobs) != 1 || jl.Jobs[0].ID != crawl.ID {
		t.Errorf("site analyses list %d jobs; want the crawl only", len(jl.Jobs))
	}
	// The upload after the crawl is the account's newest job: a list of
	// one analysis still holds the crawl.
	resp = a.call("GET", "/v1/analyze/site?limit=1", a.key, "")
	wantStatus(t, resp, 200)
	readJSON(t, resp, &jl)
	if len(jl.Jobs) != 1 || jl.Jobs[0].ID != crawl.ID {
		t.Errorf("site analyses list with limit=1: %d jobs; want the crawl", len(jl.Jobs))
	}
	apiErr(t, a.call("GET", "/v1/analyze/site/"+up.ID, a.key, ""), 404, CodeNotFound)
	// Nor does the diff of analyses, either side (a log report is no
	// site report: it answered 500).
	apiErr(t, a.call("GET", "/v1/analyze/site/"+up.ID+"/diff?against="+first.ID, a.key, ""), 404, CodeNotFound)
	apiErr(t, a.call("GET", "/v1/analyze/site/"+crawl.ID+"/diff?against="+up.ID, a.key, ""), 404, CodeNotFound)
	// Another account sees neither the project nor the upload.
	_, key2 := a.account("b@example.com", store.Free, "read", "write")
	apiErr(t, a.call("GET", "/v1/projects/"+p.ID+"/logs/"+up.ID, key2, ""), 404, CodeNotFound)
}

// TestLogUploadRefusals sends what a log upload must refuse, each a 400
// naming the field (over-size, gzip bomb, corrupt gzip, binary data, an
// unknown or uncompilable format, a format that cannot be told), and
// checks that nothing of them is kept and the project still works.
func TestLogUploadRefusals(t *testing.T) {
	spool := t.TempDir()
	const capBytes = 64 << 10
	a := newTestAPI(t, &Options{AllowPrivate: true, LogDir: spool,
		Plans: map[store.Plan]plans.Limits{store.Free: {MaxLogBytes: capBytes, DailyRequests: 10_000}}})
	p := a.createProject(a.key, `{"domain":"example.com"}`)
	okLog := []byte(testLog())

	// A gzip bomb: 10 MB of log lines (over 32 times the cap) in well
	// under the cap.
	var bomb bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&bomb, gzip.BestCompression)
	line := []byte(combinedLine(humanIP, "/", 200, firefoxUA, 0))
	for n := 0; n < 10<<20; n += len(line) {
		zw.Write(line)
	}
	zw.Close()
	if bomb.Len() >= capBytes {
		t.Fatalf("the bomb is %d bytes compressed; the test needs it under the cap", bomb.Len())
	}
	corrupt := gzipped(t, testLog())
	corrupt = append(corrupt[:len(corrupt)/2:len(corrupt)/2], bytes.Repeat([]byte{0xAB}, 200)...)
	garbage := make([]byte, 8<<10)
	for i := range garbage {
		garbage[i] = byte(i * 7919 % 251)
	}
	big := bytes.Repeat(okLog, capBytes/len(okLog)+2)

	for _, c := range []struct {
		name, query string
		body        []byte
		field, msg  string
	}{
		{"over the plan's cap", "", big, "body", "larger than"},
		{"gzip bomb", "", bomb.Bytes(), "body", "gzip bomb"},
		{"corrupt gzip", "", corrupt, "body", "gzip"},
		{"binary garbage", "", garbage, "body", "not text"},
		{"empty", "", []byte("\n\n"), "body", "empty"},
		{"unknown format", "?format=apache2", okLog, "format", "format must be"},
		{"nginx without a log format", "?format=nginx", okLog, "logFormat", "logFormat"},
		{"log format that does not compile", "?logFormat=%24remote_addr%24status", okLog, "logFormat", "logFormat"},
		{"format not told", "", []byte("hello world\nthis is not an access log\n"), "format", "cannot be told"},
		{"bad stripQuery", "?stripQuery=maybe", okLog, "stripQuery", "true or false"},
		{"name with a line break", "?name=a%0D%0AX-Injected:%201", okLog, "name", "control or bidirectional"},
		{"name not UTF-8", "?name=log%FF", okLog, "name", "not valid UTF-8"},
		{"name with a right-to-left override", "?name=log%E2%80%AEgnp.exe", okLog, "name", "control or bidirectional"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := apiErr(t, a.upload(a.key, p.ID, c.query, c.body), 400, CodeInvalidRequest)
			if e.Field != c.field || !strings.Contains(e.Message, c.msg) {
				t.Errorf("error %+v; want field %s, message with %q", e, c.field, c.msg)
			}
		})
	}
	apiErr(t, a.upload(a.key, "prj_missing", "", okLog), 404, CodeNotFound)

	// Nothing of the refusals is kept; the project still takes a log.
	if ents, _ := os.ReadDir(spool); len(ents) != 0 {
		t.Errorf("spool holds %d files after refusals", len(ents))
	}
	resp := a.call("GET", "/v1/projects/"+p.ID+"/logs", a.key, "")
	var ll service.LogJobList
	readJSON(t, resp, &ll)
	if len(ll.Logs) != 0 {
		t.Errorf("%d uploads stored after refusals", len(ll.Logs))
	}
	resp = a.upload(a.key, p.ID, "?stripQuery=true", okLog)
	wantStatus(t, resp, 202)
	var up service.LogJob
	readJSON(t, resp, &up)
	if j, _ := waitLog(t, a, a.key, p.ID, up.ID); j.Status != "succeeded" || !j.StripQuery {
		t.Errorf("a good log after the refusals: %+v", j)
	}
}

// TestLogUploadQuota: an upload counts against the daily quota like any
// request, and the dashboard's call of the service (no request paid)
// is charged one unit by the service itself.
func TestLogUploadQuota(t *testing.T) {
	a := newTestAPI(t, &Options{AllowPrivate: true, LogDir: t.TempDir(),
		Plans: map[store.Plan]plans.Limits{store.Free: {DailyRequests: 3, ConcurrentSiteJobs: 10}}})
	p := a.createProject(a.key, `{"domain":"example.com"}`) // 1
	resp := a.upload(a.key, p.ID, "", []byte(testLog()))    // 2
	wantStatus(t, resp, 202)
	if got := resp.Header.Get("X-RateLimit-Remaining"); got != "1" {
		t.Errorf("remaining after the upload %q, want 1", got)
	}
	// The service called without a paid request charges its unit: 3.
	if _, err := a.srv.Logs().Upload(context.Background(), a.acct.ID, p.ID, service.LogUpload{Size: -1}, strings.NewReader(testLog())); err != nil {
		t.Fatal(err)
	}
	_, err := a.srv.Logs().Upload(context.Background(), a.acct.ID, p.ID, service.LogUpload{Size: -1}, strings.NewReader(testLog()))
	if le := (*service.LimitError)(nil); !errors.As(err, &le) || !strings.Contains(le.Message, "daily") {
		t.Fatalf("fourth unit: %v; want the daily limit's *service.LimitError", err)
	}
	apiErr(t, a.upload(a.key, p.ID, "", []byte(testLog())), 429, CodeRateLimited)
}

// countingReader counts the bytes read from r.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// TestLogUploadJobCapBeforeSpool: an account at its plan's concurrent
// jobs (Free: 1) has an upload refused before a byte of it is read, and
// while one of its uploads is being received a second one is refused at
// once; both were read whole into the spool and the second accepted, so
// one account could have the server write any number of uploads at once
// to the disk all accounts share.
func TestLogUploadJobCapBeforeSpool(t *testing.T) {
	spool := t.TempDir()
	a := newTestAPI(t, &Options{AllowPrivate: true, LogDir: spool, Limits: map[store.Plan]int{store.Free: 10_000}})
	ctx := context.Background()
	p := a.createProject(a.key, `{"domain":"example.com"}`)
	svc := a.srv.Logs()
	wantLimit := func(what string, err error) {
		t.Helper()
		if le := (*service.LimitError)(nil); !errors.As(err, &le) || !strings.Contains(le.Message, "being uploaded") {
			t.Fatalf("%s: %v; want the concurrent jobs' *service.LimitError", what, err)
		}
	}

	// A site analysis running: the upload is refused unread.
	running := &store.Job{AccountID: a.acct.ID, Kind: "site", Status: store.JobRunning, Request: []byte(`{"domain":"example.com"}`)}
	if err := a.st.CreateJob(ctx, running); err != nil {
		t.Fatal(err)
	}
	body := &countingReader{r: strings.NewReader(testLog())}
	var given []time.Duration
	receive := func(d time.Duration) { given = append(given, d) }
	_, err := svc.Upload(ctx, a.acct.ID, p.ID, service.LogUpload{Size: -1, Receive: receive}, body)
	if n := body.n.Load(); n != 0 {
		t.Errorf("the refused upload was read for %d bytes, want none", n)
	}
	if len(given) != 0 {
		t.Errorf("the refused upload was given %v to arrive, want no time", given)
	}
	wantLimit("upload while a site analysis runs", err)
	running.Status = store.JobCanceled
	if err := a.st.UpdateJob(ctx, running); err != nil {
		t.Fatal(err)
	}

	// One upload being received: a second is refused at once.
	pr, pw := io.Pipe()
	first := make(chan error, 1)
	go func() {
		_, err := svc.Upload(ctx, a.acct.ID, p.ID, service.LogUpload{Size: -1}, pr)
		pr.CloseWithError(err) // a refusal ends the writes below
		first <- err
	}()
	lines := strings.SplitAfter(testLog(), "\n")
	if _, err := io.WriteString(pw, lines[0]); err != nil { // read: the first holds its place
		t.Fatalf("the first upload stopped reading: %v", err)
	}
	_, err = svc.Upload(ctx, a.acct.ID, p.ID, service.LogUpload{Size: -1}, strings.NewReader(testLog()))
	wantLimit("a second upload while one is received", err)
	io.WriteString(pw, strings.Join(lines[1:], ""))
	pw.Close()
	if err := <-first; err != nil {
		t.Fatalf("the first upload: %v", err)
	}
	// An admitted upload, once the first one's parse has ended, is given
	// a minute and the Free plan's 20 MiB at 256 KiB/s (80 s) to arrive.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if n, err := a.st.ActiveJobs(ctx, a.acct.ID); err != nil || n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first upload's parse never ended")
		}
	}
	if _, err := svc.Upload(ctx, a.acct.ID, p.ID, service.LogUpload{Size: -1, Receive: receive}, strings.NewReader(testLog())); err != nil {
		t.Fatal(err)
	}
	if want := []time.Duration{140 * time.Second}; !slices.Equal(given, want) {
		t.Errorf("an admitted upload was given %v to arrive, want %v", given, want)
	}
}

// TestLogUploadSlowLink: an upload that takes longer than the server's
// read timeout (sized for /v1 requests: 30 s in the example server) is
// received when it comes at the plan's pace; it was cut at the read
// timeout and answered 400 with the connection's addresses, so a Pro
// plan's 2 GiB could not be sent on most links. A read that times out
// says so, without the addresses.
func TestLogUploadSlowLink(t *testing.T) {
	a := newTestAPI(t, &Options{AllowPrivate: true, LogDir: t.TempDir(), Limits: map[store.Plan]int{store.Free: 10_000}})
	p := a.createProject(a.key, `{"domain":"example.com"}`)
	ts := httptest.NewUnstartedServer(a.srv)
	ts.Config.ReadTimeout = 100 * time.Millisecond
	ts.Start()
	defer ts.Close()

	pr, pw := io.Pipe()
	go func() {
		for _, line := range strings.SplitAfter(testLog(), "\n") {
			time.Sleep(30 * time.Millisecond) // the whole log takes several read timeouts
			if _, err := io.WriteString(pw, line); err != nil {
				return
			}
		}
		pw.Close()
	}()
	r, err := http.NewRequest("POST", ts.URL+"/v1/projects/"+p.ID+"/logs", pr)
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("X-API-Key", a.key)
	r.Header.Set("Content-Type", "text/plain")
	resp, err := ts.Client().Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("slow upload: %d %s; want 202", resp.StatusCode, b)
	}
	var up service.LogJob
	if err := json.NewDecoder(resp.Body).Decode(&up); err != nil {
		t.Fatal(err)
	}
	if j, _ := waitLog(t, a, a.key, p.ID, up.ID); j.Status != "succeeded" {
		t.Errorf("slow upload's parse: %+v", j)
	}

	timeout := &net.OpError{Op: "read", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}, Err: os.ErrDeadlineExceeded}
	var fe *service.FieldError
	if err := readLogError(timeout, false); !errors.As(err, &fe) || fe.Field != "body" || !strings.Contains(fe.Message, "did not arrive in the time") || strings.Contains(fe.Message, "127.0.0.1") {
		t.Errorf("a read timeout: %v; want a body error saying the time ran out, without addresses", err)
	}
}
