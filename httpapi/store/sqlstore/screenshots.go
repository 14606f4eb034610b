package sqlstore

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"strconv"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

var _ store.Screenshots = (*Store)(nil)

// PutScreenshot stores the screenshot of pageURL for job jobID (keyed by
// the SHA-256 of the URL), replacing one stored before; an unknown job is
// store.ErrNotFound.
func (s *Store) PutScreenshot(ctx context.Context, jobID, pageURL string, png []byte) error {
	if err := checkScreenshot(jobID, pageURL, png); err != nil {
		return err
	}
	h := sha256.Sum256([]byte(pageURL))
	_, err := s.exec(ctx, "put screenshot", putScreenshotSQL, jobID, h[:], pageURL, png, tv(now()))
	return err
}

// putScreenshotSQL stores or replaces a screenshot.
const putScreenshotSQL = `INSERT INTO screenshots (job_id, url_hash, url, png, created_at) VALUES (?, ?, ?, ?, ?)
	ON CONFLICT (job_id, url_hash) DO UPDATE SET url = excluded.url, png = excluded.png, created_at = excluded.created_at`

// checkScreenshot checks the arguments of PutScreenshot.
func checkScreenshot(jobID, pageURL string, png []byte) error {
	switch {
	case jobID == "":
		return &seo.InputError{Field: "jobId", Reason: "is empty"}
	case pageURL == "":
		return &seo.InputError{Field: "url", Reason: "is empty"}
	case len(png) == 0:
		return &seo.InputError{Field: "png", Reason: "is empty"}
	case len(png) > store.MaxScreenshotBytes:
		return &seo.InputError{Field: "png", Value: strconv.Itoa(len(png)) + " bytes",
			Reason: "is larger than " + strconv.Itoa(store.MaxScreenshotBytes) + " bytes"}
	}
	return nil
}

// Screenshot returns the screenshot of pageURL in the account's job;
// store.ErrNotFound when there is none or the job is another account's.
func (s *Store) Screenshot(ctx context.Context, accountID, jobID, pageURL string) ([]byte, error) {
	h := sha256.Sum256([]byte(pageURL))
	var png []byte
	err := s.db.QueryRowContext(ctx, s.db.Q(`SELECT s.png FROM screenshots s JOIN jobs j ON j.id = s.job_id
		WHERE s.job_id = ? AND s.url_hash = ? AND s.url = ? AND j.account_id = ?`), jobID, h[:], pageURL, accountID).Scan(&png)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlstore: screenshot of %q in job %q: %w", pageURL, jobID, store.ErrNotFound)
	}
	if err != nil {
		return nil, mapErr("screenshot", err)
	}
	return png, nil
}
