//go:build !race

package sitemap

const raceEnabled = false
