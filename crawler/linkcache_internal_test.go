package crawler

import (
	"slices"
	"strconv"
	"testing"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/seo"
)

// cacheLink returns the link of href on the page at base, its URL resolved
// as the analyzer resolves it.
func cacheLink(t *testing.T, base, href string) *analyzer.Link {
	t.Helper()
	b, err := seo.ParseHref(base)
	if err != nil {
		t.Fatal(err)
	}
	br, err := seo.NewBaseURL(b)
	if err != nil {
		t.Fatal(err)
	}
	l := &analyzer.Link{Href: href, HasHref: true}
	if u, err := br.Resolve(href); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		u.Fragment, u.RawFragment = "", ""
		l.URL = u
	}
	return l
}

// TestLinkTargetMatchesInScope resolves hrefs of every kind on pages at
// several paths and hosts, twice each, and wants the cached answer to be
// inScope's every time; only the hrefs whose resolution depends on nothing
// but the scheme and host are cached, and a session-ID URL, whose every
// link is noted as a trap, never is.
func TestLinkTargetMatchesInScope(t *testing.T) {
	newCrawl := func() *crawl {
		cr := &crawl{traps: newTrapGuard(), rootHost: "example.com", norm: seo.NormalizeOptions{}}
		cr.o.IncludeSubdomains = true
		return cr
	}
	bases := []string{"https://example.com/", "https://example.com/a/b/c", "http://example.com/x?y=1",
		"https://blog.example.com/p/", "https://user@example.com:8443/q", "https://other.org/z"}
	hrefs := []struct {
		href  string
		keyed bool
	}{
		{"/a/1", true}, {"/a/1?", true}, {"/A/B-c_d~e", true}, {"/a?b=1&c=2", true}, {"/a?b=/c:d@e!$*()+,;", true},
		{"/a/1#frag", false}, {"/a/./b", false}, {"/a/../b", false}, {"/.x", false}, {"/a%20b", false}, {"/a b", false},
		{" /a", false}, {"//example.com/a", false}, {"/a//b", false}, {"a/b", false}, {"../a", false}, {"?q=1", false},
		{"", false}, {"#top", false}, {"https://example.com", true}, {"https://EXAMPLE.com:443/a/1", true},
		{"http://blog.example.com/a?x=1", true}, {"https://other.org/a", true}, {"https://example.com/a%2Fb", false},
		{"HTTPS://example.com/a", false}, {"mailto:a@example.com", false}, {"/a;jsessionid=XYZ", true},
		{"/a?sid=123", true}, {"/a?PHPSESSID=1&x=2", true}, {"https://example.com/a;JSESSIONID=1", true},
	}
	cr := newCrawl()
	var buf []byte
	for round := range 2 {
		for _, base := range bases {
			for _, h := range hrefs {
				l := cacheLink(t, base, h.href)
				if l.URL == nil {
					continue
				}
				ref := newCrawl()
				n, s, in := ref.inScope(l.URL)
				noted := len(ref.traps.traps) > 0
				var got *linkTarget
				got, buf = cr.linkTarget(buf, l)
				if got.in != in || got.s != s || (n == nil) != (got.n == nil) || n != nil && n.String() != got.n.String() {
					t.Fatalf("round %d, %q on %s: cached %v %q, inScope %v %q", round, h.href, base, got.in, got.s, in, s)
				}
				if got.in && got.shape != pathShape(n) {
					t.Fatalf("%q on %s: shape %+v, want %+v", h.href, base, got.shape, pathShape(n))
				}
				key, ok := linkKey(nil, l)
				if ok != h.keyed {
					t.Fatalf("%q on %s: has a key %v, want %v", h.href, base, ok, h.keyed)
				}
				if cached := ok && cr.linkCache.get(key) != nil; cached != (ok && !noted) {
					t.Fatalf("%q on %s: cached %v, want %v (noted as a trap: %v)", h.href, base, cached, ok && !noted, noted)
				}
			}
		}
	}
	// Every link to a session-ID URL is noted, cached or not: two rounds
	// of two hrefs on each base.
	if tr := cr.traps.traps; tr["jsessionid"] == nil || tr["jsessionid"].Dropped < 2*2*2 {
		t.Fatalf("jsessionid notes: %+v", tr["jsessionid"])
	}
}

