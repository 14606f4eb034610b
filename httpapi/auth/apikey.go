package auth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"hash/crc32"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/internal/keyed"
	"github.com/seokit/seokit/seo"
)

// API key layout: KeyPrefix, keyRandomLen random base62 characters
// (≈178 bits from crypto/rand) and keyChecksumLen base62 characters of the
// CRC-32 (IEEE) of everything before them, left-padded with '0'. The
// checksum lets Authenticate reject typos and guessed keys without a store
// lookup.
const (
	KeyPrefix      = "seo_live_"
	keyRandomLen   = 30
	keyChecksumLen = 6
	keyLen         = len(KeyPrefix) + keyRandomLen + keyChecksumLen
	// keyDisplayLen is how much of a key is kept in clear as its Prefix.
	keyDisplayLen = len(KeyPrefix) + 4
)

// newAPIKey returns a fresh key value.
func newAPIKey() string {
	body := KeyPrefix + randomBase62(keyRandomLen)
	return body + keyChecksum(body)
}

// keyChecksum is the base62 CRC-32 of s, keyChecksumLen characters.
func keyChecksum(s string) string {
	n := crc32.ChecksumIEEE([]byte(s))
	var b [keyChecksumLen]byte
	for i := keyChecksumLen - 1; i >= 0; i-- {
		b[i] = base62[n%62]
		n /= 62
	}
	return string(b[:])
}

// ValidKeyFormat reports whether s has the API key layout and a correct
// checksum. It does not say whether the key exists.
func ValidKeyFormat(s string) bool {
	if len(s) != keyLen || !strings.HasPrefix(s, KeyPrefix) {
		return false
	}
	for i := len(KeyPrefix); i < len(s); i++ {
		if strings.IndexByte(base62, s[i]) < 0 {
			return false
		}
	}
	body, sum := s[:keyLen-keyChecksumLen], s[keyLen-keyChecksumLen:]
	return subtle.ConstantTimeCompare([]byte(keyChecksum(body)), []byte(sum)) == 1
}

// authenticateKey checks an API key: format and checksum first (no store
// access), then the key cache or the stored hash, revocation and expiry.
func (s *Server) authenticateKey(ctx context.Context, key string) (*Principal, error) {
	if !ValidKeyFormat(key) {
		return nil, fmt.Errorf("%w: api key has a bad format or checksum", ErrInvalidCredentials)
	}
	h := sha256.Sum256([]byte(key))
	now := s.now()
	var epoch uint64
	if s.apiKeys != nil {
		if k, ok := s.apiKeys.get(h, now); ok {
			return s.keyPrincipal(ctx, k, now)
		}
		epoch = s.apiKeys.epoch()
	}
	k, err := s.st.KeyByHash(ctx, h[:])
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("%w: unknown api key %s", ErrInvalidCredentials, key[:keyDisplayLen])
	}
	if err != nil {
		return nil, storeErr("key by hash", err)
	}
	if subtle.ConstantTimeCompare(k.Hash, h[:]) != 1 {
		return nil, fmt.Errorf("%w: unknown api key %s", ErrInvalidCredentials, key[:keyDisplayLen])
	}
	if !k.RevokedAt.IsZero() {
		return nil, fmt.Errorf("%w: api key %s revoked", ErrInvalidCredentials, k.ID)
	}
	if s.apiKeys != nil {
		s.apiKeys.put(h, k, epoch, now)
	}
	return s.keyPrincipal(ctx, k, now)
}

// keyPrincipal checks a key's expiry, records its use and returns its
// principal.
func (s *Server) keyPrincipal(ctx context.Context, k *store.APIKey, now time.Time) (*Principal, error) {
	if !k.ExpiresAt.IsZero() && !now.Before(k.ExpiresAt) {
		return nil, fmt.Errorf("%w: api key %s expired", ErrInvalidCredentials, k.ID)
	}
	s.touch(ctx, k.ID, now)
	return &Principal{
		AccountID:   k.AccountID,
		Method:      MethodAPIKey,
		Permissions: slices.Clone(k.Permissions),
		KeyID:       k.ID,
	}, nil
}

