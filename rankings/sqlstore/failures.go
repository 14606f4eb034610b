package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
	"time"

	"github.com/seokit/seokit/rankings"
)

// RecordFailures stores failed checks in one transaction: all of them or,
// when one is invalid, none. A later failure of the same series replaces
// an earlier one (an earlier one arriving late is ignored).
func (s *Store) RecordFailures(ctx context.Context, fs []rankings.Failure) error {
	norm := make([]rankings.Failure, len(fs))
	for i, f := range fs {
		n, err := rankings.NormalizeFailure(i, f)
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
		return s.fail("record failures", err)
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, s.db.Q(`INSERT INTO rankings_failures (domain, keyword, locale, device, at_us, source, error) VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (domain, keyword, locale, device) DO UPDATE SET at_us = excluded.at_us, source = excluded.source, error = excluded.error
WHERE excluded.at_us >= rankings_failures.at_us`))
	if err != nil {
		return s.fail("record failures", err)
	}
	defer st.Close()
	for _, f := range norm {
		if _, err := st.ExecContext(ctx, f.Domain, f.Keyword, f.Locale.String(), string(f.Device), f.At.UnixMicro(), f.Source, f.Error); err != nil {
			return s.fail("record failures", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return s.fail("record failures", err)
	}
	return nil
}

// LatestFailures returns the latest failure per keyword, locale and
// device matching f, ordered by keyword, locale and device.
func (s *Store) LatestFailures(ctx context.Context, f rankings.Filter) ([]rankings.Failure, error) {
	f, err := rankings.NormalizeFilter(f, false)
	if err != nil {
		return nil, err
	}
	clauses, args := where(f)
	type row struct {
		f        rankings.Failure
		loc, dev string
		us       int64
	}
	var rs []row
	err = s.scanClauses(ctx, "latest failures", `SELECT domain, keyword, locale, device, at_us, source, error FROM rankings_failures WHERE `, clauses, args, func(rows *sql.Rows) error {
		var r row
		if err := rows.Scan(&r.f.Domain, &r.f.Keyword, &r.loc, &r.dev, &r.us, &r.f.Source, &r.f.Error); err != nil {
			return err
		}
		rs = append(rs, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(rs, func(a, b row) int {
		return cmp.Or(cmp.Compare(a.f.Domain, b.f.Domain), cmp.Compare(a.f.Keyword, b.f.Keyword),
			cmp.Compare(a.loc, b.loc), cmp.Compare(a.dev, b.dev))
	})
	if len(rs) == 0 {
		return nil, nil
	}
	out := make([]rankings.Failure, len(rs))
	locs := localeCache{}
	for i, r := range rs {
		out[i] = r.f
		out[i].Locale = locs.get(r.loc)
		out[i].Device = rankings.Device(r.dev)
		out[i].At = time.UnixMicro(r.us).UTC()
	}
	return out, nil
}
