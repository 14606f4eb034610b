package local

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seokit/seokit/internal/sqldb"
	"github.com/seokit/seokit/keywords"
	"github.com/seokit/seokit/seo"
)

var (
	_ keywords.Source = (*Store)(nil)
	_ keywords.Cache  = (*Store)(nil)
)

// Name is the driver name, used as Keyword.Source for what the driver
// itself generates (expansions).
const Name = "local"

// MaxPutKeywords is the most keywords one Put call accepts.
const MaxPutKeywords = 100_000

// Options configures a Store. The zero value is ready to use.
type Options struct {
	// Upstream, when set, makes the store a cache in front of a provider:
	// Suggest and Volumes ask it for seeds and keywords the store has not
	// fetched within MaxAge, store the answers and return them under the
	// upstream's name.
	Upstream keywords.Source
	// MaxAge is how long upstream answers stay fresh; zero means
	// keywords.DefaultCacheMaxAge. Imported rows never go stale.
	MaxAge time.Duration
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
}

// Store is a keyword table in SQLite or PostgreSQL. It is a
// keywords.Source named "local" and a keywords.Cache. It is safe for
// concurrent use, and several processes may share one database.
type Store struct {
	db      *sqldb.DB
	mu      sync.Mutex // serialises this process's writes
	opts    Options
	version atomic.Uint64 // grows with every committed write of this process
	shared  atomic.Uint64 // keyword_data_version as last read
	polled  atomic.Int64  // when it was last read, nanoseconds since opened; 0: never
	opened  time.Time
}

var _ keywords.Versioned = (*Store)(nil)

// DataVersion grows with every import or Put committed to the database,
// by this process or another (a command-line import while the server
// runs), so that a Suggester's in-memory answers computed before it are
// dropped. This process's writes count at once; the database's counter is
// read at most once per versionPoll.
func (s *Store) DataVersion() uint64 { return s.version.Load() + s.sharedVersion() }

// versionPoll is how often DataVersion reads the database's counter (a
// variable for tests).
var versionPoll = time.Second

