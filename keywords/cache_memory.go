package keywords

import (
	"container/list"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"
	"unsafe"

	"github.com/seokit/seokit/seo"
)

// Defaults of the Suggester's in-process answer cache.
const (
	// DefaultMemoryCacheBytes bounds the in-process cache when
	// SuggesterOptions.MemoryCacheBytes is zero: 32 MiB, estimated from
	// the answers' strings and fields.
	DefaultMemoryCacheBytes = 32 << 20
	// DefaultMemoryCacheTTL is how long an answer is served from memory
	// when SuggesterOptions.MemoryCacheTTL is zero.
	DefaultMemoryCacheTTL = time.Minute
)

// Versioned is an optional interface of a Source whose data can change in
// place, such as an imported table. DataVersion returns a number that grows
// with every change of the data; the Suggester drops answers it keeps in
// memory that were computed at another version, so an import is visible
// to the next request.
type Versioned interface {
	DataVersion() uint64
}

// memKey is the in-process cache key of a query: locale, normalised
// phrase (lowercase, single spaces, the form prefix ranking uses) and
// limit, so equal keys always produce equal answers.
func memKey(q string, loc seo.Locale, limit int) string {
	return loc.String() + "\x00" + strconv.Itoa(limit) + "\x00" + NormalizePhrase(q)
}

// memEntry is one answer held in memory.
type memEntry struct {
	key     string
	res     *Suggestions // CachedAt set to when it was computed
	enc     []byte       // JSON of res.Suggestions; nil if it failed
	stored  time.Time    // when it entered the memory cache
	version uint64       // sum of the sources' DataVersion at computation
	size    int64
}

// memCache is a least-recently-used map of answers bounded by an estimate
// of their size in bytes. It is safe for concurrent use.
type memCache struct {
	ttl    time.Duration // since an entry was stored
	maxAge time.Duration // since its answer was computed (CachedAt)
	max    int64

	mu       sync.Mutex
	ll       *list.List // front: most recently used
	items    map[string]*list.Element
	bytes    int64
	inflight map[string]*flight
}

// flight is one computation other callers of the same key wait for.
type flight struct {
	done chan struct{}
	e    *memEntry
}

func newMemCache(maxBytes int64, ttl, maxAge time.Duration) *memCache {
	return &memCache{ttl: ttl, maxAge: maxAge, max: maxBytes, ll: list.New(), items: map[string]*list.Element{}, inflight: map[string]*flight{}}
}

// get returns the entry for key if it was stored within the TTL, its
// answer is younger than maxAge and it was computed at version; stale
// entries are removed.
func (c *memCache) get(key string, version uint64, now time.Time) (*memEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		return nil, false
	}
	e := el.Value.(*memEntry)
	if e.version != version || now.Sub(e.stored) > c.ttl || now.Before(e.stored) || now.Sub(e.res.CachedAt) > c.maxAge {
		c.removeLocked(el)
		return nil, false
	}
	c.ll.MoveToFront(el)
	return e, true
}

// put stores res under key, evicting the least recently used entries
// beyond the byte bound. An answer larger than the whole bound is not kept.
func (c *memCache) put(key string, res *Suggestions, version uint64, now time.Time) *memEntry {
	enc, err := json.Marshal(res.Suggestions)
	if err != nil {
		enc = nil
	}
	size := answerSize(key, res) + int64(len(enc))
	if size > c.max {
		return nil
	}
	e := &memEntry{key: key, res: res, enc: enc, stored: now, version: version, size: size}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.removeLocked(el)
	}
	c.items[key] = c.ll.PushFront(e)
	c.bytes += size
	for c.bytes > c.max {
		c.removeLocked(c.ll.Back())
	}
	return e
}

func (c *memCache) removeLocked(el *list.Element) {
	e := el.Value.(*memEntry)
	c.ll.Remove(el)
	delete(c.items, e.key)
	c.bytes -= e.size
}

// purge drops every entry.
func (c *memCache) purge() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ll.Init()
	clear(c.items)
	c.bytes = 0
}

// len returns the number of entries and their estimated size.
func (c *memCache) len() (int, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ll.Len(), c.bytes
}

// join makes the caller the computer of key, or returns the flight of the
// caller already computing it.
func (c *memCache) join(key string) (f *flight, leader bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f, ok := c.inflight[key]; ok {
		return f, false
	}
	f = &flight{done: make(chan struct{})}
	c.inflight[key] = f
	return f, true
}

// land ends the flight of key with e (nil when the computation failed or
// gave a partial answer) and wakes the waiters.
func (c *memCache) land(key string, f *flight, e *memEntry) {
	c.mu.Lock()
	delete(c.inflight, key)
	c.mu.Unlock()
	f.e = e
	close(f.done)
}

