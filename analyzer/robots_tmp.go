package analyzer

// Temporary until seo/robotstxt lands.
func newRobotsPolicy(f Fetcher) RobotsPolicy { return nil }
