package local

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/seokit/seokit/keywords"
	"github.com/seokit/seokit/seo"
)

const cols = `k.id, k.keyword, k.volume, k.volume_range, k.difficulty, k.difficulty_method, k.paid_competition, k.cpc, k.monthly,
	k.source, k.estimated, k.updated_at, k.gsc_clicks, k.gsc_impressions, k.gsc_ctr, k.gsc_position, k.fold, k.norm`

// hit is a stored keyword found by a query.
type hit struct {
	id         int64
	kw         keywords.Keyword
	fold, norm string
	rank       int // 0 exact, 1 prefix, 2 token/stem
}

func scanHits(rows *sql.Rows, rank int) ([]hit, error) {
	defer rows.Close()
	var out []hit
	for rows.Next() {
		var h hit
		var vol, diff, paid, gc, gi sql.NullInt64
		var cpc, gr, gp sql.NullFloat64
		var monthly string
		var updated int64
		if err := rows.Scan(&h.id, &h.kw.Keyword, &vol, &h.kw.VolumeRange, &diff, &h.kw.DifficultyMethod, &paid, &cpc, &monthly,
			&h.kw.Source, &h.kw.Estimated, &updated, &gc, &gi, &gr, &gp, &h.fold, &h.norm); err != nil {
			return nil, err
		}
		h.kw.Volume = intPtr(vol)
		h.kw.Difficulty = intPtr(diff)
		h.kw.PaidCompetition = intPtr(paid)
		h.kw.CPC = floatPtr(cpc)
		if monthly != "" {
			if err := json.Unmarshal([]byte(monthly), &h.kw.Monthly); err != nil {
				return nil, fmt.Errorf("monthly series of %q: %w", h.kw.Keyword, err)
			}
		}
		h.kw.UpdatedAt = time.Unix(updated, 0).UTC()
		if gi.Valid {
			h.kw.SearchConsole = &keywords.SearchConsoleStats{Clicks: int(gc.Int64), Impressions: int(gi.Int64), CTR: floatPtr(gr), Position: floatPtr(gp)}
		}
		h.rank = rank
		out = append(out, h)
	}
	return out, rows.Err()
}

func intPtr(v sql.NullInt64) *int {
	if !v.Valid {
		return nil
	}
	i := int(v.Int64)
	return &i
}

func floatPtr(v sql.NullFloat64) *float64 {
	if !v.Valid {
		return nil
	}
	return &v.Float64
}

// Bounds that keep Suggest fast on large tables.
const (
	// candidateCap bounds how many postings are counted to choose the
	// rarest stem of a multi-word seed.
	candidateCap = 2_000
	// prefixSortCap is the widest prefix range sorted by volume in full.
	prefixSortCap = 2_000
	// scanBudget bounds the postings scanned to intersect the stems of a
	// multi-word seed.
	scanBudget = 5_000
)