// sharedVersion returns the database's change counter (keyword_data_version),
// read again when the last read is older than versionPoll; a failed read
// keeps the last value.
func (s *Store) sharedVersion() uint64 {
	now := int64(time.Since(s.opened)) // monotonic
	last := s.polled.Load()
	if (last != 0 && now-last < int64(versionPoll)) || !s.polled.CompareAndSwap(last, max(now, 1)) {
		return s.shared.Load()
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	var v int64
	if err := s.db.QueryRowContext(ctx, `SELECT version FROM keyword_data_version WHERE id = 1`).Scan(&v); err == nil && v >= 0 {
		s.shared.Store(uint64(v))
	}
	return s.shared.Load()
}

// migrations are applied in order, each once, recorded in
// keywords_schema_migrations. The SQL is the same for both databases but
// for the column types in braces (see sqldb.Schema). Tables other than keywords
// are named keyword_*: in a PostgreSQL database shared with other stores a
// bare "cache" or "terms" could belong to anyone.
var migrations = [][]string{
	1: {
		`CREATE TABLE IF NOT EXISTS keywords (
	id                {{serial}},
	loc               TEXT NOT NULL,
	fold              TEXT NOT NULL,
	norm              {{ctext}} NOT NULL,
	keyword           TEXT NOT NULL,
	volume            {{int}},
	volume_range      TEXT NOT NULL DEFAULT '',
	difficulty        {{int}},
	difficulty_method TEXT NOT NULL DEFAULT '',
	paid_competition  {{int}},
	cpc               {{real}},
	monthly           TEXT NOT NULL DEFAULT '',
	source            TEXT NOT NULL,
	estimated         {{int}} NOT NULL DEFAULT 0,
	updated_at        {{int}} NOT NULL,
	gsc_clicks        {{int}},
	gsc_impressions   {{int}},
	gsc_ctr           {{real}},
	gsc_position      {{real}},
	gsc_updated_at    {{int}},
	UNIQUE (loc, fold)
)`,
		`CREATE INDEX IF NOT EXISTS keywords_norm ON keywords (loc, norm)`,
		`CREATE TABLE IF NOT EXISTS keyword_terms (
	term TEXT NOT NULL,
	vol  {{int}} NOT NULL,
	kid  {{int}} NOT NULL,
	PRIMARY KEY (term, vol, kid)
){{without_rowid}}`,
		`CREATE INDEX IF NOT EXISTS keyword_terms_kid ON keyword_terms (kid, term)`,
		`CREATE TABLE IF NOT EXISTS keyword_fetches (
	kind       TEXT NOT NULL,
	loc        TEXT NOT NULL,
	fold       TEXT NOT NULL,
	source     TEXT NOT NULL,
	fetched_at {{int}} NOT NULL,
	PRIMARY KEY (kind, loc, fold)
){{without_rowid}}`,
		`CREATE TABLE IF NOT EXISTS keyword_cache (
	loc       TEXT NOT NULL,
	query     TEXT NOT NULL,
	lim       {{int}} NOT NULL,
	answer    TEXT NOT NULL,
	cached_at {{int}} NOT NULL,
	PRIMARY KEY (loc, query)
){{without_rowid}}`,
	},
	// 2: a change counter of the keyword data that every process writing
	// the database bumps, so the Suggesters of other processes (the server
	// after a command-line import) drop their answers at once.
	2: {
		`CREATE TABLE IF NOT EXISTS keyword_data_version (
	id      {{int}} PRIMARY KEY,
	version {{int}} NOT NULL
)`,
		`INSERT INTO keyword_data_version (id, version) SELECT 1, 0 WHERE NOT EXISTS (SELECT 1 FROM keyword_data_version WHERE id = 1)`,
	},
}

// legacyTables are the SQLite tables of files written before the schema
// was versioned, renamed on the first migration.
var legacyTables = [][2]string{{"terms", "keyword_terms"}, {"fetches", "keyword_fetches"}, {"cache", "keyword_cache"}}

// schema is the store's migrations; "seokit-keywords" as a number is the
// lock of processes starting together. Rows recorded by earlier releases
// have applied_at in Unix seconds, later ones in microseconds.
var schema = &sqldb.Schema{
	VersionTable: "keywords_schema_migrations",
	LockID:       0x736b5f6b7764,
	Migrations:   migrations,
	Before:       adoptLegacy,
}

// Open opens (creating or migrating its tables) the keyword database at
// dsn: "postgres://..." or "postgresql://..." is a PostgreSQL database
// (through pgx), shared safely by several processes; "" or ":memory:" is a
// private in-memory SQLite database; anything else is an SQLite file path.
// opts may be nil.
func Open(ctx context.Context, dsn string, opts *Options) (*Store, error) {
	s := &Store{opened: time.Now()}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.MaxAge <= 0 {
		s.opts.MaxAge = keywords.DefaultCacheMaxAge
	}
	if s.opts.Now == nil {
		s.opts.Now = time.Now
	}
	db, err := sqldb.Open(dsn, nil)
	if err != nil {
		return nil, fmt.Errorf("local: open %s: %w", seo.Clip(dsn), err)
	}
	if err := db.Migrate(ctx, schema); err != nil {
		db.Close()
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("local: %w", err)
		}
		return nil, fmt.Errorf("local: %w: %w", seo.ErrUnavailable, err)
	}
	s.db = db
	return s, nil
}

