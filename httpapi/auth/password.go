package auth

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/seokit/seokit/seo"
	"golang.org/x/crypto/argon2"
)

// Argon2id parameters of HashPassword: the first configuration of the
// OWASP Password Storage Cheat Sheet (19 MiB, 2 iterations, 1 lane), a
// 16-byte salt and a 32-byte hash.
const (
	argonMemory  = 19 * 1024 // KiB
	argonTime    = 2
	argonThreads = 1
	argonSaltLen = 16
	argonKeyLen  = 32
)

// Bounds on the parameters VerifyPassword accepts from a stored hash, so a
// corrupted or hostile record cannot make it allocate without limit.
const (
	maxArgonMemory  = 1 << 20 // KiB (1 GiB)
	maxArgonTime    = 20
	maxArgonThreads = 64
	maxPasswordLen  = 1024
)

// ErrBadHash reports a password hash VerifyPassword cannot read.
var ErrBadHash = errors.New("auth: malformed password hash")

// HashPassword returns the argon2id hash of password in PHC string format
// ("$argon2id$v=19$m=19456,t=2,p=1$salt$hash", base64 without padding).
func HashPassword(password string) (string, error) {
	if len(password) > maxPasswordLen {
		return "", &seo.InputError{Field: "password", Reason: fmt.Sprintf("longer than %d bytes", maxPasswordLen)}
	}
	salt := make([]byte, argonSaltLen)
	rand.Read(salt)
	key := argon2.IDKey([]byte(password), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads,
		b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// VerifyPassword reports whether password matches encoded, a hash from
// HashPassword (any argon2id parameters within sane bounds). The
// comparison takes constant time. A malformed hash returns ErrBadHash.
func VerifyPassword(encoded, password string) (bool, error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return false, ErrBadHash
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false, ErrBadHash
	}
	var m, t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &p); err != nil {
		return false, ErrBadHash
	}
	if m == 0 || m > maxArgonMemory || t == 0 || t > maxArgonTime || p == 0 || p > maxArgonThreads {
		return false, ErrBadHash
	}
	b64 := base64.RawStdEncoding
	salt, err := b64.DecodeString(parts[4])
	if err != nil || len(salt) < 8 || len(salt) > 64 {
		return false, ErrBadHash
	}
	want, err := b64.DecodeString(parts[5])
	if err != nil || len(want) < 16 || len(want) > 64 {
		return false, ErrBadHash
	}
	if len(password) > maxPasswordLen {
		return false, nil
	}
	got := argon2.IDKey([]byte(password), salt, t, m, p, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}
