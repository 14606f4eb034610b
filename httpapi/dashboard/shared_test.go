package dashboard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/dashboard"
	"github.com/seokit/seokit/httpapi/plans"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/memstore"
	"github.com/seokit/seokit/seo"
)

// newServiceEnv is a dashboard over the real API server's analyses
// service, with the API served beside it; jobs stay queued. quota is the
// dashboard's Quota option (nil: none).
func newServiceEnv(t *testing.T, daily int, quota func(*lateAPI) dashboard.Quota) (*env, *lateAPI) {
	t.Helper()
	late := &lateAPI{}
	o := dashboard.Options{Analyses: late}
	if quota != nil {
		o.Quota = quota(late)
	}
	e := newEnv(t, &envOptions{realClock: true, opts: o, api: func(e *env) http.Handler {
		s, err := httpapi.New(context.Background(), &httpapi.Options{Store: e.st, Auth: e.au, AllowPrivate: true, Queue: idleQueue{},
			Plans:  map[store.Plan]plans.Limits{store.Free: {DailyRequests: daily, ConcurrentSiteJobs: 5, MaxSitePages: 500}},
			Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatalf("httpapi.New: %v", err)
		}
		t.Cleanup(func() { s.Close() })
		late.s = s
		return s
	}})
	return e, late
}

// TestAnalysisPageRendersTheAPIValue: an analysis started on the dashboard
// is read three ways: GET /v1/analyze/site/{id}, the service's Get, and
// the dashboard's analysis page. The API's answer is exactly the service
// value's JSON, and the page shows the fields of that same value; the
// dashboard's row type embeds service.Job, so a field added to it is in
// both without a second struct.
func TestAnalysisPageRendersTheAPIValue(t *testing.T) {
	if f, ok := reflect.TypeOf(dashboard.JobRow{}).FieldByName("Job"); !ok || !f.Anonymous || f.Type != reflect.TypeOf(service.Job{}) {
		t.Fatalf("dashboard.JobRow does not embed service.Job: %+v", f)
	}
	if reflect.TypeOf(httpapi.Job{}) != reflect.TypeOf(service.Job{}) {
		t.Fatal("httpapi.Job is not service.Job")
	}
	e, late := newServiceEnv(t, 100, func(l *lateAPI) dashboard.Quota { return l })
	ctx := context.Background()
	c := e.client(t)
	token := e.login(t, c)

	resp, body := post(t, c, e.srv.URL+"/dashboard/analyses", url.Values{"csrf_token": {token}, "domain": {"127.0.0.1:9"}, "max_pages": {"7"}})
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/dashboard/analyses/job_") {
		t.Fatalf("start analysis: %d %q\n%s", resp.StatusCode, loc, body)
	}
	id := strings.TrimPrefix(loc, "/dashboard/analyses/")
	// The job runs: its progress is stored as the worker stores it.
	j, err := e.st.Job(ctx, e.acct.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	j.Status, j.StartedAt, j.UpdatedAt = store.JobRunning, time.Now().UTC(), time.Now().UTC()
	j.Progress = []byte(`{"pagesDone":41,"errors":2,"queued":13,"skipped":0,"pagesPerSecond":3.5,"current":"http://127.0.0.1:9/deep/page","updatedAt":"2026-03-14T09:26:53Z","phase":"crawling"}`)
	if err := e.st.UpdateJob(ctx, j); err != nil {
		t.Fatal(err)
	}

	// The API's answer.
	resp, body = post(t, c, e.srv.URL+"/dashboard/keys", url.Values{"csrf_token": {token}, "name": {"reader"}, "permissions": {"read"}, "expires": {"30"}})
	m := strings.Index(body, `value="`+auth.KeyPrefix)
	if resp.StatusCode != http.StatusCreated || m < 0 {
		t.Fatalf("create key: %d\n%s", resp.StatusCode, body)
	}
	key := body[m+len(`value="`):]
	key = key[:strings.IndexByte(key, '"')]
	req, _ := http.NewRequest("GET", e.srv.URL+"/v1/analyze/site/"+id, nil)
	req.Header.Set("X-API-Key", key)
	ar, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	apiBody, _ := io.ReadAll(ar.Body)
	ar.Body.Close()
	if ar.StatusCode != http.StatusOK {
		t.Fatalf("GET /v1/analyze/site/%s: %d %s", id, ar.StatusCode, apiBody)
	}

	// The service's value, encoded as the API encodes it.
	v, res, err := late.s.Analyses().Get(ctx, e.acct.ID, id)
	if err != nil || res != nil {
		t.Fatalf("service Get: %v, result %v", err, res)
	}
	enc, _ := json.Marshal(v)
	if !bytes.Equal(bytes.TrimSpace(apiBody), enc) {
		t.Fatalf("the API answered\n%s\nthe service's value encodes as\n%s", apiBody, enc)
	}
	if v.Progress == nil || v.Progress.PagesDone != 41 || v.Options.MaxPages != 7 || v.Domain != "127.0.0.1:9" {
		t.Fatalf("service value = %+v (progress %+v)", v, v.Progress)
	}

	// The dashboard's page shows that value's fields.
	_, page := get(t, c, e.srv.URL+loc)
	for _, want := range []string{
		"Analysis of " + v.Domain,
		`id="job-status">` + v.Status + `<`,
		`id="pages-done">41<`, `id="pages-queued">13<`, `id="pages-errors">2<`,
		`id="current">` + v.Progress.Current + `<`,
		"at most 7 pages",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("analysis page lacks %q", want)
		}
	}
	// And its list row, from the service's List.
	if _, list := get(t, c, e.srv.URL+"/dashboard/analyses"); !strings.Contains(list, `href="/dashboard/analyses/`+id+`">`+v.Domain+`<`) {
		t.Error("analyses page does not list the job")
	}
}

