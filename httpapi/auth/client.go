package auth

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"net/mail"
	"net/netip"
	"net/url"
	"slices"
	"strings"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

// Limits on client registration.
const (
	maxRedirectURIs   = 20
	maxRedirectURILen = 2000
)

// clientSecretPrefix starts every client secret.
const clientSecretPrefix = "seo_secret_"

// ValidateRedirectURI checks a redirect URI for registration: absolute,
// https (http only on a loopback host: localhost, 127.0.0.0/8, ::1), no
// user info, no fragment. Authorization requests must then repeat it
// byte for byte.
func ValidateRedirectURI(raw string) error {
	bad := func(reason string) error {
		return &seo.InputError{Field: "redirectUris", Value: raw, Reason: reason}
	}
	if raw == "" || len(raw) > maxRedirectURILen {
		return bad(fmt.Sprintf("must have 1 to %d bytes", maxRedirectURILen))
	}
	if strings.Contains(raw, "#") {
		return bad("must not have a fragment")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return bad("is not a URL")
	}
	if u.Host == "" || u.Opaque != "" {
		return bad("must be an absolute URL")
	}
	if u.User != nil {
		return bad("must not have user info")
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !loopbackHost(u.Hostname()) {
			return bad("must use https (http only on loopback hosts)")
		}
	default:
		return bad("must use https")
	}
	return nil
}

func loopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && a.IsLoopback()
}

// validateScopes checks client scopes ⊆ {read, write}; empty means both.
func validateScopes(field string, scopes []string) ([]string, error) {
	if len(scopes) == 0 {
		return []string{ScopeRead, ScopeWrite}, nil
	}
	var out []string
	for _, sc := range scopes {
		if sc != ScopeRead && sc != ScopeWrite {
			return nil, &seo.InputError{Field: field, Value: sc, Reason: "unknown scope; use read or write"}
		}
		if !slices.Contains(out, sc) {
			out = append(out, sc)
		}
	}
	return out, nil
}

// CreateClient makes an API client / OAuth application and returns its
// secret, which is never shown again. Scopes are "read" and "write" (empty
// means both); redirect URIs are needed only for the OAuth flow. An
// account holds at most store.MaxClients: the next is a *store.LimitError.
func (s *Server) CreateClient(ctx context.Context, accountID, name string, redirectURIs, scopes []string) (string, *store.Client, error) {
	if accountID == "" {
		return "", nil, &seo.InputError{Field: "accountId", Reason: "is empty"}
	}
	if err := checkName(name); err != nil {
		return "", nil, err
	}
	if len(redirectURIs) > maxRedirectURIs {
		return "", nil, &seo.InputError{Field: "redirectUris", Reason: fmt.Sprintf("more than %d", maxRedirectURIs)}
	}
	var uris []string
	for _, u := range redirectURIs {
		if err := ValidateRedirectURI(u); err != nil {
			return "", nil, err
		}
		if !slices.Contains(uris, u) {
			uris = append(uris, u)
		}
	}
	sc, err := validateScopes("scopes", scopes)
	if err != nil {
		return "", nil, err
	}
	secret := clientSecretPrefix + randomBase62(40)
	c := &store.Client{
		ID:           "cli_" + randomBase62(22),
		AccountID:    accountID,
		Name:         name,
		SecretHash:   hash(secret),
		RedirectURIs: uris,
		Scopes:       sc,
		CreatedAt:    s.now(),
	}
	// Capped as API keys are: the dashboard created any number.
	if err := s.st.CreateClientWithin(ctx, c, store.MaxClients); err != nil {
		var le *store.LimitError
		if errors.As(err, &le) {
			return "", nil, err
		}
		if errors.Is(err, store.ErrNotFound) {
			return "", nil, &seo.InputError{Field: "accountId", Value: accountID, Reason: "no such account", Err: err}
		}
		return "", nil, fmt.Errorf("auth: create client: %w", err)
	}
	return secret, c, nil
}

// RotateClientSecret gives an account's client a new secret, returned once;
// the old secret stops working at once.
func (s *Server) RotateClientSecret(ctx context.Context, accountID, clientID string) (string, error) {
	c, err := s.st.Client(ctx, clientID)
	if errors.Is(err, store.ErrNotFound) || err == nil && c.AccountID != accountID {
		return "", &seo.InputError{Field: "clientId", Value: clientID, Reason: "no such client", Err: store.ErrNotFound}
	}
	if err != nil {
		return "", storeErr("client", err)
	}
	secret := clientSecretPrefix + randomBase62(40)
	c.SecretHash = hash(secret)
	if err := s.st.UpdateClient(ctx, c); err != nil {
		return "", fmt.Errorf("auth: update client: %w", err)
	}
	return secret, nil
}

// dummySecretHash is compared against when a client does not exist, so an
// unknown client_id takes as long as a wrong secret.
var dummySecretHash = hash("seokit-no-such-client")

// errClient is a client authentication failure (invalid_client).
var errClient = errors.New("auth: invalid client")

