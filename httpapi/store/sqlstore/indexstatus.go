package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

var _ store.IndexStatus = (*Store)(nil)

// MaxInspectionsPerMinute bounds the perMinute of TakeInspection: the
// places of a property's minute are rows.
const MaxInspectionsPerMinute = 10_000

const indexRunCols = `account_id, analysis_id, run_id, property, status, started_at, updated_at, lease_until, progress, report, error`

// checkIndexRun checks the fields every write of a run needs.
func checkIndexRun(r *store.IndexRun) error {
	switch {
	case r.AccountID == "":
		return &seo.InputError{Field: "accountId", Reason: "is empty"}
	case r.AnalysisID == "":
		return &seo.InputError{Field: "analysisId", Reason: "is empty"}
	case len(r.Report) > store.MaxIndexRunBytes:
		return &seo.InputError{Field: "report", Value: strconv.Itoa(len(r.Report)) + " bytes", Reason: "is larger than " + strconv.Itoa(store.MaxIndexRunBytes) + " bytes"}
	case len(r.Progress) > store.MaxIndexRunBytes:
		return &seo.InputError{Field: "progress", Reason: "is too large"}
	}
	return nil
}

// StartIndexRun stores r as the analysis's run unless one is running
// within its lease, in one INSERT ... ON CONFLICT DO UPDATE ... WHERE; the
// row read back says which run won.
func (s *Store) StartIndexRun(ctx context.Context, r *store.IndexRun) (*store.IndexRun, bool, error) {
	if err := checkIndexRun(r); err != nil {
		return nil, false, err
	}
	if r.StartedAt.IsZero() {
		r.StartedAt = now()
	}
	r.StartedAt = norm(r.StartedAt)
	r.RunID, r.Status, r.UpdatedAt = newID("isr_"), store.IndexRunning, r.StartedAt
	report, err := packNullable(r.Report)
	if err != nil {
		return nil, false, err
	}
	_, err = s.exec(ctx, "start index run", `INSERT INTO index_runs (`+indexRunCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (account_id, analysis_id) DO UPDATE SET run_id = excluded.run_id, property = excluded.property,
			status = excluded.status, started_at = excluded.started_at, updated_at = excluded.updated_at,
			lease_until = excluded.lease_until, progress = excluded.progress, report = excluded.report, error = excluded.error
		WHERE index_runs.status <> ? OR index_runs.lease_until IS NULL OR index_runs.lease_until <= ?`,
		r.AccountID, r.AnalysisID, r.RunID, r.Property, r.Status, tv(r.StartedAt), tv(r.UpdatedAt), tv(r.LeaseUntil),
		r.Progress, report, r.Error, store.IndexRunning, tv(r.StartedAt))
	if err != nil {
		return nil, false, err
	}
	cur, err := s.IndexRun(ctx, r.AccountID, r.AnalysisID)
	if err != nil {
		return nil, false, err
	}
	return cur, cur.RunID == r.RunID, nil
}

// packNullable compresses a report; nil stays NULL.
func packNullable(b []byte) ([]byte, error) {
	if b == nil {
		return nil, nil
	}
	return packResult(b)
}

// UpdateIndexRun stores the state of the run r.RunID.
func (s *Store) UpdateIndexRun(ctx context.Context, r *store.IndexRun) error {
	if err := checkIndexRun(r); err != nil {
		return err
	}
	if r.UpdatedAt.IsZero() {
		r.UpdatedAt = now()
	}
	report, err := packNullable(r.Report)
	if err != nil {
		return err
	}
	return s.execOne(ctx, "update index run", `UPDATE index_runs SET property = ?, status = ?, updated_at = ?, lease_until = ?,
		progress = ?, report = ?, error = ? WHERE account_id = ? AND analysis_id = ? AND run_id = ?`,
		r.Property, r.Status, tv(r.UpdatedAt), tv(r.LeaseUntil), r.Progress, report, r.Error, r.AccountID, r.AnalysisID, r.RunID)
}

// IndexRun returns the account's analysis's latest run.
func (s *Store) IndexRun(ctx context.Context, accountID, analysisID string) (*store.IndexRun, error) {
	var (
		r                        store.IndexRun
		started, updated, leased sql.NullInt64
		report                   []byte
	)
	err := s.db.QueryRowContext(ctx, s.db.Q(`SELECT `+indexRunCols+` FROM index_runs WHERE account_id = ? AND analysis_id = ?`), accountID, analysisID).
		Scan(&r.AccountID, &r.AnalysisID, &r.RunID, &r.Property, &r.Status, &started, &updated, &leased, &r.Progress, &report, &r.Error)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlstore: index run of analysis %q: %w", analysisID, store.ErrNotFound)
	}
	if err != nil {
		return nil, mapErr("index run", err)
	}
	r.StartedAt, r.UpdatedAt, r.LeaseUntil = tm(started), tm(updated), tm(leased)
	if report != nil {
		if r.Report, err = unpackCapped(report, store.MaxIndexRunBytes); err != nil {
			return nil, mapErr("index run", err)
		}
	}
	return &r, nil
}

// ReplaceJobResult stores a succeeded job's report and summary anew.
func (s *Store) ReplaceJobResult(ctx context.Context, accountID, id string, result, summary []byte) error {
	if len(result) == 0 {
		return &seo.InputError{Field: "result", Reason: "is empty"}
	}
	if len(result) > store.MaxJobResultBytes {
		return &seo.InputError{Field: "result", Value: strconv.Itoa(len(result)) + " bytes", Reason: "is larger than " + strconv.Itoa(store.MaxJobResultBytes) + " bytes"}
	}
	packed, err := packResult(result)
	if err != nil {
		return err
	}
	res, err := s.db.ExecContext(ctx, s.db.Q(`UPDATE jobs SET result = ?, summary = ? WHERE id = ? AND account_id = ? AND status = 'succeeded'`),
		packed, nullBytes(summary), id, accountID)
	if err != nil {
		return mapErr("replace job result", err)
	}
	if n, err := res.RowsAffected(); err != nil || n > 0 {
		return err
	}
	if _, err := s.Job(ctx, accountID, id); err != nil {
		return err
	}
	return fmt.Errorf("sqlstore: job %q has not succeeded: %w", id, store.ErrConflict)
}

// The statements of TakeInspection. A place is free when its inspection
// ended a minute ago or more (ended_at <= the cut), or has been in flight
// longer than the lease (taken_at <= the lease cut). claimSQL takes one
// free place, from a random offset so that concurrent takers seldom aim at
// the same one; the WHERE is checked again on the row it locks, so two
// takers never both hold a place.
const (
	freeCond = `((ended_at IS NOT NULL AND ended_at <= ?) OR (ended_at IS NULL AND taken_at <= ?))`
	claimSQL = `UPDATE index_quota_slots SET token = ?, taken_at = ?, ended_at = NULL
		WHERE property = ? AND slot = (SELECT slot FROM index_quota_slots WHERE property = ? AND slot < ? AND ` + freeCond + `
			ORDER BY (slot + ?) % ? LIMIT 1)
		AND ` + freeCond + ` RETURNING slot`
	seedSQL = `INSERT INTO index_quota_slots (property, slot, token, taken_at, ended_at)
		WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i + 1 < ?)
		SELECT CAST(? AS TEXT), i, '', 0, 0 FROM s WHERE true ON CONFLICT (property, slot) DO NOTHING`
	dayTakeSQL = `INSERT INTO index_quota_days (property, day, n) VALUES (?, ?, 1)
		ON CONFLICT (property, day) DO UPDATE SET n = index_quota_days.n + 1 WHERE index_quota_days.n < ?
		RETURNING n`
)

// TakeInspection takes a place in property's minute, then counts the
// inspection on day; a spent day gives the place back.
func (s *Store) TakeInspection(ctx context.Context, property, day string, at time.Time, perMinute, perDay int, lease time.Duration) (*store.InspectionTicket, time.Time, error) {
	switch {
	case property == "":
		return nil, time.Time{}, &seo.InputError{Field: "property", Reason: "is empty"}
	case day == "":
		return nil, time.Time{}, &seo.InputError{Field: "day", Reason: "is empty"}
	case perMinute <= 0 || perMinute > MaxInspectionsPerMinute:
		return nil, time.Time{}, &seo.InputError{Field: "perMinute", Value: strconv.Itoa(perMinute), Reason: "must be from 1 to " + strconv.Itoa(MaxInspectionsPerMinute)}
	case perDay <= 0:
		return nil, time.Time{}, &seo.InputError{Field: "perDay", Value: strconv.Itoa(perDay), Reason: "must be at least 1"}
	case lease <= 0:
		lease = 10 * time.Minute
	}
	cut, leaseCut := at.Add(-time.Minute).UnixMicro(), at.Add(-lease).UnixMicro()
	token := newID("")
	slot := -1
	for try := 0; slot < 0 && try < 8; try++ {
		err := s.db.QueryRowContext(ctx, s.db.Q(claimSQL), token, at.UnixMicro(), property, property, perMinute, cut, leaseCut,
			rand.IntN(perMinute), perMinute, cut, leaseCut).Scan(&slot)
		switch {
		case err == nil:
		case !errors.Is(err, sql.ErrNoRows):
			return nil, time.Time{}, mapErr("take inspection", err)
		default:
			// No free place, or another taker won the one aimed at.
			var places int
			var oldest sql.NullInt64
			if err := s.db.QueryRowContext(ctx, s.db.Q(`SELECT COUNT(*), MIN(ended_at) FROM index_quota_slots WHERE property = ? AND slot < ?`),
				property, perMinute).Scan(&places, &oldest); err != nil {
				return nil, time.Time{}, mapErr("take inspection", err)
			}
			if places < perMinute {
				if _, err := s.exec(ctx, "take inspection", seedSQL, perMinute, property); err != nil {
					return nil, time.Time{}, err
				}
				continue
			}
			if oldest.Valid && oldest.Int64 > cut {
				return nil, time.UnixMicro(oldest.Int64).Add(time.Minute).UTC(), nil
			}
			if !oldest.Valid {
				// Every place is held by an inspection in flight.
				return nil, time.Time{}, nil
			}
			// A place freed meanwhile: take again.
		}
	}
	if slot < 0 {
		return nil, at, nil
	}
	t := &store.InspectionTicket{Property: property, Slot: slot, Token: token}
	var n int
	err := s.db.QueryRowContext(ctx, s.db.Q(dayTakeSQL), property, day, perDay).Scan(&n)
	if err == nil {
		return t, time.Time{}, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return nil, time.Time{}, mapErr("take inspection", err)
	}
	// The day is spent: no inspection is made, so the place is free.
	if _, err := s.exec(ctx, "take inspection", `UPDATE index_quota_slots SET ended_at = 0 WHERE property = ? AND slot = ? AND token = ?`,
		property, slot, token); err != nil {
		return nil, time.Time{}, err
	}
	used, err := s.Inspections(ctx, property, day)
	if err != nil {
		return nil, time.Time{}, err
	}
	return nil, time.Time{}, &store.LimitError{What: "inspections", Limit: perDay, Count: used}
}

// EndInspection records the end of the ticket's inspection.
func (s *Store) EndInspection(ctx context.Context, t *store.InspectionTicket, at time.Time) error {
	if t == nil {
		return &seo.InputError{Field: "ticket", Reason: "is nil"}
	}
	_, err := s.exec(ctx, "end inspection", `UPDATE index_quota_slots SET ended_at = ? WHERE property = ? AND slot = ? AND token = ? AND ended_at IS NULL`,
		at.UnixMicro(), t.Property, t.Slot, t.Token)
	return err
}

// Inspections returns the inspections counted for property on day.
func (s *Store) Inspections(ctx context.Context, property, day string) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, s.db.Q(`SELECT n FROM index_quota_days WHERE property = ? AND day = ?`), property, day).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, mapErr("inspections", err)
	}
	return n, nil
}