// TestLinkCacheBounded fills the cache with three times its bound of
// targets and wants it to hold at most the bound, the newest still there,
// and a target met again kept when its generation goes.
func TestLinkCacheBounded(t *testing.T) {
	var c linkCache
	var last []byte
	for i := range 3 * maxLinkCache {
		last = []byte("https://example.com/a/" + strconv.Itoa(i))
		c.put(last, &linkTarget{s: string(last)})
		if n := len(c.cur) + len(c.prev); n > maxLinkCache {
			t.Fatalf("after %d targets the cache holds %d, bound %d", i+1, n, maxLinkCache)
		}
	}
	if c.get(last) == nil {
		t.Fatal("the newest target is not cached")
	}
	if c.get([]byte("https://example.com/a/0")) != nil {
		t.Fatal("the oldest target is still cached")
	}
	// A target met again moves to the newer generation and outlives the
	// next turn.
	hot := []byte("https://example.com/a/" + strconv.Itoa(3*maxLinkCache-maxLinkCache/2-1))
	if _, inPrev := c.prev[string(hot)]; !inPrev || c.get(hot) == nil {
		t.Fatal("the target is not in the older generation")
	}
	for i := range maxLinkCache / 2 {
		c.put([]byte("https://example.com/b/"+strconv.Itoa(i)), &linkTarget{})
	}
	if c.get(hot) == nil {
		t.Fatal("a target met again was dropped with its generation")
	}
}

// TestTargetMemo judges each target once, however many links lead to it,
// and gives every link its own copy of the findings' evidence.
func TestTargetMemo(t *testing.T) {
	m := newTargetMemo(130)
	judged := map[int32]int{}
	judge := func(node int32) func([]linkHit) []linkHit {
		return func(hits []linkHit) []linkHit {
			judged[node]++
			if node%2 == 1 {
				return hits // an answering page: no finding
			}
			return append(hits, linkHit{id: "links.broken_internal", target: strconv.Itoa(int(node)),
				ev: seo.Evidence{URLs: []string{"u" + strconv.Itoa(int(node))}}})
		}
	}
	var first, again []linkHit
	for _, node := range []int32{0, 1, 2, 129, 0, 1, 2, 129, 129} {
		n := len(first)
		first = m.hits(first, node, judge(node))
		if len(first)-n != int((node+1)%2) {
			t.Fatalf("node %d: %d findings, want %d", node, len(first)-n, (node+1)%2)
		}
	}
	for node, n := range judged {
		if n != 1 {
			t.Errorf("node %d judged %d times, want once", node, n)
		}
	}
	again = m.hits(again, 2, judge(2))
	if len(again) != 1 || again[0].target != "2" || again[0].ev.URLs[0] != "u2" {
		t.Fatalf("findings of node 2 again: %+v", again)
	}
	again[0].ev.URLs[0] = "changed"
	for _, h := range first {
		if h.target == "2" && h.ev.URLs[0] != "u2" {
			t.Fatal("two links share their evidence's URLs")
		}
	}
}

// TestAddEdgesWithIDs records the same pages, with a redirect and repeated
// and nofollow links, once by URL and once with the node ids the crawl
// knows for some targets, and wants the same graph.
func TestAddEdgesWithIDs(t *testing.T) {
	byURL := newSiteBuilder(nil, &Options{MaxLinkTargets: 5})
	withIDs := newSiteBuilder(nil, &Options{MaxLinkTargets: 5})
	for i := range 6 {
		from := "https://example.com/p/" + strconv.Itoa(i)
		sum := PageSummary{URL: from, Status: 200}
		var edges []Edge
		if i == 3 {
			sum.Status = 301
			sum.Redirects = []seo.Redirect{{URL: from, Status: 301, Location: "https://example.com/p/0"}}
			edges = append(edges, Edge{From: from, To: "https://example.com/p/0"})
		}
		for k := range 9 {
			edges = append(edges, Edge{From: from, To: "https://example.com/p/" + strconv.Itoa((i+k)%7), Nofollow: k == 2})
		}
		ids := make([]int32, 0, len(edges))
		for k, e := range edges {
			switch {
			case k%3 == 2: // a target the crawl did not admit
				ids = append(ids, -1)
			default:
				withIDs.mu.Lock()
				ids = append(ids, withIDs.intern(e.To))
				withIDs.mu.Unlock()
				byURL.id(e.To)
			}
		}
		byURL.addPage(sum, edges)
		withIDs.addPageIDs(sum, edges, ids[:len(ids)-2]) // the last edges by URL, as head targets are
	}
	if !slices.Equal(byURL.urls, withIDs.urls) || !slices.Equal(byURL.arena, withIDs.arena) ||
		len(byURL.edges) != len(withIDs.edges) || byURL.droppedEdges != withIDs.droppedEdges {
		t.Fatalf("graphs differ: nodes %v / %v, arena %v / %v, dropped %d / %d", byURL.urls, withIDs.urls,
			byURL.arena, withIDs.arena, byURL.droppedEdges, withIDs.droppedEdges)
	}
	for i := range byURL.edges {
		if byURL.edges[i] != withIDs.edges[i] {
			t.Fatalf("page %d: edges %+v / %+v", i, byURL.edges[i], withIDs.edges[i])
		}
	}
}