// RevokeAPIKey revokes an account's key in the store and drops it from
// this Server's key cache, so the key is refused here from the next
// request on. Other instances sharing the store refuse it once their
// cached copy is older than their KeyCacheTTL. A key of another account,
// or none, wraps store.ErrNotFound.
func (s *Server) RevokeAPIKey(ctx context.Context, accountID, id string) error {
	if accountID == "" {
		return &seo.InputError{Field: "accountId", Reason: "is empty"}
	}
	if id == "" {
		return &seo.InputError{Field: "id", Reason: "is empty"}
	}
	err := s.st.RevokeKey(ctx, accountID, id, s.now())
	if s.apiKeys != nil {
		// Dropped whatever the store said: a cached copy must not
		// outlive a revocation that may have been written.
		s.apiKeys.drop(id)
	}
	if err != nil {
		return fmt.Errorf("auth: revoke key: %w", err)
	}
	return nil
}

// touch records a key's use in the store at most once a minute per key
// (per Server); a failure is logged, not returned. The map of last touches
// is bounded: a key dropped from it is touched again on its next use.
func (s *Server) touch(ctx context.Context, id string, now time.Time) {
	s.touchMu.Lock()
	if last, ok := s.touched.Get(id); ok && now.Sub(last) < time.Minute {
		s.touchMu.Unlock()
		return
	}
	s.touched.Add(id, now)
	s.touchMu.Unlock()
	if err := s.st.TouchKey(ctx, id, now); err != nil {
		s.opts.Logger.Warn("auth: touch api key", "key", id, "err", err)
	}
}

// ValidatePermissions checks a list of API key permissions: each must be
// "read", "write" or an operation name, and read or write must be among
// them. It returns the list without duplicates.
func ValidatePermissions(perms []string) ([]string, error) {
	var out []string
	base := false
	for _, p := range perms {
		switch {
		case p == ScopeRead || p == ScopeWrite:
			base = true
		case slices.Contains(Operations, p):
		default:
			return nil, &seo.InputError{Field: "permissions", Value: p,
				Reason: "unknown permission; use read, write, " + strings.Join(Operations, ", ")}
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	if !base {
		return nil, &seo.InputError{Field: "permissions", Reason: "must include read or write"}
	}
	return out, nil
}

// CreateAPIKey makes a key for the account with the given permissions and
// returns its value, which is never shown again, and the stored record.
// Permissions are "read", "write" (which implies read) and optionally
// operation names (Operations) restricting the key to those operations. A
// zero expires means the key does not expire.
func (s *Server) CreateAPIKey(ctx context.Context, accountID, name string, permissions []string, expires time.Time) (string, *store.APIKey, error) {
	if accountID == "" {
		return "", nil, &seo.InputError{Field: "accountId", Reason: "is empty"}
	}
	if err := checkName(name); err != nil {
		return "", nil, err
	}
	perms, err := ValidatePermissions(permissions)
	if err != nil {
		return "", nil, err
	}
	now := s.now()
	if !expires.IsZero() && !expires.After(now) {
		return "", nil, &seo.InputError{Field: "expiresAt", Value: expires.Format(time.RFC3339), Reason: "is not in the future"}
	}
	value := newAPIKey()
	k := &store.APIKey{
		ID:          "key_" + randomBase62(20),
		AccountID:   accountID,
		Name:        name,
		Prefix:      value[:keyDisplayLen],
		Hash:        hash(value),
		Permissions: perms,
		CreatedAt:   now,
		ExpiresAt:   expires,
	}
	if err := s.st.CreateKey(ctx, k); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return "", nil, &seo.InputError{Field: "accountId", Value: accountID, Reason: "no such account", Err: err}
		}
		return "", nil, fmt.Errorf("auth: create key: %w", err)
	}
	return value, k, nil
}

// checkName validates a display name.
func checkName(name string) error {
	if strings.TrimSpace(name) == "" {
		return &seo.InputError{Field: "name", Reason: "is empty"}
	}
	if len(name) > 200 || !utf8.ValidString(name) {
		return &seo.InputError{Field: "name", Value: name, Reason: "must be valid UTF-8 of at most 200 bytes"}
	}
	if !Displayable(name) {
		return &seo.InputError{Field: "name", Value: name, Reason: "must not contain control or bidirectional formatting characters"}
	}
	return nil
}

// Displayable reports whether a name a user or client gives (a client's,
// key's, account's, project's or log upload's) can be shown as it reads
// on the consent page, in lists and in reports: no control characters
// and no bidirectional formatting characters, with which a name could
// reorder the text after it, such as the "(self-registered, unverified)"
// the server appends, and so show a different claim than the one made.
func Displayable(name string) bool {
	return !strings.ContainsFunc(name, func(r rune) bool {
		return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r)
	})
}

// Redacted replaces secret values in logs.
const Redacted = "REDACTED"

