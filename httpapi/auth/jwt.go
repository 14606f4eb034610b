package auth

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

// maxTokenLen caps a bearer token before it is parsed, so oversized or
// dot-stuffed tokens are rejected without work (CVE-2025-30204 class).
const maxTokenLen = 8 << 10

// tokenType is the JWT "typ" header of access tokens (RFC 9068).
const tokenType = "at+jwt"

// Claims are the claims of a seokit access token.
type Claims struct {
	jwt.RegisteredClaims
	// Scope is the space-separated list of scopes or permissions.
	Scope string `json:"scope,omitempty"`
	// ClientID is the client the token was issued to.
	ClientID string `json:"client_id,omitempty"`
	// Family is the grant family of tokens from the authorization-code
	// flow; empty for client-credentials tokens.
	Family string `json:"fam,omitempty"`
}

// keyring is the in-memory copy of the signing keys.
type keyring struct {
	mu     sync.RWMutex
	loaded time.Time
	byKID  map[string]ed25519.PrivateKey
	order  []string // newest first
	signer *signer
	// lastMiss is when an unknown kid last reloaded the keys (UnixNano).
	lastMiss atomic.Int64
}

type signer struct {
	kid string
	key ed25519.PrivateKey
}

type keySnapshot struct {
	byKID  map[string]ed25519.PrivateKey
	order  []string
	signer *signer
	newest time.Time // CreatedAt of the newest key
}

// loadKeys reads the keys from the store and replaces the cache.
func (s *Server) loadKeys(ctx context.Context) (*keySnapshot, error) {
	now := s.now()
	list, err := s.st.SigningKeys(ctx, now)
	if err != nil {
		return nil, storeErr("load signing keys", err)
	}
	snap := &keySnapshot{byKID: make(map[string]ed25519.PrivateKey, len(list))}
	for _, k := range list {
		if !k.RetiredAt.IsZero() && !k.RetiredAt.After(now) {
			continue
		}
		if len(k.PrivateKey) != ed25519.SeedSize {
			s.opts.Logger.Warn("auth: skipping signing key with bad seed length", "kid", k.KID)
			continue
		}
		if k.CreatedAt.After(snap.newest) {
			snap.newest = k.CreatedAt
		}
		priv := ed25519.NewKeyFromSeed(k.PrivateKey)
		snap.byKID[k.KID] = priv
		snap.order = append(snap.order, k.KID)
		if snap.signer == nil && k.RetiredAt.IsZero() {
			snap.signer = &signer{kid: k.KID, key: priv}
		}
	}
	s.keys.mu.Lock()
	s.keys.byKID, s.keys.order, s.keys.signer, s.keys.loaded = snap.byKID, snap.order, snap.signer, now
	s.keys.mu.Unlock()
	return snap, nil
}

// currentKeys returns the cached keys, reloading them when older than
// Options.KeyRefresh.
func (s *Server) currentKeys(ctx context.Context) (*keySnapshot, error) {
	s.keys.mu.RLock()
	fresh := s.keys.byKID != nil && s.now().Sub(s.keys.loaded) < s.opts.KeyRefresh
	snap := &keySnapshot{byKID: s.keys.byKID, order: s.keys.order, signer: s.keys.signer}
	s.keys.mu.RUnlock()
	if fresh {
		return snap, nil
	}
	return s.loadKeys(ctx)
}

// mayReloadKeys reports whether an unknown kid may reload the keys now: at
// most once a second, so tokens with made-up kids cannot load the store.
func (s *Server) mayReloadKeys() bool {
	now := s.now().UnixNano()
	last := s.keys.lastMiss.Load()
	return now-last >= int64(time.Second) && s.keys.lastMiss.CompareAndSwap(last, now)
}