// Suggest returns stored keywords matching seed in loc, at most limit:
// the exact phrase and phrases starting with it first, then phrases that
// contain every stem of the seed, by volume. With an Upstream, a seed not
// fetched within MaxAge is asked upstream first and the upstream's answer
// is stored and returned.
func (s *Store) Suggest(ctx context.Context, seed string, loc seo.Locale, limit int) ([]keywords.Keyword, error) {
	q, err := keywords.ValidateQuery(seed)
	if err != nil {
		return nil, err
	}
	if err := keywords.ValidateLocale(loc); err != nil {
		return nil, err
	}
	if limit < 1 || limit > keywords.MaxLimit {
		return nil, &seo.InputError{Field: "limit", Value: fmt.Sprint(limit), Reason: fmt.Sprintf("must be between 1 and %d", keywords.MaxLimit)}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.opts.Upstream != nil {
		kws, fetched, err := s.suggestUpstream(ctx, q, loc, limit)
		if err != nil {
			return nil, err
		}
		if fetched {
			return kws, nil
		}
	}
	return s.suggestLocal(ctx, q, loc, limit)
}

// suggestLocal answers from the table: the exact phrase, phrases starting
// with the query, then phrases containing every stem of it. Every answer
// is a phrase of the table, imported or fetched: no phrase is generated
// from the query by a template.
func (s *Store) suggestLocal(ctx context.Context, q string, loc seo.Locale, limit int) ([]keywords.Keyword, error) {
	l := loc.String()
	fold := keywords.FoldKey(loc.Language, q)
	norm := keywords.NormalizePhrase(q)
	hits, err := s.exactAndPrefix(ctx, l, fold, norm, limit)
	if err != nil {
		return nil, err
	}
	h, err := s.stemMatches(ctx, l, fold, norm, limit)
	if err != nil {
		return nil, err
	}
	matches, _ := rankHits(append(hits, h...))
	matches = matches[:min(len(matches), limit)]
	out := make([]keywords.Keyword, 0, len(matches))
	for _, h := range matches {
		out = append(out, h.kw)
	}
	return out, nil
}

// exactAndPrefix returns the exact phrase (rank 0), then, for a query of 3
// characters or more, phrases starting with it (rank 1).
func (s *Store) exactAndPrefix(ctx context.Context, l, fold, norm string, limit int) ([]hit, error) {
	rows, err := s.db.QueryContext(ctx, s.db.Q(`SELECT `+cols+` FROM keywords k WHERE k.loc = ? AND k.fold = ?`), l, fold)
	if err != nil {
		return nil, fmt.Errorf("local: suggest: %w", err)
	}
	hits, err := scanHits(rows, 0)
	if err != nil {
		return nil, fmt.Errorf("local: suggest: %w", err)
	}
	if len([]rune(norm)) < 3 {
		return hits, nil
	}
	// A narrow range is ranked by volume in full; a wide one (a common
	// first word) is taken alphabetically here, and the stem matches, which
	// contain every phrase of the range in volume order, are promoted to
	// prefix rank when they start with the query.
	hi := norm + "\U0010FFFF"
	var n int
	if err := s.db.QueryRowContext(ctx, s.db.Q(`SELECT count(*) FROM (SELECT 1 FROM keywords WHERE loc = ? AND norm >= ? AND norm < ? LIMIT ?) AS sub`),
		l, norm, hi, prefixSortCap+1).Scan(&n); err != nil {
		return nil, fmt.Errorf("local: suggest: %w", err)
	}
	order := `k.volume IS NULL, k.volume DESC`
	if n > prefixSortCap {
		order = `k.norm`
	}
	rows, err = s.db.QueryContext(ctx, s.db.Q(`SELECT `+cols+` FROM keywords k WHERE k.loc = ? AND k.norm >= ? AND k.norm < ?
			ORDER BY `+order+` LIMIT ?`), l, norm, hi, limit)
	if err != nil {
		return nil, fmt.Errorf("local: suggest: %w", err)
	}
	h, err := scanHits(rows, 1)
	if err != nil {
		return nil, fmt.Errorf("local: suggest: %w", err)
	}
	return append(hits, h...), nil
}

// stemMatches returns phrases containing every stem of the query (rank 2,
// or 1 when they start with it), read from the posting list of its rarest
// stem pair (or its only stem) in volume order.
func (s *Store) stemMatches(ctx context.Context, l, fold, norm string, limit int) ([]hit, error) {
	stems := distinctStems(fold)
	if len(stems) > 2 {
		counts := make(map[string]int, len(stems))
		for _, st := range stems {
			var n int
			if err := s.db.QueryRowContext(ctx, s.db.Q(`SELECT count(*) FROM (SELECT 1 FROM keyword_terms WHERE term = ? LIMIT ?) AS sub`), termKey(l, st), candidateCap).Scan(&n); err != nil {
				return nil, fmt.Errorf("local: suggest: %w", err)
			}
			counts[st] = n
		}
		slices.SortStableFunc(stems, func(a, b string) int { return cmp.Compare(counts[a], counts[b]) })
	}
	if len(stems) == 0 || stems[0] == "" {
		return nil, nil
	}
	driver, rest := stems[0], []string(nil)
	if len(stems) > 1 {
		driver, rest = pairTerm(stems[0], stems[1]), stems[2:]
	}
	var b strings.Builder
	args := []any{termKey(l, driver)}
	if len(rest) == 0 {
		b.WriteString(`SELECT ` + cols + ` FROM keyword_terms t JOIN keywords k ON k.id = t.kid WHERE t.term = ?`)
	} else {
		// The scan of the driver's postings is bounded: further stems
		// are looked for among its scanBudget phrases of highest volume.
		b.WriteString(`SELECT ` + cols + ` FROM (SELECT kid, vol FROM keyword_terms WHERE term = ? ORDER BY vol DESC LIMIT ` + fmt.Sprint(scanBudget) + `) AS t
				JOIN keywords k ON k.id = t.kid WHERE 1 = 1`)
	}
	for _, st := range rest {
		b.WriteString(` AND EXISTS (SELECT 1 FROM keyword_terms t2 WHERE t2.kid = t.kid AND t2.term = ?)`)
		args = append(args, termKey(l, st))
	}
	b.WriteString(` ORDER BY t.vol DESC LIMIT ?`)
	args = append(args, limit)
	rows, err := s.db.QueryContext(ctx, s.db.Q(b.String()), args...)
	if err != nil {
		return nil, fmt.Errorf("local: suggest: %w", err)
	}
	h, err := scanHits(rows, 2)
	if err != nil {
		return nil, fmt.Errorf("local: suggest: %w", err)
	}
	for i := range h {
		if strings.HasPrefix(h[i].norm, norm) {
			h[i].rank = 1
		}
	}
	return h, nil
}

// rankHits keeps one hit per row (its best rank), ordered by rank then
// volume, and returns the fold keys of the rows kept.
func rankHits(hits []hit) ([]hit, map[string]bool) {
	seen := map[int64]int{}
	folds := map[string]bool{}
	var matches []hit
	for _, h := range hits {
		if j, ok := seen[h.id]; ok {
			matches[j].rank = min(matches[j].rank, h.rank)
			continue
		}
		seen[h.id] = len(matches)
		folds[h.fold] = true
		matches = append(matches, h)
	}
	slices.SortStableFunc(matches, func(a, b hit) int {
		if c := cmp.Compare(a.rank, b.rank); c != 0 {
			return c
		}
		return compareVolume(a.kw, b.kw)
	})
	return matches, folds
}

// compareVolume orders known volumes first, highest first.
func compareVolume(a, b keywords.Keyword) int {
	switch {
	case a.Volume != nil && b.Volume == nil:
		return -1
	case a.Volume == nil && b.Volume != nil:
		return 1
	case a.Volume != nil:
		return cmp.Compare(*b.Volume, *a.Volume)
	}
	return 0
}

// byFold returns the stored rows of loc with the given fold keys.
func (s *Store) byFold(ctx context.Context, loc string, folds []string) (map[string]hit, error) {
	out := map[string]hit{}
	for len(folds) > 0 {
		n := min(len(folds), 500)
		batch := folds[:n]
		folds = folds[n:]
		args := []any{loc}
		for _, f := range batch {
			args = append(args, f)
		}
		rows, err := s.db.QueryContext(ctx, s.db.Q(`SELECT `+cols+` FROM keywords k WHERE k.loc = ? AND k.fold IN (?`+strings.Repeat(",?", n-1)+`)`), args...)
		if err != nil {
			return nil, fmt.Errorf("local: lookup: %w", err)
		}
		hs, err := scanHits(rows, 0)
		if err != nil {
			return nil, fmt.Errorf("local: lookup: %w", err)
		}
		for _, h := range hs {
			out[h.fold] = h
		}
	}
	return out, nil
}

// validateVolumes checks a Volumes call.
func validateVolumes(kws []string, loc seo.Locale) error {
	if err := keywords.ValidateLocale(loc); err != nil {
		return err
	}
	if len(kws) > keywords.MaxVolumeKeywords {
		return &seo.InputError{Field: "keywords", Value: fmt.Sprint(len(kws)), Reason: fmt.Sprintf("at most %d keywords per call", keywords.MaxVolumeKeywords)}
	}
	for i, k := range kws {
		if _, err := keywords.ValidateQuery(k); err != nil {
			ie, _ := seo.AsInputError(err)
			return ie.WithField(fmt.Sprintf("keywords[%d]", i))
		}
	}
	return nil
}

// Volumes returns the stored figures of the given keywords in loc, matched
// by FoldKey; keywords not stored are left out. With an Upstream, keywords
// not stored, stored without a volume, or fetched upstream longer than
// MaxAge ago are asked upstream (once per MaxAge) and stored.
func (s *Store) Volumes(ctx context.Context, kws []string, loc seo.Locale) ([]keywords.Keyword, error) {
	if err := validateVolumes(kws, loc); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l := loc.String()
	folds := make([]string, 0, len(kws))
	byFold := map[string]string{}
	for _, k := range kws {
		f := keywords.FoldKey(loc.Language, k)
		if _, dup := byFold[f]; !dup {
			byFold[f] = k
			folds = append(folds, f)
		}
	}
	found, err := s.byFold(ctx, l, folds)
	if err != nil {
		return nil, err
	}
	if s.opts.Upstream != nil {
		if err := s.volumesUpstream(ctx, loc, folds, byFold, found); err != nil {
			return nil, err
		}
	}
	out := make([]keywords.Keyword, 0, len(found))
	for _, f := range folds {
		if h, ok := found[f]; ok {
			out = append(out, h.kw)
		}
	}
	return out, nil
}

// upstreamErr wraps an upstream failure so that it always carries an seo
// sentinel.
func upstreamErr(name string, err error) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	if errors.Is(err, seo.ErrInvalidInput) || errors.Is(err, seo.ErrRateLimited) || errors.Is(err, seo.ErrUnavailable) {
		return fmt.Errorf("local: upstream %s: %w", name, err)
	}
	return fmt.Errorf("local: upstream %s: %w", name, errors.Join(seo.ErrUnavailable, err))
}

