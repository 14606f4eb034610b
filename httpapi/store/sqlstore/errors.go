package sqlstore

import (
	"errors"
	"fmt"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/internal/sqldb"
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
	switch sqldb.Classify(err) {
	case sqldb.Conflict:
		return store.ErrConflict
	case sqldb.Missing:
		return store.ErrNotFound
	case sqldb.Unavailable:
		return store.ErrUnavailable
	}
	return nil
}
