package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/seo"
)

func TestReportCache(t *testing.T) {
	key := func(id string, size int) reportKey {
		return reportKey{account: "acct", id: id, status: "succeeded", finished: time.Unix(1, 0), size: size}
	}
	c := newReportCache(100)
	a, b, d := &crawler.SiteReport{}, &crawler.SiteReport{}, &crawler.SiteReport{}
	c.put(key("a", 40), a)
	c.put(key("b", 40), b)
	if c.get(key("a", 40)) != a || c.get(key("b", 40)) != b {
		t.Fatal("entries that fit are not kept")
	}
	// Another account, another status or size: not the same report.
	for _, k := range []reportKey{
		{account: "other", id: "a", status: "succeeded", finished: time.Unix(1, 0), size: 40},
		{account: "acct", id: "a", status: "canceled", finished: time.Unix(1, 0), size: 40},
		{account: "acct", id: "a", status: "succeeded", finished: time.Unix(2, 0), size: 40},
		key("a", 41),
	} {
		if c.get(k) != nil {
			t.Errorf("%+v served the report of %+v", k, key("a", 40))
		}
	}
	// a was read after b: b is the least recently used and goes first.
	c.get(key("a", 40))
	c.put(key("d", 40), d)
	if c.get(key("b", 40)) != nil || c.get(key("a", 40)) != a || c.get(key("d", 40)) != d || c.size != 80 {
		t.Errorf("eviction kept the wrong entries (size %d)", c.size)
	}
	// A new version of a's report replaces the old one.
	a2 := &crawler.SiteReport{}
	c.put(key("a", 30), a2)
	if c.get(key("a", 40)) != nil || c.get(key("a", 30)) != a2 || c.size != 70 {
		t.Errorf("the old version of a report is kept (size %d)", c.size)
	}
	// Larger than the whole cache: not kept, nothing dropped for it.
	c.put(key("e", 101), &crawler.SiteReport{})
	if c.get(key("e", 101)) != nil || c.size != 70 {
		t.Errorf("a report over the cap is kept (size %d)", c.size)
	}
	// The count of entries is bounded whatever their size.
	c = newReportCache(1 << 30)
	for i := range 3 * maxCachedReports {
		c.put(key(string(rune('a'+i)), 1), &crawler.SiteReport{})
	}
	if len(c.items) != maxCachedReports || c.size != maxCachedReports {
		t.Errorf("%d entries of %d bytes kept, want %d", len(c.items), c.size, maxCachedReports)
	}
	// A nil cache (turned off) keeps nothing.
	var off *reportCache
	off.put(key("a", 1), a)
	if off.get(key("a", 1)) != nil {
		t.Error("a nil cache served a report")
	}
}

// storedResult is a stored report held in memory.
type storedResult []byte

func (r storedResult) Size() int                    { return len(r) }
func (r storedResult) Open() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(r)), nil }

// TestDecodeContext: a decode stops with its context, saying so rather
// than that the report is broken; a live one decodes the report.
func TestDecodeContext(t *testing.T) {
	res := storedResult(`{"domain":"example.com","pages":[{"url":"https://example.com/","status":200}]}`)
	ctx, cancel := context.WithCancel(context.Background())
	if rep, err := DecodeReport(ctx, res); err != nil || rep.Domain != "example.com" || len(rep.Pages) != 1 {
		t.Fatalf("decode: %+v, %v", rep, err)
	}
	cancel()
	if rep, err := DecodeReport(ctx, res); !errors.Is(err, context.Canceled) || rep != nil {
		t.Errorf("decode after its context ended: %+v, %v", rep, err)
	}
}

func TestSizer(t *testing.T) {
	m := 1.5
	sz := newSizer()
	for _, v := range []any{
		PageFinding{ID: "title.missing", Severity: seo.Warning, Message: "<title> & \u2028 \xff", Evidence: seo.Evidence{Measured: &m, URLs: []string{"https://a.example/?q=<x>"}}},
		Finding{ID: "links.broken", Severity: seo.Error, Examples: []string{"https://a.example/"}},
		"", 0, nil,
	} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if n, err := sz.size(v); err != nil || n != len(b) {
			t.Errorf("size of %s = %d, %v; want %d", b, n, err, len(b))
		}
	}
}
