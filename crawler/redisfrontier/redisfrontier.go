package redisfrontier

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/seo"
)

var (
	_ crawler.Frontier       = (*Frontier)(nil)
	_ crawler.SummaryStore   = (*Frontier)(nil)
	_ crawler.SharedFrontier = (*Frontier)(nil)
	_ crawler.SummaryCounter = (*Frontier)(nil)
)

// Sizes and limits.
const (
	// HashBytes is the length of the URL hashes kept in the seen-set: the
	// first 12 bytes (96 bits) of the URL's SHA-256.
	HashBytes = 12
	// DefaultLease is how long a popped item stays with its worker when the
	// worker stops renewing it.
	DefaultLease = 60 * time.Second
	// MaxCrawlIDLength caps the crawl ID.
	MaxCrawlIDLength = 128
	// MaxURLLength caps an item's URL, in bytes.
	MaxURLLength = 64 << 10
	// pushChunk is the most items one Push script handles, so a large
	// batch does not hold the server for long.
	pushChunk = 1000
	// summaryPage is how many summaries Summaries reads at once.
	summaryPage = 500
	ownerBytes  = 8
)

// Options configure a Frontier. The zero value is ready to use.
type Options struct {
	// Lease is how long an item popped by this worker stays leased to it
	// without renewal; the frontier renews its leases every Lease/3 while
	// it is open, so only a worker that died or lost Redis loses them.
	// Zero means DefaultLease; less than 100 ms is raised to 100 ms.
	Lease time.Duration
}

// Frontier is a crawler.SharedFrontier kept in Redis under one crawl ID.
// It is safe for concurrent use; several processes may open the same crawl
// ID at once, each with its own Frontier.
type Frontier struct {
	rdb   redis.UniversalClient
	id    string
	owner string // random, ownerBytes long
	lease time.Duration

	kSeen, kDepths, kInflight, kLeases, kQueued, kPages, kSums, kSummed, kCounts, qPrefix string
	// The in-scope targets claimed (URL hashes), refused over the cap
	// (hashes, then a counter) and their answers (crawler.SharedTargets).
	kTargets, kTargetsOver, kTargetsOverN, kTargetRes string

	mu     sync.Mutex
	leased map[string]struct{} // URL hashes popped and not yet Done
	closed bool
	stop   chan struct{}
	done   chan struct{}
}

var errClosed = errors.New("redisfrontier: frontier is closed")

// New opens the crawl crawlID in the Redis server behind rdb, creating it
// when it does not exist. Every worker of one crawl opens the same ID.
// The client stays the caller's: Close does not close it. opts may be nil.
func New(rdb redis.UniversalClient, crawlID string, opts *Options) (*Frontier, error) {
	if rdb == nil {
		return nil, &seo.InputError{Field: "client", Reason: "is nil"}
	}
	if err := validateID(crawlID); err != nil {
		return nil, err
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Lease == 0 {
		o.Lease = DefaultLease
	}
	o.Lease = max(o.Lease, 100*time.Millisecond)
	owner := make([]byte, ownerBytes)
	rand.Read(owner)
	p := keyPrefix(crawlID)
	f := &Frontier{
		rdb: rdb, id: crawlID, owner: string(owner), lease: o.Lease,
		kSeen: p + "seen", kDepths: p + "depths", kInflight: p + "inflight", kLeases: p + "leases",
		kQueued: p + "queued", kPages: p + "pages", kSums: p + "summaries", kSummed: p + "summarized", kCounts: p + "counts", qPrefix: p + "q:",
		kTargets: p + "targets", kTargetsOver: p + "targets:over", kTargetsOverN: p + "targets:overn", kTargetRes: p + "targets:results",
		leased: map[string]struct{}{}, stop: make(chan struct{}), done: make(chan struct{}),
	}
	go f.renewLoop()
	return f, nil
}

// keyPrefix returns the prefix of a crawl's keys. The crawl ID is a hash
// tag, so a Redis Cluster keeps all of a crawl's keys in one slot, as the
// scripts need.
func keyPrefix(crawlID string) string { return "seokit:crawl:{" + crawlID + "}:" }

func validateID(id string) error {
	switch {
	case id == "":
		return &seo.InputError{Field: "crawlID", Reason: "is empty"}
	case len(id) > MaxCrawlIDLength:
		return &seo.InputError{Field: "crawlID", Value: id, Reason: fmt.Sprintf("is longer than %d bytes", MaxCrawlIDLength)}
	case strings.ContainsAny(id, "{}*?[]\\ \t\r\n"):
		return &seo.InputError{Field: "crawlID", Value: id, Reason: "may not contain braces, glob characters or white space"}
	}
	return nil
}

// CrawlID returns the crawl's ID.
func (f *Frontier) CrawlID() string { return f.id }

// urlHash is the seen-set key of a URL.
func urlHash(u string) string {
	h := sha256.Sum256([]byte(u))
	return string(h[:HashBytes])
}

// entry is how an item sits in a queue: its URL hash, then a JSON array.
func encodeEntry(it crawler.Item) (string, error) {
	b, err := json.Marshal([]any{it.URL, it.Depth, it.Source, it.Referrer})
	if err != nil {
		return "", err
	}
	return urlHash(it.URL) + string(b), nil
}

func decodeEntry(e string) (crawler.Item, error) {
	if len(e) < HashBytes {
		return crawler.Item{}, fmt.Errorf("redisfrontier: malformed queue entry of %d bytes", len(e))
	}
	var a []json.RawMessage
	var it crawler.Item
	if err := json.Unmarshal([]byte(e[HashBytes:]), &a); err != nil || len(a) != 4 {
		return it, fmt.Errorf("redisfrontier: malformed queue entry: %v", err)
	}
	if err := errors.Join(json.Unmarshal(a[0], &it.URL), json.Unmarshal(a[1], &it.Depth),
		json.Unmarshal(a[2], &it.Source), json.Unmarshal(a[3], &it.Referrer)); err != nil {
		return it, fmt.Errorf("redisfrontier: malformed queue entry: %w", err)
	}
	return it, nil
}

func (f *Frontier) check(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return errClosed
	}
	return nil
}

