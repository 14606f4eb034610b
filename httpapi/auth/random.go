package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// randomBase62 returns n characters from crypto/rand, uniformly over the
// 62 letters and digits (rejection sampling), log2(62) ≈ 5.95 bits each.
func randomBase62(n int) string {
	out := make([]byte, 0, n)
	buf := make([]byte, n+n/4+8)
	for len(out) < n {
		rand.Read(buf)
		for _, b := range buf {
			if b < 248 { // 248 = 4*62: keeps b%62 uniform
				out = append(out, base62[b%62])
				if len(out) == n {
					break
				}
			}
		}
	}
	return string(out)
}

// randomToken returns 32 random bytes, base64url without padding (43
// characters, 256 bits).
func randomToken() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// hash is the SHA-256 under which secrets (keys, client secrets, codes,
// refresh tokens) are stored.
func hash(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}
