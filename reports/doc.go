// Package reports builds a domain's SEO performance report over a range of
// days from its ranking history (a rankings.Store), keyword search volumes
// (a Volumes, such as a keywords.Source) and, optionally, measured traffic
// from an analytics source (a TrafficSource: Search Console, GA4).
//
// [Builder.Build] reads the history of the range in one pass (through the
// store's [PositionScanner] when it has one, as rankings/sqlstore does:
// days and positions only, read in parallel; else rankings.ScanHistory),
// reads the tracked keywords meanwhile, looks the volumes up in batches of
// at most 1000 keywords per locale, and computes every figure in a single
// walk over the keywords and days, making rows only for the keywords
// listed. [ParseRange]
// validates YYYY-MM-DD dates for the API and the command line: start after
// end, a start in the future or a range longer than Options.MaxDays (366
// by default) is an *seo.InputError naming the field. Build clamps an end
// date after today to today (Report.RequestedEnd keeps what was asked).
// The domain is normalised as the ranking store keys it
// ([NormalizeDomain]). [WriteHTML] renders a report as one self-contained
// page with inline SVG charts.
//
// # Series and days
//
// A keyword series is one keyword in one locale on one device. Its position
// on a day of the range is its latest observation on or before that day
// within the range ("carried forward"); before its first observation in the
// range it is unknown and not counted. A nil position means not ranked
// within the depth checked. Figures "on the end date" use the position of
// the last observation.
//
// # Visibility
//
// Visibility on a day is, over the series known that day,
//
//	V = 100 * sum_k w_k * CTR(pos_k) / sum_k w_k * CTR(1)
//
// so 100 means position 1 for every keyword and 0 no click-earning
// position. With Options.Weighting "volume" (the default) w_k is the
// keyword's average monthly search volume, as SISTRIX weights its index by
// volume and expected CTR; keywords without a known volume are left out of
// the sum and counted in VisibilityBasis.WithoutVolume. When no volume is
// known at all, or with Weighting "equal", w_k = 1, which is the semantics
// of Semrush's Position Tracking "Visibility %". Metrics.VisibilityWeights
// says which weights were used. Metrics.Visibility is the value on the end
// date; Rankings.Daily has it per day.
//
// A figure computed from no checked data is nil, never 0: Visibility when
// no keyword in the score was checked (Metrics.VisibilityReason says why),
// AveragePosition when none ranks (Rankings.AveragePositionReason),
// AveragePositionAll when nothing was checked, and the traffic estimates
// when no keyword with a known volume was checked (TrafficMetrics.Method).
// A day's Visibility and EstimatedClicks are nil before any series they
// cover was observed. 0 means measured: checked and not ranked.
//
// # Rankings
//
// Tracked counts the series tracked now or observed in the range; Checked
// those with an observation; Ranked those with a position on the end date
// and Top3/10/20/100 those at or above that position; NotRanked the checked
// ones without; Unchecked the tracked ones never observed. AveragePosition
// is the mean end-date position of ranked series; AveragePositionAll counts
// a checked series without a top-100 position as 100 (Semrush's method).
// Improved, Declined and Unchanged compare the last observation in the
// range with the first when both rank; New ranks at the last but not at the
// first; Lost the reverse.
//
// # Traffic
//
// The estimate follows the "click potential" of Nightwatch, Marketing Miner
// and Semrush's Estimated Traffic:
//
//	monthly clicks = sum_k volume_k * CTR(pos_k on the end date)
//	range clicks   = sum over days, sum_k volume_k / 30.4 * CTR(pos_k that day)
//
// over keywords with a known volume (30.4 = 365.25 / 12 days per month).
// Series of several devices of one keyword share its volume. The result is
// labelled estimated, with the CTR curve's name (ctrModel) and the sources
// of the volumes. When a TrafficSource is set, what it measured (clicks,
// impressions, CTR, sessions, daily) is reported next to the estimate; if
// it fails, its error goes into Traffic.MeasuredError and the rest of the
// report stands. A failing volume source is reported the same way
// (Traffic.VolumeError), the report then using equal weights.
//
// # CTR curves
//
// A [Curve] gives the click-through rate of positions 1-100. The default,
// "fps-2024+aol-2006", is First Page Sage's 2024 study for positions 1-10
// (39.8%, 18.7%, 10.2%, 7.2%, 5.1%, 4.4%, 3.0%, 2.1%, 1.9%, 1.6%), the AOL
// 2006 search log for 11-20 (0.66% falling to 0.30%) and 0 for 21-100, as
// AWR's Click Share counts no clicks past position 20. "aol-2006" is the
// AOL log alone; "sistrix-2020-partial" is SISTRIX's 2020 study with only
// the positions it publishes (1, 2, 3 and 10), positions 4-9 interpolated
// geometrically and labelled as such. A fractional (averaged) position is
// interpolated linearly between its neighbours.
package reports
