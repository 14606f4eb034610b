package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seokit/seokit/httpapi/store"
)

func TestMapErr(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want error // nil: no sentinel
	}{
		{"pg unique violation", &pgconn.PgError{Code: "23505", Message: "duplicate key"}, store.ErrConflict},
		{"pg foreign key violation", &pgconn.PgError{Code: "23503"}, store.ErrNotFound},
		{"pg admin shutdown", &pgconn.PgError{Code: "57P01"}, store.ErrUnavailable},
		{"pg connection failure", &pgconn.PgError{Code: "08006"}, store.ErrUnavailable},
		{"pg too many connections", &pgconn.PgError{Code: "53300"}, store.ErrUnavailable},
		{"pg syntax error", &pgconn.PgError{Code: "42601"}, nil},
		{"connection refused", fmt.Errorf("dial: %w", syscall.ECONNREFUSED), store.ErrUnavailable},
		{"connection reset", fmt.Errorf("read: %w", syscall.ECONNRESET), store.ErrUnavailable},
		{"unexpected eof", io.ErrUnexpectedEOF, store.ErrUnavailable},
		{"pool deadline", context.DeadlineExceeded, store.ErrUnavailable},
		{"locked message", errors.New("database is locked (5) (SQLITE_BUSY)"), store.ErrUnavailable},
		{"other", errors.New("sql: converting argument"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mapErr("op", tt.err)
			for _, s := range []error{store.ErrConflict, store.ErrNotFound, store.ErrUnavailable} {
				if errors.Is(got, s) != (s == tt.want) {
					t.Errorf("mapErr(%v) = %v; errors.Is(%v) = %v", tt.err, got, s, errors.Is(got, s))
				}
			}
			if !errors.Is(got, tt.err) {
				t.Errorf("mapErr(%v) = %v lost the cause", tt.err, got)
			}
		})
	}
	if mapErr("op", nil) != nil {
		t.Error("mapErr(nil) != nil")
	}
}
