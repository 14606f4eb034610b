package redisfrontier

import (
	"testing"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
)

// TestRecordFingerprintVersion shows a summary record keeps its
// fingerprint's version, that a summary without one is stored as the
// current version, and that a record written before versions were stored
// reads as version 1.
func TestRecordFingerprintVersion(t *testing.T) {
	for _, tc := range []struct{ in, want int }{{0, analyzer.FingerprintVersion}, {1, 1}, {analyzer.FingerprintVersion, analyzer.FingerprintVersion}} {
		b, err := encodeRecord(crawler.PageSummary{URL: "https://e.com/", TextHash: 42, SimHash: 7, FingerprintVersion: tc.in}, nil)
		if err != nil {
			t.Fatal(err)
		}
		sum, _, err := decodeRecord(b)
		if err != nil || sum.FingerprintVersion != tc.want || sum.TextHash != 42 || sum.SimHash != 7 {
			t.Errorf("version %d: decoded %+v, %v; want version %d", tc.in, sum, err, tc.want)
		}
	}
	old := `{"s":{"url":"https://e.com/","status":200},"t":42,"h":7}`
	sum, _, err := decodeRecord([]byte(old))
	if err != nil || sum.FingerprintVersion != 1 || sum.TextHash != 42 {
		t.Errorf("record without a version decoded as %+v, %v; want version 1", sum, err)
	}
}
