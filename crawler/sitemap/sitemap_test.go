package sitemap

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func readAll(t *testing.T, r io.Reader, opts *Options) (*Info, []Entry) {
	t.Helper()
	if opts == nil {
		opts = &Options{}
	}
	if opts.Now == nil {
		opts.Now = func() time.Time { return now }
	}
	var got []Entry
	info, err := Read(context.Background(), r, opts, func(e Entry) error {
		got = append(got, e)
		return nil
	})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return info, got
}

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func gz(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	return buf.Bytes()
}

func locs(es []Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Loc)
	}
	return out
}

func issueKinds(info *Info) []string {
	var out []string
	for _, is := range info.Issues {
		out = append(out, is.Kind+" "+is.Loc)
	}
	return out
}

func TestURLSet(t *testing.T) {
	raw := fixture(t, "urlset.xml")
	for name, body := range map[string][]byte{"plain": raw, "gzip": gz(t, raw)} {
		t.Run(name, func(t *testing.T) {
			info, got := readAll(t, bytes.NewReader(body), &Options{SitemapURL: "https://www.example.com/sitemap.xml.gz"})
			if info.Kind != KindURLSet || info.URLs != 3 || info.Bytes != int64(len(raw)) {
				t.Errorf("info = %+v", info)
			}
			if len(info.Issues) != 0 {
				t.Errorf("issues: %v", issueKinds(info))
			}
			want := []string{"https://www.example.com/", "https://www.example.com/en/page", "https://www.example.com/a?x=1&y=2"}
			if !reflect.DeepEqual(locs(got), want) {
				t.Fatalf("locs = %q, want %q", locs(got), want)
			}
			if !got[0].LastModValid || !got[0].LastModTime.Equal(time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)) {
				t.Errorf("entry 0 lastmod = %+v", got[0])
			}
			if !got[1].LastModTime.Equal(time.Date(2025, 6, 1, 8, 30, 0, 0, time.UTC)) {
				t.Errorf("entry 1 lastmod = %v", got[1].LastModTime)
			}
			alts := []Alternate{{"en", "https://www.example.com/en/page"}, {"de", "https://www.example.com/de/seite"}}
			if !reflect.DeepEqual(got[1].Alternates, alts) {
				t.Errorf("alternates = %+v", got[1].Alternates)
			}
			if got[2].LastMod != "" || got[2].LastModValid {
				t.Errorf("entry without lastmod = %+v", got[2])
			}
		})
	}
}

func TestIndex(t *testing.T) {
	info, got := readAll(t, bytes.NewReader(fixture(t, "index.xml")), &Options{SitemapURL: "https://www.example.com/sitemaps/index.xml"})
	if info.Kind != KindIndex || info.URLs != 2 || len(info.Issues) != 0 {
		t.Errorf("info = %+v, issues %v", info, issueKinds(info))
	}
	want := []string{"https://www.example.com/sitemap-pages.xml", "https://www.example.com/sitemaps/posts.xml.gz"}
	if !reflect.DeepEqual(locs(got), want) {
		t.Errorf("locs = %q", locs(got))
	}
	if !got[0].LastModValid {
		t.Error("index lastmod not parsed")
	}
}

func TestText(t *testing.T) {
	info, got := readAll(t, bytes.NewReader(fixture(t, "text.txt")), nil)
	if info.Kind != KindText || info.URLs != 4 {
		t.Errorf("info = %+v", info)
	}
	want := []string{"https://www.example.com/one", "https://www.example.com/two", "https://www.example.com/three"}
	if !reflect.DeepEqual(locs(got), want) {
		t.Errorf("locs = %q", locs(got))
	}
	if k := issueKinds(info); !reflect.DeepEqual(k, []string{"loc_not_absolute /relative"}) {
		t.Errorf("issues = %q", k)
	}
}

func TestMalformed(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		kind     string
		urls     int
		locs     int
		issue    string
		inDetail string
	}{
		{"invalid xml keeps what was read", string(fixture(t, "invalid.xml")), KindURLSet, 3, 2, IssueInvalidXML, "</url>"},
		{"wrong root: RSS 1.0 is no sitemap format of Google's", string(fixture(t, "rss1.rdf")), "", 0, 0, IssueWrongRoot, "<RDF>"},
		{"feed without the Atom namespace still read", `<feed><entry><link href="https://a.example/"/></entry></feed>`, KindAtom, 1, 1, IssueWrongNamespace, "none"},
		{"wrong namespace still read", string(fixture(t, "wrong_namespace.xml")), KindURLSet, 1, 1, IssueWrongNamespace, "0.84"},
		{"no namespace", `<urlset><url><loc>https://a.example/</loc></url></urlset>`, KindURLSet, 1, 1, IssueWrongNamespace, "none"},
		{"truncated file", `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://a.example/</loc></url><url><loc>https://a.exa`, KindURLSet, 2, 1, IssueInvalidXML, "EOF"},
		{"html page", "<!DOCTYPE html>\n<html><head><title>x</title></head><body></body></html>", "", 0, 0, IssueWrongRoot, "<html>"},
		{"undeclared entity", `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://a.example/&nbsp;</loc></url></urlset>`, KindURLSet, 1, 0, IssueInvalidXML, "nbsp"},
		{"corrupt gzip", "\x1f\x8b\x08\x00garbage-garbage-garbage", "", 0, 0, IssueInvalidXML, "gzip"},
		{"huge text node", `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>` + strings.Repeat("a", 2<<20), KindURLSet, 1, 0, IssueInvalidXML, "1 MiB"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			info, got := readAll(t, strings.NewReader(tc.body), nil)
			if info.Kind != tc.kind || info.URLs != tc.urls || len(got) != tc.locs {
				t.Errorf("kind %q urls %d entries %d; want %q %d %d", info.Kind, info.URLs, len(got), tc.kind, tc.urls, tc.locs)
			}
			found := false
			for _, is := range info.Issues {
				if is.Kind == tc.issue && strings.Contains(is.Detail, tc.inDetail) {
					found = true
				}
			}
			if !found {
				t.Errorf("no %s issue mentioning %q in %+v", tc.issue, tc.inDetail, info.Issues)
			}
		})
	}
}