// checkUpstream rejects a garbage answer as a whole.
func checkUpstream(name string, kws []keywords.Keyword) error {
	for _, k := range kws {
		if err := keywords.CheckKeyword(k); err != nil {
			return fmt.Errorf("local: upstream %s: garbage answer: %v: %w", name, err, seo.ErrUnavailable)
		}
		if len(keywords.Words(k.Keyword)) == 0 {
			return fmt.Errorf("local: upstream %s: garbage answer: keyword %q has no words: %w", name, k.Keyword, seo.ErrUnavailable)
		}
	}
	return nil
}

// fresh reports whether kind/fold was fetched upstream within MaxAge.
func (s *Store) fresh(ctx context.Context, kind, loc, fold string) (bool, error) {
	var at int64
	err := s.db.QueryRowContext(ctx, s.db.Q(`SELECT fetched_at FROM keyword_fetches WHERE kind = ? AND loc = ? AND fold = ?`), kind, loc, fold).Scan(&at)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("local: fetches: %w", err)
	}
	return s.opts.Now().Sub(time.Unix(at, 0)) <= s.opts.MaxAge, nil
}

func (s *Store) recordFetch(ctx context.Context, w *writer, kind, fold string) error {
	_, err := w.tx.ExecContext(ctx, s.db.Q(`INSERT INTO keyword_fetches (kind, loc, fold, source, fetched_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (kind, loc, fold) DO UPDATE SET source = excluded.source, fetched_at = excluded.fetched_at`),
		kind, w.loc, fold, s.opts.Upstream.Name(), w.now)
	return err
}

