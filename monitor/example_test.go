package monitor_test

import (
	"fmt"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/compare"
	"github.com/seokit/seokit/monitor"
	"github.com/seokit/seokit/seo"
)

// An alert on new error findings between two crawls.
func ExampleEvaluate() {
	old := &crawler.SiteReport{Domain: "example.com", Pages: []crawler.PageSummary{{URL: "https://example.com/", Status: 200}}}
	new := &crawler.SiteReport{Domain: "example.com", StartedAt: time.Unix(86400, 0),
		Pages:    []crawler.PageSummary{{URL: "https://example.com/", Status: 200, Findings: []string{"title-missing"}}},
		Findings: []crawler.FindingGroup{{ID: "title-missing", Severity: seo.Error, Scope: seo.ScopePage, Pages: 1, Count: 1}}}
	rule, err := monitor.ParseRule("new_findings", []byte(`{"severity":"warning"}`))
	if err != nil {
		panic(err)
	}
	a := monitor.Evaluate(rule, &monitor.Input{Diff: compare.Reports(old, new, nil)})
	fmt.Print(a.Text())
	// Output:
	// 1 new finding(s) at or above warning on example.com
	// - title-missing: new error on 1 page(s) (0 → 1) e.g. https://example.com/
}

// Signing and verifying a webhook body.
func ExampleVerify() {
	body := []byte(`{"kind":"score_drop"}`)
	now := time.Now()
	header := monitor.Sign("whsec_secret", now, body)
	fmt.Println(monitor.Verify("whsec_secret", header, body, now, 0))
	// Output: <nil>
}
