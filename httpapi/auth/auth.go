package auth

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/internal/keyed"
)

// Errors of Authenticate. The API answers 401 for both.
var (
	// ErrNoCredentials: the request carries no token and no key.
	ErrNoCredentials = errors.New("auth: no credentials")
	// ErrInvalidCredentials: a token or key was sent and is not valid
	// (malformed, bad checksum, unknown, expired, revoked, wrong audience
	// ...). The wrapped message says which, for logs; clients see a
	// generic message.
	ErrInvalidCredentials = errors.New("auth: invalid credentials")
)

// Scopes of OAuth tokens and the base permissions of API keys.
const (
	ScopeRead  = "read"
	ScopeWrite = "write"
)

// Operation permissions. An API key or client whose permissions name any of
// these may perform only the named operations (still within read/write).
const (
	OpAnalyze  = "analyze"
	OpOptimize = "optimize"
	OpKeywords = "keywords"
	OpRankings = "rankings"
	OpReports  = "reports"
)

// Operations lists the operation permission names, in a stable order.
var Operations = []string{OpAnalyze, OpOptimize, OpKeywords, OpRankings, OpReports}

// Method is how a request authenticated.
type Method string

// Methods.
const (
	MethodBearer Method = "bearer"  // JWT from POST /auth/token
	MethodAPIKey Method = "api_key" // X-API-Key or api_key
	MethodOAuth  Method = "oauth"   // JWT from the authorization-code flow
)

// Principal is who a request acts as.
type Principal struct {
	AccountID string
	Method    Method
	// Permissions are the key's permissions or the token's scopes.
	Permissions []string
	KeyID       string // API key ID, for MethodAPIKey
	ClientID    string // client, for tokens
	TokenID     string // jti, for tokens
}

// Allowed reports whether the principal may perform operation, which needs
// scope ("read" or "write"). An API key whose permissions name operations
// ("analyze", "optimize", "keywords", "rankings", "reports") may perform only
// those, still within its read/write permissions.
func (p *Principal) Allowed(scope, operation string) bool {
	if p == nil {
		return false
	}
	switch scope {
	case ScopeWrite:
		if !slices.Contains(p.Permissions, ScopeWrite) {
			return false
		}
	case ScopeRead:
		if !slices.Contains(p.Permissions, ScopeRead) && !slices.Contains(p.Permissions, ScopeWrite) {
			return false
		}
	default:
		return false
	}
	restricted := false
	for _, perm := range p.Permissions {
		if slices.Contains(Operations, perm) {
			restricted = true
			if perm == operation {
				return true
			}
		}
	}
	return !restricted
}

// Options configures a Server. The zero value is usable.
type Options struct {
	// Issuer is the "iss" of tokens, checked on every token: BaseURL when
	// that is set (it must then be empty or equal to it, RFC 8414), else
	// "seokit".
	Issuer   string
	Audience string        // "aud" of tokens; default "seokit-api"
	TokenTTL time.Duration // access tokens; default 24h
	Now      func() time.Time
	Logger   *slog.Logger

	// OAuthTokenTTL is the lifetime of access tokens from the
	// authorization-code and refresh grants; default 1h (the client
	// refreshes them).
	OAuthTokenTTL time.Duration
	// CodeTTL is the lifetime of authorization codes; default 10 minutes
	// (the maximum RFC 6749 section 4.1.2 recommends).
	CodeTTL time.Duration
	// RefreshTTL is the lifetime of refresh tokens; default 30 days.
	RefreshTTL time.Duration
	// Leeway is the clock skew allowed on exp, nbf and iat; default 30s,
	// at most 60s.
	Leeway time.Duration
	// KeyRefresh is how long the signing keys are cached in memory before
	// they are read again from the store; default 30s. Keys rotated or
	// retired through this Server take effect at once.
	KeyRefresh time.Duration
	// BaseURL is the public URL clients reach the server at
	// ("https://api.example.com", behind a TLS proxy its public https
	// URL). It is the issuer: the "issuer" of the RFC 8414 metadata and
	// the "iss" of every token, and the endpoints of the metadata are
	// built from it. The request's Host header is never used. Empty means
	// no metadata (404) and the Issuer "seokit".
	BaseURL string
	// SessionAccount, when set, reports the account signed in to the
	// dashboard, so the consent page asks only for consent.
	SessionAccount func(*http.Request) (accountID string, ok bool)
	// CSRFKey is the HMAC key of the consent form's CSRF tokens; default a
	// random key per Server (forms then do not survive a restart).
	CSRFKey []byte
	// Throttle configures the throttle of failed client authentications
	// and sign-ins (see [Throttle]); its Now defaults to Options.Now.
	// Throttled requests get 429 with Retry-After.
	Throttle ThrottleOptions
	// ClientAddr returns the address of the client of r, for the
	// throttle, when the request's context has none from
	// [WithClientAddr] (package httpapi sets it from its trusted proxies).
	// Nil means the TCP peer's address.
	ClientAddr func(r *http.Request) string
	// KeyCacheTTL is how long an API key verified against the store is
	// trusted from this process's memory before it is read again; zero
	// means DefaultKeyCacheTTL (10 s), a negative value turns the cache
	// off, and it is at most MaxKeyCacheTTL. Keys revoked with
	// RevokeAPIKey are refused by this Server at once; a key revoked in
	// the store by anything else (another instance, a direct
	// store.RevokeKey) is still accepted here for at most KeyCacheTTL.
	// Expiry is checked on every request.
	KeyCacheTTL time.Duration

	// Resources are the paths under BaseURL served as OAuth protected
	// resources ("/mcp"): each publishes RFC 9728 metadata at
	// /.well-known/oauth-protected-resource followed by its path, and
	// tokens are bound to it by the resource indicator (RFC 8707) of the
	// authorization and token requests, their audience being BaseURL
	// followed by the path ([Server.ResourceURI]). Tokens for a resource
	// are accepted only by [Server.AuthenticateResource] for that
	// resource, never by [Server.Authenticate] (the API), and the other
	// way round. At most 16.
	Resources []string
	// ClientFetcher fetches OAuth Client ID Metadata Documents: a client
	// whose client_id is an https URL is described by the JSON document
	// at that URL, fetched when it asks for authorization. It must refuse
	// private and loopback addresses unless the server's address policy
	// allows them (a *seo.Fetcher does). Nil means such clients are not
	// supported (client_id_metadata_document_supported is false).
	ClientFetcher DocumentFetcher
	// Registration bounds dynamic client registration (RFC 7591).
	Registration RegistrationOptions
}

