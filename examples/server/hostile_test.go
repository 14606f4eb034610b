//go:build linux

package main

// The hostile-input suite: the real server in a child process, hostile
// sites on loopback, each answer checked for status, envelope and size, and
// the server's peak RSS measured. Run it without the race detector:
//
//	go test ./examples/server -run '^TestHostile' -count 1 -v

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler/crawlertest"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
	"github.com/seokit/seokit/internal/hostile"
)

// serve serves h on loopback for the test's lifetime. Register it before
// the server under test, so the server stops first.
func serve(t *testing.T, h http.Handler) *httptest.Server {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// hostOf is a server's host:port.
func hostOf(s *httptest.Server) string { return strings.TrimPrefix(s.URL, "http://") }

// dbArgs are -db and -data-db in a temporary folder.
func dbArgs(t *testing.T) (dir string, args []string) {
	dir = t.TempDir()
	return dir, []string{"-db", filepath.Join(dir, "api.db"), "-data-db", filepath.Join(dir, "data.db")}
}

// optimizeBody is a content optimisation request of n bytes of text,
// streamed.
func optimizeBody(n int64) io.Reader {
	return io.MultiReader(strings.NewReader(`{"content":"`), hostile.NewText(n),
		strings.NewReader(`","keywords":["oak table","solid wood"],"locale":"en-US"}`))
}

// TestHostileMix runs, at once against one server with default settings
// (plus -allow-private to reach the loopback sites): four page analyses of
// a 1,000,000-link page, six optimisations of 10 MB of text, and site
// analyses of a site where every page links to 6,000 new URLs (300 pages)
// and of a site whose sitemaps list 1,000,000 URLs. The server's peak RSS
// must stay under 1 GB, each page answer under 5 MB, each stored result
// under 20 MB, every answer 200/202 or a proper 503/429 refusal, and the
// store whole afterwards.
func TestHostileMix(t *testing.T) {
	skipHostile(t)
	links := serve(t, hostile.ManyLinks(1_000_000))
	wide := crawlertest.NewHostileSite(crawlertest.HostileOptions{NewLinksPerPage: 6000})
	t.Cleanup(wide.Close)
	smap := crawlertest.NewHostileSite(crawlertest.HostileOptions{SitemapURLs: 1_000_000, Gzip: true})
	t.Cleanup(smap.Close)
	dir, db := dbArgs(t)
	// The daily limit of the admin's plan must not be what refuses.
	srv := startWatched(t, append(db, "-allow-private", "-pro-limit", "1000000")...)
	c := hostileClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	type req struct {
		kind, path, ctype string
		body              func() io.Reader
	}
	var reqs []req
	for range 4 {
		reqs = append(reqs, req{"page: 1M links", "/v1/analyze/page", "application/json", func() io.Reader {
			return strings.NewReader(`{"url":"` + links.URL + `/"}`)
		}})
	}
	for range 6 {
		reqs = append(reqs, req{"optimize: 10 MB", "/v1/optimize/content", "application/json", func() io.Reader { return optimizeBody(10_000_000) }})
	}
	reqs = append(reqs,
		req{"site: 6,000 new links/page", "/v1/analyze/site", "application/json", func() io.Reader {
			return strings.NewReader(`{"domain":"` + hostOf(wide.Server) + `","options":{"maxPages":300}}`)
		}},
		req{"site: 1M-URL sitemaps", "/v1/analyze/site", "application/json", func() io.Reader {
			return strings.NewReader(`{"domain":"` + hostOf(smap.Server) + `"}`)
		}})
	// One account per request, as many tenants at once: the per-account
	// limits do not refuse them, only the server's global admission can.
	keys := make([]string, len(reqs))
	for i := range reqs {
		keys[i] = tenantKey(t, db[:2], tenantEmail(i))
	}
	answers := make([]answer, len(reqs))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, r := range reqs {
		wg.Go(func() {
			<-start
			answers[i] = call(ctx, c, "POST", srv.base+r.path, withKey(keys[i], r.ctype), r.body())
		})
	}
	close(start)
	wg.Wait()
	t.Logf("the %d requests answered after %s", len(reqs), time.Since(srv.started).Round(100*time.Millisecond))

	// The site jobs must finish; their stored results are read twice.
	type siteJob struct {
		kind, key, email    string
		id                  string
		final, again        answer
		state               jobState
		submitted, finished bool
	}
	var jobs []*siteJob
	jobDeadline := srv.started.Add(200 * time.Second)
	for i, r := range reqs {
		a := answers[i]
		if r.path != "/v1/analyze/site" || a.status != http.StatusAccepted {
			continue
		}
		var js jobState
		json.Unmarshal(a.head, &js)
		jobs = append(jobs, &siteJob{kind: r.kind, key: keys[i], email: tenantEmail(i), id: js.ID, submitted: true})
	}
	for _, j := range jobs {
		if j.id == "" || !srv.alive() {
			continue
		}
		j.final, j.state = waitJob(ctx, c, srv, j.key, j.id, jobDeadline)
		j.finished = store.JobStatus(j.state.Status).Done()
		if j.finished {
			j.again = call(ctx, c, "GET", srv.base+"/v1/analyze/site/"+j.id, withKey(j.key, ""), nil)
		}
	}
	alive := srv.alive()
	srv.stop()
	peak, how := srv.peak()

	// The store still opens and the finished jobs read the same from it.
	var storeProblem string
	if !srv.exceeded.Load() {
		st, err := sqlstore.Open(context.Background(), filepath.Join(dir, "api.db"), nil)
		if err != nil {
			storeProblem = "store does not open: " + err.Error()
		} else {
			// A finished job reads the same from the store.
			for _, j := range jobs {
				if !j.finished {
					continue
				}
				acct, err := st.AccountByEmail(context.Background(), j.email)
				if err != nil {
					storeProblem += fmt.Sprintf("account %s: %v; ", j.email, err)
					continue
				}
				sj, err := st.Job(context.Background(), acct.ID, j.id)
				if err != nil {
					storeProblem += fmt.Sprintf("job %s: %v; ", j.id, err)
				} else if string(sj.Status) != j.state.Status {
					storeProblem += fmt.Sprintf("job %s stored as %s, answered %s; ", j.id, sj.Status, j.state.Status)
				}
			}
			st.Close()
		}
	}

	// The table.
	var rows [][]string
	byKind := map[string][]answer{}
	var kinds []string
	for i, r := range reqs {
		if byKind[r.kind] == nil {
			kinds = append(kinds, r.kind)
		}
		byKind[r.kind] = append(byKind[r.kind], answers[i])
	}
	for _, k := range kinds {
		rows = append(rows, []string{k, statusCounts(byKind[k]), sizes(byKind[k])})
	}
	for _, j := range jobs {
		state := j.state.Status
		if state == "" {
			state = "unknown (server gone)"
		}
		rows = append(rows, []string{j.kind + " (job)", "final " + state + j.state.progress(), fmt.Sprintf("stored result GET %.1fMB/%.1fs", float64(j.final.size)/(1<<20), j.final.took.Seconds())})
	}
	t.Logf("concurrent mix, peak RSS %s (%s)\n%s%s", mb(peak), how, table("case\tstatus\tanswer size/time", rows), srv.curve())

	// The assertions.
	if srv.exceeded.Load() {
		t.Errorf("server RSS exceeded %s: killed", mb(rssKill))
	} else if !alive {
		t.Errorf("server died during the mix:\n%s", tail(srv.out.String(), 2000))
	}
	if peak >= rssTarget {
		t.Errorf("peak RSS %s, target < %s", mb(peak), mb(rssTarget))
	}
	for i, r := range reqs {
		a := answers[i]
		if p := a.refusalProblem(); p != "" {
			t.Errorf("%s #%d: %s", r.kind, i, p)
		}
		if strings.HasPrefix(r.kind, "page") && a.status == http.StatusOK && a.size >= pageAnswerMax {
			t.Errorf("%s #%d: answer %.1f MB, target < %d MB", r.kind, i, float64(a.size)/(1<<20), pageAnswerMax>>20)
		}
	}
	for _, j := range jobs {
		switch {
		case !j.finished:
			t.Errorf("%s: job %s not finished (state %q, last GET %d, err %v)", j.kind, j.id, j.state.Status, j.final.status, j.final.err)
		case j.final.size >= storedResultMax:
			t.Errorf("%s: stored result %.1f MB, target < %d MB", j.kind, float64(j.final.size)/(1<<20), storedResultMax>>20)
		case j.again.status != http.StatusOK || j.again.sum != j.final.sum:
			t.Errorf("%s: a second GET answered %d with a different body (%d bytes, then %d)", j.kind, j.again.status, j.final.size, j.again.size)
		}
	}
	if storeProblem != "" {
		t.Errorf("after the mix: %s", storeProblem)
	}
}

// tail returns the last n bytes of s.
func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// inputCase is one request of the validation table and what it must get.
type inputCase struct {
	name   string
	method string
	path   string
	ctype  string
	body   func() io.Reader
	status []int  // any of these
	field  string // the envelope's field must start with this, when set
}

// TestHostileInput sends malformed and hostile requests to a server with
// default settings (no -allow-private): each is refused with 400 (or 413)
// and the envelope naming the field, promptly and in a small answer. Then
// secrets in the query string must not reach the log, and twenty requests
// without credentials must not lock a valid key out.
func TestHostileInput(t *testing.T) {
	skipHostile(t)
	_, db := dbArgs(t)
	srv := startWatched(t, db...)
	c := hostileClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	site := func(domain string) func() io.Reader {
		return func() io.Reader { return strings.NewReader(`{"domain":"` + domain + `","options":{"maxPages":5}}`) }
	}
	bad := []int{http.StatusBadRequest}
	kw := make([]string, 1001)
	for i := range kw {
		kw[i] = "keywords[]=k" + strconv.Itoa(i)
	}
	cases := []inputCase{
		{"site: metadata address", "POST", "/v1/analyze/site", "application/json", site("169.254.169.254"), bad, "domain"},
		{"site: localhost", "POST", "/v1/analyze/site", "application/json", site("localhost"), bad, "domain"},
		{"site: loopback address", "POST", "/v1/analyze/site", "application/json", site("127.0.0.1"), bad, "domain"},
		{"site: port 22", "POST", "/v1/analyze/site", "application/json", site("example.com:22"), bad, "domain"},
		{"site: 300-char label", "POST", "/v1/analyze/site", "application/json", site(strings.Repeat("a", 300) + ".com"), bad, "domain"},
		{"site: maxPages 10,000,000", "POST", "/v1/analyze/site", "application/json", func() io.Reader {
			return strings.NewReader(`{"domain":"example.com","options":{"maxPages":10000000}}`)
		}, bad, "options.maxPages"},
		{"site: 2 MiB body", "POST", "/v1/analyze/site", "application/json", func() io.Reader {
			return io.MultiReader(strings.NewReader(`{"domain":"example.com","callbackUrl":"https://example.com/`), hostile.NewText(2<<20), strings.NewReader(`"}`))
		}, []int{http.StatusBadRequest, http.StatusRequestEntityTooLarge}, "body"},
		{"page: JSON nested 100,000 deep", "POST", "/v1/analyze/page", "application/json", func() io.Reader {
			return strings.NewReader(`{"url":` + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + `}`)
		}, bad, ""},
		{"site: unknown field", "POST", "/v1/analyze/site", "application/json", func() io.Reader {
			return strings.NewReader(`{"domain":"example.com","options":{"maxPages":5,"depht":3}}`)
		}, bad, "options.depht"},
		{"page: unknown field", "POST", "/v1/analyze/page", "application/json", func() io.Reader {
			return strings.NewReader(`{"url":"https://example.com/","render":true}`)
		}, bad, "render"},
		{"page: text/plain body", "POST", "/v1/analyze/page", "text/plain", func() io.Reader {
			return strings.NewReader(`{"url":"https://example.com/"}`)
		}, bad, "Content-Type"},
		{"optimize: 11 MiB content", "POST", "/v1/optimize/content", "application/json", func() io.Reader { return optimizeBody(11 << 20) },
			[]int{http.StatusBadRequest, http.StatusRequestEntityTooLarge}, ""},
		{"rankings: 1,001 keywords[]", "GET", "/v1/rankings?domain=example.com&locale=en-US&" + strings.Join(kw, "&"), "", nil, bad, "keywords"},
	}
	var rows [][]string
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var body io.Reader
			if tc.body != nil {
				body = tc.body()
			}
			a := call(ctx, c, tc.method, srv.base+tc.path, withKey(srv.key, tc.ctype), body)
			e, p := a.envelope()
			field := ""
			if e.Error != nil {
				field = e.Error.Field
			}
			rows = append(rows, []string{tc.name, strconv.Itoa(a.status), field, strconv.FormatInt(a.size, 10) + "B", a.took.Round(time.Millisecond).String()})
			if a.status == http.StatusAccepted {
				// A job was queued: cancel it, so nothing is crawled.
				var js jobState
				json.Unmarshal(a.head, &js)
				call(ctx, c, "DELETE", srv.base+"/v1/analyze/site/"+js.ID, withKey(srv.key, ""), nil)
			}
			switch {
			case a.err != nil:
				t.Fatalf("transport error %v", a.err)
			case !containsInt(tc.status, a.status):
				t.Errorf("status %d, want one of %v: %.300s", a.status, tc.status, a.head)
			case p != "":
				t.Errorf("%s", p)
			case tc.field != "" && !strings.HasPrefix(field, tc.field):
				t.Errorf("field %q, want %q: %s", field, tc.field, a.head)
			}
		})
	}

	// Secrets in the query string are never logged.
	t.Run("secrets in the query string", func(t *testing.T) {
		secrets := map[string]string{
			"access_token":  "sekrit-access-token-7f3a91",
			"client_secret": "sekrit-client-secret-0b2c44",
			"api_key":       "sekrit-api-key-91aa02",
			"refresh_token": "sekrit-refresh-token-55e1d0",
			"password":      "sekrit-password-c0ffee",
		}
		for name, v := range secrets {
			a := call(ctx, c, "GET", srv.base+"/v1/keywords/suggest?query=oak&locale=en-US&"+name+"="+v, withKey(srv.key, ""), nil)
			if a.err != nil {
				t.Fatal(a.err)
			}
		}
		// Without a header the api_key is the credential.
		call(ctx, c, "GET", srv.base+"/v1/keywords/suggest?query=oak&api_key="+secrets["api_key"]+"x", nil, nil)
		call(ctx, c, "POST", srv.base+"/v1/oauth/token?client_id=x&client_secret="+secrets["client_secret"]+"y", http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}, strings.NewReader("grant_type=client_credentials"))
		marker := "logmarker" + strconv.FormatInt(time.Now().UnixNano(), 36)
		call(ctx, c, "GET", srv.base+"/v1/keywords/suggest?query="+marker, withKey(srv.key, ""), nil)
		deadline := time.Now().Add(10 * time.Second)
		for !strings.Contains(srv.out.String(), marker) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		out := srv.out.String()
		if !strings.Contains(out, marker) {
			t.Fatalf("the access log never showed the marker request:\n%s", tail(out, 2000))
		}
		for name, v := range secrets {
			if strings.Contains(out, v) {
				t.Errorf("%s in the query string is logged in clear", name)
			}
		}
	})

	// Requests without credentials from one address do not lock out the
	// valid key from that address.
	t.Run("anonymous burst then a valid key", func(t *testing.T) {
		var got []answer
		for range 25 {
			got = append(got, call(ctx, c, "GET", srv.base+"/v1/keywords/suggest?query=oak", nil, nil))
		}
		a := call(ctx, c, "GET", srv.base+"/v1/keywords/suggest?query=oak&locale=en-US", withKey(srv.key, ""), nil)
		t.Logf("25 requests without credentials: %s; then the valid key: %d", statusCounts(got), a.status)
		for i, g := range got {
			if g.status != http.StatusUnauthorized {
				t.Errorf("anonymous request %d: %d, want 401", i, g.status)
				break
			}
		}
		if a.status != http.StatusOK {
			t.Errorf("the valid key after the anonymous burst: %d %.200s", a.status, a.head)
		}
	})

	srv.stop()
	peak, how := srv.peak()
	t.Logf("input cases, peak RSS %s (%s)\n%s", mb(peak), how, table("case\tstatus\tfield\tsize\ttime", rows))
	if peak >= rssTarget {
		t.Errorf("peak RSS %s, target < %s", mb(peak), mb(rssTarget))
	}
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestHostilePages analyses hostile pages one at a time (a few at once)
// on a server with -allow-private: escape bytes in the title, a redirect
// to the cloud metadata address, a slow drip, a gzip bomb, deep nesting,
// huge headers, a million links; and a site analysis of a site whose
// robots.txt is 20 MB. Each answer must be bounded and honest.
func TestHostilePages(t *testing.T) {
	skipHostile(t)
	mux := http.NewServeMux()
	mux.Handle("/escape", hostile.EscapeTitle())
	mux.Handle("/metadata", hostile.Redirect("http://169.254.169.254/latest/meta-data/iam/security-credentials/"))
	mux.Handle("/drip", hostile.SlowDrip(200*time.Millisecond, 60*time.Second))
	mux.Handle("/bomb", hostile.GzipBomb(1<<30))
	mux.Handle("/nested", hostile.DeepNesting(200_000))
	mux.Handle("/headers", hostile.HugeHeaders(20_000))
	mux.Handle("/links", hostile.ManyLinks(1_000_000))
	pages := serve(t, mux)
	robots := serve(t, hostile.HugeRobots(20<<20))
	_, db := dbArgs(t)
	srv := startWatched(t, append(db, "-allow-private")...)
	c := hostileClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	type pageCase struct {
		name, path string
		check      func(answer) string // extra checks of a 200
	}
	noControl := func(a answer) string {
		for _, b := range a.head {
			if b < 0x20 && b != '\n' || b == 0x7f {
				return fmt.Sprintf("raw control byte %#x in the answer", b)
			}
		}
		if !strings.Contains(string(a.head), `\u001b`) {
			return "the escape bytes of the title are not in the answer, escaped"
		}
		return ""
	}
	cases := []pageCase{
		{"escape bytes in the title", "/escape", noControl},
		{"redirect to 169.254.169.254", "/metadata", func(a answer) string {
			// A 200 report must say the target was refused.
			if h := string(a.head); !strings.Contains(h, "not a public address") && !strings.Contains(h, "forbidden") {
				return fmt.Sprintf("the report does not say the redirect target was refused: %.300s", h)
			}
			return ""
		}},
		{"slow drip (60 s)", "/drip", func(a answer) string {
			if a.took > 45*time.Second {
				return fmt.Sprintf("answered after %s: the fetch is not bounded in time", a.took.Round(time.Second))
			}
			return ""
		}},
		{"gzip bomb (1 GiB)", "/bomb", nil},
		{"200,000 nested elements", "/nested", nil},
		{"20,000 response headers", "/headers", nil},
		{"1,000,000 links", "/links", nil},
	}
	answers := make([]answer, len(cases))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2) // two at once, the account's own limit: the figures are per case
	for i, pc := range cases {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			answers[i] = call(ctx, c, "POST", srv.base+"/v1/analyze/page", withKey(srv.key, "application/json"),
				strings.NewReader(`{"url":"`+pages.URL+pc.path+`"}`))
		})
	}
	// The robots.txt site meanwhile.
	sub := call(ctx, c, "POST", srv.base+"/v1/analyze/site", withKey(srv.key, "application/json"),
		strings.NewReader(`{"domain":"`+hostOf(robots)+`","options":{"maxPages":5}}`))
	var js jobState
	var final answer
	if sub.status == http.StatusAccepted {
		json.Unmarshal(sub.head, &js)
		final, js = waitJob(ctx, c, srv, srv.key, js.ID, time.Now().Add(100*time.Second))
	}
	wg.Wait()
	alive := srv.alive()
	srv.stop()
	peak, how := srv.peak()

	var rows [][]string
	for i, pc := range cases {
		a := answers[i]
		p := a.hostilePageProblem()
		if p == "" && a.status == http.StatusOK && pc.check != nil {
			p = pc.check(a)
		}
		code := ""
		if a.status != http.StatusOK {
			if e, _ := a.envelope(); e.Error != nil {
				code = e.Error.Code
			}
		}
		rows = append(rows, []string{pc.name, strconv.Itoa(a.status) + " " + code, fmt.Sprintf("%.1fKB", float64(a.size)/1024), a.took.Round(100 * time.Millisecond).String()})
		if p != "" {
			t.Errorf("%s: %s", pc.name, p)
		}
		if testing.Verbose() && a.size < 2000 {
			t.Logf("%s: %.400s", pc.name, a.head)
		}
	}
	rows = append(rows, []string{"site: 20 MB robots.txt (job)", strconv.Itoa(sub.status) + " then " + js.Status, fmt.Sprintf("%.1fKB", float64(final.size)/1024), ""})
	t.Logf("hostile pages, peak RSS %s (%s)\n%s%s", mb(peak), how, table("case\tstatus\tanswer size\ttime", rows), srv.curve())

	switch {
	case sub.status != http.StatusAccepted:
		t.Errorf("robots.txt site: submit %d %.200s", sub.status, sub.head)
	case !store.JobStatus(js.Status).Done():
		t.Errorf("robots.txt site: job not finished: %q", js.Status)
	case final.size >= storedResultMax:
		t.Errorf("robots.txt site: stored result %d bytes", final.size)
	}
	if srv.exceeded.Load() || !alive {
		t.Errorf("server killed or died (exceeded %v):\n%s", srv.exceeded.Load(), tail(srv.out.String(), 2000))
	}
	if peak >= rssTarget {
		t.Errorf("peak RSS %s, target < %s", mb(peak), mb(rssTarget))
	}
}

