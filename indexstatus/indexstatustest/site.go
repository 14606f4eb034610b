package indexstatustest

import (
	"fmt"
	"hash/fnv"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/internal/googlefake"
)

// Templates of the synthetic site, with their share of its pages and the
// segment their pages are in.
var Templates = []struct {
	Name, Segment string
	Share         int // percent
}{
	{"product", "shop", 60},
	{"blog", "blog", 20},
	{"category", "shop", 15},
	{"page", "", 5},
}

// Site returns the report of a synthetic crawl of n pages of
// https://example.com/ spread over Templates: internal PageRank falls with
// each page's number within its template, every 50th blog post is
// noindex, every 10th product declares another canonical, products and
// categories are in the sitemap, and every 100th page answered 404 (not
// inspectable).
func Site(n int) *crawler.SiteReport {
	r := &crawler.SiteReport{Domain: "example.com", StartURL: "https://example.com/", StatusCodes: map[int]int{}}
	r.Pages = make([]crawler.PageSummary, 0, n)
	for i := 0; len(r.Pages) < n; i++ {
		for _, tp := range Templates {
			for k := 0; k < tp.Share && len(r.Pages) < n; k++ {
				j := i*tp.Share + k
				u := fmt.Sprintf("https://example.com/%s/%d", tp.Name, j)
				if tp.Name == "page" && j == 0 {
					u = "https://example.com/"
				}
				p := crawler.PageSummary{URL: u, Status: 200, IsHTML: true, Indexable: true, ContentType: "text/html",
					Template: tp.Name, Segment: tp.Segment, LinkScore: 10 / float64(1+j),
					InSitemap: tp.Segment == "shop", Title: tp.Name + " " + fmt.Sprint(j)}
				if tp.Name == "page" {
					p.LinkScore *= 3
				}
				if len(r.Pages)%100 == 99 {
					p.Status, p.Indexable = 404, false
				}
				if tp.Name == "blog" && j%50 == 7 {
					p.Noindex, p.Indexable = true, false
				}
				if tp.Name == "product" && j%10 == 3 {
					p.Canonical = fmt.Sprintf("https://example.com/product/%d", j-1)
				}
				r.StatusCodes[p.Status]++
				r.Pages = append(r.Pages, p)
			}
		}
	}
	return r
}

// Crawled is the date the synthetic statuses are relative to.
var Crawled = time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)

// Status answers the index status of a URL of Site for a fake Search
// Console, spread by a hash of the URL: most indexed, others crawled or
// discovered and not indexed, unknown, with another canonical, a soft 404,
// or last crawled 200 days before Crawled.
func Status(u string) *googlefake.IndexStatus {
	h := fnv.New32a()
	h.Write([]byte(u))
	st := &googlefake.IndexStatus{Verdict: "PASS", CoverageState: "Submitted and indexed", RobotsTxtState: "ALLOWED",
		IndexingState: "INDEXING_ALLOWED", PageFetchState: "SUCCESSFUL", LastCrawlTime: Crawled.AddDate(0, 0, -3).Format(time.RFC3339),
		GoogleCanonical: u, UserCanonical: u, CrawledAs: "MOBILE"}
	switch h.Sum32() % 20 {
	case 12:
		st.GoogleCanonical = "https://example.com/"
		st.Verdict, st.CoverageState = "NEUTRAL", "Duplicate, Google chose different canonical than user"
	case 13, 14:
		st.Verdict, st.CoverageState, st.GoogleCanonical = "NEUTRAL", "Crawled - currently not indexed", ""
	case 15:
		st.Verdict, st.CoverageState, st.GoogleCanonical, st.LastCrawlTime = "NEUTRAL", "Discovered - currently not indexed", "", ""
		st.PageFetchState = ""
	case 16:
		st = &googlefake.IndexStatus{Verdict: "NEUTRAL", CoverageState: "URL is unknown to Google"}
	case 17:
		st.Verdict, st.CoverageState, st.PageFetchState, st.GoogleCanonical = "FAIL", "Soft 404", "SOFT_404", ""
	case 18:
		st.LastCrawlTime = Crawled.AddDate(0, 0, -200).Format(time.RFC3339)
	}
	return st
}
