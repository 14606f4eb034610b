package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/seokit/seokit/seo"
)

// Mutes returns the check IDs the account mutes for domain, nil when none.
func (s *Store) Mutes(ctx context.Context, accountID, domain string) ([]string, error) {
	var ids string
	err := s.db.QueryRowContext(ctx, s.db.Q(`SELECT ids FROM mutes WHERE account_id = ? AND domain = ?`), accountID, domain).Scan(&ids)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, mapErr("mutes", err)
	}
	return decodeList(ids)
}

// SetMutes replaces the check IDs the account mutes for domain; an empty
// list deletes the row. An unknown account is store.ErrNotFound.
func (s *Store) SetMutes(ctx context.Context, accountID, domain string, ids []string) error {
	if accountID == "" {
		return &seo.InputError{Field: "accountId", Reason: "is empty"}
	}
	if domain == "" {
		return &seo.InputError{Field: "domain", Reason: "is empty"}
	}
	if len(ids) == 0 {
		_, err := s.exec(ctx, "set mutes", `DELETE FROM mutes WHERE account_id = ? AND domain = ?`, accountID, domain)
		return err
	}
	_, err := s.exec(ctx, "set mutes",
		`INSERT INTO mutes (account_id, domain, ids, updated_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (account_id, domain) DO UPDATE SET ids = excluded.ids, updated_at = excluded.updated_at`,
		accountID, domain, encodeList(ids), tv(now()))
	return err
}
