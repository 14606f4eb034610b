package redisfrontier

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/seo"
)

// record is how a page summary and its edges are stored: JSON, with the
// fingerprints the summary's own encoding leaves out, and edges whose From
// is the page itself stored without it and their targets on the page's
// origin stored as a path.
type record struct {
	S crawler.PageSummary `json:"s"`
	T uint64              `json:"t,omitempty"`
	H uint64              `json:"h,omitempty"`
	// V is the fingerprint's version (analyzer.FingerprintVersion); a
	// record written before it was stored has none and reads as 1.
	V int          `json:"v,omitempty"`
	E []edgeRecord `json:"e,omitempty"`
}

type edgeRecord struct {
	To       string `json:"t"`
	From     string `json:"f,omitempty"`
	Nofollow bool   `json:"n,omitempty"`
	External bool   `json:"x,omitempty"`
	Target   string `json:"k,omitempty"`
}

// origin returns "scheme://host" of u, or "" when u has none.
func origin(u string) string {
	p, err := seo.ParseHref(u)
	if err != nil || p.Scheme == "" || p.Host == "" {
		return ""
	}
	return p.Scheme + "://" + p.Host
}

func encodeRecord(sum crawler.PageSummary, edges []crawler.Edge) ([]byte, error) {
	r := record{S: sum, T: sum.TextHash, H: sum.SimHash, V: sum.FingerprintVersion, E: make([]edgeRecord, len(edges))}
	if r.V == 0 {
		r.V = analyzer.FingerprintVersion
	}
	o := origin(sum.URL)
	for i, e := range edges {
		er := edgeRecord{To: e.To, Nofollow: e.Nofollow, External: e.External, Target: e.Target}
		if e.From != sum.URL {
			er.From = e.From
			if er.From == "" {
				er.From = "-"
			}
		}
		if o != "" && !e.External && strings.HasPrefix(e.To, o+"/") {
			er.To = e.To[len(o):]
		}
		r.E[i] = er
	}
	return json.Marshal(&r)
}

func decodeRecord(b []byte) (crawler.PageSummary, []crawler.Edge, error) {
	var r record
	if err := json.Unmarshal(b, &r); err != nil {
		return crawler.PageSummary{}, nil, fmt.Errorf("redisfrontier: decode summary: %w", err)
	}
	r.S.TextHash, r.S.SimHash, r.S.FingerprintVersion = r.T, r.H, r.V
	if r.V == 0 {
		r.S.FingerprintVersion = 1
	}
	o := origin(r.S.URL)
	edges := make([]crawler.Edge, len(r.E))
	for i, er := range r.E {
		e := crawler.Edge{From: r.S.URL, To: er.To, Nofollow: er.Nofollow, External: er.External, Target: er.Target}
		switch er.From {
		case "":
		case "-":
			e.From = ""
		default:
			e.From = er.From
		}
		if !er.External && strings.HasPrefix(er.To, "/") {
			e.To = o + er.To
		}
		edges[i] = e
	}
	return r.S, edges, nil
}

// PutSummary stores a finished page's summary and edges, shared by every
// worker of the crawl. Only the first summary of a URL is kept: a page
// fetched again after its worker's lease lapsed is not reported twice.
func (f *Frontier) PutSummary(ctx context.Context, sum crawler.PageSummary, edges []crawler.Edge) error {
	if err := f.check(ctx); err != nil {
		return err
	}
	b, err := encodeRecord(sum, edges)
	if err != nil {
		return fmt.Errorf("redisfrontier: encode summary: %w", err)
	}
	var one crawler.SummaryCounts
	one.CountSummary(sum)
	if err := putSummaryScript.Run(ctx, f.rdb, []string{f.kSummed, f.kSums, f.kCounts}, urlHash(sum.URL), b,
		one.Fetched, one.Errors, one.Blocked).Err(); err != nil {
		return fmt.Errorf("redisfrontier: put summary: %w", err)
	}
	return nil
}

// putSummaryScript appends a summary unless one for the same URL hash was
// stored already, and adds it to the counts (ARGV[3:5]: fetched, errors,
// blocked).
var putSummaryScript = redis.NewScript(`
if redis.call('SADD', KEYS[1], ARGV[1]) == 1 then
  redis.call('RPUSH', KEYS[2], ARGV[2])
  redis.call('HINCRBY', KEYS[3], 'fetched', ARGV[3])
  redis.call('HINCRBY', KEYS[3], 'errors', ARGV[4])
  redis.call('HINCRBY', KEYS[3], 'blocked', ARGV[5])
end
return 0
`)

// SummaryCounts counts the summaries stored by every worker of the crawl,
// in one read.
func (f *Frontier) SummaryCounts(ctx context.Context) (crawler.SummaryCounts, error) {
	if err := f.check(ctx); err != nil {
		return crawler.SummaryCounts{}, err
	}
	v, err := f.rdb.HMGet(ctx, f.kCounts, "fetched", "errors", "blocked").Result()
	if err != nil {
		return crawler.SummaryCounts{}, fmt.Errorf("redisfrontier: summary counts: %w", err)
	}
	n := make([]int, len(v))
	for i, x := range v {
		if s, ok := x.(string); ok {
			n[i], _ = strconv.Atoi(s)
		}
	}
	return crawler.SummaryCounts{Fetched: n[0], Errors: n[1], Blocked: n[2]}, nil
}

// Summaries calls fn for every stored summary, of every worker, in the
// order stored, reading summaryPage at a time; it stops at fn's first
// error and returns it.
func (f *Frontier) Summaries(ctx context.Context, fn func(crawler.PageSummary, []crawler.Edge) error) error {
	for start := int64(0); ; start += summaryPage {
		if err := f.check(ctx); err != nil {
			return err
		}
		page, err := f.rdb.LRange(ctx, f.kSums, start, start+summaryPage-1).Result()
		if err != nil {
			return fmt.Errorf("redisfrontier: summaries: %w", err)
		}
		for _, b := range page {
			sum, edges, err := decodeRecord([]byte(b))
			if err != nil {
				return err
			}
			if err := fn(sum, edges); err != nil {
				return err
			}
		}
		if len(page) < summaryPage {
			return nil
		}
	}
}
