package logs

import (
	"time"

	"github.com/seokit/seokit/seo"
)

// Report is the analysis of one or more logs.
type Report struct {
	// Status is "complete", or "stopped" when the context ended or an
	// input failed to read (Reason says why): the counts then cover the
	// lines read until then.
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
	// First and Last are the earliest and latest request times.
	First time.Time `json:"first,omitzero"`
	Last  time.Time `json:"last,omitzero"`

	Inputs []InputStats `json:"inputs"`
	// Lines counts the lines read, Requests those parsed as requests and
	// Malformed those that did not parse (directives and blank lines are
	// neither).
	Lines     int64 `json:"lines"`
	Requests  int64 `json:"requests"`
	Malformed int64 `json:"malformed"`
	// MalformedReasons counts malformed lines by reason.
	MalformedReasons map[string]int64 `json:"malformedReasons,omitempty"`
	// MalformedSample holds the first malformed lines, clipped.
	MalformedSample []MalformedLine `json:"malformedSample,omitempty"`

	Totals Totals `json:"totals"`
	// Classes has one row per bot class with hits, then "none" for
	// requests naming no bot; spoofed hits are in no class.
	Classes []Stats `json:"classes"`
	// Bots has one row per bot seen, most hits first.
	Bots []BotStats `json:"bots"`
	// Days is the status mix of all requests per UTC day, for the first
	// Options.MaxDays days seen; HitsOutsideDays counts the requests of
	// later days, which are in every count but in no day.
	Days            []DayStats `json:"days"`
	HitsOutsideDays int64      `json:"hitsOutsideDays,omitempty"`

	// URLs are the URLs bots fetched most (spoofed hits left out), at most
	// Options.TopURLs; URLsTracked counts the URLs tracked one by one
	// (at most Options.MaxURLs) and OtherURLs the rest.
	URLs        []URLStats `json:"urls"`
	URLsTracked int        `json:"urlsTracked"`
	OtherURLs   OtherURLs  `json:"otherUrls"`
	// Directories counts bot hits per first path segment.
	Directories []DirStats `json:"directories"`
	// Hosts counts requests per virtual host, when the log records it.
	Hosts []HostStats `json:"hosts,omitempty"`

	Verification VerificationStats `json:"verification"`
	// Join is the comparison with a crawl; null when no crawl was given
	// (JoinCrawl).
	Join *Join `json:"join"`

	// Findings are the log checks' findings (Catalog).
	Findings  []seo.Finding `json:"findings"`
	Truncated seo.Truncated `json:"truncated,omitempty"`
}

// InputStats is what was read of one input.
type InputStats struct {
	Name      string `json:"name"`
	Format    Format `json:"format"`
	Lines     int64  `json:"lines"`
	Requests  int64  `json:"requests"`
	Malformed int64  `json:"malformed"`
	// Bytes counts the bytes read from the input (compressed when it is
	// gzip).
	Bytes int64  `json:"bytes"`
	Error string `json:"error,omitempty"`
}

// MalformedLine is one malformed line of the sample.
type MalformedLine struct {
	Input  string `json:"input"`
	Line   int64  `json:"line"`
	Reason string `json:"reason"`
	// Text is the line clipped to 200 bytes; empty when the line is too
	// long to be held, and under Options.HashAddress.
	Text string `json:"text"`
}

// Totals sums every request.
type Totals struct {
	Hits  int64 `json:"hits"`
	Bytes int64 `json:"bytes"`
	// BotHits counts requests naming a bot of the registry, spoofed ones
	// included; VerifiedHits, SpoofedHits and UnverifiableHits split them.
	BotHits          int64 `json:"botHits"`
	VerifiedHits     int64 `json:"verifiedHits"`
	SpoofedHits      int64 `json:"spoofedHits"`
	UnverifiableHits int64 `json:"unverifiableHits"`
	// RobotsFetches counts bot requests for /robots.txt.
	RobotsFetches int64 `json:"robotsFetches"`
}

// Estimate is a distinct count: exact, or approximate within
// DistinctError (HyperLogLog) when Approximate.
type Estimate struct {
	Value       int64 `json:"value"`
	Approximate bool  `json:"approximate,omitempty"`
}

// StatusMix counts responses by status class.
type StatusMix struct {
	S2xx  int64 `json:"2xx"`
	S3xx  int64 `json:"3xx"`
	S4xx  int64 `json:"4xx"`
	S5xx  int64 `json:"5xx"`
	Other int64 `json:"other,omitempty"`
}