// TestAnalysisChargedWithoutDashboardQuota: the dashboard has no Quota at
// all, yet each analysis it starts is charged to the account's daily
// limit by the service, and one over the limit is refused (429) and not
// stored.
func TestAnalysisChargedWithoutDashboardQuota(t *testing.T) {
	e, _ := newServiceEnv(t, 2, nil)
	ctx := context.Background()
	c := e.client(t)
	token := e.login(t, c)
	used := func() int { return usedToday(t, e) }
	start := url.Values{"csrf_token": {token}, "domain": {"127.0.0.1:9"}, "max_pages": {"5"}}
	for i := 1; i <= 2; i++ {
		if resp, body := post(t, c, e.srv.URL+"/dashboard/analyses", start); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("analysis %d: %d\n%s", i, resp.StatusCode, body)
		}
		if n := used(); n != i {
			t.Fatalf("usage after %d analyses = %d, want %d", i, n, i)
		}
	}
	resp, body := post(t, c, e.srv.URL+"/dashboard/analyses", start)
	if resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(body, "daily request limit of 2") {
		t.Fatalf("third analysis: %d\n%s", resp.StatusCode, body)
	}
	if js, _ := e.st.Jobs(ctx, e.acct.ID, 10); len(js) != 2 {
		t.Fatalf("%d jobs stored, want 2: the refused analysis must not be stored", len(js))
	}
	t.Logf("daily limit 2, no dashboard Quota: 2 analyses counted %d units, the third refused 429", used())
}

// serpAt is a SERP source that ranks every query's domain at position
// pos and counts its searches.
type serpAt struct {
	pos      int
	searches atomic.Int64
}

func (s *serpAt) Name() string { return "serp-at" }

func (s *serpAt) Search(_ context.Context, q rankings.Query) (*rankings.SERP, error) {
	s.searches.Add(1)
	return &rankings.SERP{Query: q, Depth: 100, Source: s.Name(), CheckedAt: time.Now().UTC(),
		Results: []rankings.Result{{Position: s.pos, URL: "https://shop.example/oak"}}}, nil
}

