package crawler_test

import (
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlreport"
)

// The internal tests render reports with crawlreport through these.
func init() {
	*crawler.OutputWriters[0] = crawlreport.WriteHTML
	*crawler.OutputWriters[1] = crawlreport.WriteCSV
}