// pushScript adds each (depth, entry) pair whose URL hash is new to the
// seen-set to the end of its depth's queue.
var pushScript = redis.NewScript(`
local added = 0
for i = 2, #ARGV, 2 do
  local e = ARGV[i + 1]
  if redis.call('SADD', KEYS[1], string.sub(e, 1, 12)) == 1 then
    redis.call('RPUSH', ARGV[1] .. ARGV[i], e)
    redis.call('ZADD', KEYS[2], tonumber(ARGV[i]), ARGV[i])
    added = added + 1
  end
end
if added > 0 then redis.call('INCRBY', KEYS[3], added) end
return added
`)

// Push adds the items whose URL was never pushed before, by any worker.
// An item with an empty URL, or one longer than MaxURLLength, is refused
// with a *seo.InputError and nothing of that call is added.
func (f *Frontier) Push(ctx context.Context, items []crawler.Item) (int, error) {
	if err := f.check(ctx); err != nil {
		return 0, err
	}
	args := make([]any, 0, 1+2*min(len(items), pushChunk))
	for i, it := range items {
		if it.URL == "" || len(it.URL) > MaxURLLength {
			return 0, &seo.InputError{Field: fmt.Sprintf("items[%d].url", i), Value: it.URL, Reason: fmt.Sprintf("must be 1 to %d bytes", MaxURLLength)}
		}
	}
	added := 0
	for len(items) > 0 {
		n := min(len(items), pushChunk)
		args = append(args[:0], f.qPrefix)
		for _, it := range items[:n] {
			e, err := encodeEntry(it)
			if err != nil {
				return added, fmt.Errorf("redisfrontier: push: %w", err)
			}
			args = append(args, strconv.Itoa(max(it.Depth, -1)), e)
		}
		k, err := pushScript.Run(ctx, f.rdb, []string{f.kSeen, f.kDepths, f.kQueued}, args...).Int()
		if err != nil {
			return added, fmt.Errorf("redisfrontier: push: %w", err)
		}
		added += k
		items = items[n:]
	}
	return added, nil
}

// requeueLua moves the lease members listed in the Lua table ms back to the
// front of their depth's queue (KEYS: depths, inflight, leases, queued;
// ARGV[1]: queue prefix).
const requeueLua = `
local function requeue(ms)
  local n = 0
  for _, m in ipairs(ms) do
    if redis.call('ZREM', KEYS[3], m) == 1 then
      local h = string.sub(m, 9)
      local v = redis.call('HGET', KEYS[2], h)
      if v then
        redis.call('HDEL', KEYS[2], h)
        local c = string.find(v, ':', 1, true)
        local d = string.sub(v, 1, c - 1)
        redis.call('LPUSH', ARGV[1] .. d, string.sub(v, c + 1))
        redis.call('ZADD', KEYS[1], tonumber(d), d)
        n = n + 1
      end
    end
  end
  if n > 0 then redis.call('INCRBY', KEYS[4], n) end
  return n
end
local function nowms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`

