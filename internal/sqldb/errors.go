package sqldb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Class is what a driver error means to a store.
type Class int

// Classes of driver errors.
const (
	// Other is any error of none of the classes below (a bug in a
	// query, a value the driver cannot convert ...).
	Other Class = iota
	// Conflict is a unique or primary-key violation.
	Conflict
	// Missing is a foreign-key violation or sql.ErrNoRows: a referenced
	// row does not exist.
	Missing
	// Unavailable is a database that cannot be reached, is busy or
	// locked, is shutting down, or aborted a transaction for a
	// serialisation failure or deadlock; retrying may help.
	Unavailable
)

// Classify returns the class of err, an error of the sqlite or pgx driver
// or of database/sql, wrapped or not.
func Classify(err error) Class {
	if err == nil {
		return Other
	}
	if errors.Is(err, sql.ErrNoRows) {
		return Missing
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		code := se.Code()
		switch code {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return Conflict
		case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
			return Missing
		}
		switch code & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_CANTOPEN,
			sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL, sqlite3.SQLITE_PROTOCOL:
			return Unavailable
		}
		return Other
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "23505": // unique_violation
			return Conflict
		case pe.Code == "23503": // foreign_key_violation
			return Missing
		case strings.HasPrefix(pe.Code, "08"), // connection exception
			strings.HasPrefix(pe.Code, "53"),       // insufficient resources
			strings.HasPrefix(pe.Code, "57P"),      // shutdown, cannot connect now
			pe.Code == "40001", pe.Code == "40P01", // serialization failure, deadlock
			pe.Code == "55P03": // lock not available
			return Unavailable
		}
		return Other
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
		return Unavailable
	}
	msg := strings.ToLower(err.Error())
	for _, s := range []string{"database is locked", "connection refused", "connection reset", "conn closed", "broken pipe", "server closed", "failed to connect"} {
		if strings.Contains(msg, s) {
			return Unavailable
		}
	}
	return Other
}
