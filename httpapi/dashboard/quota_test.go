package dashboard_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/dashboard"
	"github.com/seokit/seokit/httpapi/plans"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/memstore"
)

// lateAPI hands the dashboard's Analyses and Quota to an API server made
// after the dashboard (newEnv builds the dashboard first).
type lateAPI struct{ s *httpapi.Server }

var (
	_ service.Analyses = (*lateAPI)(nil)
	_ dashboard.Quota  = (*lateAPI)(nil)

	// The API server is what examples/server hands the dashboard as its
	// Quota and Mutes, and its Analyses() as the analyses service.
	_ dashboard.Quota = (*httpapi.Server)(nil)
	_ dashboard.Mutes = (*httpapi.Server)(nil)
)

func (l *lateAPI) Submit(ctx context.Context, accountID string, req service.SiteRequest) (*service.Job, error) {
	return l.s.Analyses().Submit(ctx, accountID, req)
}
func (l *lateAPI) Get(ctx context.Context, accountID, id string) (*service.Job, service.Result, error) {
	return l.s.Analyses().Get(ctx, accountID, id)
}
func (l *lateAPI) Report(ctx context.Context, accountID, id string) (*service.Job, *crawler.SiteReport, func(), error) {
	return l.s.Analyses().Report(ctx, accountID, id)
}
func (l *lateAPI) List(ctx context.Context, accountID string, limit int) ([]service.Job, error) {
	return l.s.Analyses().List(ctx, accountID, limit)
}
func (l *lateAPI) Cancel(ctx context.Context, accountID, id string) (*service.Job, error) {
	return l.s.Analyses().Cancel(ctx, accountID, id)
}
func (l *lateAPI) Diff(ctx context.Context, accountID, id, against string) (*service.SiteDiff, error) {
	return l.s.Analyses().Diff(ctx, accountID, id, against)
}
func (l *lateAPI) Screenshot(ctx context.Context, accountID, jobID, pageURL string) ([]byte, error) {
	return l.s.Analyses().Screenshot(ctx, accountID, jobID, pageURL)
}
func (l *lateAPI) CountAction(ctx context.Context, accountID, action string) error {
	return l.s.CountAction(ctx, accountID, action)
}
func (l *lateAPI) DailyLimit(ctx context.Context, accountID string) (int, error) {
	return l.s.DailyLimit(ctx, accountID)
}
func (l *lateAPI) MaxSitePages(ctx context.Context, accountID string) (int, error) {
	return l.s.MaxSitePages(ctx, accountID)
}
func (l *lateAPI) TrackedKeywords(ctx context.Context, accountID string) (int, error) {
	return l.s.TrackedKeywords(ctx, accountID)
}

// lateRankings is the API server's rankings service, once it exists.
type lateRankings struct{ *lateAPI }

var _ service.Rankings = lateRankings{}

func (l lateRankings) Check(ctx context.Context, accountID string, req service.RankingsRequest) (*service.RankingsResponse, error) {
	return l.s.Rankings().Check(ctx, accountID, req)
}
func (l lateRankings) Track(ctx context.Context, accountID string, req service.TrackRequest) ([]rankings.Ranking, error) {
	return l.s.Rankings().Track(ctx, accountID, req)
}
func (l lateRankings) Untrack(ctx context.Context, accountID string, req service.TrackRequest) error {
	return l.s.Rankings().Untrack(ctx, accountID, req)
}
func (l lateRankings) Source() (string, bool) { return l.s.Rankings().Source() }
func (l lateRankings) History(ctx context.Context, accountID string, req service.HistoryRequest) (*service.RankingHistory, error) {
	return l.s.Rankings().History(ctx, accountID, req)
}

// idleQueue keeps jobs queued: no crawl runs.
type idleQueue struct{}

func (idleQueue) Start(context.Context, httpapi.RunFunc) error { return nil }
func (idleQueue) Enqueue(context.Context, *store.Job) error    { return nil }
func (idleQueue) Stop(context.Context) error                   { return nil }

// newRankingsAPIEnv is a dashboard over a real API server (httpapi.New
// and Start, jobs kept queued) as its Analyses, Quota and Tracking, with
// Free's limits set to free and rankings kept in the returned store.
func newRankingsAPIEnv(t *testing.T, free plans.Limits) (*env, *lateAPI, rankings.Store) {
	t.Helper()
	late := &lateAPI{}
	rs := memstore.New(nil)
	e := newEnv(t, &envOptions{realClock: true, opts: dashboard.Options{Analyses: late, Quota: late, Tracking: lateRankings{late}},
		api: func(e *env) http.Handler {
			s, err := httpapi.New(context.Background(), &httpapi.Options{Store: e.st, Auth: e.au, AllowPrivate: true, Queue: idleQueue{},
				Tracker: rankings.NewTracker(nil, rs, nil),
				Plans:   map[store.Plan]plans.Limits{store.Free: free}, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatalf("httpapi.New: %v", err)
			}
			if err := s.Start(context.Background()); err != nil {
				t.Fatalf("Start: %v", err)
			}
			t.Cleanup(func() { s.Close() })
			late.s = s
			return s
		}})
	return e, late, rs
}

// usedToday is the requests e's account was counted today.
func usedToday(t *testing.T, e *env) int {
	t.Helper()
	today := time.Now().UTC().Truncate(24 * time.Hour)
	u, err := e.st.Usage(context.Background(), e.acct.ID, today, today)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, x := range u {
		n += x.Count
	}
	return n
}

// TestActionsCountAgainstDailyLimit starts an analysis and tracks keywords
// on the dashboard of an account whose plan allows 2 requests a day: each
// counts one, the next analysis is refused with 429 and starts nothing.
func TestActionsCountAgainstDailyLimit(t *testing.T) {
	e, _, _ := newRankingsAPIEnv(t, plans.Limits{DailyRequests: 2, ConcurrentSiteJobs: 5})
	ctx := context.Background()
	used := func() int { return usedToday(t, e) }
	c := e.client(t)
	token := e.login(t, c)
	start := url.Values{"csrf_token": {token}, "domain": {"127.0.0.1:9"}, "max_pages": {"10"}}
	if resp, body := post(t, c, e.srv.URL+"/dashboard/analyses", start); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("start analysis: %d\n%s", resp.StatusCode, body)
	}
	if n := used(); n != 1 {
		t.Fatalf("usage after one analysis = %d, want 1", n)
	}
	track(t, e, c, token, "example.com", "oak tables")
	if n := used(); n != 2 {
		t.Fatalf("usage after tracking keywords = %d, want 2", n)
	}
	resp, body := post(t, c, e.srv.URL+"/dashboard/analyses", start)
	if resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(body, "daily request limit of 2") {
		t.Fatalf("analysis over the daily limit: %d\n%s", resp.StatusCode, body)
	}
	if js, _ := e.st.Jobs(ctx, e.acct.ID, 10); len(js) != 1 {
		t.Fatalf("%d jobs, want 1: the refused analysis must not start", len(js))
	}
	if n := used(); n != 2 {
		t.Fatalf("usage after a refusal = %d, want 2", n)
	}
	// The usage page shows the plan's limit from the server.
	if _, body := get(t, c, e.srv.URL+"/dashboard/usage"); !strings.Contains(body, `2 <span class="muted">of 2 requests`) {
		t.Error("usage page does not show 2 of 2")
	}
}