// RotateSigningKey adds a new Ed25519 signing key and returns its kid. New
// tokens are signed with it; older keys stay published and valid until
// RetireSigningKey. Retire a key only after the longest token lifetime
// (TokenTTL) has passed since rotation.
func (s *Server) RotateSigningKey(ctx context.Context) (string, error) {
	keys, err := s.loadKeys(ctx)
	if err != nil {
		return "", err
	}
	// The newest key signs, so the new one must sort after every other
	// even when the clock has not moved (or went back).
	created := s.now()
	if !created.After(keys.newest) {
		created = keys.newest.Add(time.Millisecond)
	}
	seed := make([]byte, ed25519.SeedSize)
	rand.Read(seed)
	k := &store.SigningKey{KID: "k" + randomBase62(15), PrivateKey: seed, CreatedAt: created}
	if err := s.st.AddSigningKey(ctx, k); err != nil {
		return "", storeErr("add signing key", err)
	}
	if _, err := s.loadKeys(ctx); err != nil {
		return "", err
	}
	return k.KID, nil
}

// RetireSigningKey retires a key: it leaves the JWKS and tokens signed with
// it are rejected. The newest active key cannot be retired (rotate first).
func (s *Server) RetireSigningKey(ctx context.Context, kid string) error {
	keys, err := s.loadKeys(ctx)
	if err != nil {
		return err
	}
	if _, ok := keys.byKID[kid]; !ok {
		return &seo.InputError{Field: "kid", Value: kid, Reason: "no such active signing key", Err: seo.ErrNotFound}
	}
	if keys.signer != nil && keys.signer.kid == kid {
		return &seo.InputError{Field: "kid", Value: kid, Reason: "is the current signing key; rotate first"}
	}
	if err := s.st.RetireSigningKey(ctx, kid, s.now()); err != nil {
		return storeErr("retire signing key", err)
	}
	_, err = s.loadKeys(ctx)
	return err
}

// issueToken signs an access token for audience (empty means
// Options.Audience, the API's).
func (s *Server) issueToken(ctx context.Context, accountID, clientID, family, audience string, scopes []string, ttl time.Duration) (string, *Claims, error) {
	if audience == "" {
		audience = s.opts.Audience
	}
	keys, err := s.currentKeys(ctx)
	if err != nil {
		return "", nil, err
	}
	if keys.signer == nil {
		return "", nil, fmt.Errorf("auth: no active signing key: %w", store.ErrUnavailable)
	}
	now := s.now().Truncate(time.Second)
	c := &Claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    s.opts.Issuer,
			Subject:   accountID,
			Audience:  jwt.ClaimStrings{audience},
			ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
			NotBefore: jwt.NewNumericDate(now),
			IssuedAt:  jwt.NewNumericDate(now),
			ID:        randomBase62(22),
		},
		Scope:    strings.Join(scopes, " "),
		ClientID: clientID,
		Family:   family,
	}
	t := jwt.NewWithClaims(jwt.SigningMethodEdDSA, c)
	t.Header["kid"] = keys.signer.kid
	t.Header["typ"] = tokenType
	signed, err := t.SignedString(keys.signer.key)
	if err != nil {
		return "", nil, fmt.Errorf("auth: sign token: %w", err)
	}
	return signed, c, nil
}

// parseToken verifies a token's signature and claims, without the
// revocation checks. The token must be for audience; empty means any of
// the audiences this server issues (Options.Audience and the resources
// of Options.Resources), for revocation.
func (s *Server) parseToken(ctx context.Context, raw, audience string) (*Claims, error) {
	if len(raw) > maxTokenLen {
		return nil, fmt.Errorf("%w: token longer than %d bytes", ErrInvalidCredentials, maxTokenLen)
	}
	if strings.Count(raw, ".") != 2 {
		return nil, fmt.Errorf("%w: token is not a compact JWS", ErrInvalidCredentials)
	}
	keys, err := s.currentKeys(ctx)
	if err != nil {
		return nil, err
	}
	popts := []jwt.ParserOption{
		jwt.WithValidMethods([]string{jwt.SigningMethodEdDSA.Alg()}),
		jwt.WithIssuer(s.opts.Issuer),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithLeeway(s.opts.Leeway),
		jwt.WithTimeFunc(s.now),
		jwt.WithStrictDecoding(),
	}
	if audience != "" {
		popts = append(popts, jwt.WithAudience(audience))
	} else {
		popts = append(popts, jwt.WithAudience(s.audiences()...))
	}
	p := jwt.NewParser(popts...)
	var c Claims
	_, err = p.ParseWithClaims(raw, &c, func(t *jwt.Token) (any, error) {
		if _, ok := t.Method.(*jwt.SigningMethodEd25519); !ok {
			return nil, fmt.Errorf("unexpected alg %v", t.Header["alg"])
		}
		if typ, _ := t.Header["typ"].(string); !strings.EqualFold(typ, tokenType) {
			return nil, fmt.Errorf("typ %q is not %s", typ, tokenType)
		}
		kid, _ := t.Header["kid"].(string)
		priv, ok := keys.byKID[kid]
		if !ok && s.mayReloadKeys() {
			// Another instance sharing the store may have just added
			// the key.
			if fresh, err := s.loadKeys(ctx); err == nil {
				priv, ok = fresh.byKID[kid]
			}
		}
		if !ok {
			return nil, fmt.Errorf("unknown kid %q", seo.Clip(kid))
		}
		return priv.Public(), nil
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidCredentials, err)
	}
	if c.ID == "" || c.Subject == "" {
		return nil, fmt.Errorf("%w: token lacks jti or sub", ErrInvalidCredentials)
	}
	return &c, nil
}

