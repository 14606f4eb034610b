package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/seokit/seokit/rankings"
)

// ScanPositions calls fn once for each series (keyword, locale and
// device) of f.Domain matching f that has an observation within
// [f.From, f.To]. last is the series' latest observation in that range (fn
// must not keep the pointer); days holds the day numbers (days since
// 1970-01-01 UTC, as rankings.DayNumber) of the series' observations in
// ascending order and positions their positions, 0 where the domain did not
// rank. The two slices belong to fn. Series come ordered by keyword,
// locale and device.
//
// It reads the same rows as ScanHistory but decodes each observation only
// as far as its day and position, as the rows arrive, so that a report
// over a long history does not pay for building every Observation (see
// package reports). A domain with many series is read by ranges of series
// ids on up to four connections at once (GOMAXPROCS permitting).
func (s *Store) ScanPositions(ctx context.Context, f rankings.Filter, fn func(last *rankings.Observation, days []int32, positions []float64) error) error {
	f, err := rankings.NormalizeFilter(f, false)
	if err != nil {
		return err
	}
	var want map[string]bool // keywords asked for, when more than fewSeries
	if f.Keywords != nil {
		want = make(map[string]bool, len(f.Keywords))
		for _, k := range f.Keywords {
			want[k] = true
		}
		if len(want) == 0 {
			return nil
		}
	}
	lo, hi := dayBounds(f)
	// Per-series slices are cut from arenas sized for the range, so that
	// a report allocates a few times rather than twice per series.
	per := 0
	if hi-lo < 400 {
		per = int(hi - lo + 1)
	}

	// A few series (a keyword list) are looked up first and their blocks
	// read by id. Otherwise the domain's blocks in the range are read by
	// ranges of series ids, in parallel on several connections when there
	// are many, and their series named afterwards (from a cache: series
	// rows never change).
	byID := want != nil && len(want) <= fewSeries
	var keys []seriesKey
	var parts []*posPart
	if byID {
		var ids []int64
		keys, ids, err = s.series(ctx, "positions", f)
		if err != nil || len(ids) == 0 {
			return err
		}
		p := newPosPart(per, len(ids))
		for _, id := range ids {
			p.add(id)
		}
		query, args := blockQuery("series_id, bucket, data", f.Domain, ids, true, lo, hi, false)
		if err := s.scanPart(ctx, p, true, query, args, lo, hi, nil); err != nil {
			return err
		}
		parts = []*posPart{p}
	} else {
		var n int
		var minID, maxID sql.NullInt64
		if err := s.db.QueryRowContext(ctx, s.db.Q(`SELECT count(*), MIN(id), MAX(id) FROM rankings_series WHERE domain = ?`), f.Domain).Scan(&n, &minID, &maxID); err != nil {
			return s.fail("positions", err)
		}
		if n == 0 {
			return nil
		}
		if n*per > maxArena {
			per = 0 // sparse or huge: let each series' slices grow
		}
		// Workers read ranges of series ids, each bucket by itself, so
		// that each query is one range of the table key (domain, bucket,
		// series_id); a long or open range is read by one scan.
		bLo, bHi := floorDiv(lo, blockDays), floorDiv(hi, blockDays)
		workers := 1
		if n >= parallelSeries && s.db.Stats().MaxOpenConnections != 1 && bHi-bLo < maxScanBuckets {
			workers = min(runtime.GOMAXPROCS(0), maxScanWorkers)
		}
		span := (maxID.Int64 - minID.Int64 + int64(workers)) / int64(workers)
		parts = make([]*posPart, workers)
		errs := make([]error, workers)
		var wg sync.WaitGroup
		for w := range workers {
			p := newPosPart(per, n/workers+1)
			parts[w] = p
			from, to := minID.Int64+int64(w)*span, minID.Int64+int64(w+1)*span-1
			if w == workers-1 {
				to = math.MaxInt64 // and series added since the count
			}
			if w == 0 {
				from = math.MinInt64
			}
			if workers == 1 {
				query, args := blockQuery("series_id, bucket, data", f.Domain, nil, false, lo, hi, false)
				errs[w] = s.scanPart(ctx, p, false, query, args, lo, hi, nil)
				break
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				for b := bLo; b <= bHi && errs[w] == nil; b++ {
					// One column fewer to read per row: the bucket is b.
					errs[w] = s.scanPart(ctx, p, false, `SELECT series_id, data FROM rankings_blocks
WHERE domain = ? AND bucket = ? AND series_id >= ? AND series_id <= ? AND last_day >= ? AND first_day <= ?`,
						[]any{f.Domain, b, from, to, lo, hi}, lo, hi, &b)
				}
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return err
		}
	}

	// The parts hold disjoint series; name them and order them.
	type ref struct {
		p *posPart
		i int
	}
	var refs []ref
	var named []seriesKey // of refs, when byID
	var allIDs []int64
	for _, p := range parts {
		for i := range p.ids {
			if len(p.days[i]) > 0 {
				refs = append(refs, ref{p, i})
				allIDs = append(allIDs, p.ids[i])
				if byID {
					named = append(named, keys[i]) // slots follow keys
				}
			}
		}
	}
	if byID {
		keys = named
	} else if keys, err = s.seriesKeys(ctx, allIDs); err != nil {
		return err
	}
	order := make([]int, 0, len(refs))
	loc := f.Locale.String()
	for i, k := range keys {
		if k.domain != f.Domain || (loc != "" && k.locale != loc) || (f.Device != "" && k.device != f.Device) || (want != nil && !want[k.keyword]) {
			continue
		}
		order = append(order, i)
	}
	slices.SortFunc(order, func(a, b int) int { return compareSeries(keys[a], keys[b]) })

	locs := localeCache{}
	var o rankings.Observation
	var pos float64
	for _, i := range order {
		r := refs[i]
		d, p := r.p.days[r.i], r.p.positions[r.i]
		if r.p.unsorted && !slices.IsSorted(d) {
			sort.Sort(dayPositions{d, p})
		}
		k := keys[i]
		fillObservation(&o, &r.p.lastEntry[r.i], &pos)
		o.Domain, o.Keyword, o.Locale, o.Device = k.domain, k.keyword, locs.get(k.locale), k.device
		if err := fn(&o, d, p); err != nil {
			return err
		}
	}
	return nil
}

// parallelSeries is the number of series from which ScanPositions reads
// with several connections (a variable for tests).
var parallelSeries = 2000

const (
	// maxScanWorkers bounds the connections one ScanPositions uses.
	maxScanWorkers = 4
	// maxScanBuckets is the longest range, in blocks, read in parallel.
	maxScanBuckets = 16
	// maxArena bounds the days reserved in advance for one scan (12
	// bytes each).
	maxArena = 1 << 23
)

// posPart is what one reader of ScanPositions collects: per series
// (slot), its days, positions and latest entry in range.
type posPart struct {
	per        int // arena room per series
	slot       map[int64]int
	ids        []int64
	days       [][]int32
	positions  [][]float64
	lastBucket []int64
	lastEntry  []entry
	dayArena   []int32
	posArena   []float64
	unsorted   bool // some series' blocks came out of bucket order
	in         interner
}

func newPosPart(per, n int) *posPart {
	p := &posPart{per: per, slot: make(map[int64]int, n), ids: make([]int64, 0, n),
		days: make([][]int32, 0, n), positions: make([][]float64, 0, n),
		lastBucket: make([]int64, 0, n), lastEntry: make([]entry, 0, n), in: interner{}}
	if per > 0 {
		p.dayArena, p.posArena = make([]int32, 0, n*per), make([]float64, 0, n*per)
	}
	return p
}

// add gives series id a slot.
func (p *posPart) add(id int64) int {
	if p.per > 0 && len(p.dayArena)+p.per > cap(p.dayArena) {
		n := p.per * max(len(p.ids), 256)
		p.dayArena, p.posArena = make([]int32, 0, n), make([]float64, 0, n)
	}
	l := len(p.dayArena)
	p.dayArena, p.posArena = p.dayArena[:l+p.per], p.posArena[:l+p.per]
	p.days = append(p.days, p.dayArena[l:l:l+p.per])
	p.positions = append(p.positions, p.posArena[l:l:l+p.per])
	p.lastBucket = append(p.lastBucket, math.MinInt64)
	p.lastEntry = append(p.lastEntry, entry{})
	i := len(p.ids)
	p.slot[id] = i
	p.ids = append(p.ids, id)
	return i
}

// scanPart reads the blocks query selects (series_id, bucket, data; or
// series_id, data when all rows are of one bucket, given) into p. With
// known, rows of series without a slot are skipped; otherwise they get
// one.
func (s *Store) scanPart(ctx context.Context, p *posPart, known bool, query string, args []any, lo, hi int64, oneBucket *int64) error {
	rows, err := s.db.QueryContext(ctx, s.db.Q(query), args...)
	if err != nil {
		return s.fail("positions", err)
	}
	defer rows.Close()
	var it blockIter
	var id, bucket int64
	var raw sql.RawBytes
	dest := []any{&id, &bucket, &raw}
	if oneBucket != nil {
		bucket, dest = *oneBucket, []any{&id, &raw}
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return s.fail("positions", err)
		}
		si, ok := p.slot[id]
		if !ok {
			if known {
				continue
			}
			si = p.add(id)
		}
		if err := it.reset(bucket, raw); err != nil {
			return err
		}
		d, ps := p.days[si], p.positions[si]
		if n := len(d); n > 0 && int64(d[n-1]) >= bucket*blockDays {
			p.unsorted = true
		}
		found := false
		var last rawEntry
		for it.next() {
			e := &it.cur
			if e.day < lo || e.day > hi {
				continue
			}
			d = append(d, int32(e.day))
			pos := 0.0
			if e.hasPos {
				pos = e.pos
			}
			ps = append(ps, pos)
			last, found = *e, true
		}
		if err := it.err(); err != nil {
			return err
		}
		p.days[si], p.positions[si] = d, ps
		if found && bucket > p.lastBucket[si] {
			// Strings only for the block's last entry in range, and only
			// when they differ from the series' previous block's.
			le := &p.lastEntry[si]
			u, src := it.strs[last.url], it.strs[last.src]
			url, source := le.url, le.src
			if string(u) != url {
				url = p.in.get(u)
			}
			if string(src) != source {
				source = p.in.get(src)
			}
			*le = entry{day: last.day, pos: last.pos, hasPos: last.hasPos, avg: last.average, url: url, src: source,
				depth: last.depth, checked: time.Unix(last.sec, last.nsec).UTC()}
			p.lastBucket[si] = bucket
		}
	}
	if err := rows.Err(); err != nil {
		return s.fail("positions", err)
	}
	return nil
}