// SecretParams are the query parameters whose values RedactQuery
// replaces: every parameter that can carry a credential (API keys, OAuth
// tokens, codes and verifiers, client secrets, passwords).
var SecretParams = []string{
	"api_key", "apikey", "key", "access_token", "token", "id_token", "refresh_token",
	"code", "code_verifier", "client_secret", "client_assertion", "password", "secret",
}

// RedactQuery returns u as a string with the value of every query
// parameter named in SecretParams (matched after unescaping, in any case)
// replaced by REDACTED, and any user info dropped, for access logs. Other
// parameters keep their order and encoding.
func RedactQuery(u *url.URL) string {
	if u == nil {
		return ""
	}
	c := *u
	c.User = nil
	if c.RawQuery == "" {
		return c.String()
	}
	parts := strings.Split(c.RawQuery, "&")
	for i, p := range parts {
		k, _, _ := strings.Cut(p, "=")
		uk, err := url.QueryUnescape(k)
		if err != nil {
			uk = k
		}
		if slices.Contains(SecretParams, strings.ToLower(strings.TrimSpace(uk))) {
			parts[i] = k + "=" + Redacted
		}
	}
	c.RawQuery = strings.Join(parts, "&")
	return c.String()
}

// RedactHeader returns a copy of h with credential headers (Authorization,
// Proxy-Authorization, X-API-Key, Cookie, Set-Cookie) replaced by
// REDACTED, for logs.
func RedactHeader(h http.Header) http.Header {
	c := h.Clone()
	for _, k := range []string{"Authorization", "Proxy-Authorization", "X-Api-Key", "Cookie", "Set-Cookie"} {
		if _, ok := c[k]; ok {
			c[k] = []string{Redacted}
		}
	}
	return c
}

// Key cache bounds.
const (
	// DefaultKeyCacheTTL is how long a verified API key is trusted from
	// memory when Options.KeyCacheTTL is zero.
	DefaultKeyCacheTTL = 10 * time.Second
	// MaxKeyCacheTTL caps Options.KeyCacheTTL.
	MaxKeyCacheTTL = time.Minute
	// maxKeyCache bounds the number of cached keys.
	maxKeyCache = 10_000
)

// keyCache maps the SHA-256 of API keys verified against the store to
// what Authenticate needs of them, at most max keys, the least recently
// used dropped first. Unknown and revoked keys are never cached.
type keyCache struct {
	ttl time.Duration

	mu  sync.Mutex
	m   *keyed.Map[cachedKey] // by string(hash)
	gen uint64                // grows with every drop, so a lookup racing a revocation is not cached
	// byKey maps key IDs to their hash for drop. Every operation on m is
	// made on byKey too, so both hold the same keys in the same order.
	byKey *keyed.Map[string]
}

type cachedKey struct {
	k  *store.APIKey // ID, AccountID, Permissions and ExpiresAt are read
	at time.Time
}

func newKeyCache(ttl time.Duration, max int) *keyCache {
	return &keyCache{ttl: ttl, m: keyed.New[cachedKey](max), byKey: keyed.New[string](max)}
}

// get returns the key cached under h if it was verified within the TTL.
func (c *keyCache) get(h [32]byte, now time.Time) (*store.APIKey, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m.Get(string(h[:]))
	if !ok {
		return nil, false
	}
	if now.Sub(e.at) >= c.ttl || now.Before(e.at) {
		c.m.Delete(string(h[:]))
		c.byKey.Delete(e.k.ID)
		return nil, false
	}
	c.byKey.Get(e.k.ID)
	return e.k, true
}

// epoch returns the current generation, read before a store lookup.
func (c *keyCache) epoch() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// put caches k, read from the store when the generation was epoch, unless
// a key was dropped since: that lookup may predate a revocation.
func (c *keyCache) put(h [32]byte, k *store.APIKey, epoch uint64, now time.Time) {
	kept := &store.APIKey{ID: k.ID, AccountID: k.AccountID, Permissions: slices.Clone(k.Permissions), ExpiresAt: k.ExpiresAt}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != epoch {
		return
	}
	c.m.Add(string(h[:]), cachedKey{k: kept, at: now})
	c.byKey.Add(k.ID, string(h[:]))
}

// drop removes the key with this ID.
func (c *keyCache) drop(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	if h, ok := c.byKey.Get(id); ok {
		c.m.Delete(h)
		c.byKey.Delete(id)
	}
}

// len returns the number of cached keys.
func (c *keyCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m.Len()
}
