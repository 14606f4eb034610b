package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi/dashboard"
	"github.com/seokit/seokit/httpapi/store"
)

// goldenPagesReport is a stored site report of about n bytes made of the
// pages of a real crawl (the crawler's golden report of its calendar
// site, each page repeated under new URLs), so that what reading it
// allocates is a real report's.
func goldenPagesReport(t *testing.T, n int) []byte {
	t.Helper()
	b, err := os.ReadFile("../crawler/testdata/golden/calendar.json")
	if err != nil {
		t.Fatal(err)
	}
	// The golden file names the figures that vary between crawls.
	b = regexp.MustCompile(`"<(responseMs|durationNs|pagesPerSecond)>"`).ReplaceAll(b, []byte("12"))
	b = regexp.MustCompile(`"<(startedAt|finishedAt)>"`).ReplaceAll(b, []byte(`"2026-12-07T13:00:00Z"`))
	var rep crawler.SiteReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	pages := rep.Pages
	one, _ := json.Marshal(pages)
	for i := 0; len(one)*(i+1) < n; i++ {
		for _, pg := range pages {
			pg.URL = fmt.Sprintf("%s?copy=%d", pg.URL, i)
			rep.Pages = append(rep.Pages, pg)
		}
	}
	out, err := json.Marshal(&rep)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// storeSiteReport stores a succeeded site analysis of accountID with
// report as its stored JSON and returns its id.
func storeSiteReport(t *testing.T, a *testAPI, accountID string, report []byte) string {
	t.Helper()
	req, _ := json.Marshal(SiteRequest{Domain: "calendar.example"})
	now := time.Now()
	j := &store.Job{ID: "job_" + randomID(24), AccountID: accountID, Kind: "site", Status: store.JobSucceeded, Request: req,
		Result: report, CreatedAt: now, StartedAt: now, FinishedAt: now}
	if err := a.st.CreateJob(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	return j.ID
}

// dashboardClient signs a new dashboard account in through the login
// form of the dashboard served at base and returns the account and its
// client.
func dashboardClient(t *testing.T, a *testAPI, base, email string) (*store.Account, *http.Client) {
	t.Helper()
	const password = "correct horse battery staple"
	acct, err := a.srv.Auth().CreateAccount(context.Background(), email, email, password, store.Free)
	if err != nil {
		t.Fatal(err)
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(base + dashboard.Prefix + "/login")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := regexp.MustCompile(`name="csrf_token" value="([^"]+)"`).FindSubmatch(body)
	if m == nil {
		t.Fatalf("no csrf_token in the login page:\n%s", body)
	}
	resp, err = c.PostForm(base+dashboard.Prefix+"/login", url.Values{"csrf_token": {string(m[1])}, "email": {email},
		"password": {password}, "next": {dashboard.Prefix + "/"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in of %s: status %d", email, resp.StatusCode)
	}
	return acct, c
}

// TestDashboardReportAdmission: the dashboard's views of a site report
// (the analysis page, one page of it, the HTML report) decode the stored
// report through the API's admission control as a report read (they
// decoded it outside it, any number at once, however large): while the
// account's report read is held a view is refused 429 at once, another
// account's is served; a view reserves siteReportViewFactor times the
// stored size from the memory budget (with one byte less free it is
// refused 503), and allocates no more than that per report byte.
func TestDashboardReportAdmission(t *testing.T) {
	a := newTestAPI(t, &Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Free: 10_000},
		Admission: &AdmissionOptions{Wait: 200 * time.Millisecond}})
	d, err := dashboard.New(a.st, a.srv.Auth(), &dashboard.Options{Analyses: a.srv.Analyses()})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(d)
	t.Cleanup(ts.Close)
	acctA, ca := dashboardClient(t, a, ts.URL, "dash-a@example.com")
	acctB, cb := dashboardClient(t, a, ts.URL, "dash-b@example.com")
	rep := goldenPagesReport(t, 4<<20)
	mine, theirs := storeSiteReport(t, a, acctA.ID, rep), storeSiteReport(t, a, acctB.ID, rep)
	var first crawler.SiteReport
	if err := json.Unmarshal(rep, &first); err != nil {
		t.Fatal(err)
	}
	views := map[string]string{
		"analysis page": "/analyses/{id}",
		"page view":     "/analyses/{id}/page?url=" + url.QueryEscape(first.Pages[0].URL),
		"HTML report":   "/analyses/{id}/report.html",
	}
	get := func(c *http.Client, path, id string) (int, string) {
		t.Helper()
		resp, err := c.Get(ts.URL + dashboard.Prefix + strings.Replace(path, "{id}", id, 1))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}

	hold, err := a.srv.adm.acquireSlot(context.Background(), KindReport, acctA.ID, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	for name, path := range views {
		if code, body := get(ca, path, mine); code != http.StatusTooManyRequests || !strings.Contains(body, "report reads") {
			t.Errorf("%s while the account's report read is held: status %d, want 429 naming the report reads' limit", name, code)
		}
		if code, _ := get(cb, path, theirs); code != http.StatusOK {
			t.Errorf("another account's %s meanwhile: status %d, want 200", name, code)
		}
	}
	hold()

	need := int64(len(rep)) * siteReportViewFactor
	for name, path := range views {
		taken, err := a.srv.adm.mem.reserve(context.Background(), a.srv.adm.mem.total-need+1)
		if err != nil {
			t.Fatal(err)
		}
		if code, _ := get(ca, path, mine); code != http.StatusServiceUnavailable {
			t.Errorf("%s with one byte less than its reservation free: status %d, want 503", name, code)
		}
		taken()
		taken, err = a.srv.adm.mem.reserve(context.Background(), a.srv.adm.mem.total-need)
		if err != nil {
			t.Fatal(err)
		}
		if code, _ := get(ca, path, mine); code != http.StatusOK {
			t.Errorf("%s with its reservation free: status %d, want 200", name, code)
		}
		taken()
	}
	if n := a.srv.adm.kinds[KindReport].inFlight.Load(); n != 0 {
		t.Errorf("%d report reads in flight after the views, want 0", n)
	}

	for name, path := range views {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		before := ms.TotalAlloc
		if code, _ := get(ca, path, mine); code != http.StatusOK {
			t.Fatalf("%s: status %d", name, code)
		}
		runtime.ReadMemStats(&ms)
		perByte := float64(ms.TotalAlloc-before) / float64(len(rep))
		t.Logf("%s of a %d-byte report allocated %.2f bytes per report byte; a view reserves %d", name, len(rep), perByte, siteReportViewFactor)
		if perByte > siteReportViewFactor && !raceEnabled {
			t.Errorf("%s allocated %.2f bytes per report byte, more than the %d it reserves", name, perByte, siteReportViewFactor)
		}
	}
}
