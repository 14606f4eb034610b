package auth

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

// MinPasswordLen is the shortest new password ValidatePassword accepts, in
// bytes (OWASP Authentication Cheat Sheet: at least 8, better more; no
// composition rules).
const MinPasswordLen = 12

// ValidatePassword reports whether password may be set as a new password:
// valid UTF-8 of MinPasswordLen to 1024 bytes. Otherwise it returns an
// *seo.InputError on "password".
func ValidatePassword(password string) error {
	switch {
	case len(password) < MinPasswordLen:
		return &seo.InputError{Field: "password", Reason: fmt.Sprintf("must have at least %d characters", MinPasswordLen)}
	case len(password) > maxPasswordLen:
		return &seo.InputError{Field: "password", Reason: fmt.Sprintf("must have at most %d bytes", maxPasswordLen)}
	case !utf8.ValidString(password):
		return &seo.InputError{Field: "password", Reason: "must be valid UTF-8"}
	}
	return nil
}

// SetPassword checks password with ValidatePassword and stores its
// argon2id hash as the account's password, returning the updated account.
// Every hash has a new random salt, so dashboard sessions signed in before
// the change are refused afterwards. An unknown account wraps
// store.ErrNotFound.
func (s *Server) SetPassword(ctx context.Context, accountID, password string) (*store.Account, error) {
	if err := ValidatePassword(password); err != nil {
		return nil, err
	}
	a, err := s.st.Account(ctx, accountID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("auth: set password: %w", err)
	}
	if err != nil {
		return nil, storeErr("account", err)
	}
	if a.PasswordHash, err = HashPassword(password); err != nil {
		return nil, err
	}
	if err := s.st.UpdateAccount(ctx, a); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, fmt.Errorf("auth: set password: %w", err)
		}
		return nil, storeErr("update account", err)
	}
	return a, nil
}
