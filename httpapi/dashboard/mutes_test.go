package dashboard_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi/dashboard"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

// memMutes keeps mute lists in memory and refuses IDs without a dot or
// area it knows, as the API server does with the catalogue.
type memMutes struct {
	mu    sync.Mutex
	lists map[string][]string
}

var _ dashboard.Mutes = (*memMutes)(nil)

func (m *memMutes) Mutes(_ context.Context, accountID, domain string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string{}, m.lists[accountID+" "+domain]...), nil
}

func (m *memMutes) SetMutes(_ context.Context, accountID, domain string, ids []string) ([]string, error) {
	if err := analyzer.ValidateIDs("ids", ids, crawler.Catalog()); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.lists == nil {
		m.lists = map[string][]string{}
	}
	m.lists[accountID+" "+domain] = slices.Clone(ids)
	return ids, nil
}

func TestAnalysisMutes(t *testing.T) {
	mutes := &memMutes{}
	e := newEnv(t, &envOptions{opts: dashboard.Options{Mutes: mutes}})
	rep := &crawler.SiteReport{
		Domain: "shop.example", StatusCodes: map[int]int{200: 1},
		Findings: []crawler.FindingGroup{
			{ID: "title.too_long", Severity: seo.Warning, Count: 2, Pages: 2, Message: "m", Examples: []string{"https://shop.example/"}},
			{ID: "social.og_image_missing", Severity: seo.Notice, Count: 2, Pages: 2, Message: "m", Examples: []string{"https://shop.example/"}},
		},
		Muted: []analyzer.MutedFinding{{ID: "security.csp_missing", Severity: seo.Notice, Count: 2}},
		Pages: []crawler.PageSummary{{URL: "https://shop.example/", Status: 200}},
	}
	res, _ := json.Marshal(rep)
	ctx := context.Background()
	j := &store.Job{ID: "job_mutes", AccountID: e.acct.ID, Kind: "site", Status: store.JobQueued,
		Request: []byte(`{"domain":"shop.example","options":{}}`), CreatedAt: e.clock.Now(), UpdatedAt: e.clock.Now()}
	if err := e.st.CreateJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	j.Status, j.Result, j.FinishedAt = store.JobSucceeded, res, e.clock.Now()
	if err := e.st.UpdateJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	c := e.client(t)
	csrf := e.login(t, c)
	page := e.srv.URL + "/dashboard/analyses/" + j.ID
	_, body := get(t, c, page)
	for _, want := range []string{`id="mutes"`, "No check is muted for shop.example", `name="mute" value="title.too_long">Mute for shop.example`,
		"This report muted: <code>security.csp_missing</code> (notice, 2)"} {
		if !strings.Contains(body, want) {
			t.Errorf("analysis page lacks %q", want)
		}
	}
	resp, _ := post(t, c, page+"/mutes", url.Values{"csrf_token": {csrf}, "mute": {"social.og_image_missing"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/dashboard/analyses/"+j.ID+"#mutes" {
		t.Fatalf("mute: status %d, location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if got, _ := mutes.Mutes(ctx, e.acct.ID, "shop.example"); !slices.Equal(got, []string{"social.og_image_missing"}) {
		t.Errorf("stored %v after muting", got)
	}
	_, body = get(t, c, page)
	if !strings.Contains(body, `name="unmute" value="social.og_image_missing">Unmute`) || strings.Contains(body, `name="mute" value="social.og_image_missing"`) {
		t.Errorf("muted ID not listed with Unmute:\n%s", body)
	}
	resp, body = post(t, c, page+"/mutes", url.Values{"csrf_token": {csrf}, "mute": {"bogus.id"}})
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "bogus.id") {
		t.Errorf("unknown ID: status %d", resp.StatusCode)
	}
	post(t, c, page+"/mutes", url.Values{"csrf_token": {csrf}, "unmute": {"social.og_image_missing"}})
	if got, _ := mutes.Mutes(ctx, e.acct.ID, "shop.example"); len(got) != 0 {
		t.Errorf("stored %v after unmuting", got)
	}
	if resp, _ := post(t, c, page+"/mutes", url.Values{"mute": {"title.too_long"}}); resp.StatusCode != http.StatusForbidden {
		t.Errorf("mute without CSRF token: status %d", resp.StatusCode)
	}
	// Another account's analysis is not found.
	other, err := e.au.CreateAccount(ctx, "eve@example.com", "Eve", testPassword, store.Free)
	if err != nil {
		t.Fatal(err)
	}
	j2 := *j
	j2.ID, j2.AccountID, j2.Status = "job_mutes_other", other.ID, store.JobQueued
	if err := e.st.CreateJob(ctx, &j2); err != nil {
		t.Fatal(err)
	}
	if resp, _ := post(t, c, e.srv.URL+"/dashboard/analyses/"+j2.ID+"/mutes", url.Values{"csrf_token": {csrf}, "mute": {"title.too_long"}}); resp.StatusCode != http.StatusNotFound {
		t.Errorf("another account's analysis: status %d", resp.StatusCode)
	}
}
