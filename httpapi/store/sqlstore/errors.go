package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/seokit/seokit/httpapi/store"
)

// IsUnavailable reports whether err means the database could not be
// reached or was locked (errors.Is(err, store.ErrUnavailable)).
func IsUnavailable(err error) bool {
	return errors.Is(err, store.ErrUnavailable)
}

// mapErr wraps a driver error in the store sentinel it stands for,
// keeping the cause in the message and the chain.
func mapErr(op string, err error) error {
	if err == nil {
		return nil
	}
	switch classify(err) {
	case store.ErrNotFound:
		return fmt.Errorf("sqlstore: %s: %w: %w", op, store.ErrNotFound, err)
	case store.ErrConflict:
		return fmt.Errorf("sqlstore: %s: %w: %w", op, store.ErrConflict, err)
	case store.ErrUnavailable:
		return fmt.Errorf("sqlstore: %s: %w: %w", op, store.ErrUnavailable, err)
	}
	return fmt.Errorf("sqlstore: %s: %w", op, err)
}

// classify returns the store sentinel for a driver error, or nil.
func classify(err error) error {
	if errors.Is(err, store.ErrUnavailable) || errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrNotFound) {
		return nil // already mapped
	}
	if errors.Is(err, sql.ErrNoRows) {
		return store.ErrNotFound
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		code := se.Code()
		switch code {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return store.ErrConflict
		case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
			return store.ErrNotFound
		}
		switch code & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_CANTOPEN,
			sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL, sqlite3.SQLITE_PROTOCOL:
			return store.ErrUnavailable
		}
		return nil
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "23505": // unique_violation
			return store.ErrConflict
		case pe.Code == "23503": // foreign_key_violation
			return store.ErrNotFound
		case strings.HasPrefix(pe.Code, "08"), // connection exception
			strings.HasPrefix(pe.Code, "53"),       // insufficient resources
			strings.HasPrefix(pe.Code, "57P"),      // shutdown, cannot connect now
			pe.Code == "40001", pe.Code == "40P01", // serialization failure, deadlock
			pe.Code == "55P03": // lock not available
			return store.ErrUnavailable
		}
		return nil
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	var oe *net.OpError
	switch {
	case errors.As(err, &ce), errors.As(err, &ne), errors.As(err, &oe),
		errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, driver.ErrBadConn), errors.Is(err, sql.ErrConnDone),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE), pgconn.Timeout(err):
		return store.ErrUnavailable
	}
	msg := strings.ToLower(err.Error())
	for _, s := range []string{"database is locked", "connection refused", "connection reset", "conn closed", "broken pipe", "server closed", "failed to connect"} {
		if strings.Contains(msg, s) {
			return store.ErrUnavailable
		}
	}
	return nil
}
