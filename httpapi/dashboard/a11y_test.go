package dashboard_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/render"
)

// TestAnalysisAccessibility: the analysis page of an audited crawl shows
// the accessibility section: the mean score, pages audited and not (with
// the reasons), and the violations by rule and template with the shared
// ones marked; a crawl without the audit has no such section.
func TestAnalysisAccessibility(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	score := 83
	rep := &crawler.SiteReport{Domain: "spa.example", StartURL: "https://spa.example/", StatusCodes: map[int]int{200: 2},
		Crawl:  crawler.CrawlStats{Fetched: 2, StopReason: "done", DepthHistogram: []int{1, 1}},
		Render: &crawler.RenderSummary{Mode: render.Always, Device: render.Mobile, Rendered: 2},
		A11y: &crawler.A11ySummary{Standard: "automated subset of WCAG", Checked: 2, NotChecked: 1, NotCheckedReasons: map[string]int{"not checked: axe-core not found": 1},
			Score: &score, PagesWithViolations: 2, Groups: []crawler.A11yGroup{{Rule: "color-contrast", CheckID: "a11y.color-contrast", Impact: "serious",
				WCAG: []string{"1.4.3"}, Level: "AA", Template: "aaaaaaaaaaaa", Pages: 2, TemplatePages: 2, Shared: true, Nodes: 4, Target: "footer > p",
				Examples: []string{"https://spa.example/"}}}},
	}
	res, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	j := &store.Job{AccountID: e.acct.ID, Kind: "site", Request: []byte(`{"domain":"spa.example","options":{"render":"always","a11y":true}}`)}
	if err := e.st.CreateJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	j.Status, j.Result, j.StartedAt, j.FinishedAt = store.JobSucceeded, res, time.Now(), time.Now()
	if err := e.st.UpdateJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	c := e.client(t)
	e.login(t, c)
	resp, body := get(t, c, e.srv.URL+"/dashboard/analyses/"+j.ID)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("analysis page: %d", resp.StatusCode)
	}
	for _, want := range []string{`id="accessibility"`, "automated subset of WCAG", `<span class="num">83</span>`, "not checked: axe-core not found (1)",
		"<code>color-contrast</code>", "1.4.3 AA", "2 of 2 <strong>shared</strong>", "footer &gt; p"} {
		if !strings.Contains(body, want) {
			t.Errorf("analysis page lacks %q", want)
		}
	}
	plain, _ := renderedJob(t, e, 1)
	if _, body := get(t, c, e.srv.URL+"/dashboard/analyses/"+plain.ID); strings.Contains(body, `id="accessibility"`) {
		t.Error("an accessibility section for a crawl without the audit")
	}
}