// TestRankingsPageRendersTheAPIValue: keywords tracked on the dashboard
// go through the API server's rankings service: the service charges the
// action once (the dashboard counts nothing itself) and checks it once
// through the SERP source; GET /v1/rankings then answers exactly the JSON
// of the service's value, charged its one request unit and no more, and
// the dashboard's rankings page shows that value's state. Over the daily
// limit, the dashboard's "Track keywords" is refused and tracks nothing.
func TestRankingsPageRendersTheAPIValue(t *testing.T) {
	late := &lateAPI{}
	rs := memstore.New(nil)
	src := &serpAt{pos: 3}
	e := newEnv(t, &envOptions{realClock: true, opts: dashboard.Options{Analyses: late, Quota: late, Tracking: lateRankings{late}},
		api: func(e *env) http.Handler {
			s, err := httpapi.New(context.Background(), &httpapi.Options{Store: e.st, Auth: e.au, AllowPrivate: true, Queue: idleQueue{},
				Tracker: rankings.NewTracker(src, rs, nil),
				Plans:   map[store.Plan]plans.Limits{store.Free: {DailyRequests: 4, ConcurrentSiteJobs: 5}}, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatalf("httpapi.New: %v", err)
			}
			t.Cleanup(func() { s.Close() })
			late.s = s
			return s
		}})
	ctx := context.Background()
	used := func() int { return usedToday(t, e) }
	c := e.client(t)
	token := e.login(t, c)

	track(t, e, c, token, "shop.example", "oak tables")
	if n, s := used(), src.searches.Load(); n != 1 || s != 1 {
		t.Fatalf("after tracking on the dashboard: %d units charged, %d searches; want 1 and 1", n, s)
	}

	resp, body := post(t, c, e.srv.URL+"/dashboard/keys", url.Values{"csrf_token": {token}, "name": {"reader"}, "permissions": {"read"}, "expires": {"30"}})
	m := strings.Index(body, `value="`+auth.KeyPrefix)
	if resp.StatusCode != http.StatusCreated || m < 0 {
		t.Fatalf("create key: %d\n%s", resp.StatusCode, body)
	}
	key := body[m+len(`value="`):]
	key = key[:strings.IndexByte(key, '"')]
	req, _ := http.NewRequest("GET", e.srv.URL+"/v1/rankings?domain=shop.example&keywords[]="+url.QueryEscape("oak tables"), nil)
	req.Header.Set("X-API-Key", key)
	ar, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	apiBody, _ := io.ReadAll(ar.Body)
	ar.Body.Close()
	if ar.StatusCode != http.StatusOK {
		t.Fatalf("GET /v1/rankings: %d %s", ar.StatusCode, apiBody)
	}
	if n := used(); n != 2 {
		t.Fatalf("after GET /v1/rankings: %d units charged, want 2 (the request's one, nothing more)", n)
	}

	// The service's value, with the unit the API request paid: nothing
	// more is charged, and it encodes to the API's answer.
	v, err := late.s.Rankings().Check(service.WithPaid(ctx, 1), e.acct.ID, service.RankingsRequest{Domain: "shop.example", Keywords: []string{"oak tables"}})
	if err != nil {
		t.Fatal(err)
	}
	if n := used(); n != 2 {
		t.Fatalf("a paid service call charged again: %d units, want 2", n)
	}
	enc, _ := json.Marshal(v)
	if !bytes.Equal(bytes.TrimSpace(apiBody), enc) {
		t.Fatalf("the API answered\n%s\nthe service's value encodes as\n%s", apiBody, enc)
	}
	if len(v.Rankings) != 1 || v.Rankings[0].Status != rankings.StatusRanked || v.SourceStatus != service.SourceConfigured {
		t.Fatalf("service value = %+v", v)
	}
	if s := src.searches.Load(); s != 1 {
		t.Fatalf("%d searches, want 1: a fresh position is not searched again", s)
	}

	// The dashboard's page shows that value's state.
	rk := v.Rankings[0]
	_, page := get(t, c, e.srv.URL+"/dashboard/rankings?domain=shop.example")
	for _, want := range []string{
		`<td>oak tables</td><td>en-US</td><td>desktop</td>`,
		`<span class="rank-status ` + string(rk.Status) + `">ranked</span>`,
		html.EscapeString(rk.Label()) + " on " + rk.CheckedAt.UTC().Format("2006-01-02"),
	} {
		if !strings.Contains(page, want) {
			t.Errorf("rankings page lacks %q", want)
		}
	}

	// Unpaid, the service charges its unit whoever calls it.
	if _, err := late.s.Rankings().Check(ctx, e.acct.ID, service.RankingsRequest{Domain: "shop.example", Keywords: []string{"oak tables"}}); err != nil {
		t.Fatal(err)
	}
	track(t, e, c, token, "shop.example", "walnut desks")
	if n := used(); n != 4 {
		t.Fatalf("after an unpaid Check and a second tracking: %d units, want 4", n)
	}
	resp, body = post(t, c, e.srv.URL+"/dashboard/rankings", url.Values{"csrf_token": {token}, "domain": {"shop.example"},
		"keywords": {"pine shelves"}, "locale": {"en-US"}, "device": {"desktop"}})
	if resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(body, "Refused: daily request limit of 4") {
		t.Fatalf("tracking over the daily limit: %d\n%s", resp.StatusCode, body)
	}
	if tr, err := rs.Tracked(ctx, rankings.Filter{Domain: "shop.example"}); err != nil || len(tr) != 2 {
		t.Fatalf("tracked after the refusal: %v, %v; want oak tables and walnut desks only", tr, err)
	}
	t.Logf("daily limit 4: dashboard tracking 1 unit each, GET /v1/rankings 1, a paid service call 0, an unpaid one 1 (%d units); %d SERP searches; the fifth action refused 429", used(), src.searches.Load())
}

// TestAccountPagesRenderTheServiceValue: with the API server's accounts
// service, a key created on the dashboard is the service's key (created
// through auth, it authenticates API requests), the requests it makes are
// the usage the service reads and the usage page shows, and a key the
// service revokes is shown revoked and refused by the API: one path to
// accounts for both surfaces.
func TestAccountPagesRenderTheServiceValue(t *testing.T) {
	late := &lateAPI{}
	var acc service.Accounts
	e := newEnv(t, &envOptions{realClock: true, opts: dashboard.Options{Analyses: late, Quota: late, Accounts: lateAccounts{&acc}},
		api: func(e *env) http.Handler {
			s, err := httpapi.New(context.Background(), &httpapi.Options{Store: e.st, Auth: e.au, AllowPrivate: true, Queue: idleQueue{},
				Plans: map[store.Plan]plans.Limits{store.Free: {DailyRequests: 50, ConcurrentSiteJobs: 5}}, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatalf("httpapi.New: %v", err)
			}
			t.Cleanup(func() { s.Close() })
			late.s, acc = s, s.Accounts()
			return s
		}})
	ctx := context.Background()
	c := e.client(t)
	token := e.login(t, c)
	resp, body := post(t, c, e.srv.URL+"/dashboard/keys", url.Values{"csrf_token": {token}, "name": {"nightly report"}, "permissions": {"read"}, "expires": {"30"}})
	m := strings.Index(body, `value="`+auth.KeyPrefix)
	if resp.StatusCode != http.StatusCreated || m < 0 {
		t.Fatalf("create key: %d\n%s", resp.StatusCode, body)
	}
	key := body[m+len(`value="`):]
	key = key[:strings.IndexByte(key, '"')]
	keys, err := acc.Keys(ctx, e.acct.ID)
	if err != nil || len(keys) != 1 || keys[0].Name != "nightly report" || !strings.HasPrefix(key, keys[0].Prefix) {
		t.Fatalf("service Keys = %+v, %v; want the dashboard's key", keys, err)
	}
	call := func() int {
		t.Helper()
		req, _ := http.NewRequest("GET", e.srv.URL+"/v1/analyze/site", nil)
		req.Header.Set("X-API-Key", key)
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
		return r.StatusCode
	}
	const n = 3
	for range n {
		if st := call(); st != http.StatusOK {
			t.Fatalf("GET /v1/analyze/site with the dashboard's key: %d", st)
		}
	}
	today := time.Now().UTC().Truncate(24 * time.Hour)
	u, err := acc.Usage(ctx, e.acct.ID, today, today)
	if err != nil || len(u) != 1 || u[0].Count != n {
		t.Fatalf("service Usage = %+v, %v; want %d requests today", u, err, n)
	}
	_, page := get(t, c, e.srv.URL+"/dashboard/usage")
	if want := `<p class="big">` + strconv.Itoa(u[0].Count) + ` <span class="muted">of 50 requests`; !strings.Contains(page, want) {
		t.Errorf("usage page lacks %q", want)
	}
	_, page = get(t, c, e.srv.URL+"/dashboard/keys")
	if want := `<td data-label="Name">nightly report</td><td data-label="Key"><code>` + keys[0].Prefix + "…</code></td>"; !strings.Contains(page, want) {
		t.Errorf("keys page lacks %q", want)
	}
	if err := acc.RevokeKey(ctx, e.acct.ID, keys[0].ID); err != nil {
		t.Fatal(err)
	}
	if _, page = get(t, c, e.srv.URL+"/dashboard/keys"); !strings.Contains(page, `<span class="status failed">revoked `) {
		t.Error("keys page does not show the key the service revoked as revoked")
	}
	if st := call(); st != http.StatusUnauthorized {
		t.Errorf("the revoked key got %d, want 401", st)
	}
	t.Logf("%d API requests with the dashboard's key: the service's usage and the usage page read %d", n, u[0].Count)
}

// lateAccounts is the API server's accounts service, once it exists.
type lateAccounts struct{ a *service.Accounts }

func (l lateAccounts) Account(ctx context.Context, id string) (*store.Account, error) {
	return (*l.a).Account(ctx, id)
}
func (l lateAccounts) AccountByEmail(ctx context.Context, email string) (*store.Account, error) {
	return (*l.a).AccountByEmail(ctx, email)
}
func (l lateAccounts) ListAccounts(ctx context.Context, after string, limit int) ([]store.Account, error) {
	return (*l.a).ListAccounts(ctx, after, limit)
}
func (l lateAccounts) CreateAccount(ctx context.Context, email, name, password string, plan store.Plan) (*store.Account, error) {
	return (*l.a).CreateAccount(ctx, email, name, password, plan)
}
func (l lateAccounts) UpdateAccount(ctx context.Context, a *store.Account) error {
	return (*l.a).UpdateAccount(ctx, a)
}
func (l lateAccounts) SetPassword(ctx context.Context, accountID, password string) (*store.Account, error) {
	return (*l.a).SetPassword(ctx, accountID, password)
}
func (l lateAccounts) Keys(ctx context.Context, accountID string) ([]store.APIKey, error) {
	return (*l.a).Keys(ctx, accountID)
}
func (l lateAccounts) CreateKey(ctx context.Context, accountID, name string, permissions []string, expires time.Time) (string, *store.APIKey, error) {
	return (*l.a).CreateKey(ctx, accountID, name, permissions, expires)
}
func (l lateAccounts) RevokeKey(ctx context.Context, accountID, id string) error {
	return (*l.a).RevokeKey(ctx, accountID, id)
}
func (l lateAccounts) Clients(ctx context.Context, accountID string) ([]store.Client, error) {
	return (*l.a).Clients(ctx, accountID)
}
func (l lateAccounts) Client(ctx context.Context, accountID, id string) (*store.Client, error) {
	return (*l.a).Client(ctx, accountID, id)
}
func (l lateAccounts) CreateClient(ctx context.Context, accountID, name string, redirectURIs, scopes []string) (string, *store.Client, error) {
	return (*l.a).CreateClient(ctx, accountID, name, redirectURIs, scopes)
}
func (l lateAccounts) RotateClientSecret(ctx context.Context, accountID, clientID string) (string, error) {
	return (*l.a).RotateClientSecret(ctx, accountID, clientID)
}
func (l lateAccounts) DeleteClient(ctx context.Context, accountID, id string) error {
	return (*l.a).DeleteClient(ctx, accountID, id)
}
func (l lateAccounts) Usage(ctx context.Context, accountID string, from, to time.Time) ([]store.Usage, error) {
	return (*l.a).Usage(ctx, accountID, from, to)
}

// TestRankingsPageShowsTheServiceHistory: the rankings page reads the
// history of the account's tracked keywords through the rankings service
// (service.Rankings.History), not around it: each day's row of the page is
// the service's observation of that day, in the service's order, and an
// observation of a device the account does not track, which the service
// returns, is not shown. Reading history charges nothing.
func TestRankingsPageShowsTheServiceHistory(t *testing.T) {
	e, late, rs := newRankingsAPIEnv(t, plans.Limits{DailyRequests: 10, ConcurrentSiteJobs: 5})
	ctx := context.Background()
	c := e.client(t)
	token := e.login(t, c)
	track(t, e, c, token, "shop.example", "oak tables")

	today := time.Now().UTC().Truncate(24 * time.Hour)
	en := seo.Locale{Language: "en", Region: "US"}
	var obs []rankings.Observation
	for i, p := range []float64{7, 0, 4, 2} {
		o := rankings.Observation{Domain: "shop.example", Keyword: "oak tables", Locale: en, Device: rankings.Desktop,
			Date: today.AddDate(0, 0, -2*(3-i)), URL: "https://shop.example/oak-" + strconv.Itoa(i), Depth: 100, Source: "test", CheckedAt: today.AddDate(0, 0, -2*(3-i))}
		if p > 0 {
			o.Position = &p
		}
		obs = append(obs, o)
	}
	obs = append(obs, rankings.Observation{Domain: "shop.example", Keyword: "oak tables", Locale: en, Device: rankings.Mobile,
		Date: today, URL: "https://shop.example/mobile-only", Depth: 100, Source: "test", CheckedAt: today})
	if err := rs.Record(ctx, obs); err != nil {
		t.Fatal(err)
	}
	usage := func() int { return usedToday(t, e) }
	before := usage()

	h, err := late.s.Rankings().History(ctx, e.acct.ID, service.HistoryRequest{Domain: "shop.example", Keywords: []string{"oak tables"},
		From: today.AddDate(0, 0, -29), To: today})
	if err != nil {
		t.Fatal(err)
	}
	resp, page := get(t, c, e.srv.URL+"/dashboard/rankings?domain=shop.example")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("rankings page: %d\n%s", resp.StatusCode, page)
	}
	var rows strings.Builder
	desktop, mobile := 0, 0
	for _, o := range h.Observations {
		if o.Device != rankings.Desktop {
			mobile++
			if strings.Contains(page, o.URL) {
				t.Errorf("page shows %s, an observation of a device the account does not track", o.URL)
			}
			continue
		}
		desktop++
		rows.WriteString("<tr><td>" + o.Date.Format("2006-01-02") + "</td><td>" + html.EscapeString(rankings.RankingOf(o).Label()) +
			`</td><td class="url">` + html.EscapeString(o.URL) + "</td></tr>")
	}
	if desktop != 4 || mobile != 1 {
		t.Fatalf("service history: %d desktop and %d mobile observations, want 4 and 1: %+v", desktop, mobile, h.Observations)
	}
	if !strings.Contains(page, rows.String()) {
		t.Fatalf("the page's rows are not the service's history\nwant %s\npage %s", rows.String(), page)
	}
	if n := usage(); n != before {
		t.Fatalf("reading history charged %d units", n-before)
	}
	t.Logf("service history: %d observations (%d of the tracked device shown as the page's rows, %d not shown); %d units charged by reading", len(h.Observations), desktop, mobile, usage()-before)
}

// untrackCalls records the Untrack calls made to a rankings service.
type untrackCalls struct {
	service.Rankings
	mu    sync.Mutex
	calls []service.TrackRequest
}

func (u *untrackCalls) Untrack(ctx context.Context, accountID string, req service.TrackRequest) error {
	u.mu.Lock()
	u.calls = append(u.calls, req)
	u.mu.Unlock()
	return u.Rankings.Untrack(ctx, accountID, req)
}

func (u *untrackCalls) got() []service.TrackRequest {
	u.mu.Lock()
	defer u.mu.Unlock()
	return slices.Clone(u.calls)
}

// TestUntrackGoesThroughTheService: the dashboard's "untrack" stops the
// re-checks through the API server's rankings service
// (service.Rankings.Untrack), the dashboard holding no rankings store: a
// keyword another account still watches is not untracked (no call); the
// last account's untrack makes one call naming the keyword, its locale and
// device, after which the tracker's store no longer tracks it while the
// other keyword stays tracked and the history is kept; untracking charges
// nothing; a form naming no keyword is refused (400) with no call.
func TestUntrackGoesThroughTheService(t *testing.T) {
	late := &lateAPI{}
	rs := memstore.New(nil)
	calls := &untrackCalls{Rankings: lateRankings{late}}
	e := newEnv(t, &envOptions{realClock: true, opts: dashboard.Options{Analyses: late, Quota: late, Tracking: calls},
		api: func(e *env) http.Handler {
			s, err := httpapi.New(context.Background(), &httpapi.Options{Store: e.st, Auth: e.au, AllowPrivate: true, Queue: idleQueue{},
				Tracker: rankings.NewTracker(nil, rs, nil),
				Plans:   map[store.Plan]plans.Limits{store.Free: {DailyRequests: 20, ConcurrentSiteJobs: 5}}, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatalf("httpapi.New: %v", err)
			}
			t.Cleanup(func() { s.Close() })
			late.s = s
			return s
		}})
	ctx := context.Background()
	if _, err := e.au.CreateAccount(ctx, "bea@example.com", "Bea", "bea's long password", store.Free); err != nil {
		t.Fatal(err)
	}
	ada, bea := e.client(t), e.client(t)
	adaTok := e.login(t, ada)
	beaTok := e.loginAs(t, bea, "bea@example.com", "bea's long password")
	track(t, e, ada, adaTok, "shop.example", "oak tables", "pine chairs")
	track(t, e, bea, beaTok, "shop.example", "oak tables")
	observe(t, rs, time.Now(), "shop.example", "oak tables", 3)
	tracked := func() []string {
		t.Helper()
		ts, err := rs.Tracked(ctx, rankings.Filter{Domain: "shop.example"})
		if err != nil {
			t.Fatal(err)
		}
		var kws []string
		for _, tr := range ts {
			kws = append(kws, tr.Keyword)
		}
		slices.Sort(kws)
		return kws
	}
	if got := tracked(); !slices.Equal(got, []string{"oak tables", "pine chairs"}) {
		t.Fatalf("tracked before untrack: %q", got)
	}
	usage := func() int { return usedToday(t, e) }
	before := usage()
	untrack := func(c *http.Client, token, keyword string) int {
		t.Helper()
		resp, _ := post(t, c, e.srv.URL+"/dashboard/rankings/untrack", url.Values{"csrf_token": {token}, "domain": {"shop.example"},
			"keyword": {keyword}, "locale": {"en-US"}, "device": {"desktop"}})
		return resp.StatusCode
	}

	if code := untrack(ada, adaTok, "oak tables"); code != http.StatusSeeOther {
		t.Fatalf("Ada's untrack: %d", code)
	}
	if n := len(calls.got()); n != 0 {
		t.Fatalf("%d Untrack calls while Bea still watches the keyword, want none", n)
	}
	if code := untrack(bea, beaTok, "oak tables"); code != http.StatusSeeOther {
		t.Fatalf("Bea's untrack: %d", code)
	}
	want := []service.TrackRequest{{Domain: "shop.example", Keywords: []string{"oak tables"}, Locale: "en-US", Device: "desktop"}}
	if got := calls.got(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Untrack calls %+v, want %+v", got, want)
	}
	if got := tracked(); !slices.Equal(got, []string{"pine chairs"}) {
		t.Fatalf("tracked after the service's untrack: %q, want only pine chairs", got)
	}
	if h, err := rs.History(ctx, rankings.Filter{Domain: "shop.example"}); err != nil || len(h) != 1 {
		t.Fatalf("history after untrack: %d observations (%v), want the 1 kept", len(h), err)
	}
	if code := untrack(ada, adaTok, " "); code != http.StatusBadRequest {
		t.Fatalf("untrack of no keyword: %d, want 400", code)
	}
	if n := len(calls.got()); n != 1 {
		t.Fatalf("%d Untrack calls after a refused form, want 1", n)
	}
	if n := usage(); n != before {
		t.Fatalf("untracking charged %d units", n-before)
	}
	t.Logf("untrack: %d service call (%+v); tracked after: %q; charged %d units", len(calls.got()), calls.got()[0], tracked(), usage()-before)
}

// TestRankingsPlanTrackedKeywords: the rankings page's form tracks keywords
// within the plan's plans.Limits.TrackedKeywords, read from the API server
// (dashboard.Quota): the page says how many of them the account tracks,
// and a form that would pass the cap is a 400 naming keywords, with
// nothing charged, searched or watched.
func TestRankingsPlanTrackedKeywords(t *testing.T) {
	e, _, rs := newRankingsAPIEnv(t, plans.Limits{DailyRequests: 10, TrackedKeywords: 2})
	ctx := context.Background()
	c := e.client(t)
	token := e.login(t, c)
	track(t, e, c, token, "shop.example", "oak tables", "oak chairs")
	_, page := get(t, c, e.srv.URL+"/dashboard/rankings")
	if !strings.Contains(page, "You track 2 of the 2 keywords your plan allows") {
		t.Errorf("rankings page does not show the plan's tracked keywords:\n%s", page)
	}
	before := usedToday(t, e)
	resp, body := post(t, c, e.srv.URL+"/dashboard/rankings", url.Values{"csrf_token": {token}, "domain": {"shop.example"},
		"keywords": {"oak tables\npine tables"}, "locale": {"en-US"}, "device": {"desktop"}})
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "2 tracked keywords") {
		t.Errorf("a third keyword on a plan of 2: %d\n%s", resp.StatusCode, body)
	}
	if n := usedToday(t, e) - before; n != 0 {
		t.Errorf("the refused form charged %d units", n)
	}
	if ts, _ := rs.Tracked(ctx, rankings.Filter{}); len(ts) != 2 {
		t.Errorf("rankings store tracks %d keywords, want 2", len(ts))
	}
}
