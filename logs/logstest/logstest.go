// Package logstest is the conformance suite of the logs package's
// drivers: every RangeSource runs RunRangeSource.
package logstest

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"github.com/seokit/seokit/logs"
)

// GoogleJSON is a range file in the format of Google's
// https://developers.google.com/static/search/apis/ipranges/googlebot.json,
// which Bing, OpenAI and Perplexity reuse.
const GoogleJSON = `{
  "creationTime": "2026-11-30T23:00:02.000000",
  "prefixes": [
    {"ipv6Prefix": "2001:4860:4801:10::/64"},
    {"ipv4Prefix": "66.249.64.0/27"}
  ]
}`

// PlainText is a range file as a list of prefixes and addresses.
const PlainText = "# Common Crawl\n18.97.9.168/29\n18.97.14.80\n"

// Files are the range files the suite serves, by name: two valid ones and
// one that is not a range file.
var Files = map[string]string{
	"google-common": GoogleJSON,
	"commoncrawl":   PlainText,
	"bing":          `{"prefixes": [{"ipv4Prefix": "not a prefix"}]}`,
}

// RunRangeSource checks a RangeSource that serves Files (open returns it
// for a test): each file parses into its prefixes with its creation date,
// and a file that is not a range file and a name it does not serve are
// errors.
func RunRangeSource(t *testing.T, open func(t *testing.T) logs.RangeSource) {
	t.Run("google format", func(t *testing.T) {
		src := open(t)
		l, err := src.Ranges(context.Background(), "google-common")
		if err != nil {
			t.Fatal(err)
		}
		if l.Name != "google-common" || len(l.Prefixes) != 2 || l.Created.Format(time.DateOnly) != "2026-11-30" {
			t.Fatalf("list = %+v", l)
		}
		for ip, want := range map[string]bool{"66.249.64.31": true, "66.249.64.32": false, "2001:4860:4801:10::99": true, "2001:4860:4801:11::1": false} {
			if got := l.Contains(netip.MustParseAddr(ip)); got != want {
				t.Errorf("Contains(%s) = %v, want %v", ip, got, want)
			}
		}
		if l.Fetched.IsZero() {
			t.Error("no fetch time")
		}
	})
	t.Run("plain text", func(t *testing.T) {
		l, err := open(t).Ranges(context.Background(), "commoncrawl")
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Prefixes) != 2 || !l.Contains(netip.MustParseAddr("18.97.9.170")) || !l.Contains(netip.MustParseAddr("18.97.14.80")) ||
			l.Contains(netip.MustParseAddr("18.97.14.81")) || !l.Created.IsZero() {
			t.Fatalf("list = %+v", l)
		}
	})
	t.Run("invalid file", func(t *testing.T) {
		if l, err := open(t).Ranges(context.Background(), "bing"); err == nil {
			t.Fatalf("invalid file read as %+v", l)
		}
	})
	t.Run("missing file", func(t *testing.T) {
		if l, err := open(t).Ranges(context.Background(), "apple"); err == nil {
			t.Fatalf("missing file read as %+v", l)
		}
	})
}
