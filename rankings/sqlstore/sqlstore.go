package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/seokit/seokit/internal/sqldb"
	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/seo"
)

var (
	_ rankings.Store          = (*Store)(nil)
	_ rankings.HistoryScanner = (*Store)(nil)
	_ rankings.FailureStore   = (*Store)(nil)
)

// Dialect is the SQL database behind a Store.
type Dialect = sqldb.Dialect

// Dialects.
const (
	SQLite   = sqldb.SQLite
	Postgres = sqldb.Postgres
)

// Options configures a Store. The zero value is ready to use.
type Options struct {
	// BusyTimeout is how long an SQLite statement waits for a lock held by
	// another connection or process; zero means 5 seconds.
	BusyTimeout time.Duration
	// Synchronous is SQLite's synchronous pragma; "" means NORMAL (durable
	// across a process crash with WAL, not across power loss).
	Synchronous string
	// Now is the clock used for Tracked.AddedAt; nil means time.Now.
	Now func() time.Time
}

// Store is a rankings.Store in SQLite or PostgreSQL. It is safe for
// concurrent use.
type Store struct {
	db    *sqldb.DB
	owned bool
	now   func() time.Time

	// seriesCache names series by id for ScanPositions; rankings_series
	// rows are never updated or deleted, so entries stay true.
	cacheMu     sync.RWMutex
	seriesCache map[int64]seriesKey
}

// Open opens the store at dsn, creating or migrating its tables:
// "postgres://..." or "postgresql://..." is a PostgreSQL database (through
// pgx); "" or ":memory:" is a private in-memory SQLite database; anything
// else is an SQLite file path or "file:" URI. opts may be nil.
func Open(ctx context.Context, dsn string, opts *Options) (*Store, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	db, err := sqldb.Open(dsn, &sqldb.Options{BusyTimeout: o.BusyTimeout, Synchronous: o.Synchronous})
	if err != nil {
		return nil, err
	}
	s, err := newStore(ctx, db, &o)
	if err != nil {
		db.Close()
		return nil, err
	}
	s.owned = true
	return s, nil
}

// NewFromDB returns a Store over db, an SQLite ("sqlite" driver,
// modernc.org/sqlite) or PostgreSQL ("pgx" driver) database shared with
// other stores, creating or migrating its tables (all named rankings_*).
// For SQLite, open db with "_txlock=immediate" so that concurrent writers
// wait for each other instead of failing. Close does not close db.
func NewFromDB(ctx context.Context, db *sql.DB, dialect Dialect, opts *Options) (*Store, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if _, err := sqldb.ParseDialect(string(dialect)); err != nil {
		return nil, err
	}
	return newStore(ctx, sqldb.New(db, dialect), &o)
}

func newStore(ctx context.Context, db *sqldb.DB, o *Options) (*Store, error) {
	s := &Store{db: db, now: o.Now}
	if s.now == nil {
		s.now = time.Now
	}
	if err := db.Migrate(ctx, schema); err != nil {
		return nil, s.fail("open", err)
	}
	return s, nil
}

// Close closes the database when the Store opened it.
func (s *Store) Close() error {
	if !s.owned {
		return nil
	}
	return s.db.Close()
}

// DB returns the underlying database.
func (s *Store) DB() *sql.DB { return s.db.DB }

// Dialect returns the database kind.
func (s *Store) Dialect() Dialect { return s.db.Dialect }

