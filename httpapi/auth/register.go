package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/time/rate"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/internal/keyed"
	"github.com/seokit/seokit/seo"
)

// Clients that register themselves, by RFC 7591 dynamic registration or
// by a client ID metadata document, are public clients (no secret; PKCE
// and their redirect URIs protect their grants) owned by one account kept
// for them, RegistryAccountID, which nobody signs in to. Their grants act
// as the account that consents, like every authorization-code grant.

// RegistryAccountID owns the clients that registered themselves. It is
// created with the first of them; it has no email and no password.
const RegistryAccountID = "acct_oauth_registry"

// Limits of self-registered clients.
const (
	// DefaultMaxRegisteredClients is RegistrationOptions.MaxClients'
	// default.
	DefaultMaxRegisteredClients = 1000
	// DefaultRegistrationsPerHour is RegistrationOptions.PerAddress'
	// default.
	DefaultRegistrationsPerHour = 10
	// maxClientIDLen bounds client_id, URLs of metadata documents
	// included.
	maxClientIDLen = 1000
	// maxDocumentBytes caps a client ID metadata document.
	maxDocumentBytes = 5 << 10
	// documentTimeout bounds the fetch of a metadata document.
	documentTimeout = 5 * time.Second
	// documentTTL is how long a fetched document, or a failure to fetch
	// one, is reused.
	documentTTL     = 5 * time.Minute
	documentFailTTL = 30 * time.Second
	maxCachedDocs   = 1000
	maxRegAddrs     = 10000
	// documentFetchesPerHour bounds the metadata documents one client
	// address makes the server fetch (cache misses), so the server is no
	// one's fetching proxy.
	documentFetchesPerHour = 30
)

// RegistrationOptions bounds the clients that register themselves, so a
// stranger cannot fill the store. The zero value is usable.
type RegistrationOptions struct {
	// MaxClients is the most self-registered clients kept (dynamic
	// registrations and clients of metadata documents together); past it
	// registration answers 503 and new metadata-document clients are
	// refused. Zero means DefaultMaxRegisteredClients; negative turns
	// dynamic registration off (no registration_endpoint) and keeps the
	// default cap for metadata-document clients.
	MaxClients int
	// PerAddress is the most dynamic registrations one client address
	// (an IPv6 /64) makes an hour; zero means DefaultRegistrationsPerHour.
	PerAddress int
	// Now is the clock of the per-address limit; nil means time.Now.
	Now func() time.Time
}