// adoptLegacy renames the tables of an SQLite file written before the
// schema was versioned.
func adoptLegacy(ctx context.Context, tx *sql.Tx, d sqldb.Dialect, version int) error {
	if version != 0 || d != sqldb.SQLite {
		return nil
	}
	for _, t := range legacyTables {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN (?, 'keywords')`, t[0]).Scan(&n); err != nil {
			return fmt.Errorf("inspect: %w", err)
		}
		if n == 2 {
			if _, err := tx.ExecContext(ctx, `ALTER TABLE `+t[0]+` RENAME TO `+t[1]); err != nil {
				return fmt.Errorf("rename %s: %w", t[0], err)
			}
		}
	}
	if _, err := tx.ExecContext(ctx, `DROP INDEX IF EXISTS terms_kid`); err != nil {
		return fmt.Errorf("drop index: %w", err)
	}
	return nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Name returns "local".
func (s *Store) Name() string { return Name }

// row is one stored keyword with its Search Console figures.
type row struct {
	kw  keywords.Keyword
	gsc *keywords.SearchConsoleStats
}

// upsertMode says which columns a write replaces.
type upsertMode int

const (
	// metrics replaces the volume/difficulty columns (planner, semrush,
	// API, upstream) and keeps Search Console figures.
	metrics upsertMode = iota
	// searchConsole sets only the Search Console columns.
	searchConsole
)

// writer inserts and updates rows inside one transaction.
type writer struct {
	tx                      *sql.Tx
	loc                     string
	lang                    string
	now                     int64
	find, ins, upd, gsc, dT *sql.Stmt
	insT                    *sql.Stmt
}

func (s *Store) newWriter(ctx context.Context, tx *sql.Tx, loc seo.Locale) (*writer, error) {
	w := &writer{tx: tx, loc: loc.String(), lang: loc.Language, now: s.opts.Now().Unix()}
	prep := []struct {
		dst **sql.Stmt
		q   string
	}{
		{&w.find, `SELECT id, volume FROM keywords WHERE loc = ? AND fold = ?`},
		// ON CONFLICT: another process may insert the phrase between
		// find and ins; then ins returns no row and put updates it.
		{&w.ins, `INSERT INTO keywords (loc, fold, norm, keyword, volume, volume_range, difficulty, difficulty_method, paid_competition, cpc, monthly, source, estimated, updated_at, gsc_clicks, gsc_impressions, gsc_ctr, gsc_position, gsc_updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
ON CONFLICT (loc, fold) DO NOTHING RETURNING id`},
		{&w.upd, `UPDATE keywords SET norm=?, keyword=?, volume=?, volume_range=?, difficulty=?, difficulty_method=?, paid_competition=?, cpc=?, monthly=?, source=?, estimated=?, updated_at=? WHERE id=?`},
		{&w.gsc, `UPDATE keywords SET gsc_clicks=?, gsc_impressions=?, gsc_ctr=?, gsc_position=?, gsc_updated_at=? WHERE id=?`},
		{&w.dT, `DELETE FROM keyword_terms WHERE kid = ?`},
		{&w.insT, `INSERT INTO keyword_terms (term, vol, kid) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`},
	}
	for _, p := range prep {
		st, err := tx.PrepareContext(ctx, s.db.Q(p.q))
		if err != nil {
			return nil, err
		}
		*p.dst = st
	}
	return w, nil
}

func (w *writer) close() {
	for _, st := range []*sql.Stmt{w.find, w.ins, w.upd, w.gsc, w.dT, w.insT} {
		if st != nil {
			st.Close()
		}
	}
}

func nullInt(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

func nullFloat(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func termKey(loc, stem string) string { return loc + "|" + stem }

// put writes one row. Metrics without a volume never replace a stored
// volume (a Semrush row without figures does not erase a planner figure).
func (w *writer) put(ctx context.Context, r row, mode upsertMode) error {
	k := r.kw
	fold := keywords.FoldKey(w.lang, k.Keyword)
	if fold == "" {
		return errors.New("keyword has no words")
	}
	norm := keywords.NormalizePhrase(k.Keyword)
	var id int64
	var oldVol sql.NullInt64
	err := w.find.QueryRowContext(ctx, w.loc, fold).Scan(&id, &oldVol)
	exists := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	updatedAt := w.now
	if !k.UpdatedAt.IsZero() {
		updatedAt = k.UpdatedAt.Unix()
	}
	monthly := ""
	if len(k.Monthly) > 0 {
		b, _ := json.Marshal(k.Monthly)
		monthly = string(b)
	}
	var gc, gi, gt any
	var gr, gp any
	if r.gsc != nil {
		gc, gi, gt = r.gsc.Clicks, r.gsc.Impressions, w.now
		gr, gp = nullFloat(r.gsc.CTR), nullFloat(r.gsc.Position)
	}
	vol := int64(-1)
	if k.Volume != nil {
		vol = int64(*k.Volume)
	}
	estimated := 0
	if k.Estimated {
		estimated = 1
	}
	if !exists {
		err := w.ins.QueryRowContext(ctx, w.loc, fold, norm, k.Keyword, nullInt(k.Volume), k.VolumeRange, nullInt(k.Difficulty), k.DifficultyMethod,
			nullInt(k.PaidCompetition), nullFloat(k.CPC), monthly, k.Source, estimated, updatedAt, gc, gi, gr, gp, gt).Scan(&id)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			// Inserted meanwhile by another process: update it.
			if err := w.find.QueryRowContext(ctx, w.loc, fold).Scan(&id, &oldVol); err != nil {
				return err
			}
			exists = true
		case err != nil:
			return err
		}
	}
	switch {
	case !exists:
	case mode == searchConsole:
		_, err := w.gsc.ExecContext(ctx, gc, gi, gr, gp, gt, id)
		return err
	case k.Volume == nil && oldVol.Valid:
		return nil
	default:
		if _, err := w.upd.ExecContext(ctx, norm, k.Keyword, nullInt(k.Volume), k.VolumeRange, nullInt(k.Difficulty), k.DifficultyMethod,
			nullInt(k.PaidCompetition), nullFloat(k.CPC), monthly, k.Source, estimated, updatedAt, id); err != nil {
			return err
		}
		if _, err := w.dT.ExecContext(ctx, id); err != nil {
			return err
		}
	}
	for _, t := range indexTerms(fold) {
		if _, err := w.insT.ExecContext(ctx, termKey(w.loc, t), vol, id); err != nil {
			return err
		}
	}
	return nil
}

// indexTerms returns the posting terms of a folded phrase: each distinct
// stem, and each pair of distinct stems ("run+shoe", sorted) so that a
// two-word query reads one posting list instead of intersecting two.
func indexTerms(fold string) []string {
	st := distinctStems(fold)
	out := slices.Clone(st)
	for i := range st {
		for j := i + 1; j < len(st); j++ {
			out = append(out, pairTerm(st[i], st[j]))
		}
	}
	return out
}

// distinctStems returns the sorted distinct stems of a folded phrase.
func distinctStems(fold string) []string {
	return slices.Compact(slices.Sorted(slices.Values(strings.Split(fold, " "))))
}

// pairTerm is the posting term of two stems; a < b.
func pairTerm(a, b string) string {
	if b < a {
		a, b = b, a
	}
	return a + "+" + b
}

// Put stores keywords for loc in one transaction, replacing the figures of
// phrases already stored (Search Console figures are kept). Each keyword
// must pass keywords.CheckKeyword; any bad one is an *seo.InputError for
// "keywords[i]" and nothing is written.
func (s *Store) Put(ctx context.Context, kws []keywords.Keyword, loc seo.Locale) error {
	if err := keywords.ValidateLocale(loc); err != nil {
		return err
	}
	if len(kws) > MaxPutKeywords {
		return &seo.InputError{Field: "keywords", Value: fmt.Sprint(len(kws)), Reason: fmt.Sprintf("at most %d keywords per call", MaxPutKeywords)}
	}
	for i, k := range kws {
		if err := keywords.CheckKeyword(k); err != nil {
			return &seo.InputError{Field: fmt.Sprintf("keywords[%d]", i), Value: k.Keyword, Reason: err.Error()}
		}
		if len(keywords.Words(k.Keyword)) == 0 {
			return &seo.InputError{Field: fmt.Sprintf("keywords[%d]", i), Value: k.Keyword, Reason: "has no words"}
		}
	}
	return s.write(ctx, loc, func(w *writer) error {
		for _, k := range kws {
			if err := w.put(ctx, row{kw: k}, metrics); err != nil {
				return err
			}
		}
		return nil
	})
}

// write runs fn in one transaction: all of it is stored or none.
func (s *Store) write(ctx context.Context, loc seo.Locale, fn func(*writer) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("local: begin: %w", err)
	}
	defer tx.Rollback()
	w, err := s.newWriter(ctx, tx, loc)
	if err != nil {
		return fmt.Errorf("local: prepare: %w", err)
	}
	defer w.close()
	if err := fn(w); err != nil {
		if _, ok := seo.AsInputError(err); ok || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		return fmt.Errorf("local: write: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE keyword_data_version SET version = version + 1 WHERE id = 1`); err != nil {
		return fmt.Errorf("local: write: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("local: commit: %w", err)
	}
	s.version.Add(1)
	return nil
}

// Count returns how many keywords are stored for loc.
func (s *Store) Count(ctx context.Context, loc seo.Locale) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, s.db.Q(`SELECT count(*) FROM keywords WHERE loc = ?`), loc.String()).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("local: count: %w", err)
	}
	return n, nil
}
