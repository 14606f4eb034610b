package redisfrontier

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/seokit/seokit/crawler"
)

var _ crawler.SharedTargets = (*Frontier)(nil)

// maxOverSet bounds the URL hashes kept to count the targets refused over
// the cap distinctly; past it each refusal is counted, repeats included.
const maxOverSet = 1 << 16

// ClaimTargets claims the target keys for the calling worker, in one
// atomic step: a key claimed by any worker before is TargetTaken, a new
// one TargetClaimed while fewer than max are claimed, else TargetOverCap.
// What was claimed is kept by URL hash, so the store grows with max, not
// with the site.
func (f *Frontier) ClaimTargets(ctx context.Context, keys []string, max int) ([]crawler.TargetClaim, error) {
	if err := f.check(ctx); err != nil {
		return nil, err
	}
	if len(keys) == 0 {
		return nil, nil
	}
	args := make([]any, 0, len(keys)+2)
	args = append(args, max, maxOverSet)
	for _, k := range keys {
		args = append(args, urlHash(k))
	}
	v, err := claimTargetsScript.Run(ctx, f.rdb, []string{f.kTargets, f.kTargetsOver, f.kTargetsOverN}, args...).Int64Slice()
	if err != nil {
		return nil, fmt.Errorf("redisfrontier: claim targets: %w", err)
	}
	if len(v) != len(keys) {
		return nil, fmt.Errorf("redisfrontier: claim targets: %d answers for %d keys", len(v), len(keys))
	}
	out := make([]crawler.TargetClaim, len(v))
	for i, x := range v {
		out[i] = crawler.TargetClaim(x)
	}
	return out, nil
}

// claimTargetsScript: KEYS claimed set, over set, over counter; ARGV max
// claimed, max over set, then the URL hashes. It answers 0 (taken), 1
// (claimed) or 2 (over the cap) for each.
var claimTargetsScript = redis.NewScript(`
local max, maxOver = tonumber(ARGV[1]), tonumber(ARGV[2])
local n = redis.call('SCARD', KEYS[1])
local out = {}
for i = 3, #ARGV do
  local h = ARGV[i]
  if redis.call('SISMEMBER', KEYS[1], h) == 1 then
    out[#out+1] = 0
  elseif n < max then
    redis.call('SADD', KEYS[1], h)
    n = n + 1
    out[#out+1] = 1
  else
    if redis.call('SISMEMBER', KEYS[2], h) == 0 then
      if redis.call('SCARD', KEYS[2]) < maxOver then
        redis.call('SADD', KEYS[2], h)
      else
        redis.call('INCR', KEYS[3])
      end
    end
    out[#out+1] = 2
  end
end
return out
`)

// PutTargetResult stores what a claimed target answered.
func (f *Frontier) PutTargetResult(ctx context.Context, key string, r crawler.TargetResult) error {
	if err := f.check(ctx); err != nil {
		return err
	}
	b, err := json.Marshal(&r)
	if err != nil {
		return fmt.Errorf("redisfrontier: encode target result: %w", err)
	}
	if err := f.rdb.HSet(ctx, f.kTargetRes, key, b).Err(); err != nil {
		return fmt.Errorf("redisfrontier: put target result: %w", err)
	}
	return nil
}

// TargetResults calls fn for every stored answer, reading them in pages,
// and returns the counts of targets claimed and refused over the cap; it
// stops at fn's first error and returns it.
func (f *Frontier) TargetResults(ctx context.Context, fn func(key string, r crawler.TargetResult) error) (crawler.TargetCounts, error) {
	var c crawler.TargetCounts
	if err := f.check(ctx); err != nil {
		return c, err
	}
	pipe := f.rdb.Pipeline()
	claimed := pipe.SCard(ctx, f.kTargets)
	over := pipe.SCard(ctx, f.kTargetsOver)
	overN := pipe.Get(ctx, f.kTargetsOverN)
	if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
		return c, fmt.Errorf("redisfrontier: target counts: %w", err)
	}
	extra, _ := strconv.Atoi(overN.Val())
	c.Claimed, c.Over = int(claimed.Val()), int(over.Val())+extra
	var cursor uint64
	for {
		if err := f.check(ctx); err != nil {
			return c, err
		}
		kv, next, err := f.rdb.HScan(ctx, f.kTargetRes, cursor, "", summaryPage).Result()
		if err != nil {
			return c, fmt.Errorf("redisfrontier: target results: %w", err)
		}
		for i := 0; i+1 < len(kv); i += 2 {
			var r crawler.TargetResult
			if err := json.Unmarshal([]byte(kv[i+1]), &r); err != nil {
				return c, fmt.Errorf("redisfrontier: decode target result: %w", err)
			}
			if err := fn(kv[i], r); err != nil {
				return c, err
			}
		}
		if next == 0 {
			return c, nil
		}
		cursor = next
	}
}