// Stats are the counts of a class or a bot.
type Stats struct {
	Class Class `json:"class"`
	Hits  int64 `json:"hits"`
	Bytes int64 `json:"bytes"`
	// DistinctURLs counts the URLs fetched.
	DistinctURLs Estimate  `json:"distinctUrls"`
	Status       StatusMix `json:"status"`
	// MeanResponseMS is the mean response time in milliseconds; null when
	// the log records none (ResponseTimes is then zero).
	MeanResponseMS *float64 `json:"meanResponseMs"`
	ResponseTimes  int64    `json:"responseTimes"`
	RobotsFetches  int64    `json:"robotsFetches"`
	// PeakHour is the UTC hour of the day with the most hits (0-23).
	PeakHour  int       `json:"peakHour"`
	FirstSeen time.Time `json:"firstSeen,omitzero"`
	LastSeen  time.Time `json:"lastSeen,omitzero"`
	// Days are the counts per UTC day, for the first Options.MaxDays days
	// seen; HitsOutsideDays counts the hits of later days.
	Days            []DayStats `json:"days"`
	HitsOutsideDays int64      `json:"hitsOutsideDays,omitempty"`
}

// BotStats are the counts of one bot. Hits, and every count of Stats,
// leave spoofed hits out: they are counted in Spoofed only.
type BotStats struct {
	Bot Bot `json:"bot"`
	Stats
	Verified     int64 `json:"verified"`
	Unverifiable int64 `json:"unverifiable"`
	Spoofed      int64 `json:"spoofed"`
	// SpoofedIPs counts the distinct addresses of the spoofed hits, and
	// SpoofedSample names a few with the reason.
	SpoofedIPs    Estimate        `json:"spoofedIps"`
	SpoofedSample []SpoofedSample `json:"spoofedSample,omitempty"`
	// UnverifiableReasons counts unverifiable hits by reason.
	UnverifiableReasons map[string]int64 `json:"unverifiableReasons,omitempty"`
}

// SpoofedSample is one address that failed verification.
type SpoofedSample struct {
	IP     string `json:"ip"`
	Hits   int64  `json:"hits"`
	Reason string `json:"reason"`
}

// DayStats are the counts of one UTC day.
type DayStats struct {
	Date           string    `json:"date"`
	Hits           int64     `json:"hits"`
	Bytes          int64     `json:"bytes"`
	Status         StatusMix `json:"status"`
	MeanResponseMS *float64  `json:"meanResponseMs"`
}

// URLStats are the bot hits of one URL (path and query as requested).
type URLStats struct {
	URL  string `json:"url"`
	Hits int64  `json:"hits"`
	// ByClass counts the hits per bot class.
	ByClass map[Class]int64 `json:"byClass"`
	Status  StatusMix       `json:"status"`
	// LastStatus is the status of the latest hit; Statuses lists the
	// distinct statuses seen (at most 8), more than one meaning the URL
	// answered inconsistently.
	LastStatus int   `json:"lastStatus"`
	Statuses   []int `json:"statuses"`
	// LastCrawl is the latest hit per bot token.
	LastCrawl map[string]time.Time `json:"lastCrawl"`
}

// OtherURLs sums the bot hits of URLs beyond Options.MaxURLs.
type OtherURLs struct {
	Hits int64    `json:"hits"`
	URLs Estimate `json:"urls"`
	// TooLong counts hits on targets longer than MaxTargetBytes, which are
	// not tracked one by one.
	TooLong int64 `json:"tooLong,omitempty"`
}

// DirStats are the bot hits of one first path segment ("/blog/").
type DirStats struct {
	Dir     string          `json:"dir"`
	Hits    int64           `json:"hits"`
	ByClass map[Class]int64 `json:"byClass"`
}

// HostStats counts the requests of one virtual host.
type HostStats struct {
	Host string `json:"host"`
	Hits int64  `json:"hits"`
}

// VerificationStats says how bots were verified.
type VerificationStats struct {
	// Enabled is false when no Verifier was given: every bot hit is then
	// unverifiable.
	Enabled bool `json:"enabled"`
	// Lookups counts the DNS verifications this analysis made (a
	// Verifier's cached verdicts cost none); Addresses the distinct
	// (operator, address) pairs verified.
	Lookups   int   `json:"lookups"`
	Addresses int64 `json:"addresses"`
}