// popScript first queues again the items whose lease ran out, then takes
// up to ARGV[2] items, lowest depth first, leasing each to ARGV[3] for
// ARGV[4] ms. With a page cap ARGV[5] of 0 or more, it takes no more than
// the cap minus the pages counted in KEYS[5], and counts what it takes.
var popScript = redis.NewScript(requeueLua + `
local now = nowms()
requeue(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, 1000))
local out = {}
local need = tonumber(ARGV[2])
local limit = tonumber(ARGV[5])
if limit >= 0 then
  need = math.min(need, limit - tonumber(redis.call('GET', KEYS[5]) or '0'))
end
local deadline = now + tonumber(ARGV[4])
while need > 0 do
  local lv = redis.call('ZRANGE', KEYS[1], 0, 0)
  if #lv == 0 then break end
  local qk = ARGV[1] .. lv[1]
  local got = redis.call('LPOP', qk, need)
  if got then
    for _, e in ipairs(got) do
      local h = string.sub(e, 1, 12)
      redis.call('HSET', KEYS[2], h, lv[1] .. ':' .. e)
      redis.call('ZADD', KEYS[3], deadline, ARGV[3] .. h)
      out[#out + 1] = e
      need = need - 1
    end
  end
  if redis.call('LLEN', qk) == 0 then redis.call('ZREM', KEYS[1], lv[1]) end
end
if #out > 0 then
  redis.call('DECRBY', KEYS[4], #out)
  if limit >= 0 then redis.call('INCRBY', KEYS[5], #out) end
end
return out
`)

// Pop takes up to n queued items, lowest depth first and in push order
// within a depth, and leases them to this worker until Done. Items whose
// lease ran out (their worker died) are queued again first, at the front
// of their depth.
func (f *Frontier) Pop(ctx context.Context, n int) ([]crawler.Item, error) {
	return f.pop(ctx, n, -1)
}

// PopPages is Pop under the crawl's global page cap: it takes at most
// limit minus the pages counted so far, and counts the items it takes as
// pages, in one atomic step.
func (f *Frontier) PopPages(ctx context.Context, n, limit int) ([]crawler.Item, error) {
	return f.pop(ctx, n, max(limit, 0))
}

// pop is Pop, under the page cap limit unless limit is negative.
func (f *Frontier) pop(ctx context.Context, n, limit int) ([]crawler.Item, error) {
	if err := f.check(ctx); err != nil {
		return nil, err
	}
	if n <= 0 {
		return []crawler.Item{}, nil
	}
	res, err := popScript.Run(ctx, f.rdb, []string{f.kDepths, f.kInflight, f.kLeases, f.kQueued, f.kPages},
		f.qPrefix, n, f.owner, f.lease.Milliseconds(), limit).StringSlice()
	if err != nil {
		return nil, fmt.Errorf("redisfrontier: pop: %w", err)
	}
	out := make([]crawler.Item, 0, len(res))
	var bad error
	f.mu.Lock()
	for _, e := range res {
		it, err := decodeEntry(e)
		if err != nil {
			bad = err
			continue
		}
		out = append(out, it)
		if f.leased != nil { // nil once closed: the lease then lapses
			f.leased[e[:HashBytes]] = struct{}{}
		}
	}
	f.mu.Unlock()
	if bad != nil {
		// An entry this version cannot read (written by something else) is
		// dropped, so it cannot keep the crawl pending for ever.
		for _, e := range res {
			if _, err := decodeEntry(e); err != nil && len(e) >= HashBytes {
				doneScript.Run(ctx, f.rdb, []string{f.kLeases, f.kInflight}, f.owner+e[:HashBytes], e[:HashBytes])
			}
		}
		if len(out) == 0 {
			return nil, bad
		}
	}
	return out, nil
}

// doneScript ends this worker's lease of a URL.
var doneScript = redis.NewScript(`
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then redis.call('HDEL', KEYS[2], ARGV[2]) end
return 0
`)

// Done ends the lease of a URL this worker popped; the URL stays seen. An
// unknown URL, or one leased to another worker, is left alone.
func (f *Frontier) Done(ctx context.Context, url string) error {
	if err := f.check(ctx); err != nil {
		return err
	}
	h := urlHash(url)
	if err := doneScript.Run(ctx, f.rdb, []string{f.kLeases, f.kInflight}, f.owner+h, h).Err(); err != nil {
		return fmt.Errorf("redisfrontier: done: %w", err)
	}
	f.mu.Lock()
	delete(f.leased, h)
	f.mu.Unlock()
	return nil
}

// Len counts the items queued, by every worker (leased ones not included).
func (f *Frontier) Len(ctx context.Context) (int, error) {
	if err := f.check(ctx); err != nil {
		return 0, err
	}
	n, err := f.rdb.Get(ctx, f.kQueued).Int()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("redisfrontier: len: %w", err)
	}
	return n, nil
}

var pendingScript = redis.NewScript(`
return {tonumber(redis.call('GET', KEYS[1]) or '0'), redis.call('HLEN', KEYS[2])}
`)