// migrations are applied in order, each once, recorded in
// rankings_schema_migrations (see sqldb.Schema for the types in braces).
// SQLite's WITHOUT ROWID ({{without_rowid}}) stores the blocks in primary
// key order so that a date range of a domain is read sequentially.
var migrations = [][]string{
	1: {
		`CREATE TABLE rankings_tracked (
	domain   TEXT NOT NULL,
	keyword  TEXT NOT NULL,
	locale   TEXT NOT NULL,
	device   TEXT NOT NULL,
	added_us BIGINT NOT NULL,
	PRIMARY KEY (domain, keyword, locale, device)
)`,
		// One row per domain, keyword, locale and device.
		`CREATE TABLE rankings_series (
	id      {{serial}},
	domain  TEXT NOT NULL,
	keyword TEXT NOT NULL,
	locale  TEXT NOT NULL,
	device  TEXT NOT NULL,
	UNIQUE (domain, keyword, locale, device)
)`,
		// One row per series and bucket of blockDays days; data holds the
		// observations (see block.go). first_day and last_day are day
		// numbers (days since 1970-01-01 UTC); n is the observation count.
		// The key starts with the domain and bucket so that a domain's
		// date range is one range of the key.
		`CREATE TABLE rankings_blocks (
	domain    TEXT NOT NULL,
	bucket    INTEGER NOT NULL,
	series_id BIGINT NOT NULL REFERENCES rankings_series (id),
	first_day INTEGER NOT NULL,
	last_day  INTEGER NOT NULL,
	n         INTEGER NOT NULL,
	data      {{blob}} NOT NULL,
	PRIMARY KEY (domain, bucket, series_id)
){{without_rowid}}`,
		// Record and Latest find a series' blocks.
		`CREATE UNIQUE INDEX rankings_blocks_series ON rankings_blocks (series_id, bucket)`,
	},
	2: {
		// Tracked reads a domain's keywords from the index alone.
		`CREATE INDEX rankings_tracked_cover ON rankings_tracked (domain, keyword, locale, device, added_us)`,
	},
	3: {
		// The latest failed check per series (rankings.FailureStore).
		`CREATE TABLE rankings_failures (
	domain  TEXT NOT NULL,
	keyword TEXT NOT NULL,
	locale  TEXT NOT NULL,
	device  TEXT NOT NULL,
	at_us   BIGINT NOT NULL,
	source  TEXT NOT NULL,
	error   TEXT NOT NULL,
	PRIMARY KEY (domain, keyword, locale, device)
)`,
	},
}

var schema = &sqldb.Schema{
	VersionTable:  "rankings_schema_migrations",
	AppliedColumn: "applied_us",
	// "seokit-rankings" as a number.
	LockID:     0x736b5f726b6e67,
	Migrations: migrations,
}

// fail wraps a database error; anything but a cancelled context is
// reported as seo.ErrUnavailable.
func (s *Store) fail(op string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("sqlstore: %s: %w", op, err)
	}
	return fmt.Errorf("sqlstore: %s: %w: %w", op, seo.ErrUnavailable, err)
}

