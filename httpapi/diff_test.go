package httpapi

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/compare"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

func TestSiteDiff(t *testing.T) {
	a := newTestAPI(t, nil)
	t0 := time.Now().UTC().Add(-time.Hour)
	page := func(u, title string, ids ...string) crawler.PageSummary {
		return crawler.PageSummary{URL: u, Status: 200, Indexable: true, Title: title, Findings: ids}
	}
	first := a.storeSiteJob(a.acct.ID, "example.com", store.JobSucceeded, &crawler.SiteReport{Domain: "example.com",
		Pages: []crawler.PageSummary{page("https://example.com/", "Home"), page("https://example.com/old", "Old")}}, t0)
	failed := a.storeSiteJob(a.acct.ID, "example.com", store.JobFailed, nil, t0.Add(time.Minute))
	other := a.storeSiteJob(a.acct.ID, "other.example", store.JobSucceeded, &crawler.SiteReport{Domain: "other.example"}, t0.Add(2*time.Minute))
	second := a.storeSiteJob(a.acct.ID, "example.com", store.JobSucceeded, &crawler.SiteReport{Domain: "example.com",
		Pages:    []crawler.PageSummary{page("https://example.com/", "Home, renamed", "title.too_short")},
		Findings: []crawler.FindingGroup{{ID: "title.too_short", Severity: seo.Warning, Scope: seo.ScopePage, Count: 1, Pages: 1}}}, t0.Add(3*time.Minute))

	// Default: the previous successful analysis of the same domain.
	resp := a.call("GET", "/v1/analyze/site/"+second+"/diff", a.key, "")
	wantStatus(t, resp, 200)
	var got struct {
		Old, New string
		Diff     compare.Diff
	}
	readJSON(t, resp, &got)
	if got.Old != first || got.New != second || got.Diff.Removed.Count != 1 || got.Diff.ChangedPages != 1 {
		t.Errorf("diff = old %s new %s, %d removed, %d changed; want %s, %s, 1, 1", got.Old, got.New, got.Diff.Removed.Count, got.Diff.ChangedPages, first, second)
	}
	if len(got.Diff.Findings) != 1 || got.Diff.Findings[0].Status != compare.FindingNew {
		t.Errorf("findings = %+v, want title.too_short new", got.Diff.Findings)
	}
	for format, want := range map[string]string{"text": "New findings (1)", "markdown": "`title.too_short`", "html": "<!DOCTYPE html>"} {
		resp := a.call("GET", "/v1/analyze/site/"+second+"/diff?format="+format+"&against="+first, a.key, "")
		wantStatus(t, resp, 200)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(b), want) {
			t.Errorf("format %s lacks %q", format, want)
		}
		if format == "html" && !strings.Contains(resp.Header.Get("Content-Security-Policy"), "sandbox") {
			t.Errorf("html diff CSP = %q", resp.Header.Get("Content-Security-Policy"))
		}
	}

	// Errors name what is wrong.
	apiErr(t, a.call("GET", "/v1/analyze/site/"+first+"/diff", a.key, ""), 404, CodeNotFound)
	apiErr(t, a.call("GET", "/v1/analyze/site/"+second+"/diff?against="+failed, a.key, ""), 409, CodeConflict)
	if e := apiErr(t, a.call("GET", "/v1/analyze/site/"+second+"/diff?against="+other, a.key, ""), 400, CodeInvalidRequest); e.Field != "against" {
		t.Errorf("field = %q, want against", e.Field)
	}
	if e := apiErr(t, a.call("GET", "/v1/analyze/site/"+second+"/diff?format=pdf", a.key, ""), 400, CodeInvalidRequest); e.Field != "format" {
		t.Errorf("field = %q, want format", e.Field)
	}
	apiErr(t, a.call("GET", "/v1/analyze/site/"+second+"/diff?against=job_missing", a.key, ""), 404, CodeNotFound)

	// Another account sees neither analysis.
	b, bKey := a.account("b@example.com", store.Free, "read", "write")
	_ = b
	apiErr(t, a.call("GET", "/v1/analyze/site/"+second+"/diff", bKey, ""), 404, CodeNotFound)
	bJob := a.storeSiteJob(b.ID, "example.com", store.JobSucceeded, &crawler.SiteReport{Domain: "example.com"}, t0.Add(4*time.Minute))
	apiErr(t, a.call("GET", "/v1/analyze/site/"+bJob+"/diff?against="+first, bKey, ""), 404, CodeNotFound)
}
