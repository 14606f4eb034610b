package analyzer

import "github.com/seokit/seokit/seo/robotstxt"

// robotsVerdictAgent is the crawler whose robots.txt group decides
// indexability.robots_txt_blocked: Googlebot's group, else "*".
const robotsVerdictAgent = "Googlebot"

// newRobotsPolicy fetches and caches robots.txt through f for Analyze.
func newRobotsPolicy(f Fetcher) RobotsPolicy {
	return robotstxt.NewCache(robotstxt.FetcherFunc(f), nil)
}
