package logs

import (
	"encoding/csv"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// WriteCSV writes the report's URLs (Report.URLs, the most bot hits first)
// as CSV: one row per URL with its bot hits per class, status mix, latest
// status, the distinct statuses, and the last crawl per bot
// ("Googlebot=2026-11-01T08:00:00Z GPTBot=..."). Text that a spreadsheet
// would run as a formula is prefixed with a quote.
func (r *Report) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := []string{"url", "hits"}
	for _, c := range classes {
		head = append(head, string(c))
	}
	head = append(head, "2xx", "3xx", "4xx", "5xx", "last_status", "statuses", "last_crawl")
	if err := cw.Write(head); err != nil {
		return err
	}
	i64 := func(n int64) string { return strconv.FormatInt(n, 10) }
	for _, u := range r.URLs {
		row := []string{csvSafe(u.URL), i64(u.Hits)}
		for _, c := range classes {
			row = append(row, i64(u.ByClass[c]))
		}
		var st []string
		for _, s := range u.Statuses {
			st = append(st, strconv.Itoa(s))
		}
		var last []string
		for _, tok := range slices.Sorted(func(yield func(string) bool) {
			for k := range u.LastCrawl {
				if !yield(k) {
					return
				}
			}
		}) {
			last = append(last, tok+"="+u.LastCrawl[tok].UTC().Format(time.RFC3339))
		}
		row = append(row, i64(u.Status.S2xx), i64(u.Status.S3xx), i64(u.Status.S4xx), i64(u.Status.S5xx),
			strconv.Itoa(u.LastStatus), strings.Join(st, " "), strings.Join(last, " "))
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvSafe defuses log text that a spreadsheet would run as a formula (a
// leading =, +, -, @, tab or carriage return) by prefixing a quote.
func csvSafe(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