// wait waits for f or ctx; it returns the flight's answer, or nil when the
// leader failed and the caller must compute on its own.
func (f *flight) wait(ctx context.Context) (*memEntry, error) {
	select {
	case <-f.done:
		return f.e, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Estimated sizes of the fixed parts of an answer.
var (
	keywordSize     = int64(unsafe.Sizeof(Keyword{}))
	suggestionsSize = int64(unsafe.Sizeof(Suggestions{}) + unsafe.Sizeof(memEntry{}))
	monthlySize     = int64(unsafe.Sizeof(MonthlyVolume{}))
	consoleSize     = int64(unsafe.Sizeof(SearchConsoleStats{}) + 16)
)

// answerSize estimates the bytes an entry holds: the structs, their
// strings, the values behind pointers and the map and list overhead.
func answerSize(key string, s *Suggestions) int64 {
	n := suggestionsSize + 2*int64(len(key)) + 128 + int64(len(s.Query)+len(s.Locale))
	for _, v := range s.Sources {
		n += 16 + int64(len(v))
	}
	for _, k := range s.Suggestions {
		n += keywordSize + int64(len(k.Keyword)+len(k.DifficultyMethod)+len(k.Source)+len(k.VolumeRange)+len(k.Why))
		n += 8 * int64(btoi(k.Volume != nil)+btoi(k.Difficulty != nil)+btoi(k.PaidCompetition != nil)+btoi(k.CPC != nil))
		n += monthlySize * int64(cap(k.Monthly))
		if k.SearchConsole != nil {
			n += consoleSize
		}
	}
	return n
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// copyAnswer returns a copy of an answer for one caller: the struct and
// its slices are the caller's; the values behind a Keyword's pointers and
// its Monthly series are shared and must not be written through.
func copyAnswer(s *Suggestions) *Suggestions {
	c := *s
	c.Suggestions = slices.Clone(s.Suggestions)
	c.Sources = slices.Clone(s.Sources)
	c.Failed = slices.Clone(s.Failed)
	c.pre = nil
	return &c
}

// answer returns a caller's copy of the entry's answer carrying the
// entry's precoded list.
func (e *memEntry) answer() *Suggestions {
	c := copyAnswer(e.res)
	if e.enc != nil && len(c.Suggestions) > 0 {
		c.pre = &precoded{base: &c.Suggestions[0], orig: e.res.Suggestions, enc: e.enc}
	}
	return c
}

// precoded is the JSON of an in-memory answer's Suggestions, handed out
// with each copy of the answer. It stands for the copy's list only while
// the list is the one handed out and holds the same entries.
type precoded struct {
	base *Keyword  // first element of the copy handed out
	orig []Keyword // the cached list, never modified
	enc  []byte    // JSON array of orig, as encoding/json writes it
}

// valid returns the precoded JSON if list is still the list handed out
// with unchanged entries.
func (p *precoded) valid(list []Keyword) []byte {
	if p == nil || len(list) != len(p.orig) || len(list) == 0 || &list[0] != p.base {
		return nil
	}
	for i := range list {
		if !sameKeyword(&list[i], &p.orig[i]) {
			return nil
		}
	}
	return p.enc
}

// sameKeyword reports whether a and b hold the same fields: equal values
// and the same pointers and slices (whose targets are shared read-only).
// TestSameKeywordCoversEveryField fails when Keyword gains a field this
// does not compare.
func sameKeyword(a, b *Keyword) bool {
	return a.Keyword == b.Keyword && a.Volume == b.Volume && a.Difficulty == b.Difficulty &&
		a.DifficultyMethod == b.DifficultyMethod && a.PaidCompetition == b.PaidCompetition &&
		a.CPC == b.CPC && sameSlice(a.Monthly, b.Monthly) && a.Source == b.Source &&
		a.Estimated == b.Estimated && a.Expansion == b.Expansion && a.VolumeRange == b.VolumeRange &&
		a.SearchConsole == b.SearchConsole && a.Why == b.Why && a.UpdatedAt == b.UpdatedAt
}

func sameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// AppendJSON appends the JSON encoding of s to b, exactly as
// encoding/json.Marshal writes it; on an error b is returned unchanged. For an answer served from the
// Suggester's memory whose Suggestions list the caller left as it was, the
// list's encoding is reused instead of being computed again; that is what
// makes repeated answers cheap to serve.
func (s *Suggestions) AppendJSON(b []byte) ([]byte, error) {
	enc := s.pre.valid(s.Suggestions)
	if enc == nil {
		out, err := json.Marshal(s)
		if err != nil {
			return b, fmt.Errorf("keywords: encode suggestions: %w", err)
		}
		return append(b, out...), nil
	}
	return s.appendWire(b, enc)
}

// appendWire appends s as JSON with enc as the encoding of its list.
func (s *Suggestions) appendWire(b []byte, enc []byte) ([]byte, error) {
	start := len(b)
	var err error
	field := func(name string, v any) {
		if err != nil {
			return
		}
		var out []byte
		if out, err = json.Marshal(v); err == nil {
			b = append(append(b, name...), out...)
		}
	}
	b = append(b, '{')
	field(`"query":`, s.Query)
	field(`,"locale":`, s.Locale)
	b = append(append(b, `,"suggestions":`...), enc...)
	field(`,"sources":`, s.Sources)
	if len(s.Failed) > 0 {
		field(`,"failed":`, s.Failed)
	}
	if t := s.CachedAt; !t.IsZero() {
		if y := t.Year(); y >= 0 && y <= 9999 {
			// What time.Time's MarshalJSON writes for these years.
			b = append(t.AppendFormat(append(b, `,"cachedAt":"`...), time.RFC3339Nano), '"')
		} else {
			field(`,"cachedAt":`, t)
		}
	}
	if s.AgeSeconds != 0 {
		b = strconv.AppendInt(append(b, `,"ageSeconds":`...), s.AgeSeconds, 10)
	}
	if err != nil {
		return b[:start], fmt.Errorf("keywords: encode suggestions: %w", err)
	}
	return append(b, '}'), nil
}