// TestHostileDashboardQuota: once the account's daily limit is spent (429
// on the API), the dashboard's "Start analysis" is refused too and starts
// no crawl.
func TestHostileDashboardQuota(t *testing.T) {
	skipHostile(t)
	var hits atomic.Int64
	target := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<html><head><title>Quota test page</title></head><body><a href="/a">a</a><a href="/b">b</a></body></html>`)
	}))
	dir, db := dbArgs(t)
	const limit = 3
	srv := startWatched(t, append(db, "-allow-private", "-pro-limit", strconv.Itoa(limit))...)
	c := hostileClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	var spent []answer
	for range limit + 1 {
		spent = append(spent, call(ctx, c, "GET", srv.base+"/v1/keywords/suggest?query=oak&locale=en-US", withKey(srv.key, ""), nil))
	}
	if last := spent[limit]; last.status != http.StatusTooManyRequests {
		t.Fatalf("the API after %d requests of a limit of %d: %s, want 429 last", limit+1, limit, statusCounts(spent))
	}

	jar, _ := cookiejar.New(nil)
	dc := noRedirects(jar)
	if resp := signIn(t, dc, srv.base, adminEmail, srv.password); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", resp.StatusCode)
	}
	_, page := fetch(t, dc, "GET", srv.base+"/dashboard/analyses", nil)
	m := csrfRE.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("analyses page has no form:\n%.2000s", page)
	}
	resp, page := fetch(t, dc, "POST", srv.base+"/dashboard/analyses", url.Values{"csrf_token": {m[1]}, "domain": {hostOf(target)}, "max_pages": {"100"}})
	srv.stop()
	t.Logf("dashboard Start analysis after the daily limit: %d to %q; the target site saw %d requests", resp.StatusCode, resp.Header.Get("Location"), hits.Load())

	st, err := sqlstore.Open(context.Background(), filepath.Join(dir, "api.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	acct, err := st.AccountByEmail(context.Background(), adminEmail)
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := st.Jobs(context.Background(), acct.ID, 50)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode == http.StatusSeeOther || len(jobs) > 0 {
		t.Errorf("the dashboard started %d analyses after the daily limit was spent (answer %d to %q)", len(jobs), resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp.StatusCode < 400 || resp.StatusCode >= 500 {
		t.Errorf("dashboard refusal: %d, want a 4xx page (429):\n%.500s", resp.StatusCode, page)
	}
}

// tenantKey creates a Pro account with a daily limit that never refuses,
// through the operator's accounts command on the running server's store,
// and returns an API key of it.
func tenantKey(t *testing.T, db []string, email string) string {
	return accountKey(t, db, email, "pro", "-daily-limit", "1000000")
}

// freeKey creates a Free account and returns an API key of it.
func freeKey(t *testing.T, db []string, email string) string {
	return accountKey(t, db, email, "free")
}

// accountKey creates an account of plan (with the accounts command's
// extra flags) through the operator's accounts command on the store db,
// and returns an API key of it.
func accountKey(t *testing.T, db []string, email, plan string, extra ...string) string {
	t.Helper()
	ctx := context.Background()
	var out, errOut bytes.Buffer
	args := append([]string{"create", "-email", email, "-plan", plan}, extra...)
	if err := runAccounts(ctx, append(args, db...), strings.NewReader(""), &out, &errOut); err != nil {
		t.Fatalf("accounts create %s: %v\n%s", email, err, errOut.String())
	}
	out.Reset()
	if err := runAccounts(ctx, append([]string{"create-key", "-email", email}, db...), strings.NewReader(""), &out, &errOut); err != nil {
		t.Fatalf("accounts create-key %s: %v\n%s", email, err, errOut.String())
	}
	_, key, ok := strings.Cut(out.String(), "API key (shown only once): ")
	if !ok {
		t.Fatalf("no API key in:\n%s", out.String())
	}
	return strings.TrimSpace(key)
}

// tenantEmail is the email of the mix's i-th tenant.
func tenantEmail(i int) string { return fmt.Sprintf("tenant%d@example.com", i) }
