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
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

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

// Store is a keyword table in SQLite. It is a keywords.Source named
// "local" and a keywords.Cache. It is safe for concurrent use.
type Store struct {
	db   *sql.DB
	mu   sync.Mutex // serialises writes
	opts Options
}

const schema = `
CREATE TABLE IF NOT EXISTS keywords (
	id                INTEGER PRIMARY KEY,
	loc               TEXT NOT NULL,
	fold              TEXT NOT NULL,
	norm              TEXT NOT NULL,
	keyword           TEXT NOT NULL,
	volume            INTEGER,
	volume_range      TEXT NOT NULL DEFAULT '',
	difficulty        INTEGER,
	difficulty_method TEXT NOT NULL DEFAULT '',
	paid_competition  INTEGER,
	cpc               REAL,
	monthly           TEXT NOT NULL DEFAULT '',
	source            TEXT NOT NULL,
	estimated         INTEGER NOT NULL DEFAULT 0,
	updated_at        INTEGER NOT NULL,
	gsc_clicks        INTEGER,
	gsc_impressions   INTEGER,
	gsc_ctr           REAL,
	gsc_position      REAL,
	gsc_updated_at    INTEGER,
	UNIQUE (loc, fold)
);
CREATE INDEX IF NOT EXISTS keywords_norm ON keywords (loc, norm);
CREATE TABLE IF NOT EXISTS terms (
	term TEXT NOT NULL,
	vol  INTEGER NOT NULL,
	kid  INTEGER NOT NULL,
	PRIMARY KEY (term, vol, kid)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS terms_kid ON terms (kid, term);
CREATE TABLE IF NOT EXISTS fetches (
	kind       TEXT NOT NULL,
	loc        TEXT NOT NULL,
	fold       TEXT NOT NULL,
	source     TEXT NOT NULL,
	fetched_at INTEGER NOT NULL,
	PRIMARY KEY (kind, loc, fold)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS cache (
	loc       TEXT NOT NULL,
	query     TEXT NOT NULL,
	lim       INTEGER NOT NULL,
	answer    TEXT NOT NULL,
	cached_at INTEGER NOT NULL,
	PRIMARY KEY (loc, query)
) WITHOUT ROWID;`

// Open opens (creating if needed) the keyword database at path; "" or
// ":memory:" opens a private in-memory database. opts may be nil.
func Open(ctx context.Context, path string, opts *Options) (*Store, error) {
	s := &Store{}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.MaxAge <= 0 {
		s.opts.MaxAge = keywords.DefaultCacheMaxAge
	}
	if s.opts.Now == nil {
		s.opts.Now = time.Now
	}
	mem := path == "" || path == ":memory:"
	dsn := "file:" + path + "?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)"
	if mem {
		dsn = ":memory:"
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("local: open %s: %w", path, err)
	}
	if mem {
		db.SetMaxOpenConns(1) // each connection would have its own database
	} else {
		db.SetMaxOpenConns(4)
	}
	if _, err := db.ExecContext(ctx, schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("local: create schema: %w", err)
	}
	s.db = db
	return s, nil
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
		{&w.ins, `INSERT INTO keywords (loc, fold, norm, keyword, volume, volume_range, difficulty, difficulty_method, paid_competition, cpc, monthly, source, estimated, updated_at, gsc_clicks, gsc_impressions, gsc_ctr, gsc_position, gsc_updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`},
		{&w.upd, `UPDATE keywords SET norm=?, keyword=?, volume=?, volume_range=?, difficulty=?, difficulty_method=?, paid_competition=?, cpc=?, monthly=?, source=?, estimated=?, updated_at=? WHERE id=?`},
		{&w.gsc, `UPDATE keywords SET gsc_clicks=?, gsc_impressions=?, gsc_ctr=?, gsc_position=?, gsc_updated_at=? WHERE id=?`},
		{&w.dT, `DELETE FROM terms WHERE kid = ?`},
		{&w.insT, `INSERT OR IGNORE INTO terms (term, vol, kid) VALUES (?, ?, ?)`},
	}
	for _, p := range prep {
		st, err := tx.PrepareContext(ctx, p.q)
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
	switch {
	case !exists:
		res, err := w.ins.ExecContext(ctx, w.loc, fold, norm, k.Keyword, nullInt(k.Volume), k.VolumeRange, nullInt(k.Difficulty), k.DifficultyMethod,
			nullInt(k.PaidCompetition), nullFloat(k.CPC), monthly, k.Source, k.Estimated, updatedAt, gc, gi, gr, gp, gt)
		if err != nil {
			return err
		}
		if id, err = res.LastInsertId(); err != nil {
			return err
		}
	case mode == searchConsole:
		_, err := w.gsc.ExecContext(ctx, gc, gi, gr, gp, gt, id)
		return err
	case k.Volume == nil && oldVol.Valid:
		return nil
	default:
		if _, err := w.upd.ExecContext(ctx, norm, k.Keyword, nullInt(k.Volume), k.VolumeRange, nullInt(k.Difficulty), k.DifficultyMethod,
			nullInt(k.PaidCompetition), nullFloat(k.CPC), monthly, k.Source, k.Estimated, updatedAt, id); err != nil {
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
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("local: commit: %w", err)
	}
	return nil
}

// Count returns how many keywords are stored for loc.
func (s *Store) Count(ctx context.Context, loc seo.Locale) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM keywords WHERE loc = ?`, loc.String()).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("local: count: %w", err)
	}
	return n, nil
}