// authenticateClient checks a client's credentials in constant time over
// the hashes, sent from addr. Failures are throttled per (addr, client_id)
// as [Throttle] describes. A public client (no secret: registered
// dynamically or described by a metadata document) is identified by its
// client_id alone and must send no secret; PKCE and the redirect URI
// protect its grants.
func (s *Server) authenticateClient(ctx context.Context, addr, id, secret string) (*store.Client, error) {
	identity := ""
	if id != "" && len(id) <= maxClientIDLen {
		identity = "client:" + id
	}
	at, err := s.throttle.Begin(ctx, addr, identity)
	if err != nil {
		return nil, err
	}
	if identity != "" && secret == "" {
		c, err := s.st.Client(ctx, id)
		switch {
		case errors.Is(err, store.ErrNotFound):
		case err != nil:
			at.Succeeded() // nothing was checked
			return nil, storeErr("client", err)
		case len(c.SecretHash) == 0 && c.RevokedAt.IsZero():
			at.Succeeded()
			return c, nil
		}
		return nil, failed(at, fmt.Errorf("%w: no secret for a confidential or unknown client", errClient))
	}
	if identity == "" || secret == "" || len(secret) > 200 {
		return nil, failed(at, fmt.Errorf("%w: missing or oversized credentials", errClient))
	}
	c, err := s.st.Client(ctx, id)
	want := dummySecretHash
	switch {
	case errors.Is(err, store.ErrNotFound):
		c = nil
	case err != nil:
		at.Succeeded() // nothing was checked
		return nil, storeErr("client", err)
	default:
		want = c.SecretHash
	}
	ok := subtle.ConstantTimeCompare(hash(secret), want) == 1
	if c == nil || !ok || !c.RevokedAt.IsZero() || len(c.SecretHash) == 0 {
		return nil, failed(at, fmt.Errorf("%w: unknown client, wrong secret or revoked client", errClient))
	}
	at.Succeeded()
	return c, nil
}

// failed ends at as failed and returns err, or the throttle's refusal
// (which wraps err) when the address has spent its failures.
func failed(at *Attempt, err error) error {
	if terr := at.Failed(); terr != nil {
		return fmt.Errorf("%w: %w", terr, err)
	}
	return err
}

// CreateAccount makes an account; password may be empty (no sign-in).
// Passwords need 8 to 1024 bytes and are stored as argon2id hashes.
func (s *Server) CreateAccount(ctx context.Context, email, name, password string, plan store.Plan) (*store.Account, error) {
	addr, err := mail.ParseAddress(email)
	if err != nil || addr.Address != strings.TrimSpace(email) || len(email) > 254 {
		return nil, &seo.InputError{Field: "email", Value: email, Reason: "is not an email address"}
	}
	if err := checkName(name); err != nil {
		return nil, err
	}
	switch plan {
	case "":
		plan = store.Free
	case store.Free, store.Pro, store.Enterprise:
	default:
		return nil, &seo.InputError{Field: "plan", Value: string(plan), Reason: "unknown plan; use free, pro or enterprise"}
	}
	var ph string
	if password != "" {
		if len(password) < 8 {
			return nil, &seo.InputError{Field: "password", Reason: "shorter than 8 bytes"}
		}
		if ph, err = HashPassword(password); err != nil {
			return nil, err
		}
	}
	a := &store.Account{
		ID:           "acct_" + randomBase62(20),
		Email:        strings.ToLower(addr.Address),
		Name:         name,
		PasswordHash: ph,
		Plan:         plan,
		CreatedAt:    s.now(),
	}
	if err := s.st.CreateAccount(ctx, a); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return nil, &seo.InputError{Field: "email", Value: email, Reason: "is already registered", Err: err}
		}
		return nil, fmt.Errorf("auth: create account: %w", err)
	}
	return a, nil
}

// dummyPasswordHash is verified against when an email is unknown, so the
// answer takes as long as for a wrong password.
var dummyPasswordHash, _ = HashPassword("seokit-no-such-account")

// SignIn checks the email and password of an account sent in r (the
// dashboard's and the consent page's sign-in forms). Attempts are
// throttled per (client address, email) as [Throttle] describes. Errors
// wrap ErrInvalidCredentials (wrong email or password), ErrThrottled (a
// *ThrottledError, answer 429 with its Retry-After) or
// store.ErrUnavailable.
func (s *Server) SignIn(r *http.Request, email, password string) (*store.Account, error) {
	ctx := r.Context()
	email = strings.ToLower(strings.TrimSpace(email))
	identity := ""
	if email != "" && len(email) <= 254 {
		identity = "login:" + email
	}
	at, err := s.throttle.Begin(ctx, s.ClientAddr(r), identity)
	if err != nil {
		return nil, err
	}
	if identity == "" || len(password) > maxPasswordLen {
		return nil, failed(at, fmt.Errorf("%w: bad email or password", ErrInvalidCredentials))
	}
	a, err := s.st.AccountByEmail(ctx, email)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		at.Succeeded() // nothing was checked
		return nil, storeErr("account by email", err)
	}
	ph := dummyPasswordHash
	if a != nil && err == nil && a.PasswordHash != "" {
		ph = a.PasswordHash
	}
	ok, verr := VerifyPassword(ph, password)
	if err != nil || verr != nil || !ok || a.PasswordHash == "" {
		return nil, failed(at, fmt.Errorf("%w: bad email or password", ErrInvalidCredentials))
	}
	at.Succeeded()
	return a, nil
}
