package crawler

import (
	"net/url"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/seokit/seokit/analyzer"
)

// The link targets of a crawl repeat: every page carries the menu, and an
// article is linked from dozens of others. linkCache remembers, per crawl,
// what inScope made of a link's href, so a target already seen costs one
// map lookup instead of a normalisation and a serialisation, and whether
// it was already handed to the frontier, whose Push ignores a URL pushed
// before: such a link adds its edge but no item.

// maxLinkCache bounds the link targets remembered (about 450 bytes each,
// their normal form shared with the link graph once admitted): they are
// kept in two generations of half as many, the older dropped when the
// newer fills, so the targets a crawl keeps meeting (its menu, its hubs)
// stay in it.
const maxLinkCache = 1 << 13

// linkTarget is what the crawl knows of a link's target: its normal form
// and whether the crawl covers it, with the shape the trap guard reads
// of it. pushed says an item for it was allowed (its node interned, as
// allowItem does, with id) and handed to the frontier.
type linkTarget struct {
	n      *url.URL
	s      string
	in     bool
	pushed atomic.Bool
	id     atomic.Int32 // the link graph's node, once pushed
	shape  trapShape    // when in
}

// linkCache maps a link's cache key (see linkKey) to its target.
type linkCache struct {
	mu        sync.RWMutex
	cur, prev map[string]*linkTarget
}

// get returns the target of key, nil when it is not cached; a target
// found in the older generation is moved to the newer one.
func (c *linkCache) get(key []byte) *linkTarget {
	c.mu.RLock()
	t := c.cur[string(key)]
	old := t == nil
	if old {
		t = c.prev[string(key)]
	}
	c.mu.RUnlock()
	if old && t != nil {
		t = c.put(key, t)
	}
	return t
}

// put caches t under key and returns the target cached under it (t, or
// the one another page cached first).
func (c *linkCache) put(key []byte, t *linkTarget) *linkTarget {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.cur[string(key)]; old != nil {
		return old
	}
	if c.cur == nil || len(c.cur) >= maxLinkCache/2 {
		c.prev, c.cur = c.cur, make(map[string]*linkTarget, 256)
	}
	k := t.s
	if string(key) != k {
		// Most links are written in normal form: the key is then the
		// target's own string, not a copy.
		k = string(key)
	}
	c.cur[k] = t
	return t
}

// linkKey appends to buf the key under which the target of l is cached,
// and reports whether l has one: an href whose resolution depends on
// nothing but itself and the scheme and host it resolved to. That is a
// path from the root made of plain characters (no dot segment, no escape)
// with an optional plain query, keyed with the scheme and host, or an
// absolute http(s) URL of plain characters, keyed alone. Any other href
// (relative to the page's path, escaped, with spaces) is not cached.
func linkKey(buf []byte, l *analyzer.Link) ([]byte, bool) {
	h := l.Href
	if l.URL == nil || len(h) == 0 || len(h) > 512 {
		return buf, false
	}
	switch {
	case h[0] == '/':
		if len(h) > 1 && h[1] == '/' || !plainRef(h) {
			return buf, false
		}
		buf = append(buf, l.URL.Scheme...)
		buf = append(buf, "://"...)
		buf = append(buf, l.URL.Host...)
		return append(buf, h...), true
	case strings.HasPrefix(h, "http://") || strings.HasPrefix(h, "https://"):
		if !plainRef(h[strings.IndexByte(h, ':')+3:]) {
			return buf, false
		}
		buf = append(buf, 0)
		return append(buf, h...), true
	}
	return buf, false
}

// plainRef reports whether s holds only letters, digits and the
// characters "-_~/:.?=&+,;@!$*()", with no dot right after a slash (a
// dot segment) and no "//" past its start.
func plainRef(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '.':
			if i > 0 && s[i-1] == '/' {
				return false
			}
		case c == '/':
			if i > 0 && s[i-1] == '/' {
				return false
			}
		case strings.IndexByte("-_~:?=&+,;@!$*()", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// linkTarget returns the target of link l, from the crawl's cache when
// l's href has a key (buf is scratch space for it, returned grown).
func (cr *crawl) linkTarget(buf []byte, l *analyzer.Link) (*linkTarget, []byte) {
	key, ok := linkKey(buf[:0], l)
	if ok {
		if t := cr.linkCache.get(key); t != nil {
			return t, key
		}
	}
	t := &linkTarget{}
	var noted bool
	t.n, t.s, t.in, noted = cr.inScopeNoted(l.URL)
	if t.in {
		t.shape = pathShape(t.n)
	}
	if ok && !noted {
		// A URL whose normalisation notes a session-ID trap is not
		// cached: every link to it is noted.
		t = cr.linkCache.put(key, t)
	}
	return t, key
}
