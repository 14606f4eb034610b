package analyzer

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/seokit/seokit/seo"
)

// idxRobotsPolicy answers every robots.txt question the same way.
type idxRobotsPolicy struct{ allowed, known bool }

func (p idxRobotsPolicy) Allowed(ctx context.Context, rawURL, userAgent string) (bool, bool) {
	return p.allowed, p.known
}

func idxOpts(now time.Time, robots RobotsPolicy) *Options {
	return &Options{Depth: Complete, Now: func() time.Time { return now }, Robots: robots}
}

func TestIndexabilityChecks(t *testing.T) {
	t.Parallel()
	y2030 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	y2028 := time.Date(2028, 1, 1, 0, 0, 0, 0, time.UTC)
	htmlHdr := func(xrt ...string) http.Header {
		h := http.Header{"Content-Type": {"text/html"}}
		for _, v := range xrt {
			h.Add("X-Robots-Tag", v)
		}
		return h
	}
	plain := "indexability/indexable.html"
	tests := []struct {
		name    string
		fixture string
		header  http.Header
		now     time.Time
		robots  RobotsPolicy
		want    []string
		absent  []string
	}{
		{name: "indexable page", fixture: plain, robots: idxRobotsPolicy{true, true},
			absent: []string{"indexability.noindex_meta", "indexability.noindex_header", "indexability.robots_txt_blocked", "indexability.noindex_unseen",
				"indexability.directives_conflict", "indexability.robots_meta_multiple", "indexability.robots_meta_invalid", "indexability.nosnippet",
				"indexability.noimageindex", "indexability.nofollow_page", "indexability.directives_outside_head", "indexability.unavailable_after_past"}},
		{name: "meta noindex", fixture: "indexability/noindex_meta.html", want: []string{"indexability.noindex_meta"},
			absent: []string{"indexability.noindex_header", "indexability.nofollow_page"}},
		{name: "googlebot none", fixture: "indexability/googlebot_none.html", want: []string{"indexability.noindex_meta", "indexability.nofollow_page"},
			absent: []string{"indexability.robots_meta_multiple"}},
		{name: "bingbot noindex is not Google's", fixture: `<html><head><meta name="bingbot" content="noindex"></head><body>x</body></html>`,
			absent: []string{"indexability.noindex_meta"}},
		{name: "header noindex", fixture: plain, header: htmlHdr("noindex"), want: []string{"indexability.noindex_header", "indexability.directives_conflict"},
			absent: []string{"indexability.noindex_meta"}},
		{name: "header googlebot none", fixture: "indexability/noindex_meta.html", header: htmlHdr("googlebot: none"),
			want: []string{"indexability.noindex_header", "indexability.nofollow_page", "indexability.directives_conflict"}},
		{name: "meta and header agree", fixture: "indexability/noindex_meta.html", header: htmlHdr("noindex"),
			want: []string{"indexability.noindex_header", "indexability.noindex_meta"}, absent: []string{"indexability.directives_conflict"}},
		{name: "header for another bot", fixture: plain, header: htmlHdr("otherbot: noindex, nofollow"),
			absent: []string{"indexability.noindex_header", "indexability.nofollow_page", "indexability.robots_meta_invalid"}},
		{name: "header after another bot", fixture: plain, header: htmlHdr("otherbot: noarchive", "nosnippet"),
			want: []string{"indexability.nosnippet"}},
		{name: "robots.txt blocks", fixture: plain, robots: idxRobotsPolicy{false, true},
			want: []string{"indexability.robots_txt_blocked"}, absent: []string{"indexability.noindex_unseen"}},
		{name: "robots.txt unknown", fixture: plain, robots: idxRobotsPolicy{false, false},
			absent: []string{"indexability.robots_txt_blocked"}},
		{name: "noindex unseen", fixture: "indexability/noindex_meta.html", robots: idxRobotsPolicy{false, true},
			want: []string{"indexability.robots_txt_blocked", "indexability.noindex_unseen", "indexability.noindex_meta"}},
		{name: "noindex crawlable", fixture: "indexability/noindex_meta.html", robots: idxRobotsPolicy{true, true},
			absent: []string{"indexability.noindex_unseen", "indexability.robots_txt_blocked"}},
		{name: "meta follow vs header nofollow", fixture: plain, header: htmlHdr("nofollow"),
			want: []string{"indexability.directives_conflict", "indexability.nofollow_page"}},
		{name: "multiple robots metas", fixture: "indexability/multiple.html", want: []string{"indexability.robots_meta_multiple"}},
		{name: "invalid tokens", fixture: "indexability/invalid.html", want: []string{"indexability.robots_meta_invalid"},
			absent: []string{"indexability.noindex_meta"}},
		{name: "invalid header value", fixture: plain, header: htmlHdr("max-snippet: lots"), want: []string{"indexability.robots_meta_invalid"}},
		{name: "typo that looks like a prefix", fixture: plain, header: htmlHdr("max_snippet: 0"), want: []string{"indexability.robots_meta_invalid"},
			absent: []string{"indexability.nosnippet"}},
		{name: "snippet, images, follow", fixture: "indexability/snippet_image.html",
			want: []string{"indexability.nosnippet", "indexability.noimageindex", "indexability.nofollow_page"}},
		{name: "outside head", fixture: "indexability/outside_head.html", want: []string{"indexability.directives_outside_head"}},
		{name: "unavailable_after passed", fixture: "indexability/unavailable_past.html", now: y2030,
			want: []string{"indexability.unavailable_after_past"}, absent: []string{"indexability.robots_meta_invalid"}},
		{name: "unavailable_after ahead", fixture: "indexability/unavailable_past.html", now: y2028,
			absent: []string{"indexability.unavailable_after_past", "indexability.robots_meta_invalid"}},
		{name: "unavailable_after header RFC 850", fixture: plain, now: y2030,
			header: htmlHdr("googlebot: unavailable_after: Sunday, 01-Jan-23 00:00:00 GMT, noarchive"),
			want:   []string{"indexability.unavailable_after_past"}, absent: []string{"indexability.robots_meta_invalid"}},
		{name: "unavailable_after header ISO", fixture: plain, now: y2028,
			header: htmlHdr("unavailable_after: 2029-06-25"),
			absent: []string{"indexability.unavailable_after_past", "indexability.robots_meta_invalid"}},
		{name: "unavailable_after bad date", fixture: plain, header: htmlHdr("unavailable_after: next tuesday"),
			want: []string{"indexability.robots_meta_invalid"}, absent: []string{"indexability.unavailable_after_past"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			now := tc.now
			if now.IsZero() {
				now = y2028
			}
			var rep *Report
			if len(tc.fixture) > 0 && tc.fixture[0] == '<' {
				rep = analyzeString(t, tc.fixture, "", tc.header, idxOpts(now, tc.robots))
			} else {
				rep = analyzeFixture(t, tc.fixture, "", tc.header, idxOpts(now, tc.robots))
			}
			assertIDs(t, rep, tc.want, tc.absent)
		})
	}
}

