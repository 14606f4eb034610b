//go:build race

package sitemap

const raceEnabled = true
