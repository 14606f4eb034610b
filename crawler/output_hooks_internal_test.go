package crawler

import "io"

// writeHTML and writeCSV are crawlreport.WriteHTML and crawlreport.WriteCSV
// for the internal tests that check how a report built here renders:
// crawlreport imports crawler, so these tests cannot import it, and the
// external test package, which can, sets them (output_hooks_test.go)
// before any test runs.
var writeHTML, writeCSV func(io.Writer, *SiteReport) error

// OutputWriters points the external test package at writeHTML and
// writeCSV.
var OutputWriters = [2]*func(io.Writer, *SiteReport) error{&writeHTML, &writeCSV}