// Pending returns the items queued and the items leased to any worker, in
// one atomic read. A lease that ran out still counts until a Pop queues
// its item again.
func (f *Frontier) Pending(ctx context.Context) (queued, inFlight int, err error) {
	if err := f.check(ctx); err != nil {
		return 0, 0, err
	}
	v, err := pendingScript.Run(ctx, f.rdb, []string{f.kQueued, f.kInflight}).Int64Slice()
	if err != nil {
		return 0, 0, fmt.Errorf("redisfrontier: pending: %w", err)
	}
	if len(v) != 2 {
		return 0, 0, fmt.Errorf("redisfrontier: pending: unexpected answer %v", v)
	}
	return int(v[0]), int(v[1]), nil
}

// returnScript lowers the page count by ARGV[1], not below zero.
var returnScript = redis.NewScript(`
local n = redis.call('DECRBY', KEYS[1], ARGV[1])
if n < 0 then redis.call('SET', KEYS[1], 0) end
return 0
`)

// ReturnPages gives back n pages counted by PopPages whose items were not
// fetched as pages.
func (f *Frontier) ReturnPages(ctx context.Context, n int) error {
	if err := f.check(ctx); err != nil {
		return err
	}
	if n <= 0 {
		return nil
	}
	if err := returnScript.Run(ctx, f.rdb, []string{f.kPages}, n).Err(); err != nil {
		return fmt.Errorf("redisfrontier: return pages: %w", err)
	}
	return nil
}

// PagesCounted returns the pages counted by PopPages (less those
// returned) and the items leased to any worker, in one atomic read.
func (f *Frontier) PagesCounted(ctx context.Context) (pages, inFlight int, err error) {
	if err := f.check(ctx); err != nil {
		return 0, 0, err
	}
	v, err := pendingScript.Run(ctx, f.rdb, []string{f.kPages, f.kInflight}).Int64Slice()
	if err != nil {
		return 0, 0, fmt.Errorf("redisfrontier: pages counted: %w", err)
	}
	if len(v) != 2 {
		return 0, 0, fmt.Errorf("redisfrontier: pages counted: unexpected answer %v", v)
	}
	return int(v[0]), int(v[1]), nil
}

// renewScript extends the leases listed in ARGV[2:] that still exist.
var renewScript = redis.NewScript(requeueLua + `
local deadline = nowms() + tonumber(ARGV[1])
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], 'XX', deadline, ARGV[i]) end
return 0
`)

func (f *Frontier) renewLoop() {
	defer close(f.done)
	t := time.NewTicker(f.lease / 3)
	defer t.Stop()
	for {
		select {
		case <-f.stop:
			return
		case <-t.C:
		}
		f.mu.Lock()
		args := make([]any, 0, 1+len(f.leased))
		args = append(args, f.lease.Milliseconds())
		for h := range f.leased {
			args = append(args, f.owner+h)
		}
		f.mu.Unlock()
		if len(args) == 1 {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), f.lease/3)
		// A failed renewal is retried at the next tick; if Redis stays
		// unreachable the leases lapse and other workers take the items.
		renewScript.Run(ctx, f.rdb, []string{f.kLeases}, args...)
		cancel()
	}
}

// releaseScript queues again the listed leases of this worker at once.
var releaseScript = redis.NewScript(requeueLua + `
local ms = {}
for i = 2, #ARGV do ms[#ms + 1] = ARGV[i] end
return requeue(ms)
`)

// Close stops renewing this worker's leases and queues its popped but not
// Done items again at once, for the other workers. The crawl's data stay
// in Redis (see Delete); the client stays open.
func (f *Frontier) Close() error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil
	}
	f.closed = true
	args := []any{f.qPrefix}
	for h := range f.leased {
		args = append(args, f.owner+h)
	}
	f.leased = nil
	f.mu.Unlock()
	close(f.stop)
	<-f.done
	if len(args) == 1 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := releaseScript.Run(ctx, f.rdb, []string{f.kDepths, f.kInflight, f.kLeases, f.kQueued}, args...).Err(); err != nil {
		return fmt.Errorf("redisfrontier: close: release leases (they lapse after %v): %w", f.lease, err)
	}
	return nil
}

// Delete removes every key of the crawl from Redis: queue, seen-set,
// leases and summaries. Workers still using the crawl see it empty.
func (f *Frontier) Delete(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return deletePrefix(ctx, f.rdb, keyPrefix(f.id))
}

func deletePrefix(ctx context.Context, rdb redis.UniversalClient, prefix string) error {
	var cursor uint64
	for {
		keys, next, err := rdb.Scan(ctx, cursor, prefix+"*", 1000).Result()
		if err != nil {
			return fmt.Errorf("redisfrontier: delete: %w", err)
		}
		if len(keys) > 0 {
			if err := rdb.Unlink(ctx, keys...).Err(); err != nil {
				return fmt.Errorf("redisfrontier: delete: %w", err)
			}
		}
		if next == 0 {
			return nil
		}
		cursor = next
	}
}