func TestEntryIssues(t *testing.T) {
	info, got := readAll(t, bytes.NewReader(fixture(t, "issues.xml")), &Options{
		SitemapURL:   "https://www.example.com/blog/sitemap.xml",
		AllowedHosts: []string{"partner.example.net"},
	})
	want := []string{
		"loc_not_absolute /relative/page",
		"loc_not_absolute ",
		"lastmod_invalid https://www.example.com/blog/bad-date",
		"lastmod_future https://www.example.com/blog/future",
		"foreign_url https://other.example.org/blog/x",
		"foreign_url http://www.example.com/blog/http",
		"foreign_url https://www.example.com/shop/outside",
	}
	if k := issueKinds(info); !reflect.DeepEqual(k, want) {
		t.Errorf("issues =\n%q\nwant\n%q", k, want)
	}
	if info.URLs != 9 || len(got) != 7 {
		t.Errorf("URLs = %d, entries = %d; want 9, 7", info.URLs, len(got))
	}
	if info.IssueCounts[IssueForeignURL] != 3 {
		t.Errorf("IssueCounts = %v", info.IssueCounts)
	}
}

func TestParseLastMod(t *testing.T) {
	tests := []struct {
		in   string
		ok   bool
		want time.Time
	}{
		{"2025", true, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"2025-07", true, time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC)},
		{"2025-07-16", true, time.Date(2025, 7, 16, 0, 0, 0, 0, time.UTC)},
		{"2025-07-16T19:20+01:00", true, time.Date(2025, 7, 16, 18, 20, 0, 0, time.UTC)},
		{"2025-07-16T19:20:30Z", true, time.Date(2025, 7, 16, 19, 20, 30, 0, time.UTC)},
		{"2025-07-16T19:20:30.45-05:00", true, time.Date(2025, 7, 17, 0, 20, 30, 450e6, time.UTC)},
		{"2025-07-16T19:20:30", false, time.Time{}},
		{"2025-07-16 19:20:30Z", false, time.Time{}},
		{"2025-7-16", false, time.Time{}},
		{"2025-13-01", false, time.Time{}},
		{"16/07/2025", false, time.Time{}},
		{"2025-07-16T19Z", false, time.Time{}},
		{"2025-07-16T19:20:30+0100", false, time.Time{}},
		{"2025-07-16T19:20:30,5Z", false, time.Time{}},
		{"", false, time.Time{}},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, ok := ParseLastMod(tc.in)
			if ok != tc.ok || !got.Equal(tc.want) {
				t.Errorf("ParseLastMod(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestLastModFuture(t *testing.T) {
	tests := []struct {
		lastmod string
		future  bool
	}{
		{"2026-03-02T11:00:00Z", false}, // 23 h ahead
		{"2026-03-02T13:00:00Z", true},  // 25 h ahead
		{"2026-03-01", false},
		{"2027", true},
	}
	for _, tc := range tests {
		t.Run(tc.lastmod, func(t *testing.T) {
			body := `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://a.example/</loc><lastmod>` + tc.lastmod + `</lastmod></url></urlset>`
			info, _ := readAll(t, strings.NewReader(body), nil)
			if got := info.IssueCounts[IssueLastModFuture] == 1; got != tc.future {
				t.Errorf("future = %v, want %v", got, tc.future)
			}
		})
	}
}

// urlsetStream generates a urlset of n entries without holding it.
type urlsetStream struct {
	n, i int
	buf  []byte
	done bool
}

func (s *urlsetStream) Read(p []byte) (int, error) {
	for len(s.buf) == 0 {
		switch {
		case s.i == 0 && !s.done:
			s.buf = []byte(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
			s.done = true
		case s.i < s.n:
			s.buf = fmt.Appendf(s.buf, "<url><loc>https://www.example.com/products/item-%09d.html</loc><lastmod>2025-01-02</lastmod></url>\n", s.i)
			s.i++
		case s.i == s.n:
			s.buf = []byte("</urlset>\n")
			s.i++
		default:
			return 0, io.EOF
		}
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	return n, nil
}

func TestTooManyURLs(t *testing.T) {
	t.Parallel()
	calls := 0
	info, err := Read(context.Background(), &urlsetStream{n: 50001}, nil, func(Entry) error { calls++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if !info.TooManyURLs || info.URLs != 50000 || calls != 50000 {
		t.Errorf("TooManyURLs = %v, URLs = %d, calls = %d", info.TooManyURLs, info.URLs, calls)
	}
	info, _ = Read(context.Background(), &urlsetStream{n: 100}, &Options{MaxURLs: 100}, func(Entry) error { return nil })
	if info.TooManyURLs || info.URLs != 100 {
		t.Errorf("exactly at the limit: TooManyURLs = %v, URLs = %d", info.TooManyURLs, info.URLs)
	}
	// Text sitemaps count lines.
	var b strings.Builder
	for i := 0; i < 12; i++ {
		fmt.Fprintf(&b, "https://a.example/%d\n", i)
	}
	info, got := readAll(t, strings.NewReader(b.String()), &Options{MaxURLs: 10})
	if !info.TooManyURLs || len(got) != 10 {
		t.Errorf("text: TooManyURLs = %v, entries = %d", info.TooManyURLs, len(got))
	}
}

func TestGzipBomb(t *testing.T) {
	t.Parallel()
	// 60 MB of zeros: one gzip member of 1 MiB repeated 60 times (a valid
	// multi-member gzip file), about 60 KB compressed.
	member := gz(t, make([]byte, 1<<20))
	buf := bytes.NewBuffer(bytes.Repeat(member, 60))
	if buf.Len() > 1<<20 {
		t.Fatalf("bomb is %d bytes compressed", buf.Len())
	}
	info, got := readAll(t, bytes.NewReader(buf.Bytes()), nil)
	if !info.TooLarge || info.Bytes != MaxBytes || len(got) != 0 {
		t.Errorf("TooLarge = %v, Bytes = %d, entries = %d", info.TooLarge, info.Bytes, len(got))
	}

	// A valid but oversized urlset, with a smaller cap to keep the test fast.
	var xbuf bytes.Buffer
	zw := gzip.NewWriter(&xbuf)
	io.Copy(zw, &urlsetStream{n: 20000})
	zw.Close()
	info, got = readAll(t, bytes.NewReader(xbuf.Bytes()), &Options{MaxBytes: 1 << 20, MaxURLs: 1 << 30})
	if !info.TooLarge || info.Bytes != 1<<20 || len(got) == 0 || len(info.Issues) != 0 {
		t.Errorf("urlset bomb: TooLarge = %v, Bytes = %d, entries = %d, issues %v", info.TooLarge, info.Bytes, len(got), issueKinds(info))
	}
	// Exactly at the cap is not too large.
	raw := fixture(t, "urlset.xml")
	info, _ = readAll(t, bytes.NewReader(gz(t, raw)), &Options{MaxBytes: int64(len(raw))})
	if info.TooLarge || info.URLs != 3 {
		t.Errorf("at the cap: TooLarge = %v, URLs = %d", info.TooLarge, info.URLs)
	}
}

func TestMemoryBounded(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("large stream; the race detector's shadow memory skews heap figures")
	}
	const n = 300000 // about 30 MB of XML
	var peak uint64
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	count := 0
	info, err := Read(context.Background(), &urlsetStream{n: n}, &Options{MaxURLs: n}, func(e Entry) error {
		count++
		if count%50000 == 0 {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak {
				peak = ms.HeapAlloc
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if count != n || info.TooLarge || info.Bytes < 25<<20 {
		t.Fatalf("count = %d, info = %+v", count, info)
	}
	if grew := int64(peak) - int64(base); grew > 16<<20 {
		t.Errorf("heap grew by %d MB while reading a %d MB stream", grew>>20, info.Bytes>>20)
	}
}

type failingReader struct{ n int }

var errDisk = errors.New("disk on fire")

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n == 0 {
		f.n++
		return copy(p, `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://a.example/</loc></url>`), nil
	}
	return 0, errDisk
}

func TestErrors(t *testing.T) {
	info, err := Read(context.Background(), &failingReader{}, nil, func(Entry) error { return nil })
	if !errors.Is(err, errDisk) || !strings.HasPrefix(err.Error(), "sitemap: ") {
		t.Errorf("reader error = %v", err)
	}
	if info == nil || info.URLs != 1 || len(info.Issues) != 0 {
		t.Errorf("info = %+v", info)
	}

	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	_, err = Read(ctx, &urlsetStream{n: 100000}, nil, func(Entry) error {
		calls++
		if calls == 10 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || calls > 1000 {
		t.Errorf("cancel: err = %v after %d entries", err, calls)
	}

	stop := errors.New("enough")
	calls = 0
	_, err = Read(context.Background(), &urlsetStream{n: 100}, nil, func(Entry) error {
		calls++
		if calls == 3 {
			return stop
		}
		return nil
	})
	if err != stop || calls != 3 {
		t.Errorf("fn error: err = %v, calls = %d", err, calls)
	}
}