func (o RegistrationOptions) withDefaults() RegistrationOptions {
	if o.MaxClients == 0 {
		o.MaxClients = DefaultMaxRegisteredClients
	}
	if o.PerAddress <= 0 {
		o.PerAddress = DefaultRegistrationsPerHour
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// capacity is the most self-registered clients kept.
func (o RegistrationOptions) capacity() int {
	if o.MaxClients < 0 {
		return DefaultMaxRegisteredClients
	}
	return o.MaxClients
}

// regLimiter limits dynamic registrations per address.
type regLimiter struct {
	mu      sync.Mutex
	now     func() time.Time
	buckets *bucketTable
	fetches *bucketTable // metadata document fetches per address
	// create serialises the count and creation of self-registered
	// clients, so this process never passes the cap.
	create sync.Mutex
}

func newRegLimiter(o *RegistrationOptions) *regLimiter {
	perHour := o.PerAddress
	return &regLimiter{
		now:     o.Now,
		buckets: newBucketTable(maxRegAddrs, rate.Limit(float64(perHour)/3600), perHour),
		fetches: newBucketTable(maxRegAddrs, rate.Limit(float64(documentFetchesPerHour)/3600), documentFetchesPerHour),
	}
}

// allow spends one registration of addr; when none is left it returns
// how long until the next.
func (l *regLimiter) allow(addr string) (bool, time.Duration) { return l.spend(l.buckets, addr) }

// allowFetch spends one metadata document fetch of addr.
func (l *regLimiter) allowFetch(addr string) (bool, time.Duration) { return l.spend(l.fetches, addr) }

func (l *regLimiter) spend(t *bucketTable, addr string) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := addrKey(addr)
	b, ok := t.get(k)
	if !ok {
		b = t.add(k)
	}
	now := l.now()
	if b.AllowN(now, 1) {
		return true, 0
	}
	return false, max(wait(b, now), time.Second)
}

// DocumentFetcher fetches client ID metadata documents; *seo.Fetcher is
// one (its address policy decides which hosts may be reached).
type DocumentFetcher interface {
	Fetch(ctx context.Context, req *seo.Request) (*seo.Response, error)
}

var _ DocumentFetcher = (*seo.Fetcher)(nil)

// docEntry is a cached metadata document: the client it describes, or why
// it cannot be used.
type docEntry struct {
	client  *store.Client
	err     *authzError
	expires time.Time
}

type docCache struct {
	mu sync.Mutex
	m  *keyed.Map[docEntry]
}

func newDocCache(n int) *docCache { return &docCache{m: keyed.New[docEntry](n)} }

// isDocumentClientID reports whether a client_id names a client ID metadata
// document: an https URL. Other client IDs ("cli_...") are looked up in the
// store.
func isDocumentClientID(id string) bool { return strings.HasPrefix(id, "https://") }

// documentClientErr is a refused metadata document: the authorization
// request fails with an error page naming the reason.
func documentClientErr(reason string) *authzError {
	return &authzError{fatal: true, status: http.StatusBadRequest, code: "invalid_client", desc: "client metadata document: " + reason}
}

// checkDocumentURL validates a client_id that is a URL: https, a path,
// no fragment, user info, query or dot segments.
func checkDocumentURL(id string) error {
	u, err := url.Parse(id)
	switch {
	case err != nil || u.Scheme != "https" || u.Host == "" || u.Opaque != "":
		return documentClientErr("client_id is not an https URL")
	case u.User != nil || u.Fragment != "" || strings.Contains(id, "#") || u.RawQuery != "" || strings.Contains(id, "?"):
		return documentClientErr("client_id must not have user info, a query or a fragment")
	case u.Path == "" || u.Path == "/":
		return documentClientErr("client_id must have a path")
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if seg == "." || seg == ".." {
			return documentClientErr("client_id must not have dot segments")
		}
	}
	return nil
}

// documentClient returns the client described by the metadata document at
// id, from the cache or fetched through Options.ClientFetcher: the
// document must be JSON of at most 5 KB, served with 200 without a
// redirect, name id as its client_id, list valid redirect URIs and
// describe a public client. The client is not stored (see
// storeDocumentClient). Fetches are limited per client address addr.
// Refusals are *authzError (fatal).
func (s *Server) documentClient(ctx context.Context, addr, id string) (*store.Client, error) {
	if s.opts.ClientFetcher == nil {
		return nil, documentClientErr("this server does not accept client ID metadata documents")
	}
	if err := checkDocumentURL(id); err != nil {
		return nil, err
	}
	now := s.now()
	s.docs.mu.Lock()
	e, ok := s.docs.m.Get(id)
	s.docs.mu.Unlock()
	if ok && now.Before(e.expires) {
		if e.err != nil {
			return nil, e.err
		}
		return e.client, nil
	}
	if ok, _ := s.regs.allowFetch(addr); !ok {
		return nil, &authzError{fatal: true, status: http.StatusTooManyRequests, code: "slow_down",
			desc: "client metadata document: too many documents fetched for this address; try again later"}
	}
	c, aerr, err := s.fetchDocument(ctx, id)
	if err != nil {
		return nil, err // the client's request ended; nothing to cache
	}
	e = docEntry{client: c, err: aerr, expires: now.Add(documentTTL)}
	if aerr != nil {
		e.expires = now.Add(documentFailTTL)
	}
	s.docs.mu.Lock()
	s.docs.m.Add(id, e)
	s.docs.mu.Unlock()
	if aerr != nil {
		return nil, aerr
	}
	return c, nil
}

// clientDocument is the part of a client ID metadata document (RFC 7591
// client metadata) seokit reads.
type clientDocument struct {
	ClientID                string   `json:"client_id"`
	ClientName              string   `json:"client_name"`
	RedirectURIs            []string `json:"redirect_uris"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	Scope                   string   `json:"scope"`
	ClientSecret            *string  `json:"client_secret"`
	ClientSecretExpiresAt   *int64   `json:"client_secret_expires_at"`
}

// fetchDocument fetches and validates the document at id. A document that
// cannot be used is aerr; err is set only when ctx ended.
func (s *Server) fetchDocument(ctx context.Context, id string) (c *store.Client, aerr *authzError, err error) {
	fctx, cancel := context.WithTimeout(ctx, documentTimeout)
	defer cancel()
	resp, ferr := s.opts.ClientFetcher.Fetch(fctx, &seo.Request{
		URL:          id,
		Header:       http.Header{"Accept": {"application/json"}},
		NoFollow:     true,
		MaxBodyBytes: maxDocumentBytes,
	})
	if ferr != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		s.opts.Logger.Info("auth: client metadata document refused", "client_id", seo.Clip(id), "err", ferr)
		if errors.Is(ferr, seo.ErrForbiddenAddress) {
			return nil, documentClientErr("its address is not allowed (private, loopback or reserved)"), nil
		}
		return nil, documentClientErr("it cannot be fetched"), nil
	}
	switch {
	case resp.TLS == nil || !resp.TLS.Verified:
		// The fetcher completes unverified handshakes (audits report
		// them); a client's identity cannot rest on one.
		return nil, documentClientErr("its TLS certificate does not verify"), nil
	case resp.Status != http.StatusOK:
		return nil, documentClientErr(fmt.Sprintf("it answered HTTP %d, not 200", resp.Status)), nil
	case resp.Truncated:
		return nil, documentClientErr(fmt.Sprintf("it is larger than %d bytes", maxDocumentBytes)), nil
	}
	if ct, _, _ := mime.ParseMediaType(resp.ContentType); ct != "application/json" {
		return nil, documentClientErr("it is not served as application/json"), nil
	}
	var doc clientDocument
	if err := json.Unmarshal(resp.Body, &doc); err != nil {
		return nil, documentClientErr("it is not a JSON object of client metadata"), nil
	}
	switch {
	case doc.ClientID != id:
		return nil, documentClientErr("its client_id differs from the URL it was fetched from"), nil
	case doc.ClientSecret != nil || doc.ClientSecretExpiresAt != nil:
		return nil, documentClientErr("it must not hold a client secret"), nil
	case doc.TokenEndpointAuthMethod != "" && doc.TokenEndpointAuthMethod != "none":
		return nil, documentClientErr("token_endpoint_auth_method must be none (a public client)"), nil
	}
	cl, merr := clientFromMetadata(id, doc.ClientName, doc.RedirectURIs, doc.GrantTypes, doc.ResponseTypes, doc.Scope)
	if merr != nil {
		return nil, documentClientErr(merr.desc), nil
	}
	// The consent page names the host that published the document, which
	// the client cannot choose freely.
	host := ""
	if u, err := url.Parse(id); err == nil {
		host = u.Host
	}
	cl.Name = clipName(cl.Name) + " (" + host + ")"
	return cl, nil, nil
}

// clipName keeps a client name displayable.
func clipName(n string) string {
	if len(n) > 100 {
		n = strings.ToValidUTF8(n[:100], "") + "..."
	}
	return n
}

// clientFromMetadata validates RFC 7591 client metadata of a public client
// and returns the client it describes (not stored).
func clientFromMetadata(id, name string, redirectURIs, grantTypes, responseTypes []string, scope string) (*store.Client, *oauthError) {
	bad := func(code, desc string) *oauthError { return oerr(http.StatusBadRequest, code, desc) }
	if len(redirectURIs) == 0 || len(redirectURIs) > maxRedirectURIs {
		return nil, bad("invalid_redirect_uri", fmt.Sprintf("redirect_uris must list 1 to %d URIs", maxRedirectURIs))
	}
	var uris []string
	for _, u := range redirectURIs {
		if err := ValidateRedirectURI(u); err != nil {
			ie, _ := seo.AsInputError(err)
			reason := "is not valid"
			if ie != nil {
				reason = ie.Reason
			}
			return nil, bad("invalid_redirect_uri", fmt.Sprintf("redirect_uris: %q %s", clip(u), reason))
		}
		if !slices.Contains(uris, u) {
			uris = append(uris, u)
		}
	}
	for _, g := range grantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			return nil, bad("invalid_client_metadata", fmt.Sprintf("grant_types: %q is not supported; use authorization_code and refresh_token", clip(g)))
		}
	}
	if len(grantTypes) > 0 && !slices.Contains(grantTypes, "authorization_code") {
		return nil, bad("invalid_client_metadata", "grant_types must include authorization_code")
	}
	for _, rt := range responseTypes {
		if rt != "code" {
			return nil, bad("invalid_client_metadata", fmt.Sprintf("response_types: %q is not supported; use code", clip(rt)))
		}
	}
	scopes, err := validateScopes("scope", strings.Fields(scope))
	if err != nil {
		return nil, bad("invalid_client_metadata", "scope must be a subset of read write")
	}
	name = strings.TrimSpace(name)
	if name == "" {
		name = "Unnamed client"
	}
	if len(name) > 200 || !utf8.ValidString(name) {
		return nil, bad("invalid_client_metadata", "client_name must be valid UTF-8 of at most 200 bytes")
	}
	if !Displayable(name) {
		return nil, bad("invalid_client_metadata", "client_name must not contain control or bidirectional formatting characters")
	}
	return &store.Client{ID: id, AccountID: RegistryAccountID, Name: name, RedirectURIs: uris, Scopes: scopes}, nil
}

// errRegistryFull refuses a self-registered client past
// RegistrationOptions.MaxClients.
var errRegistryFull = errors.New("auth: the server holds its maximum of self-registered clients")

// createRegistered stores a self-registered client under the cap, creating
// the registry account the first time.
func (s *Server) createRegistered(ctx context.Context, c *store.Client) error {
	s.regs.create.Lock()
	defer s.regs.create.Unlock()
	n, err := s.st.Clients(ctx, RegistryAccountID)
	if err != nil {
		return storeErr("registered clients", err)
	}
	if len(n) >= s.opts.Registration.capacity() {
		return errRegistryFull
	}
	if len(n) == 0 {
		if _, err := s.st.Account(ctx, RegistryAccountID); errors.Is(err, store.ErrNotFound) {
			acct := &store.Account{ID: RegistryAccountID, Name: "Self-registered OAuth clients", Plan: store.Free, CreatedAt: s.now()}
			if err := s.st.CreateAccount(ctx, acct); err != nil && !errors.Is(err, store.ErrConflict) {
				return storeErr("create registry account", err)
			}
		} else if err != nil {
			return storeErr("registry account", err)
		}
	}
	c.CreatedAt = s.now()
	if err := s.st.CreateClient(ctx, c); err != nil {
		return storeErr("create client", err)
	}
	return nil
}

// storeDocumentClient stores, or updates, the client of a metadata
// document when a user consents to it, so the token endpoint knows it.
func (s *Server) storeDocumentClient(ctx context.Context, c *store.Client) error {
	old, err := s.st.Client(ctx, c.ID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		err := s.createRegistered(ctx, c)
		if errors.Is(err, errRegistryFull) {
			return &authzError{fatal: true, status: http.StatusServiceUnavailable, code: "temporarily_unavailable", desc: "This server cannot accept new applications now. Try again later."}
		}
		if errors.Is(err, store.ErrConflict) { // stored meanwhile
			return nil
		}
		return err
	case err != nil:
		return storeErr("client", err)
	case old.AccountID != RegistryAccountID || !old.RevokedAt.IsZero():
		return &authzError{fatal: true, status: http.StatusBadRequest, code: "invalid_client", desc: "unknown client"}
	}
	if old.Name == c.Name && slices.Equal(old.RedirectURIs, c.RedirectURIs) && slices.Equal(old.Scopes, c.Scopes) {
		return nil
	}
	old.Name, old.RedirectURIs, old.Scopes = c.Name, c.RedirectURIs, c.Scopes
	if err := s.st.UpdateClient(ctx, old); err != nil {
		return storeErr("update client", err)
	}
	return nil
}

// registrationRequest is the RFC 7591 client metadata seokit reads.
type registrationRequest struct {
	RedirectURIs            []string `json:"redirect_uris"`
	ClientName              string   `json:"client_name"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	Scope                   string   `json:"scope"`
}

// handleRegister serves POST /v1/oauth/register: RFC 7591 dynamic client
// registration of public clients (token_endpoint_auth_method "none"),
// open to anyone, so bounded: RegistrationOptions.PerAddress an hour per
// client address and RegistrationOptions.MaxClients in all.
func (s *Server) handleRegister(w http.ResponseWriter, r *http.Request) {
	if s.opts.Registration.MaxClients < 0 {
		writeEnvelope(w, http.StatusNotFound, "not_found", "dynamic client registration is turned off")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxTokenBody)
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "application/json" {
		s.writeOAuthError(w, oerr(http.StatusBadRequest, "invalid_client_metadata", "the body must be application/json"))
		return
	}
	var req registrationRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		s.writeOAuthError(w, oerr(http.StatusBadRequest, "invalid_client_metadata", "the body is not a JSON object of client metadata with the types of RFC 7591"))
		return
	}
	if m := req.TokenEndpointAuthMethod; m != "" && m != "none" {
		s.writeOAuthError(w, oerr(http.StatusBadRequest, "invalid_client_metadata", "token_endpoint_auth_method must be none: dynamic registration makes public clients, which use PKCE"))
		return
	}
	c, merr := clientFromMetadata("", req.ClientName, req.RedirectURIs, req.GrantTypes, req.ResponseTypes, req.Scope)
	if merr != nil {
		s.writeOAuthError(w, merr)
		return
	}
	// Only valid requests spend the address's registrations.
	if ok, wait := s.regs.allow(s.ClientAddr(r)); !ok {
		w.Header().Set("Retry-After", strconv.Itoa(int((wait+time.Second-1)/time.Second)))
		s.writeOAuthError(w, oerr(http.StatusTooManyRequests, "slow_down", "too many registrations from this address; retry later"))
		return
	}
	c.ID = "cli_" + randomBase62(22)
	// Anyone can register any name: the consent page says it is the
	// client's own claim.
	c.Name = clipName(c.Name) + " (self-registered, unverified)"
	if err := s.createRegistered(r.Context(), c); err != nil {
		if errors.Is(err, errRegistryFull) {
			w.Header().Set("Retry-After", "3600")
			s.writeOAuthError(w, oerr(http.StatusServiceUnavailable, "temporarily_unavailable", "the server holds its maximum of self-registered clients"))
			return
		}
		s.writeOAuthError(w, err)
		return
	}
	s.opts.Logger.Info("auth: client registered", "client_id", c.ID, "addr", s.ClientAddr(r))
	grants := req.GrantTypes
	if len(grants) == 0 {
		grants = []string{"authorization_code", "refresh_token"}
	}
	noStore(w)
	writeJSON(w, http.StatusCreated, map[string]any{
		"client_id":                  c.ID,
		"client_id_issued_at":        c.CreatedAt.Unix(),
		"client_name":                c.Name,
		"redirect_uris":              c.RedirectURIs,
		"grant_types":                grants,
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": "none",
		"scope":                      strings.Join(c.Scopes, " "),
	})
}