// maxCachedSeries bounds the series names a Store keeps in memory.
const maxCachedSeries = 1 << 20

// seriesKeys names the series of ids, from the cache or the database.
func (s *Store) seriesKeys(ctx context.Context, ids []int64) ([]seriesKey, error) {
	keys := make([]seriesKey, len(ids))
	var missing []int
	s.cacheMu.RLock()
	for i, id := range ids {
		k, ok := s.seriesCache[id]
		if !ok {
			missing = append(missing, i)
		}
		keys[i] = k
	}
	s.cacheMu.RUnlock()
	const chunk = 500
	for c := 0; c < len(missing); c += chunk {
		part := missing[c:min(c+chunk, len(missing))]
		args := make([]any, len(part))
		at := make(map[int64][]int, len(part))
		for j, i := range part {
			args[j] = ids[i]
			at[ids[i]] = append(at[ids[i]], i)
		}
		err := func() error {
			rows, err := s.db.QueryContext(ctx, s.db.Q(`SELECT id, domain, keyword, locale, device FROM rankings_series WHERE id IN (?`+strings.Repeat(", ?", len(part)-1)+`)`), args...)
			if err != nil {
				return s.fail("positions", err)
			}
			defer rows.Close()
			s.cacheMu.Lock()
			defer s.cacheMu.Unlock()
			if s.seriesCache == nil {
				s.seriesCache = map[int64]seriesKey{}
			}
			for rows.Next() {
				var id int64
				var k seriesKey
				var dev string
				if err := rows.Scan(&id, &k.domain, &k.keyword, &k.locale, &dev); err != nil {
					return s.fail("positions", err)
				}
				k.device = rankings.Device(dev)
				for _, i := range at[id] {
					keys[i] = k
				}
				if len(s.seriesCache) < maxCachedSeries {
					s.seriesCache[id] = k
				}
			}
			if err := rows.Err(); err != nil {
				return s.fail("positions", err)
			}
			return nil
		}()
		if err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// dayPositions sorts parallel day and position slices by day.
type dayPositions struct {
	d []int32
	p []float64
}

func (x dayPositions) Len() int           { return len(x.d) }
func (x dayPositions) Less(i, j int) bool { return x.d[i] < x.d[j] }
func (x dayPositions) Swap(i, j int) {
	x.d[i], x.d[j] = x.d[j], x.d[i]
	x.p[i], x.p[j] = x.p[j], x.p[i]
}

// blockQuery returns the query reading cols of the blocks of the given series of domain that may hold observations in
// [lo, hi] (day numbers); with latestOnly, only each series' last block.
// With byID the series are looked up by id (for a few series); otherwise
// the query reads the domain's range of the table key (one sequential
// scan) and the caller filters.
func blockQuery(cols, domain string, ids []int64, byID bool, lo, hi int64, latestOnly bool) (string, []any) {
	query := `SELECT ` + cols + ` FROM rankings_blocks b WHERE domain = ?`
	args := []any{domain}
	if byID {
		query += ` AND series_id IN (?` + strings.Repeat(", ?", len(ids)-1) + `)`
		for _, id := range ids {
			args = append(args, id)
		}
	}
	if latestOnly {
		query += ` AND bucket = (SELECT MAX(m.bucket) FROM rankings_blocks m WHERE m.series_id = b.series_id)`
	} else {
		query += ` AND bucket >= ? AND bucket <= ? AND last_day >= ? AND first_day <= ?`
		args = append(args, floorDiv(lo, blockDays), floorDiv(hi, blockDays), lo, hi)
	}
	return query, args
}