// authenticateToken verifies a bearer token for audience and its
// revocation state.
func (s *Server) authenticateToken(ctx context.Context, raw, audience string) (*Principal, error) {
	c, err := s.parseToken(ctx, raw, audience)
	if err != nil {
		return nil, err
	}
	revoked, err := s.st.TokenRevoked(ctx, c.ID)
	if err != nil {
		return nil, storeErr("token revoked", err)
	}
	if revoked {
		return nil, fmt.Errorf("%w: token revoked", ErrInvalidCredentials)
	}
	m := MethodBearer
	if c.Family != "" {
		m = MethodOAuth
		revoked, err := s.st.FamilyRevoked(ctx, c.Family)
		if err != nil {
			return nil, storeErr("family revoked", err)
		}
		if revoked {
			return nil, fmt.Errorf("%w: grant revoked", ErrInvalidCredentials)
		}
	}
	return &Principal{
		AccountID:   c.Subject,
		Method:      m,
		Permissions: strings.Fields(c.Scope),
		ClientID:    c.ClientID,
		TokenID:     c.ID,
	}, nil
}

// RevokeToken revokes an access token by its jti until it expires.
func (s *Server) RevokeToken(ctx context.Context, jti string, expires time.Time) error {
	if jti == "" {
		return &seo.InputError{Field: "jti", Reason: "is empty"}
	}
	if err := s.st.RevokeToken(ctx, jti, expires); err != nil {
		return storeErr("revoke token", err)
	}
	return nil
}

// JWK is one public key of the JWKS.
type JWK struct {
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	KID string `json:"kid"`
	Alg string `json:"alg"`
	Use string `json:"use"`
}

// JWKS returns the public keys that verify tokens: the signing key and
// every older key not yet retired, newest first.
func (s *Server) JWKS(ctx context.Context) ([]JWK, error) {
	keys, err := s.currentKeys(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]JWK, 0, len(keys.order))
	for _, kid := range keys.order {
		pub := keys.byKID[kid].Public().(ed25519.PublicKey)
		out = append(out, JWK{Kty: "OKP", Crv: "Ed25519", X: base64.RawURLEncoding.EncodeToString(pub), KID: kid, Alg: "EdDSA", Use: "sig"})
	}
	return out, nil
}

func (s *Server) handleJWKS(w http.ResponseWriter, r *http.Request) {
	keys, err := s.JWKS(r.Context())
	if err != nil {
		s.opts.Logger.Error("auth: jwks", "err", err)
		writeEnvelope(w, http.StatusServiceUnavailable, "unavailable", "signing keys are unavailable")
		return
	}
	w.Header().Set("Cache-Control", "public, max-age=300")
	writeJSON(w, http.StatusOK, map[string]any{"keys": keys})
}

// writeJSON writes v as JSON with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// writeEnvelope writes the /v1 error envelope.
func writeEnvelope(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"code": code, "message": msg, "status": status}})
}