func TestIndexabilityNonHTML(t *testing.T) {
	t.Parallel()
	h := http.Header{"Content-Type": {"application/pdf"}, "X-Robots-Tag": {"noindex, nosnippet"}}
	rep := analyzeString(t, "%PDF-1.7\n", "https://example.com/doc.pdf", h, idxOpts(time.Now(), idxRobotsPolicy{false, true}))
	assertIDs(t, rep, []string{"indexability.noindex_header", "indexability.nosnippet", "indexability.robots_txt_blocked", "indexability.noindex_unseen"},
		[]string{"indexability.noindex_meta", "indexability.directives_outside_head"})
	if rep.IsHTML || rep.Robots.Indexable {
		t.Errorf("IsHTML=%v Indexable=%v", rep.IsHTML, rep.Robots.Indexable)
	}
}

func TestIndexabilityRobotsData(t *testing.T) {
	t.Parallel()
	allowed := true
	h := http.Header{"Content-Type": {"text/html"}}
	h.Add("X-Robots-Tag", "noarchive")
	h.Add("X-Robots-Tag", "googlebot: nofollow, max-snippet: 20")
	rep := analyzeFixture(t, "indexability/googlebot_none.html", "", h, idxOpts(time.Now(), idxRobotsPolicy{true, true}))
	want := Robots{
		Directives: []Directive{
			{Value: "index", Source: "meta:robots"},
			{Value: "follow", Source: "meta:robots"},
			{Value: "none", Source: "meta:googlebot"},
			{Value: "noarchive", Source: "meta:bingbot"},
			{Value: "noarchive", Source: "header"},
			{Value: "nofollow", Source: "header:googlebot"},
			{Value: "max-snippet:20", Source: "header:googlebot"},
		},
		Indexable:        false,
		Follow:           false,
		RobotsTxtAllowed: &allowed,
	}
	if diff := cmp.Diff(want, rep.Robots); diff != "" {
		t.Errorf("Robots mismatch (-want +got):\n%s", diff)
	}

	rep = analyzeFixture(t, "indexability/indexable.html", "", nil, idxOpts(time.Now(), nil))
	if !rep.Robots.Indexable || !rep.Robots.Follow || rep.Robots.RobotsTxtAllowed != nil {
		t.Errorf("indexable page: %+v", rep.Robots)
	}
	if !slices.Contains(rep.Robots.Directives, Directive{Value: "max-image-preview:large", Source: "meta:robots"}) {
		t.Errorf("directives: %+v", rep.Robots.Directives)
	}
}

