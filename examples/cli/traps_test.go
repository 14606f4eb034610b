package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/seokit/seokit/crawler"
)

// TestPrintSiteReportTraps checks that the crawl summary names each trap
// with its pattern, reason and dropped count.
func TestPrintSiteReportTraps(t *testing.T) {
	t.Parallel()
	rep := &crawler.SiteReport{Domain: "example.com", StartURL: "https://example.com/",
		Crawl: crawler.CrawlStats{Traps: []crawler.Trap{{Pattern: "example.com/calendar?month={n}-{n}", Reason: crawler.TrapCalendar, Dropped: 7}}}}
	var b bytes.Buffer
	printSiteReport(&b, rep, false)
	if want := "Crawl trap    example.com/calendar?month={n}-{n} (calendar): 7 URLs left out"; !strings.Contains(b.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, b.String())
	}
}