// suggestUpstream asks the upstream for a seed not fetched within MaxAge.
// It reports fetched=false when the local table is fresh for the seed.
func (s *Store) suggestUpstream(ctx context.Context, q string, loc seo.Locale, limit int) ([]keywords.Keyword, bool, error) {
	up := s.opts.Upstream
	fold := keywords.FoldKey(loc.Language, q)
	ok, err := s.fresh(ctx, "suggest", loc.String(), fold)
	if err != nil || ok {
		return nil, false, err
	}
	kws, err := up.Suggest(ctx, q, loc, limit)
	if err != nil {
		return nil, false, upstreamErr(up.Name(), err)
	}
	if err := checkUpstream(up.Name(), kws); err != nil {
		return nil, false, err
	}
	if len(kws) > limit {
		kws = kws[:limit]
	}
	err = s.write(ctx, loc, func(w *writer) error {
		for _, k := range kws {
			if k.Expansion && k.Volume == nil {
				continue // a template phrase is not data
			}
			if err := w.put(ctx, row{kw: k}, metrics); err != nil {
				return err
			}
		}
		return s.recordFetch(ctx, w, "suggest", fold)
	})
	if err != nil {
		return nil, false, err
	}
	return kws, true, nil
}

// volumesUpstream fills found with upstream figures for the folds that
// are missing, without a volume, or stale.
func (s *Store) volumesUpstream(ctx context.Context, loc seo.Locale, folds []string, byFold map[string]string, found map[string]hit) error {
	up := s.opts.Upstream
	now := s.opts.Now()
	var ask []string
	var askFolds []string
	for _, f := range folds {
		h, ok := found[f]
		if ok && h.kw.Volume != nil && (h.kw.Source != up.Name() || now.Sub(h.kw.UpdatedAt) <= s.opts.MaxAge) {
			continue
		}
		recent, err := s.fresh(ctx, "volume", loc.String(), f)
		if err != nil {
			return err
		}
		if recent {
			continue // asked within MaxAge; the upstream did not know it
		}
		ask = append(ask, byFold[f])
		askFolds = append(askFolds, f)
	}
	if len(ask) == 0 {
		return nil
	}
	kws, err := up.Volumes(ctx, ask, loc)
	if err != nil {
		return upstreamErr(up.Name(), err)
	}
	if err := checkUpstream(up.Name(), kws); err != nil {
		return err
	}
	err = s.write(ctx, loc, func(w *writer) error {
		for _, k := range kws {
			if err := w.put(ctx, row{kw: k}, metrics); err != nil {
				return err
			}
		}
		for _, f := range askFolds {
			if err := s.recordFetch(ctx, w, "volume", f); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	got, err := s.byFold(ctx, loc.String(), askFolds)
	if err != nil {
		return err
	}
	for f, h := range got {
		found[f] = h
	}
	return nil
}

// GetSuggestions returns the cached answer for query and loc if it was
// computed with a limit of at least limit; a miss wraps seo.ErrNotFound.
func (s *Store) GetSuggestions(ctx context.Context, query string, loc seo.Locale, limit int) (*keywords.Suggestions, error) {
	var lim int
	var answer string
	var at int64
	err := s.db.QueryRowContext(ctx, s.db.Q(`SELECT lim, answer, cached_at FROM keyword_cache WHERE loc = ? AND query = ?`),
		loc.String(), keywords.NormalizePhrase(query)).Scan(&lim, &answer, &at)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && lim < limit) {
		return nil, fmt.Errorf("local: no cached answer for %q: %w", query, seo.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("local: cache: %w", err)
	}
	var res keywords.Suggestions
	if err := json.Unmarshal([]byte(answer), &res); err != nil {
		return nil, fmt.Errorf("local: cache: %w", err)
	}
	res.CachedAt = time.Unix(0, at).UTC()
	return &res, nil
}

// PutSuggestions stores an answer computed with limit as of at.
func (s *Store) PutSuggestions(ctx context.Context, res *keywords.Suggestions, limit int, at time.Time) error {
	if res == nil {
		return &seo.InputError{Field: "suggestions", Reason: "is nil"}
	}
	loc, err := seo.ParseLocale(res.Locale)
	if err != nil {
		return err
	}
	c := *res
	c.CachedAt, c.AgeSeconds = time.Time{}, 0
	b, err := json.Marshal(&c)
	if err != nil {
		return fmt.Errorf("local: cache: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err = s.db.ExecContext(ctx, s.db.Q(`INSERT INTO keyword_cache (loc, query, lim, answer, cached_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (loc, query) DO UPDATE SET lim = excluded.lim, answer = excluded.answer, cached_at = excluded.cached_at`),
		loc.String(), keywords.NormalizePhrase(res.Query), limit, string(b), at.UnixNano())
	if err != nil {
		return fmt.Errorf("local: cache: %w", err)
	}
	return nil
}
