package logs

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// WriteText writes the report for people: inputs, totals, classes, bots
// with their verification, days, top URLs and directories, the crawl join
// and the findings. Text that came from the log (URLs, user agents) is
// escaped so that a hostile line cannot drive the terminal.
func (r *Report) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }
	p("Log analysis: %s", r.Status)
	if r.Reason != "" {
		p(" (%s)", safe(r.Reason))
	}
	p("\n")
	if !r.First.IsZero() {
		p("Period: %s to %s\n", r.First.UTC().Format("2006-01-02 15:04:05"), r.Last.UTC().Format("2006-01-02 15:04:05 UTC"))
	}
	for _, in := range r.Inputs {
		p("  %s [%s]: %d lines, %d requests, %d malformed", safe(in.Name), in.Format, in.Lines, in.Requests, in.Malformed)
		if in.Error != "" {
			p(", error: %s", safe(in.Error))
		}
		p("\n")
	}
	p("\nLines %d, requests %d, malformed %d\n", r.Lines, r.Requests, r.Malformed)
	for reason, n := range r.MalformedReasons {
		p("  malformed: %s: %d\n", safe(reason), n)
	}
	t := r.Totals
	p("Hits %d (%s); bot hits %d: verified %d, spoofed %d, unverifiable %d; robots.txt fetches %d\n",
		t.Hits, bytesText(t.Bytes), t.BotHits, t.VerifiedHits, t.SpoofedHits, t.UnverifiableHits, t.RobotsFetches)
	if !r.Verification.Enabled {
		p("Verification off: every bot hit is unverifiable.\n")
	} else {
		p("Verification: %d addresses checked, %d DNS verifications\n", r.Verification.Addresses, r.Verification.Lookups)
	}

	p("\n%-14s %10s %10s %12s %8s %8s %8s %8s %10s %5s\n", "class", "hits", "urls", "bytes", "2xx", "3xx", "4xx", "5xx", "mean ms", "peak")
	for _, c := range r.Classes {
		p("%-14s %10d %10s %12s %8d %8d %8d %8d %10s %5s\n", c.Class, c.Hits, estText(c.DistinctURLs), bytesText(c.Bytes),
			c.Status.S2xx, c.Status.S3xx, c.Status.S4xx, c.Status.S5xx, msText(c.MeanResponseMS), fmt.Sprintf("%02dh", c.PeakHour))
	}
	p("\n%-26s %-13s %9s %9s %9s %9s %10s %10s\n", "bot", "class", "hits", "verified", "unverif.", "spoofed", "urls", "mean ms")
	for _, b := range r.Bots {
		p("%-26s %-13s %9d %9d %9d %9d %10s %10s\n", safe(b.Bot.Token), b.Bot.Class, b.Hits, b.Verified, b.Unverifiable, b.Spoofed,
			estText(b.DistinctURLs), msText(b.MeanResponseMS))
		for _, s := range b.SpoofedSample {
			p("    spoofed from %s (%d hits): %s\n", s.IP, s.Hits, safe(s.Reason))
		}
		for reason, n := range b.UnverifiableReasons {
			p("    unverifiable (%d hits): %s\n", n, safe(reason))
		}
	}
	if len(r.Days) > 0 {
		p("\n%-10s %10s %12s %8s %8s %8s %8s\n", "day", "hits", "bytes", "2xx", "3xx", "4xx", "5xx")
		for _, d := range r.Days {
			p("%-10s %10d %12s %8d %8d %8d %8d\n", d.Date, d.Hits, bytesText(d.Bytes), d.Status.S2xx, d.Status.S3xx, d.Status.S4xx, d.Status.S5xx)
		}
		if r.HitsOutsideDays > 0 {
			p("(%d hits on later days, past the days kept)\n", r.HitsOutsideDays)
		}
	}
	if len(r.URLs) > 0 {
		p("\nTop URLs by bot hits (%d tracked", r.URLsTracked)
		if r.OtherURLs.Hits > 0 {
			p("; %d hits on about %d other URLs", r.OtherURLs.Hits, r.OtherURLs.URLs.Value)
		}
		p("):\n")
		for _, u := range r.URLs[:min(20, len(r.URLs))] {
			p("  %8d  %3d  %s\n", u.Hits, u.LastStatus, safe(u.URL))
		}
	}
	if len(r.Directories) > 0 {
		p("\nDirectories by bot hits:\n")
		for _, d := range r.Directories[:min(10, len(r.Directories))] {
			p("  %8d  %s\n", d.Hits, safe(d.Dir))
		}
	}
	if j := r.Join; j != nil {
		p("\nJoin with the crawl (%d pages): %s", j.CrawlPages, j.Status)
		if j.Reason != "" {
			p(" (%s)", safe(j.Reason))
		}
		p("\n")
		for _, l := range []struct {
			name string
			l    URLList
		}{{"orphan URLs (fetched by bots, not found by the crawl)", j.Orphans},
			{"indexable URLs no search bot fetched", j.NeverFetched},
			{"search-bot hits on non-indexable URLs", j.NonIndexable},
			{"search-bot hits on redirecting URLs", j.Redirecting},
			{"search-bot hits on 4xx URLs", j.ClientErrors},
			{"search-bot hits on 5xx URLs", j.ServerErrors},
			{"search-bot hits on parameter URLs", j.Parameters}} {
			p("  %s: %d URLs, %d hits\n", l.name, l.l.URLs, l.l.Hits)
			for _, u := range l.l.Sample[:min(5, len(l.l.Sample))] {
				p("      %s (%d)\n", safe(u.URL), u.Hits)
			}
		}
		if j.Disallowed == nil {
			p("  robots.txt says / bot did: not checked (%s)\n", j.DisallowedReason)
		} else {
			p("  robots.txt says / bot did: %d bots fetched disallowed URLs\n", len(j.Disallowed))
			for _, d := range j.Disallowed {
				p("    %-24s %-13s %d URLs, %d hits\n", safe(d.Token), d.Class, d.URLs, d.Hits)
				for _, u := range d.Sample[:min(5, len(d.Sample))] {
					p("      %s (%d): %s\n", safe(u.URL), u.Hits, safe(u.Rule))
				}
			}
		}
	}
	p("\nFindings (%d):\n", len(r.Findings))
	for _, f := range r.Findings {
		p("  %s\n", safe(f.String()))
	}
	for name, tr := range r.Truncated {
		p("(%s: %d of %d shown)\n", name, tr.Total-tr.Omitted, tr.Total)
	}
	return bw.Flush()
}

func estText(e Estimate) string {
	if e.Approximate && e.Value >= 1000 {
		return fmt.Sprintf("~%d", e.Value)
	}
	return fmt.Sprint(e.Value)
}

func msText(m *float64) string {
	if m == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f", *m)
}

func bytesText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// safe escapes control characters, bidirectional controls and invalid
// UTF-8 as Go escapes.
func safe(s string) string {
	clean := true
	for _, r := range s {
		if unsafeRune(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unsafeRune(r) && r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func unsafeRune(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == utf8.RuneError || r == 0x61c || r == 0x200e || r == 0x200f ||
		(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x2028 || r == 0x2029
}
