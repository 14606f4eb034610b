package crawler

import (
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/seokit/seokit/analyzer"
)

// TestDuplicatesFingerprintVersion crawls pages of which some carry a
// fingerprint of another version (a crawl resumed across an upgrade): they
// are left out of the exact and near duplicate-content checks, counted in
// SiteReport.DuplicatesUnchecked with their reason, while the same site
// with every fingerprint current reports both findings.
func TestDuplicatesFingerprintVersion(t *testing.T) {
	t.Parallel()
	site := func(oldVersion int) testSite {
		old := func(p *PageSummary) { p.FingerprintVersion = oldVersion }
		return testSite{pages: []PageSummary{
			pg("/a", func(p *PageSummary) { p.TextHash = 42 }),
			pg("/b", func(p *PageSummary) { p.TextHash = 42 }, old),
			pg("/c", func(p *PageSummary) { p.SimHash = 0xF0F0F0F0F0F0F0F0 }),
			pg("/d", func(p *PageSummary) { p.SimHash = 0xF0F0F0F0F0F0F0F0 ^ 0b1011 }, old),
			// No text: not compared in any version, so not counted.
			pg("/e", func(p *PageSummary) { p.TextHash, p.SimHash = 0, 0 }, old),
		}, linked: []string{"/a", "/b", "/c", "/d", "/e"}}
	}
	tests := []struct {
		name       string
		version    int
		findings   bool
		unchecked  int
		wantReason map[string]int
	}{
		{name: "all current (version unset)", version: 0, findings: true},
		{name: "all current (version set)", version: analyzer.FingerprintVersion, findings: true},
		{name: "two of version 1", version: 1, unchecked: 2, wantReason: map[string]int{DuplicatesFingerprintVersion: 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := site(tc.version).build(t)
			for _, id := range []string{"site.duplicate_content", "site.near_duplicate"} {
				if got := siteFinding(rep, id, "") != nil; got != tc.findings {
					t.Errorf("%s reported: %v, want %v", id, got, tc.findings)
				}
			}
			if rep.DuplicatesUnchecked != tc.unchecked || !cmp.Equal(rep.DuplicatesUncheckedReasons, tc.wantReason) {
				t.Errorf("DuplicatesUnchecked = %d %v, want %d %v", rep.DuplicatesUnchecked, rep.DuplicatesUncheckedReasons, tc.unchecked, tc.wantReason)
			}
		})
	}
}

// TestPageRecordFingerprintVersion shows the compact page record keeps the
// fingerprint's version without growing.
func TestPageRecordFingerprintVersion(t *testing.T) {
	b := newSiteBuilder(nil, nil)
	for _, v := range []int{0, 1, analyzer.FingerprintVersion, 300} {
		sum := PageSummary{URL: "https://example.com/a", Status: 200, TextHash: 7, SimHash: 9, FingerprintVersion: v}
		rec := b.record(&sum)
		if got := b.summary(&rec); got.FingerprintVersion != v || got.TextHash != 7 || got.SimHash != 9 {
			t.Errorf("version %d: round trip gave %+v", v, got)
		}
	}
	if n := unsafe.Sizeof(pageRec{}); n != 112 {
		t.Errorf("pageRec is %d bytes, want 112", n)
	}
}

// TestSummarizeFingerprintVersion shows a page summary takes the version
// of its report's fingerprint.
func TestSummarizeFingerprintVersion(t *testing.T) {
	rep := &analyzer.Report{URL: "https://example.com/", Status: 200,
		Fingerprint: analyzer.FingerprintText("some words of main text")}
	sum := summarize(rep, 0)
	if sum.FingerprintVersion != analyzer.FingerprintVersion || sum.TextHash != rep.Fingerprint.TextHash || sum.SimHash != rep.Fingerprint.SimHash {
		t.Errorf("summary fingerprint %d %x %x, report %+v", sum.FingerprintVersion, sum.TextHash, sum.SimHash, rep.Fingerprint)
	}
}
