package logs

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/seokit/seokit/seo"
)

// RangeList is one published IP-range file of an operator.
type RangeList struct {
	Name string `json:"name"`
	URL  string `json:"url,omitempty"`
	// Created is the file's own creationTime; zero when it has none.
	Created time.Time `json:"created,omitzero"`
	// Fetched is when the file was read.
	Fetched  time.Time      `json:"fetched"`
	Prefixes []netip.Prefix `json:"-"`
}

// Contains reports whether ip is in one of the list's prefixes.
func (l *RangeList) Contains(ip netip.Addr) bool {
	for _, p := range l.Prefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// RangeSource gives the operators' published IP-range files by name
// (the keys of RangeURLs).
type RangeSource interface {
	Ranges(ctx context.Context, name string) (*RangeList, error)
}

// MaxRangePrefixes caps the prefixes read from one range file, and
// MaxRangeBytes its size.
const (
	MaxRangePrefixes = 100_000
	MaxRangeBytes    = 8 << 20
)

// ParseRanges reads a range file: the JSON object Google documents
// ({"creationTime": "2024-05-13T22:00:54.000000", "prefixes":
// [{"ipv6Prefix": "2001:4860:4801:10::/64"}, {"ipv4Prefix":
// "66.249.64.0/27"}]}, https://developers.google.com/static/search/apis/ipranges/googlebot.json,
// the same shape as https://www.bing.com/toolbox/bingbot.json,
// https://openai.com/gptbot.json and
// https://www.perplexity.com/perplexitybot.json), or plain text with one
// address or CIDR prefix a line ("#" starts a comment).
func ParseRanges(name string, data []byte) (*RangeList, error) {
	l := &RangeList{Name: name}
	trim := strings.TrimSpace(string(data))
	if strings.HasPrefix(trim, "{") {
		var doc struct {
			CreationTime string `json:"creationTime"`
			Prefixes     []struct {
				IPv4 string `json:"ipv4Prefix"`
				IPv6 string `json:"ipv6Prefix"`
			} `json:"prefixes"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("logs: range file %s: %w: %v", name, seo.ErrInvalidInput, err)
		}
		if t, ok := parseTime(doc.CreationTime); ok {
			l.Created = t
		}
		for _, p := range doc.Prefixes {
			s := p.IPv4
			if s == "" {
				s = p.IPv6
			}
			if err := l.add(s); err != nil {
				return nil, err
			}
		}
		return l, nil
	}
	for _, line := range strings.Split(trim, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		if err := l.add(line); err != nil {
			return nil, err
		}
	}
	return l, nil
}

func (l *RangeList) add(s string) error {
	if len(l.Prefixes) >= MaxRangePrefixes {
		return fmt.Errorf("logs: range file %s has more than %d prefixes: %w", l.Name, MaxRangePrefixes, seo.ErrTooLarge)
	}
	s = strings.TrimSpace(s)
	if !strings.Contains(s, "/") {
		a, err := netip.ParseAddr(s)
		if err != nil {
			return fmt.Errorf("logs: range file %s: %q is not a prefix: %w", l.Name, s, seo.ErrInvalidInput)
		}
		l.Prefixes = append(l.Prefixes, netip.PrefixFrom(a, a.BitLen()))
		return nil
	}
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return fmt.Errorf("logs: range file %s: %q is not a prefix: %w", l.Name, s, seo.ErrInvalidInput)
	}
	l.Prefixes = append(l.Prefixes, p.Masked())
	return nil
}

// DirRanges reads range files from a directory: NAME.json or NAME.txt for
// each name. A missing file is an error wrapping seo.ErrNotFound.
type DirRanges string

var _ RangeSource = DirRanges("")

// Ranges implements RangeSource.
func (d DirRanges) Ranges(ctx context.Context, name string) (*RangeList, error) {
	if strings.ContainsAny(name, `/\`) || name == "" || name[0] == '.' {
		return nil, fmt.Errorf("logs: range name %q: %w", name, seo.ErrInvalidInput)
	}
	for _, ext := range []string{".json", ".txt"} {
		p := filepath.Join(string(d), name+ext)
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		if fi.Size() > MaxRangeBytes {
			return nil, fmt.Errorf("logs: range file %s: %w", p, seo.ErrTooLarge)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("logs: range file: %w", err)
		}
		l, err := ParseRanges(name, b)
		if err != nil {
			return nil, err
		}
		l.URL, l.Fetched = RangeURLs[name], fi.ModTime().UTC()
		return l, nil
	}
	return nil, fmt.Errorf("logs: no range file %s in %s: %w", name, string(d), seo.ErrNotFound)
}

// HTTPRangesOptions configures HTTPRanges.
type HTTPRangesOptions struct {
	// URLs overrides RangeURLs, by name (a mirror, a test server).
	URLs map[string]string
	// TTL is how long a fetched file is used; zero means 24 hours, as the
	// operators update their files about daily.
	TTL time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// HTTPRanges fetches the published range files through the safe fetcher
// and caches each with its date for TTL. A failed fetch is cached for a
// minute so that a log full of one bot does not refetch.
type HTTPRanges struct {
	f    *seo.Fetcher
	opts HTTPRangesOptions
	mu   sync.Mutex
	m    map[string]*rangeEntry
}

type rangeEntry struct {
	once sync.Once
	l    *RangeList
	err  error
	at   time.Time
}

var _ RangeSource = (*HTTPRanges)(nil)

// NewHTTPRanges returns a RangeSource fetching with f (nil means a default
// seo.Fetcher, which refuses non-public addresses).
func NewHTTPRanges(f *seo.Fetcher, opts *HTTPRangesOptions) *HTTPRanges {
	if f == nil {
		f = seo.NewFetcher(nil)
	}
	h := &HTTPRanges{f: f, m: map[string]*rangeEntry{}}
	if opts != nil {
		h.opts = *opts
	}
	if h.opts.TTL <= 0 {
		h.opts.TTL = 24 * time.Hour
	}
	if h.opts.Now == nil {
		h.opts.Now = time.Now
	}
	return h
}

// Ranges implements RangeSource.
func (h *HTTPRanges) Ranges(ctx context.Context, name string) (*RangeList, error) {
	u := h.opts.URLs[name]
	if u == "" {
		u = RangeURLs[name]
	}
	if u == "" {
		return nil, fmt.Errorf("logs: unknown range file %q: %w", name, seo.ErrNotFound)
	}
	now := h.opts.Now()
	h.mu.Lock()
	e := h.m[name]
	if e != nil && e.done() {
		ttl := h.opts.TTL
		if e.err != nil {
			ttl = time.Minute
		}
		if now.Sub(e.at) > ttl {
			e = nil
		}
	}
	if e == nil {
		e = &rangeEntry{}
		h.m[name] = e
	}
	h.mu.Unlock()
	e.once.Do(func() {
		l, err := h.fetch(ctx, name, u)
		h.mu.Lock()
		defer h.mu.Unlock()
		e.l, e.err, e.at = l, err, h.opts.Now()
		if ctx.Err() != nil && h.m[name] == e {
			delete(h.m, name) // the caller gave up: not the file's fault
		}
	})
	return e.l, e.err
}

func (e *rangeEntry) done() bool { return !e.at.IsZero() }

func (h *HTTPRanges) fetch(ctx context.Context, name, u string) (*RangeList, error) {
	resp, err := h.f.Fetch(ctx, &seo.Request{URL: u, MaxBodyBytes: MaxRangeBytes})
	if err != nil {
		return nil, fmt.Errorf("logs: range file %s: %w", name, err)
	}
	if resp.Status != 200 {
		return nil, fmt.Errorf("logs: range file %s answered %d: %w", name, resp.Status, seo.ErrUnavailable)
	}
	if resp.Truncated {
		return nil, fmt.Errorf("logs: range file %s: %w", name, seo.ErrTooLarge)
	}
	l, err := ParseRanges(name, resp.Body)
	if err != nil {
		return nil, err
	}
	l.URL, l.Fetched = u, h.opts.Now().UTC()
	return l, nil
}
