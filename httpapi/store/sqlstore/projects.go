package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

const projectCols = `id, account_id, name, domain, time_zone, config, keywords, created_at, updated_at`

func scanProject(r rowScanner) (*store.Project, error) {
	var (
		p                store.Project
		keywords         string
		created, updated sql.NullInt64
	)
	if err := r.Scan(&p.ID, &p.AccountID, &p.Name, &p.Domain, &p.TimeZone, &p.Config, &keywords, &created, &updated); err != nil {
		return nil, err
	}
	var err error
	if p.Keywords, err = decodeList(keywords); err != nil {
		return nil, err
	}
	p.CreatedAt, p.UpdatedAt = tm(created), tm(updated)
	return &p, nil
}

// checkProject checks what every stored project needs.
func checkProject(p *store.Project) error {
	switch {
	case p == nil:
		return &seo.InputError{Field: "project", Reason: "is nil"}
	case p.AccountID == "":
		return &seo.InputError{Field: "accountId", Reason: "is empty"}
	case p.Domain == "":
		return &seo.InputError{Field: "domain", Reason: "is empty"}
	}
	if p.TimeZone == "" {
		p.TimeZone = "UTC"
	}
	return nil
}

// CreateProject stores a new project. An empty ID is filled with a random
// "prj_..." one, zero times with now, an empty time zone with "UTC". A
// second project of the account for the same domain is
// store.ErrConflict; an unknown account store.ErrNotFound.
func (s *Store) CreateProject(ctx context.Context, p *store.Project) error {
	if err := prepareProject(p); err != nil {
		return err
	}
	_, err := s.exec(ctx, "create project", insertProjectSQL, projectArgs(p)...)
	return err
}

// prepareProject checks a new project and fills its defaults.
func prepareProject(p *store.Project) error {
	if err := checkProject(p); err != nil {
		return err
	}
	if p.ID == "" {
		p.ID = newID("prj_")
	}
	if p.CreatedAt.IsZero() {
		p.CreatedAt = now()
	}
	if p.UpdatedAt.IsZero() {
		p.UpdatedAt = p.CreatedAt
	}
	p.CreatedAt, p.UpdatedAt = norm(p.CreatedAt), norm(p.UpdatedAt)
	return nil
}

// insertProjectSQL stores a project; projectArgs are its arguments.
const insertProjectSQL = `INSERT INTO projects (` + projectCols + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`

func projectArgs(p *store.Project) []any {
	return []any{p.ID, p.AccountID, p.Name, p.Domain, p.TimeZone, nullBytes(p.Config), encodeList(p.Keywords), tv(p.CreatedAt), tv(p.UpdatedAt)}
}

// Project returns the account's project; another account's is
// store.ErrNotFound.
func (s *Store) Project(ctx context.Context, accountID, id string) (*store.Project, error) {
	p, err := scanProject(s.db.QueryRowContext(ctx, s.db.Q(`SELECT `+projectCols+` FROM projects WHERE id = ? AND account_id = ?`), id, accountID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlstore: project %q: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return nil, mapErr("project", err)
	}
	return p, nil
}

// Projects lists the account's projects, newest first, at most
// store.MaxProjects.
func (s *Store) Projects(ctx context.Context, accountID string) ([]store.Project, error) {
	rows, err := s.db.QueryContext(ctx, s.db.Q(`SELECT `+projectCols+` FROM projects WHERE account_id = ?
		ORDER BY created_at DESC, id DESC LIMIT ?`), accountID, store.MaxProjects)
	if err != nil {
		return nil, mapErr("projects", err)
	}
	defer rows.Close()
	var out []store.Project
	for rows.Next() {
		p, err := scanProject(rows)
		if err != nil {
			return nil, mapErr("projects", err)
		}
		out = append(out, *p)
	}
	if err := rows.Err(); err != nil {
		return nil, mapErr("projects", err)
	}
	return out, nil
}

// UpdateProject stores the project's name, domain, time zone, config and
// keywords; a zero UpdatedAt is set to now. Another account's project is
// store.ErrNotFound, a domain another of the account's projects has
// store.ErrConflict.
func (s *Store) UpdateProject(ctx context.Context, p *store.Project) error {
	if err := checkProject(p); err != nil {
		return err
	}
	if p.UpdatedAt.IsZero() {
		p.UpdatedAt = now()
	}
	p.UpdatedAt = norm(p.UpdatedAt)
	return s.execOne(ctx, "update project", `UPDATE projects SET name = ?, domain = ?, time_zone = ?, config = ?, keywords = ?, updated_at = ?
		WHERE id = ? AND account_id = ?`,
		p.Name, p.Domain, p.TimeZone, nullBytes(p.Config), encodeList(p.Keywords), tv(p.UpdatedAt), p.ID, p.AccountID)
}

// DeleteProject deletes the account's project; the tables that reference
// it cascade, and its jobs keep existing without a project (ON DELETE SET
// NULL). Another account's project is store.ErrNotFound.
func (s *Store) DeleteProject(ctx context.Context, accountID, id string) error {
	return s.execOne(ctx, "delete project", `DELETE FROM projects WHERE id = ? AND account_id = ?`, id, accountID)
}

// ProjectJobs lists the jobs of the account's project, newest first, at
// most limit (1 to MaxJobs; zero or less means 100), with their summaries
// but without their results.
func (s *Store) ProjectJobs(ctx context.Context, accountID, projectID string, limit int) ([]store.Job, error) {
	if limit <= 0 {
		limit = 100
	}
	limit = min(limit, MaxJobs)
	return s.jobs(ctx, "project jobs", `SELECT `+jobListCols+` FROM jobs WHERE account_id = ? AND project_id = ?
		ORDER BY created_at DESC, id DESC LIMIT ?`, accountID, projectID, limit)
}
