package monitor

import (
	"fmt"
	"strconv"
	"time"

	"github.com/seokit/seokit/logs"
)

// MinBotDayHits is the fewest hits a bot must have on the last day of a
// log for bot_5xx_rising to compare its shares: a handful of requests
// makes no share.
const MinBotDayHits = 20

// share is the 5xx share of a status mix, in percent.
func share(s logs.StatusMix) (float64, int64) {
	n := s.S2xx + s.S3xx + s.S4xx + s.S5xx + s.Other
	if n == 0 {
		return 0, 0
	}
	return 100 * float64(s.S5xx) / float64(n), n
}

// logState identifies the log evaluated: its period and size.
func logState(rep *logs.Report) string {
	return rep.First.UTC().Format(time.RFC3339) + ">" + rep.Last.UTC().Format(time.RFC3339) + "#" + strconv.FormatInt(rep.Requests, 10)
}

// botErrorsRising returns a change per verified search bot whose 5xx
// share on the log's last day is at least points percentage points above
// its share on the earlier days. A bot's days count its hits that were
// not spoofed.
func botErrorsRising(rep *logs.Report, points int) ([]Change, string) {
	var ch []Change
	for _, b := range rep.Bots {
		if b.Class != logs.ClassSearch || b.Verified == 0 || len(b.Days) < 2 {
			continue
		}
		last := b.Days[len(b.Days)-1]
		var before logs.StatusMix
		for _, d := range b.Days[:len(b.Days)-1] {
			before.S2xx += d.Status.S2xx
			before.S3xx += d.Status.S3xx
			before.S4xx += d.Status.S4xx
			before.S5xx += d.Status.S5xx
			before.Other += d.Status.Other
		}
		now, n := share(last.Status)
		was, m := share(before)
		if n < MinBotDayHits || m == 0 || now-was < float64(points) {
			continue
		}
		ch = append(ch, Change{Subject: b.Bot.Token, What: fmt.Sprintf("5xx share rose %.1f points on %s (%d of %d hits)", now-was, last.Date, last.Status.S5xx, n),
			Old: fmt.Sprintf("%.1f%%", was), New: fmt.Sprintf("%.1f%%", now)})
	}
	return ch, logState(rep)
}

// botDisallowed returns a change per bot that fetched at least minURLs
// URLs its robots.txt group disallows, with the URLs of most hits.
func botDisallowed(rep *logs.Report, minURLs int) ([]Change, string) {
	var ch []Change
	for _, d := range rep.Join.Disallowed {
		if d.URLs < int64(minURLs) {
			continue
		}
		var ex []string
		for _, u := range d.Sample {
			ex = append(ex, u.URL)
		}
		ch = append(ch, Change{Subject: d.Token, What: fmt.Sprintf("fetched %d disallowed URL(s) %d time(s)", d.URLs, d.Hits),
			Examples: first(ex)})
	}
	return ch, logState(rep)
}
