package mcpserver

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"hash/fnv"
	"strings"
)

// PageInfo says what a paged answer holds and what it left out.
type PageInfo struct {
	// Total counts the items matching the request's filters.
	Total int `json:"total"`
	// Returned counts the items in this answer; Omitted those matching
	// and not in it (the next pages, and before them the ones skipped by
	// the cursor).
	Returned int `json:"returned"`
	Omitted  int `json:"omitted"`
	// NextCursor, when set, asks for the next page with the same filters.
	NextCursor string `json:"nextCursor,omitempty"`
}

// Capped is an answer whose lists were shortened to fit the answer's size:
// Omitted counts the items cut from each list, by JSON path ("changed",
// "findings[3].examples"). Empty when nothing was cut.
type Capped[T any] struct {
	Result  T              `json:"result"`
	Omitted map[string]int `json:"omitted,omitempty"`
}

// sizer measures the JSON of values as json.Marshal writes them, without
// keeping the bytes: the answers that fill a page budget measure each item
// with one sizer.
type sizer struct {
	n   int
	enc *json.Encoder
}

func newSizer() *sizer {
	s := &sizer{}
	s.enc = json.NewEncoder(s)
	return s
}

func (s *sizer) Write(p []byte) (int, error) {
	s.n += len(p)
	return len(p), nil
}

// size returns the length of v's JSON.
func (s *sizer) size(v any) (int, error) {
	s.n = 0
	if err := s.enc.Encode(v); err != nil {
		return 0, err
	}
	return s.n - 1, nil // Encode ends the value with a newline
}

// cursor is the position of a page: the offset of its first item and a
// hash of the query it belongs to, so a cursor is not replayed with other
// filters.
type cursor struct {
	Offset int    `json:"o"`
	Query  uint64 `json:"q"`
}

// queryHash hashes the parts of a query.
func queryHash(parts ...string) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

func encodeCursor(off int, q uint64) string {
	b, _ := json.Marshal(cursor{Offset: off, Query: q})
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeCursor returns the offset of a cursor ("" is the first page).
func decodeCursor(s string, q uint64) (int, error) {
	if s == "" {
		return 0, nil
	}
	if len(s) > 200 {
		return 0, invalid("cursor", "cursor is not one this server gave")
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	var c cursor
	if err != nil || json.Unmarshal(b, &c) != nil || c.Offset < 0 {
		return 0, invalid("cursor", "cursor is not one this server gave")
	}
	if c.Query != q {
		return 0, invalid("cursor", "cursor belongs to another query: send the filters it was given with")
	}
	return c.Offset, nil
}

// pageOf picks the items of a page from n matching ones, starting at off:
// limit items when limit > 0, else as many as fit in budget bytes of JSON
// (at least one). encode returns the JSON of item i.
func pageOf(n, off, limit, budget int, q uint64, encode func(i int) (json.RawMessage, error)) ([]json.RawMessage, PageInfo, error) {
	var out []json.RawMessage
	size := 0
	i := off
	for ; i < n; i++ {
		if limit > 0 && len(out) >= limit {
			break
		}
		b, err := encode(i)
		if err != nil {
			return nil, PageInfo{}, err
		}
		if limit <= 0 && len(out) > 0 && size+len(b)+1 > budget {
			break
		}
		out = append(out, b)
		size += len(b) + 1
	}
	pi := PageInfo{Total: n, Returned: len(out), Omitted: n - len(out)}
	if i < n {
		pi.NextCursor = encodeCursor(i, q)
	}
	return out, pi, nil
}

// capJSON shortens the lists of v's JSON until it fits in budget bytes:
// the largest list outside other lists (by encoded size) is cut to the
// share of it that should fit, again until the whole fits, and each cut is
// counted by the list's path. It returns v unchanged when it fits.
func capJSON[T any](v T, budget int) (Capped[T], error) {
	b, err := json.Marshal(v)
	if err != nil {
		return Capped[T]{}, err
	}
	if len(b) <= budget {
		return Capped[T]{Result: v}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return Capped[T]{}, err
	}
	omitted := map[string]int{}
	for size := len(b); size > budget; {
		l := largestList(tree, "")
		if l == nil {
			break // nothing left to cut: the answer is its scalars
		}
		// Keep the share of the list that leaves the rest within budget,
		// at most half of it, so the loop ends in a few rounds.
		room := budget - (size - l.size)
		keep := 0
		if room > 0 {
			keep = min(len(l.items)/2, int(int64(len(l.items))*int64(room)/int64(l.size)))
		}
		omitted[l.path] += len(l.items) - keep
		l.set(l.items[:keep])
		nb, err := json.Marshal(tree)
		if err != nil {
			return Capped[T]{}, err
		}
		size, b = len(nb), nb
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		return Capped[T]{}, err
	}
	return Capped[T]{Result: out, Omitted: omitted}, nil
}

// list is a non-empty JSON list of a tree, its path, encoded size and a
// setter that replaces it.
type list struct {
	path  string
	items []any
	size  int
	set   func([]any)
}

// largestList finds the non-empty list of tree, outside other lists, with
// the largest encoding.
func largestList(tree any, path string) *list {
	var best *list
	var walk func(v any, path string)
	walk = func(v any, path string) {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		for k, e := range m {
			p := k
			if path != "" {
				p = path + "." + k
			}
			switch x := e.(type) {
			case map[string]any:
				walk(x, p)
			case []any:
				if len(x) == 0 {
					continue
				}
				b, _ := json.Marshal(x)
				if best == nil || len(b) > best.size {
					k := k
					best = &list{path: p, items: x, size: len(b), set: func(a []any) { m[k] = a }}
				}
			}
		}
	}
	walk(tree, path)
	return best
}

// wildcard reports whether s matches pattern, in which "*" stands for any
// run of characters (possibly empty) and every other character for itself.
// It runs in O(len(s) × stars) time.
func wildcard(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return s == pattern
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return strings.HasSuffix(s, last)
}