func TestIndexabilityEvidence(t *testing.T) {
	t.Parallel()
	h := http.Header{"Content-Type": {"text/html"}, "X-Robots-Tag": {"noindex"}}
	rep := analyzeFixture(t, "indexability/indexable.html", "", h, nil)
	f := finding(rep, "indexability.directives_conflict")
	if f == nil || f.Severity != seo.Warning || f.Evidence.Value != "meta:robots=index; header=noindex" {
		t.Fatalf("directives_conflict: %+v", f)
	}
	f = finding(rep, "indexability.noindex_header")
	// A deliberate noindex is a warning (Ahrefs: warning, Sitebulb: hint).
	if f == nil || f.Severity != seo.Warning || f.Evidence.Element != "X-Robots-Tag" || f.Evidence.Value != "noindex" {
		t.Errorf("noindex_header: %+v", f)
	}
	h = http.Header{"Content-Type": {"text/html"}, "X-Robots-Tag": {"max_snippet:0", "otherbot: noindex"}}
	rep = analyzeFixture(t, "indexability/indexable.html", "", h, nil)
	if f := finding(rep, "indexability.robots_meta_invalid"); f == nil || f.Evidence.Value != "max_snippet:0" {
		t.Errorf("robots_meta_invalid for a typo: %+v", f)
	}
	if !slices.Contains(rep.Robots.Directives, Directive{Value: "noindex", Source: "header:otherbot"}) {
		t.Errorf("directives: %+v", rep.Robots.Directives)
	}
	rep = analyzeFixture(t, "indexability/invalid.html", "", nil, nil)
	var bad []string
	for _, ev := range evidence(rep, "indexability.robots_meta_invalid") {
		bad = append(bad, ev.Value)
	}
	if diff := cmp.Diff([]string{"no-index", "noindex:true", "max-image-preview:huge"}, bad); diff != "" {
		t.Errorf("invalid tokens (-want +got):\n%s", diff)
	}
}

func TestSplitRobotsValue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
	}{
		{"noindex, NoFollow", []string{"noindex", "nofollow"}},
		{"Max-Snippet : 0,,", []string{"max-snippet:0"}},
		{"unavailable_after: Monday, 25-Jun-29 15:00:00 GMT, noarchive", []string{"unavailable_after:Monday, 25-Jun-29 15:00:00 GMT", "noarchive"}},
		{"unavailable_after: 25 Jun 2010 15:00:00 PST", []string{"unavailable_after:25 Jun 2010 15:00:00 PST"}},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, splitRobotsValue(tc.in)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestSplitRobotsValueNonASCII(t *testing.T) {
	t.Parallel()
	// Lowercasing "Ⱥ" grows it by a byte and "İ" shrinks; offsets must still line up.
	got := splitRobotsValue("ȺȺȺȺ UNAVAILABLE_AFTER: 2020-01-01, İİ noindex")
	want := []string{"ⱥⱥⱥⱥ unavailable_after:2020-01-01", "ii noindex"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
