// Package fieldvitals reads field Web Vitals: what real Chrome users
// experienced on a URL or an origin, as the Chrome UX Report (CrUX)
// publishes it, and sets it beside seokit's lab measurements.
//
// A Source (driver: fieldvitals/crux) returns a Record: the 75th
// percentile of LCP, INP, CLS, FCP and TTFB over a 28-day collection
// period, with each metric's histogram and its rating by Google's
// thresholds, for all devices or one form factor; and a History: the
// weekly series of those records (the CrUX History API), for trends.
//
// # Not enough data
//
// CrUX publishes nothing for URLs and origins with too few visits (its
// 404 "no data"). That is a Record or History with Status
// StatusInsufficient and no figures, and a metric CrUX left out is a
// Metric with that status and a nil P75: never a zero, which would read
// as a perfect score.
//
// # Lab and field
//
// Compare puts seokit's lab values (one rendering of the page) beside the
// field p75 values and says why they differ (Explanation): the lab is one
// cold load on one emulated device, the field is 28 days of real visits.
// INP has no lab value; Total Blocking Time is shown as its proxy, not on
// its scale.
package fieldvitals