// Server authenticates requests and serves the token, OAuth and JWKS
// endpoints.
type Server struct {
	st   Store
	opts Options

	keys     keyring
	throttle *Throttle

	touchMu sync.Mutex
	touched *keyed.Map[time.Time] // API key ID -> last TouchKey

	apiKeys *keyCache // nil when KeyCacheTTL < 0

	regs *regLimiter // dynamic client registrations per address
	docs *docCache   // client ID metadata documents
}

// maxTouched bounds the map of recently touched keys.
const maxTouched = 10000

// Store is the part of the API's store the authenticator uses: accounts
// (sign-in, password changes), API keys, OAuth clients and their grants, and
// the token-signing keys. store.Store implements it.
type Store interface {
	store.Accounts
	store.Keys
	store.Clients
	store.Grants
	store.SigningKeys
}

var _ Store = (store.Store)(nil)

// New returns a Server over st, creating the first signing key if the
// store has none.
func New(ctx context.Context, st Store, opts *Options) (*Server, error) {
	if st == nil {
		return nil, errors.New("auth: nil store")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Audience == "" {
		o.Audience = "seokit-api"
	}
	if o.TokenTTL <= 0 {
		o.TokenTTL = 24 * time.Hour
	}
	if o.OAuthTokenTTL <= 0 {
		o.OAuthTokenTTL = time.Hour
	}
	if o.CodeTTL <= 0 {
		o.CodeTTL = 10 * time.Minute
	}
	if o.RefreshTTL <= 0 {
		o.RefreshTTL = 30 * 24 * time.Hour
	}
	if o.Leeway <= 0 {
		o.Leeway = 30 * time.Second
	}
	if o.Leeway > time.Minute {
		o.Leeway = time.Minute
	}
	if o.KeyRefresh <= 0 {
		o.KeyRefresh = 30 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.BaseURL != "" {
		u, err := url.Parse(o.BaseURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return nil, fmt.Errorf("auth: options: BaseURL %q is not an absolute http(s) URL", o.BaseURL)
		}
		if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			return nil, fmt.Errorf("auth: options: BaseURL %q has a query, fragment or user info", o.BaseURL)
		}
		o.BaseURL = strings.TrimSuffix(o.BaseURL, "/")
		if o.Issuer != "" && strings.TrimSuffix(o.Issuer, "/") != o.BaseURL {
			return nil, fmt.Errorf("auth: options: Issuer %q differs from BaseURL %q; the issuer is the public URL", o.Issuer, o.BaseURL)
		}
		o.Issuer = o.BaseURL
	}
	if o.Issuer == "" {
		o.Issuer = "seokit"
	}
	if len(o.CSRFKey) == 0 {
		o.CSRFKey = make([]byte, 32)
		rand.Read(o.CSRFKey)
	}
	if o.Throttle.Now == nil {
		o.Throttle.Now = o.Now
	}
	res, err := checkResourcePaths(o.Resources)
	if err != nil {
		return nil, err
	}
	o.Resources = res
	if o.Registration.Now == nil {
		o.Registration.Now = o.Now
	}
	o.Registration = o.Registration.withDefaults()
	if o.KeyCacheTTL == 0 {
		o.KeyCacheTTL = DefaultKeyCacheTTL
	}
	o.KeyCacheTTL = min(o.KeyCacheTTL, MaxKeyCacheTTL)
	s := &Server{
		st:       st,
		opts:     o,
		throttle: NewThrottle(&o.Throttle),
		touched:  keyed.New[time.Time](maxTouched),
		regs:     newRegLimiter(&o.Registration),
		docs:     newDocCache(maxCachedDocs),
	}
	if o.KeyCacheTTL > 0 {
		s.apiKeys = newKeyCache(o.KeyCacheTTL, maxKeyCache)
	}
	keys, err := s.loadKeys(ctx)
	if err != nil {
		return nil, err
	}
	if len(keys.byKID) == 0 || keys.signer == nil {
		if _, err := s.RotateSigningKey(ctx); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *Server) now() time.Time { return s.opts.Now() }

// Throttle returns the throttle of failed authentications, shared by the
// token endpoints, the consent page's sign-in, [Server.SignIn] and the
// API's key and token checks.
func (s *Server) Throttle() *Throttle { return s.throttle }

type clientAddrKey struct{}

// WithClientAddr returns ctx carrying the address of the request's client,
// as a server that knows its trusted proxies computed it.
func WithClientAddr(ctx context.Context, addr string) context.Context {
	return context.WithValue(ctx, clientAddrKey{}, addr)
}

// ClientAddr is the address of the client of r: the one of
// [WithClientAddr], else Options.ClientAddr's, else the TCP peer's.
func (s *Server) ClientAddr(r *http.Request) string {
	if a, ok := r.Context().Value(clientAddrKey{}).(string); ok && a != "" {
		return a
	}
	if s.opts.ClientAddr != nil {
		if a := s.opts.ClientAddr(r); a != "" {
			return a
		}
	}
	if ap, err := netip.ParseAddrPort(r.RemoteAddr); err == nil {
		return ap.Addr().Unmap().String()
	}
	return r.RemoteAddr
}

// Authenticate returns the principal of r: a Bearer JWT in Authorization,
// or an API key in X-API-Key or the api_key query parameter. Errors wrap
// ErrNoCredentials, ErrInvalidCredentials or store.ErrUnavailable.
func (s *Server) Authenticate(r *http.Request) (*Principal, error) {
	ctx := r.Context()
	if h := r.Header.Get("Authorization"); h != "" {
		if len(h) > maxTokenLen+len("Bearer ") {
			return nil, fmt.Errorf("%w: authorization header too long", ErrInvalidCredentials)
		}
		scheme, tok, ok := strings.Cut(h, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") {
			return nil, fmt.Errorf("%w: authorization scheme is not bearer", ErrInvalidCredentials)
		}
		return s.authenticateToken(ctx, strings.TrimSpace(tok), s.opts.Audience)
	}
	key := r.Header.Get("X-API-Key")
	if key == "" && r.URL != nil && strings.Contains(r.URL.RawQuery, "api_key") {
		key = r.URL.Query().Get("api_key")
	}
	if key != "" {
		return s.authenticateKey(ctx, key)
	}
	return nil, ErrNoCredentials
}

// storeErr wraps a store failure so it matches store.ErrUnavailable.
func storeErr(op string, err error) error {
	if errors.Is(err, store.ErrUnavailable) {
		return fmt.Errorf("auth: %s: %w", op, err)
	}
	return fmt.Errorf("auth: %s: %w: %w", op, store.ErrUnavailable, err)
}

// Register adds the auth endpoints to mux:
//
//	POST /v1/auth/token                          client credentials -> JWT
//	GET  /v1/oauth/authorize, POST same          login + consent page
//	POST /v1/oauth/token                         code and refresh grants
//	POST /v1/oauth/revoke                        RFC 7009
//	GET  /v1/auth/jwks.json, /.well-known/jwks.json
//	GET  /.well-known/oauth-authorization-server RFC 8414 metadata
//	POST /v1/oauth/register                      RFC 7591 registration
//	GET  /.well-known/oauth-protected-resource and the same followed by
//	     each of Options.Resources               RFC 9728 metadata
func (s *Server) Register(mux *http.ServeMux) {
	mux.HandleFunc("POST /v1/oauth/register", s.handleRegister)
	mux.HandleFunc("GET "+resourceMetadataPath, s.handleResourceMetadata)
	for _, p := range s.opts.Resources {
		mux.HandleFunc("GET "+resourceMetadataPath+p, s.handleResourceMetadata)
	}
	mux.HandleFunc("POST /v1/auth/token", s.handleClientToken)
	mux.HandleFunc("GET /v1/oauth/authorize", s.handleAuthorize)
	mux.Handle("POST /v1/oauth/authorize", http.NewCrossOriginProtection().Handler(http.HandlerFunc(s.handleConsent)))
	mux.HandleFunc("POST /v1/oauth/token", s.handleOAuthToken)
	mux.HandleFunc("POST /v1/oauth/revoke", s.handleRevoke)
	mux.HandleFunc("GET /v1/auth/jwks.json", s.handleJWKS)
	mux.HandleFunc("GET /.well-known/jwks.json", s.handleJWKS)
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", s.handleMetadata)
}