// scanClauses runs query followed by each of clauses with its args (as
// where returns them) and calls scan for every row.
func (s *Store) scanClauses(ctx context.Context, op, query string, clauses []string, args [][]any, scan func(*sql.Rows) error) error {
	for i, c := range clauses {
		if err := s.scanRows(ctx, op, query+c, args[i], scan); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) scanRows(ctx context.Context, op, query string, args []any, scan func(*sql.Rows) error) error {
	rows, err := s.db.QueryContext(ctx, s.db.Q(query), args...)
	if err != nil {
		return s.fail(op, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return s.fail(op, err)
		}
	}
	if err := rows.Err(); err != nil {
		return s.fail(op, err)
	}
	return nil
}

// Track adds keywords to track; ones already tracked are skipped.
func (s *Store) Track(ctx context.Context, keywords []rankings.Tracked) error {
	now := s.now()
	norm := make([]rankings.Tracked, len(keywords))
	for i, t := range keywords {
		n, err := rankings.NormalizeTracked(i, t, now)
		if err != nil {
			return err
		}
		norm[i] = n
	}
	if len(norm) == 0 {
		return ctx.Err()
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.fail("track", err)
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, s.db.Q(`INSERT INTO rankings_tracked (domain, keyword, locale, device, added_us) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (domain, keyword, locale, device) DO NOTHING`))
	if err != nil {
		return s.fail("track", err)
	}
	defer st.Close()
	for _, t := range norm {
		if _, err := st.ExecContext(ctx, t.Domain, t.Keyword, t.Locale.String(), string(t.Device), t.AddedAt.UnixMicro()); err != nil {
			return s.fail("track", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return s.fail("track", err)
	}
	return nil
}

// where builds the WHERE clause of f over the series columns, one query
// per chunk of keywords (SQL parameter counts are limited).
func where(f rankings.Filter) (clauses []string, args [][]any) {
	var base []string
	var bargs []any
	if f.Domain != "" {
		base = append(base, "domain = ?")
		bargs = append(bargs, f.Domain)
	}
	if f.Locale != (seo.Locale{}) {
		base = append(base, "locale = ?")
		bargs = append(bargs, f.Locale.String())
	}
	if f.Device != "" {
		base = append(base, "device = ?")
		bargs = append(bargs, string(f.Device))
	}
	if f.Keywords == nil {
		if len(base) == 0 {
			return []string{"1 = 1"}, [][]any{nil}
		}
		return []string{strings.Join(base, " AND ")}, [][]any{bargs}
	}
	const chunk = 500
	ks := slices.Clone(f.Keywords)
	slices.Sort(ks)
	ks = slices.Compact(ks)
	for i := 0; i < len(ks); i += chunk {
		part := ks[i:min(i+chunk, len(ks))]
		c := append(slices.Clone(base), "keyword IN (?"+strings.Repeat(", ?", len(part)-1)+")")
		a := slices.Clone(bargs)
		for _, k := range part {
			a = append(a, k)
		}
		clauses = append(clauses, strings.Join(c, " AND "))
		args = append(args, a)
	}
	return clauses, args
}

// Untrack stops tracking the keywords matching f and keeps their history.
func (s *Store) Untrack(ctx context.Context, f rankings.Filter) error {
	f, err := rankings.NormalizeFilter(f, false)
	if err != nil {
		return err
	}
	clauses, args := where(f)
	if len(clauses) == 0 {
		return ctx.Err()
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.fail("untrack", err)
	}
	defer tx.Rollback()
	for i, c := range clauses {
		if _, err := tx.ExecContext(ctx, s.db.Q(`DELETE FROM rankings_tracked WHERE `+c), args[i]...); err != nil {
			return s.fail("untrack", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return s.fail("untrack", err)
	}
	return nil
}

// Tracked lists the tracked keywords matching f, ordered by domain,
// keyword, locale and device; an empty Domain lists every domain's.
func (s *Store) Tracked(ctx context.Context, f rankings.Filter) ([]rankings.Tracked, error) {
	f, err := rankings.NormalizeFilter(f, true)
	if err != nil {
		return nil, err
	}
	clauses, args := where(f)
	type row struct {
		t        rankings.Tracked
		loc, dev string
		us       int64
	}
	var rs []row
	// A domain's rows need not repeat it: fewer columns to read.
	cols := `domain, keyword, locale, device, added_us`
	if f.Domain != "" {
		cols = `keyword, locale, device, added_us`
	}
	var r row
	dest := []any{&r.t.Domain, &r.t.Keyword, &r.loc, &r.dev, &r.us}
	if f.Domain != "" {
		dest = dest[1:]
	}
	err = s.scanClauses(ctx, "tracked", `SELECT `+cols+` FROM rankings_tracked WHERE `, clauses, args, func(rows *sql.Rows) error {
		r = row{t: rankings.Tracked{Domain: f.Domain}}
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		r.t.Device, r.t.AddedAt = rankings.Device(r.dev), time.UnixMicro(r.us).UTC()
		rs = append(rs, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Sorted by the stored locale string (Locale.String's form) rather
	// than by formatting each Locale once per comparison.
	slices.SortFunc(rs, func(a, b row) int {
		return cmp.Or(cmp.Compare(a.t.Domain, b.t.Domain), cmp.Compare(a.t.Keyword, b.t.Keyword),
			cmp.Compare(a.loc, b.loc), cmp.Compare(a.t.Device, b.t.Device))
	})
	if len(rs) == 0 {
		return nil, nil
	}
	out := make([]rankings.Tracked, len(rs))
	locs := localeCache{}
	for i, r := range rs {
		out[i] = r.t
		out[i].Locale = locs.get(r.loc)
	}
	return out, nil
}

// localeCache parses stored locales ("en-US", "" for none) once each.
type localeCache map[string]seo.Locale

func (c localeCache) get(s string) seo.Locale {
	if l, ok := c[s]; ok {
		return l
	}
	var l seo.Locale
	if lang, reg, ok := strings.Cut(s, "-"); ok {
		l = seo.Locale{Language: lang, Region: reg}
	} else {
		l = seo.Locale{Language: s}
	}
	c[s] = l
	return l
}

// seriesKey identifies a series of observations.
type seriesKey struct {
	domain, keyword, locale string
	device                  rankings.Device
}

func compareSeries(a, b seriesKey) int {
	return cmp.Or(cmp.Compare(a.domain, b.domain), cmp.Compare(a.keyword, b.keyword),
		cmp.Compare(a.locale, b.locale), cmp.Compare(a.device, b.device))
}

type blockKey struct {
	seriesKey
	bucket int64
}

// Record stores observations in one transaction: all of them or, on any
// error (an invalid observation included), none. One observation per
// domain, keyword, locale, device and day is kept: a later Record (or a
// later element of the same batch) replaces an earlier one.
func (s *Store) Record(ctx context.Context, obs []rankings.Observation) error {
	groups := map[blockKey][]entry{}
	for i, o := range obs {
		n, err := rankings.NormalizeObservation(i, o)
		if err != nil {
			return err
		}
		day := rankings.DayNumber(n.Date)
		k := blockKey{seriesKey{n.Domain, n.Keyword, n.Locale.String(), n.Device}, floorDiv(day, blockDays)}
		e := entry{day: day, avg: n.Average, url: n.URL, src: n.Source, depth: int64(n.Depth), checked: n.CheckedAt}
		if n.Position != nil {
			e.pos, e.hasPos = *n.Position, true
		}
		g := groups[k]
		if j := slices.IndexFunc(g, func(x entry) bool { return x.day == day }); j >= 0 {
			g[j] = e
		} else {
			g = append(g, e)
		}
		groups[k] = g
	}
	if len(groups) == 0 {
		return ctx.Err()
	}
	keys := make([]blockKey, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	// A fixed order keeps concurrent PostgreSQL writers from deadlocking.
	slices.SortFunc(keys, func(a, b blockKey) int {
		return cmp.Or(compareSeries(a.seriesKey, b.seriesKey), cmp.Compare(a.bucket, b.bucket))
	})

	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.fail("record", err)
	}
	defer tx.Rollback()
	prep := func(query string) (*sql.Stmt, error) {
		st, err := tx.PrepareContext(ctx, s.db.Q(query))
		if err != nil {
			return nil, s.fail("record", err)
		}
		return st, nil
	}
	insSeries, err := prep(`INSERT INTO rankings_series (domain, keyword, locale, device) VALUES (?, ?, ?, ?)
ON CONFLICT (domain, keyword, locale, device) DO NOTHING`)
	if err != nil {
		return err
	}
	defer insSeries.Close()
	selSeries, err := prep(`SELECT id FROM rankings_series WHERE domain = ? AND keyword = ? AND locale = ? AND device = ?`)
	if err != nil {
		return err
	}
	defer selSeries.Close()
	ins, err := prep(`INSERT INTO rankings_blocks (domain, bucket, series_id, first_day, last_day, n, data)
VALUES (?, ?, ?, 0, 0, 0, ?) ON CONFLICT (domain, bucket, series_id) DO NOTHING`)
	if err != nil {
		return err
	}
	defer ins.Close()
	lock := ""
	if s.db.Dialect == Postgres {
		lock = " FOR UPDATE"
	}
	sel, err := prep(`SELECT n, data FROM rankings_blocks WHERE domain = ? AND bucket = ? AND series_id = ?` + lock)
	if err != nil {
		return err
	}
	defer sel.Close()
	upd, err := prep(`UPDATE rankings_blocks SET first_day = ?, last_day = ?, n = ?, data = ? WHERE domain = ? AND bucket = ? AND series_id = ?`)
	if err != nil {
		return err
	}
	defer upd.Close()
	var cur seriesKey
	var id int64 = -1
	for _, k := range keys {
		if id < 0 || k.seriesKey != cur {
			cur = k.seriesKey
			sargs := []any{k.domain, k.keyword, k.locale, string(k.device)}
			if _, err := insSeries.ExecContext(ctx, sargs...); err != nil {
				return s.fail("record", err)
			}
			if err := selSeries.QueryRowContext(ctx, sargs...).Scan(&id); err != nil {
				return s.fail("record", err)
			}
		}
		args := []any{k.domain, k.bucket, id}
		if _, err := ins.ExecContext(ctx, append(args, []byte{})...); err != nil {
			return s.fail("record", err)
		}
		var n int64
		var old []byte
		if err := sel.QueryRowContext(ctx, args...).Scan(&n, &old); err != nil {
			return s.fail("record", err)
		}
		if n == 0 {
			old = nil
		}
		add := groups[k]
		slices.SortFunc(add, func(a, b entry) int { return cmp.Compare(a.day, b.day) })
		data, first, last, count, err := mergeBlock(k.bucket, old, add)
		if err != nil {
			return fmt.Errorf("sqlstore: record %q: %w", k.keyword, err)
		}
		if _, err := upd.ExecContext(ctx, append([]any{first, last, count, data}, args...)...); err != nil {
			return s.fail("record", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return s.fail("record", err)
	}
	return nil
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// series returns the series of f.Domain matching f, sorted by keyword,
// locale and device, with their ids.
func (s *Store) series(ctx context.Context, op string, f rankings.Filter) ([]seriesKey, []int64, error) {
	clauses, args := where(f)
	type row struct {
		k  seriesKey
		id int64
	}
	var rs []row
	err := s.scanClauses(ctx, op, `SELECT id, keyword, locale, device FROM rankings_series WHERE `, clauses, args, func(rows *sql.Rows) error {
		r := row{k: seriesKey{domain: f.Domain}}
		var dev string
		if err := rows.Scan(&r.id, &r.k.keyword, &r.k.locale, &dev); err != nil {
			return err
		}
		r.k.device = rankings.Device(dev)
		rs = append(rs, r)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	slices.SortFunc(rs, func(a, b row) int { return compareSeries(a.k, b.k) })
	keys, ids := make([]seriesKey, len(rs)), make([]int64, len(rs))
	for i, r := range rs {
		keys[i], ids[i] = r.k, r.id
	}
	return keys, ids, nil
}

// blockRow is one row read from rankings_blocks.
type blockRow struct {
	series int // index into the series slice
	bucket int64
	n      int64
	data   []byte
}

// fewSeries is the number of series up to which blocks are looked up by
// series rather than by scanning the domain's date range.
const fewSeries = 200

// readBlocks returns the blocks of the given series that may hold
// observations in [lo, hi] (day numbers), sorted by series and bucket.
// With latestOnly, only each series' last block is read.
func (s *Store) readBlocks(ctx context.Context, op, domain string, ids []int64, lo, hi int64, latestOnly bool) ([]blockRow, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	index := make(map[int64]int, len(ids))
	for i, id := range ids {
		index[id] = i
	}
	query, qargs := blockQuery("series_id, bucket, n, data", domain, ids, len(ids) <= fewSeries, lo, hi, latestOnly)
	var out []blockRow
	var arena []byte
	rows, err := s.db.QueryContext(ctx, s.db.Q(query), qargs...)
	if err != nil {
		return nil, s.fail(op, err)
	}
	defer rows.Close()
	for rows.Next() {
		var r blockRow
		var id int64
		var raw sql.RawBytes
		if err := rows.Scan(&id, &r.bucket, &r.n, &raw); err != nil {
			return nil, s.fail(op, err)
		}
		si, ok := index[id]
		if !ok {
			continue
		}
		// One arena for all blocks instead of one allocation each.
		if len(arena)+len(raw) > cap(arena) {
			arena = make([]byte, 0, max(1<<20, 2*len(raw)))
		}
		start := len(arena)
		arena = append(arena, raw...)
		r.series, r.data = si, arena[start:len(arena):len(arena)]
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail(op, err)
	}
	return sortBlocks(out, len(ids)), nil
}

// scanBlocks decodes blocks and calls fn for each observation within
// [lo, hi] (day numbers). o is reused.
func scanBlocks(series []seriesKey, blocks []blockRow, lo, hi int64, fn func(o *rankings.Observation) error) error {
	locs := localeCache{}
	in := interner{}
	var it blockIter
	var e entry
	var o rankings.Observation
	var pos float64
	for _, b := range blocks {
		k := series[b.series]
		o.Domain, o.Keyword, o.Locale, o.Device = k.domain, k.keyword, locs.get(k.locale), k.device
		if err := it.reset(b.bucket, b.data); err != nil {
			return err
		}
		for it.next() {
			if it.cur.day < lo || it.cur.day > hi {
				continue
			}
			it.fill(&it.cur, &e, in)
			fillObservation(&o, &e, &pos)
			if err := fn(&o); err != nil {
				return err
			}
		}
		if err := it.err(); err != nil {
			return err
		}
	}
	return nil
}

func fillObservation(o *rankings.Observation, e *entry, pos *float64) {
	o.Date = rankings.DayFromNumber(e.day)
	o.Position = nil
	if e.hasPos {
		*pos = e.pos
		o.Position = pos
	}
	o.URL, o.Depth, o.Average, o.Source, o.CheckedAt = e.url, int(e.depth), e.avg, e.src, e.checked
}

func dayBounds(f rankings.Filter) (lo, hi int64) {
	lo, hi = math.MinInt32, math.MaxInt32
	if !f.From.IsZero() {
		lo = rankings.DayNumber(f.From)
	}
	if !f.To.IsZero() {
		hi = rankings.DayNumber(f.To)
	}
	return lo, hi
}

// history reads the blocks for History and ScanHistory.
func (s *Store) history(ctx context.Context, f rankings.Filter) ([]seriesKey, []blockRow, rankings.Filter, error) {
	f, err := rankings.NormalizeFilter(f, false)
	if err != nil {
		return nil, nil, f, err
	}
	keys, ids, err := s.series(ctx, "history", f)
	if err != nil {
		return nil, nil, f, err
	}
	lo, hi := dayBounds(f)
	blocks, err := s.readBlocks(ctx, "history", f.Domain, ids, lo, hi, false)
	return keys, blocks, f, err
}

// History returns the observations matching f, ordered by keyword, locale,
// device and date.
func (s *Store) History(ctx context.Context, f rankings.Filter) ([]rankings.Observation, error) {
	keys, blocks, f, err := s.history(ctx, f)
	if err != nil {
		return nil, err
	}
	total := 0
	for _, b := range blocks {
		total += int(b.n)
	}
	out := make([]rankings.Observation, 0, total)
	positions := make([]float64, 0, total)
	lo, hi := dayBounds(f)
	err = scanBlocks(keys, blocks, lo, hi, func(o *rankings.Observation) error {
		c := *o
		if o.Position != nil {
			positions = append(positions, *o.Position)
			c.Position = &positions[len(positions)-1]
		}
		out = append(out, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ScanHistory calls fn for each observation History would return, in the
// same order, without building the slice. fn must not keep o; it may call
// the store.
func (s *Store) ScanHistory(ctx context.Context, f rankings.Filter, fn func(o *rankings.Observation) error) error {
	keys, blocks, f, err := s.history(ctx, f)
	if err != nil {
		return err
	}
	lo, hi := dayBounds(f)
	return scanBlocks(keys, blocks, lo, hi, fn)
}

// Latest returns the most recent observation per keyword, locale and
// device matching f (within [f.From, f.To] when set), ordered by keyword,
// locale and device.
func (s *Store) Latest(ctx context.Context, f rankings.Filter) ([]rankings.Observation, error) {
	f, err := rankings.NormalizeFilter(f, false)
	if err != nil {
		return nil, err
	}
	keys, ids, err := s.series(ctx, "latest", f)
	if err != nil {
		return nil, err
	}
	lo, hi := dayBounds(f)
	blocks, err := s.readBlocks(ctx, "latest", f.Domain, ids, lo, hi, f.From.IsZero() && f.To.IsZero())
	if err != nil {
		return nil, err
	}
	var out []rankings.Observation
	locs := localeCache{}
	// Walk each series' blocks from the newest; the last entry in range of
	// the newest block holding one wins.
	for i := len(blocks) - 1; i >= 0; {
		si := blocks[i].series
		var best *rankings.Observation
		for ; i >= 0 && blocks[i].series == si; i-- {
			if best != nil {
				continue
			}
			b := blocks[i]
			var o rankings.Observation
			var found bool
			var pos float64
			err := decodeBlock(b.bucket, b.data, func(e *entry) error {
				if e.day >= lo && e.day <= hi {
					fillObservation(&o, e, &pos)
					found = true
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
			if found {
				k := keys[si]
				o.Domain, o.Keyword, o.Locale, o.Device = k.domain, k.keyword, locs.get(k.locale), k.device
				if o.Position != nil {
					p := *o.Position
					o.Position = &p
				}
				best = &o
			}
		}
		if best != nil {
			out = append(out, *best)
		}
	}
	slices.Reverse(out)
	return out, nil
}

// sortBlocks orders blocks by series and bucket. Rows arrive ordered by
// bucket (the table's key), so a stable counting sort by series is enough;
// other orders are sorted in full.
func sortBlocks(bs []blockRow, nseries int) []blockRow {
	byBucket := slices.IsSortedFunc(bs, func(a, b blockRow) int { return cmp.Compare(a.bucket, b.bucket) })
	if !byBucket {
		slices.SortFunc(bs, func(a, b blockRow) int {
			return cmp.Or(cmp.Compare(a.series, b.series), cmp.Compare(a.bucket, b.bucket))
		})
		return bs
	}
	start := make([]int, nseries+1)
	for _, b := range bs {
		start[b.series+1]++
	}
	for i := 1; i <= nseries; i++ {
		start[i] += start[i-1]
	}
	out := make([]blockRow, len(bs))
	for _, b := range bs {
		out[start[b.series]] = b
		start[b.series]++
	}
	return out
}
