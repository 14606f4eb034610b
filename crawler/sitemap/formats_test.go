package sitemap

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestFormats reads every format Google Search Central accepts as a sitemap
// ("Build and submit a sitemap": XML sitemaps and indexes, RSS 2.0, Atom
// 0.3 and 1.0, text), recognised by the parsed root element, prefixed or not.
func TestFormats(t *testing.T) {
	type entry struct {
		Loc     string
		Child   bool
		LastMod time.Time // zero when absent or invalid
	}
	day := func(y, m, d, h, min int, off int) time.Time {
		return time.Date(y, time.Month(m), d, h, min, 0, 0, time.FixedZone("", off*3600))
	}
	tests := []struct {
		name    string
		body    []byte
		kind    string
		urls    int
		entries []entry
		issues  []string
	}{
		{
			name: "RSS 2.0 items' links, pubDate as lastmod", body: fixture(t, "rss.xml"), kind: KindRSS, urls: 5,
			entries: []entry{
				{Loc: "https://www.example.com/post", LastMod: day(2025, 6, 2, 8, 30, 0)},
				{Loc: "https://www.example.com/second?a=1&b=2", LastMod: day(2025, 6, 3, 9, 0, 0)},
				{Loc: "https://www.example.com/bad-date"},
			},
			issues: []string{"loc_not_absolute ", "loc_not_absolute /relative", "lastmod_invalid https://www.example.com/bad-date"},
		},
		{
			name: "Atom 1.0 entries' alternate links, updated as lastmod", body: fixture(t, "atom.xml"), kind: KindAtom, urls: 3,
			entries: []entry{
				{Loc: "https://www.example.com/first", LastMod: day(2025, 6, 2, 8, 30, 2)},
				{Loc: "https://www.example.com/second", LastMod: day(2025, 6, 3, 9, 0, 0)},
			},
			issues: []string{"loc_not_absolute "},
		},
		{
			name: "Atom 0.3 feed", kind: KindAtom, urls: 1,
			body:    []byte(`<feed version="0.3" xmlns="http://purl.org/atom/ns#"><entry><link rel="alternate" type="text/html" href="https://a.example/x"/><modified>2025-06-01T10:00:00Z</modified></entry></feed>`),
			entries: []entry{{Loc: "https://a.example/x", LastMod: day(2025, 6, 1, 10, 0, 0)}},
		},
		{
			name: "prefixed sitemap index gives child sitemaps", body: fixture(t, "prefixed_index.xml"), kind: KindIndex, urls: 2,
			entries: []entry{
				{Loc: "https://www.example.com/sitemap-pages.xml", Child: true, LastMod: day(2025, 6, 1, 0, 0, 0)},
				{Loc: "https://www.example.com/sitemap-posts.xml", Child: true},
			},
		},
		{
			name: "prefixed urlset, loc outside the namespace ignored", body: fixture(t, "prefixed_urlset.xml"), kind: KindURLSet, urls: 2,
			entries: []entry{{Loc: "https://www.example.com/en/page"}, {Loc: "https://www.example.com/this"}},
		},
		{
			name: "RSS items outside a channel are not entries", kind: KindRSS, urls: 1,
			body:    []byte(`<rss version="2.0"><item><link>https://a.example/</link></item><channel><item><link>https://a.example/b</link></item></channel></rss>`),
			entries: []entry{{Loc: "https://a.example/b"}},
		},
		{
			name: "text sitemap must be UTF-8", body: fixture(t, "text_latin1.txt"), kind: KindText, urls: 3,
			entries: []entry{{Loc: "https://www.example.com/café"}, {Loc: "https://www.example.com/ok"}},
			issues:  []string{"loc_not_absolute https://www.example.com/caf\uFFFD"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for name, body := range map[string][]byte{"plain": tc.body, "gzip": gz(t, tc.body)} {
				info, got := readAll(t, bytes.NewReader(body), nil)
				if info.Kind != tc.kind || info.URLs != tc.urls {
					t.Errorf("%s: kind %q urls %d, want %q %d", name, info.Kind, info.URLs, tc.kind, tc.urls)
				}
				var es []entry
				for _, e := range got {
					x := entry{Loc: e.Loc, Child: e.Child}
					if e.LastModValid {
						x.LastMod = e.LastModTime
					}
					es = append(es, x)
				}
				if len(es) != len(tc.entries) {
					t.Fatalf("%s: entries %+v, want %+v", name, es, tc.entries)
				}
				for i := range es {
					if es[i].Loc != tc.entries[i].Loc || es[i].Child != tc.entries[i].Child || !es[i].LastMod.Equal(tc.entries[i].LastMod) {
						t.Errorf("%s: entry %d = %+v, want %+v", name, i, es[i], tc.entries[i])
					}
				}
				if k := issueKinds(info); !reflect.DeepEqual(k, tc.issues) {
					t.Errorf("%s: issues %q, want %q", name, k, tc.issues)
				}
			}
		})
	}
}

// TestFeedCaps holds feeds to the caps of XML sitemaps: reading stops at
// MaxURLs entries and at MaxBytes, with the overflow said.
func TestFeedCaps(t *testing.T) {
	var rss, atom strings.Builder
	rss.WriteString(`<rss version="2.0"><channel>`)
	atom.WriteString(`<feed xmlns="http://www.w3.org/2005/Atom">`)
	for i := range 30 {
		rss.WriteString("<item><link>https://a.example/p" + strings.Repeat("x", i) + "</link></item>")
		atom.WriteString(`<entry><link href="https://a.example/p` + strings.Repeat("x", i) + `"/></entry>`)
	}
	rss.WriteString("</channel></rss>")
	atom.WriteString("</feed>")
	for name, body := range map[string]string{"rss": rss.String(), "atom": atom.String()} {
		t.Run(name, func(t *testing.T) {
			info, got := readAll(t, strings.NewReader(body), &Options{MaxURLs: 10})
			if !info.TooManyURLs || info.URLs != 10 || len(got) != 10 {
				t.Errorf("MaxURLs 10: TooManyURLs %v URLs %d entries %d", info.TooManyURLs, info.URLs, len(got))
			}
			info, _ = readAll(t, strings.NewReader(body), &Options{MaxBytes: int64(len(body) / 2)})
			if !info.TooLarge || info.Bytes != int64(len(body)/2) {
				t.Errorf("MaxBytes %d: TooLarge %v Bytes %d", len(body)/2, info.TooLarge, info.Bytes)
			}
		})
	}
}
