package auth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/seokit/seokit/httpapi/store"
)

// maxTokenBody caps the body of the token endpoints.
const maxTokenBody = 16 << 10

// oauthError is an RFC 6749 section 5.2 error.
type oauthError struct {
	status int
	code   string
	desc   string
	basic  bool // the client used HTTP Basic: add WWW-Authenticate
}

func (e *oauthError) Error() string { return "auth: " + e.code + ": " + e.desc }

func oerr(status int, code, desc string) *oauthError {
	return &oauthError{status: status, code: code, desc: desc}
}

// writeOAuthError writes e in the RFC 6749 section 5.2 format.
func (s *Server) writeOAuthError(w http.ResponseWriter, err error) {
	var e *oauthError
	switch {
	case errors.Is(err, ErrThrottled):
		// RFC 6749 has no code for it; slow_down is the registered one
		// (RFC 8628) that clients treat as "wait and retry".
		w.Header().Set("Retry-After", strconv.Itoa(RetryAfterSeconds(err)))
		e = oerr(http.StatusTooManyRequests, "slow_down", "too many failed attempts; retry later")
	case errors.As(err, &e):
	case errors.Is(err, errClient):
		e = oerr(http.StatusUnauthorized, "invalid_client", "client authentication failed")
	default:
		s.opts.Logger.Error("auth: token endpoint", "err", err)
		e = oerr(http.StatusServiceUnavailable, "temporarily_unavailable", "the server cannot answer now; retry later")
	}
	if e.status == http.StatusUnauthorized && e.basic {
		w.Header().Set("WWW-Authenticate", `Basic realm="seokit", charset="UTF-8"`)
	}
	noStore(w)
	writeJSON(w, e.status, map[string]string{"error": e.code, "error_description": e.desc})
}

func noStore(w http.ResponseWriter) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
}

// tokenRequest is a token-endpoint request, from a form or a JSON body.
type tokenRequest struct {
	params       map[string]string
	clientID     string
	clientSecret string
	basic        bool
	json         bool
	addr         string // the client's address, for the throttle
}

func (t *tokenRequest) get(k string) string { return t.params[k] }

// tokenParams are the fields the token endpoints read.
var tokenParams = []string{"grant_type", "code", "redirect_uri", "code_verifier", "refresh_token", "scope",
	"client_id", "client_secret", "token", "token_type_hint", "resource"}

// readTokenRequest parses a form (RFC 6749) or JSON (the spec) body and the
// client credentials (HTTP Basic or body, not both).
func (s *Server) readTokenRequest(w http.ResponseWriter, r *http.Request) (*tokenRequest, error) {
	r.Body = http.MaxBytesReader(w, r.Body, maxTokenBody)
	t := &tokenRequest{params: map[string]string{}, addr: s.ClientAddr(r)}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		t.json = true
		var body map[string]any
		dec := json.NewDecoder(r.Body)
		if err := dec.Decode(&body); err != nil {
			return nil, oerr(http.StatusBadRequest, "invalid_request", "the body is not a JSON object")
		}
		for k, v := range body {
			if !slices.Contains(tokenParams, k) {
				continue
			}
			sv, ok := v.(string)
			if !ok {
				return nil, oerr(http.StatusBadRequest, "invalid_request", fmt.Sprintf("%s must be a string", k))
			}
			t.params[k] = sv
		}
	case "application/x-www-form-urlencoded":
		if err := r.ParseForm(); err != nil {
			return nil, oerr(http.StatusBadRequest, "invalid_request", "the form body cannot be parsed")
		}
		for _, k := range tokenParams {
			if vs := r.PostForm[k]; len(vs) > 0 {
				if len(vs) > 1 {
					return nil, oerr(http.StatusBadRequest, "invalid_request", k+" is repeated")
				}
				t.params[k] = vs[0]
			}
		}
	default:
		return nil, oerr(http.StatusBadRequest, "invalid_request", "the body must be application/x-www-form-urlencoded or application/json")
	}
	if id, secret, ok := r.BasicAuth(); ok {
		// RFC 6749 section 2.3.1: both are form-urlencoded first.
		uid, err1 := url.QueryUnescape(id)
		usec, err2 := url.QueryUnescape(secret)
		if err1 != nil || err2 != nil {
			e := oerr(http.StatusUnauthorized, "invalid_client", "malformed basic credentials")
			e.basic = true
			return nil, e
		}
		if t.params["client_secret"] != "" {
			return nil, oerr(http.StatusBadRequest, "invalid_request", "use one client authentication method")
		}
		if t.params["client_id"] != "" && t.params["client_id"] != uid {
			return nil, oerr(http.StatusBadRequest, "invalid_request", "client_id differs from the basic credentials")
		}
		t.clientID, t.clientSecret, t.basic = uid, usec, true
	} else {
		t.clientID, t.clientSecret = t.params["client_id"], t.params["client_secret"]
	}
	return t, nil
}

// client authenticates the request's client.
func (s *Server) client(ctx context.Context, t *tokenRequest) (*store.Client, error) {
	c, err := s.authenticateClient(ctx, t.addr, t.clientID, t.clientSecret)
	if errors.Is(err, errClient) && !errors.Is(err, ErrThrottled) {
		e := oerr(http.StatusUnauthorized, "invalid_client", "client authentication failed")
		e.basic = t.basic
		s.opts.Logger.Info("auth: client authentication failed", "client_id", t.clientID, "err", err)
		return nil, e
	}
	return c, err
}

// tokenResponse is the JSON of a successful token request.
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	RefreshToken string `json:"refresh_token,omitempty"`
	Scope        string `json:"scope,omitempty"`
}

func writeToken(w http.ResponseWriter, tr *tokenResponse) {
	noStore(w)
	writeJSON(w, http.StatusOK, tr)
}

// requestedScopes parses a space-separated scope parameter and checks it
// against allowed; empty means all of allowed.
func requestedScopes(param string, allowed []string) ([]string, error) {
	if strings.TrimSpace(param) == "" {
		return slices.Clone(allowed), nil
	}
	var out []string
	for _, sc := range strings.Fields(param) {
		if !slices.Contains(allowed, sc) {
			return nil, oerr(http.StatusBadRequest, "invalid_scope", fmt.Sprintf("scope %q is not allowed", clip(sc)))
		}
		if !slices.Contains(out, sc) {
			out = append(out, sc)
		}
	}
	return out, nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// handleClientToken serves POST /v1/auth/token: client credentials -> JWT.
func (s *Server) handleClientToken(w http.ResponseWriter, r *http.Request) {
	t, err := s.readTokenRequest(w, r)
	if err != nil {
		s.writeOAuthError(w, err)
		return
	}
	if gt := t.get("grant_type"); gt != "" && gt != "client_credentials" {
		s.writeOAuthError(w, oerr(http.StatusBadRequest, "unsupported_grant_type", "this endpoint serves client_credentials"))
		return
	}
	if !t.json && t.get("grant_type") == "" {
		s.writeOAuthError(w, oerr(http.StatusBadRequest, "invalid_request", "grant_type is required"))
		return
	}
	tr, err := s.clientCredentials(r.Context(), t)
	if err != nil {
		s.writeOAuthError(w, err)
		return
	}
	writeToken(w, tr)
}

func (s *Server) clientCredentials(ctx context.Context, t *tokenRequest) (*tokenResponse, error) {
	c, err := s.client(ctx, t)
	if err != nil {
		return nil, err
	}
	if len(c.SecretHash) == 0 {
		return nil, oerr(http.StatusBadRequest, "unauthorized_client", "a public client cannot use client_credentials")
	}
	scopes, err := requestedScopes(t.get("scope"), c.Scopes)
	if err != nil {
		return nil, err
	}
	aud, err := s.checkResource(t.get("resource"))
	if err != nil {
		return nil, err
	}
	tok, _, err := s.issueToken(ctx, c.AccountID, c.ID, "", aud, scopes, s.opts.TokenTTL)
	if err != nil {
		return nil, err
	}
	return &tokenResponse{AccessToken: tok, TokenType: "Bearer", ExpiresIn: int64(s.opts.TokenTTL / time.Second), Scope: strings.Join(scopes, " ")}, nil
}

// handleOAuthToken serves POST /v1/oauth/token.
func (s *Server) handleOAuthToken(w http.ResponseWriter, r *http.Request) {
	t, err := s.readTokenRequest(w, r)
	if err != nil {
		s.writeOAuthError(w, err)
		return
	}
	ctx := r.Context()
	var tr *tokenResponse
	switch t.get("grant_type") {
	case "authorization_code":
		tr, err = s.codeGrant(ctx, t)
	case "refresh_token":
		tr, err = s.refreshGrant(ctx, t)
	case "client_credentials":
		tr, err = s.clientCredentials(ctx, t)
	case "":
		err = oerr(http.StatusBadRequest, "invalid_request", "grant_type is required")
	default:
		err = oerr(http.StatusBadRequest, "unsupported_grant_type", "use authorization_code, refresh_token or client_credentials")
	}
	if err != nil {
		s.writeOAuthError(w, err)
		return
	}
	writeToken(w, tr)
}

func invalidGrant(desc string) error { return oerr(http.StatusBadRequest, "invalid_grant", desc) }

// validVerifier checks RFC 7636 section 4.1: 43 to 128 unreserved chars.
func validVerifier(v string) bool {
	if len(v) < 43 || len(v) > 128 {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
			return false
		}
	}
	return true
}

// s256 is the PKCE S256 challenge of verifier.
func s256(verifier string) string {
	h := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(h[:])
}

func (s *Server) codeGrant(ctx context.Context, t *tokenRequest) (*tokenResponse, error) {
	c, err := s.client(ctx, t)
	if err != nil {
		return nil, err
	}
	code, redirect, verifier := t.get("code"), t.get("redirect_uri"), t.get("code_verifier")
	if code == "" || redirect == "" {
		return nil, oerr(http.StatusBadRequest, "invalid_request", "code and redirect_uri are required")
	}
	if verifier == "" {
		return nil, oerr(http.StatusBadRequest, "invalid_request", "code_verifier is required (PKCE)")
	}
	if !validVerifier(verifier) {
		return nil, oerr(http.StatusBadRequest, "invalid_request", "code_verifier must be 43 to 128 unreserved characters")
	}
	now := s.now()
	// The request is checked before the code is spent: a code presented
	// by another client, late, with another redirect_uri or without its
	// verifier stays usable by the client it was issued to.
	ac, err := s.st.Code(ctx, hash(code))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, invalidGrant("unknown code")
	case err != nil:
		return nil, storeErr("read code", err)
	}
	if ac.ClientID != c.ID {
		return nil, invalidGrant("the code was issued to another client")
	}
	if !now.Before(ac.ExpiresAt) {
		return nil, invalidGrant("the code has expired")
	}
	if ac.RedirectURI != redirect {
		return nil, invalidGrant("redirect_uri differs from the authorization request")
	}
	if subtle.ConstantTimeCompare([]byte(s256(verifier)), []byte(ac.Challenge)) != 1 {
		return nil, invalidGrant("code_verifier does not match the code_challenge")
	}
	// RFC 8707 section 2.2: the token request may repeat the resource of
	// the authorization request, never name another.
	if res := t.get("resource"); res != "" && res != ac.Resource {
		return nil, oerr(http.StatusBadRequest, "invalid_target", "resource differs from the authorization request's")
	}
	ac, err = s.st.UseCode(ctx, hash(code), now)
	switch {
	case errors.Is(err, store.ErrUsed):
		// RFC 6749 section 4.1.2: revoke what the code produced.
		if rerr := s.st.RevokeFamily(ctx, ac.FamilyID, now); rerr != nil {
			return nil, storeErr("revoke family", rerr)
		}
		s.opts.Logger.Warn("auth: authorization code reused; grant revoked", "client_id", c.ID, "family", ac.FamilyID)
		return nil, invalidGrant("the code was already used")
	case errors.Is(err, store.ErrNotFound):
		return nil, invalidGrant("unknown code")
	case err != nil:
		return nil, storeErr("use code", err)
	}
	return s.issuePair(ctx, ac.AccountID, c.ID, ac.FamilyID, ac.Resource, ac.Scopes)
}

// issuePair issues an access token and a refresh token of a grant family,
// bound to resource (empty: the API).
func (s *Server) issuePair(ctx context.Context, accountID, clientID, family, resource string, scopes []string) (*tokenResponse, error) {
	tok, _, err := s.issueToken(ctx, accountID, clientID, family, resource, scopes, s.opts.OAuthTokenTTL)
	if err != nil {
		return nil, err
	}
	refresh := randomToken()
	now := s.now()
	rt := &store.RefreshToken{
		Hash:      hash(refresh),
		FamilyID:  family,
		ClientID:  clientID,
		AccountID: accountID,
		Scopes:    slices.Clone(scopes),
		Resource:  resource,
		ExpiresAt: now.Add(s.opts.RefreshTTL),
		CreatedAt: now,
	}
	if err := s.st.CreateRefresh(ctx, rt); err != nil {
		return nil, storeErr("create refresh", err)
	}
	return &tokenResponse{
		AccessToken:  tok,
		TokenType:    "Bearer",
		ExpiresIn:    int64(s.opts.OAuthTokenTTL / time.Second),
		RefreshToken: refresh,
		Scope:        strings.Join(scopes, " "),
	}, nil
}

func (s *Server) refreshGrant(ctx context.Context, t *tokenRequest) (*tokenResponse, error) {
	c, err := s.client(ctx, t)
	if err != nil {
		return nil, err
	}
	raw := t.get("refresh_token")
	if raw == "" {
		return nil, oerr(http.StatusBadRequest, "invalid_request", "refresh_token is required")
	}
	// Everything the request can get wrong is checked before the token is
	// spent, so a bad request leaves it usable.
	h := hash(raw)
	now := s.now()
	rt, err := s.st.RefreshToken(ctx, h)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, invalidGrant("unknown refresh token")
	case err != nil:
		return nil, storeErr("refresh token", err)
	}
	if rt.ClientID != c.ID {
		return nil, invalidGrant("the refresh token was issued to another client")
	}
	if !now.Before(rt.ExpiresAt) {
		return nil, invalidGrant("the refresh token has expired")
	}
	scopes, err := requestedScopes(t.get("scope"), rt.Scopes)
	if err != nil {
		return nil, err
	}
	if res := t.get("resource"); res != "" && res != rt.Resource {
		return nil, oerr(http.StatusBadRequest, "invalid_target", "resource differs from the grant's")
	}
	rt, err = s.st.UseRefresh(ctx, h, now)
	switch {
	case errors.Is(err, store.ErrUsed):
		// RFC 9700 section 4.14: a rotated token presented again means
		// it leaked; end the whole grant.
		if rerr := s.st.RevokeFamily(ctx, rt.FamilyID, now); rerr != nil {
			return nil, storeErr("revoke family", rerr)
		}
		s.opts.Logger.Warn("auth: refresh token reused; grant revoked", "client_id", c.ID, "family", rt.FamilyID)
		return nil, invalidGrant("the refresh token was already used")
	case errors.Is(err, store.ErrNotFound):
		return nil, invalidGrant("unknown refresh token")
	case err != nil:
		return nil, storeErr("use refresh", err)
	}
	revoked, err := s.st.FamilyRevoked(ctx, rt.FamilyID)
	if err != nil {
		return nil, storeErr("family revoked", err)
	}
	if revoked {
		return nil, invalidGrant("the grant was revoked")
	}
	return s.issuePair(ctx, rt.AccountID, c.ID, rt.FamilyID, rt.Resource, scopes)
}

// handleRevoke serves POST /v1/oauth/revoke (RFC 7009).
func (s *Server) handleRevoke(w http.ResponseWriter, r *http.Request) {
	t, err := s.readTokenRequest(w, r)
	if err != nil {
		s.writeOAuthError(w, err)
		return
	}
	ctx := r.Context()
	c, err := s.client(ctx, t)
	if err != nil {
		s.writeOAuthError(w, err)
		return
	}
	tok := t.get("token")
	if tok == "" {
		s.writeOAuthError(w, oerr(http.StatusBadRequest, "invalid_request", "token is required"))
		return
	}
	hint := t.get("token_type_hint")
	if hint != "" && hint != "access_token" && hint != "refresh_token" {
		s.writeOAuthError(w, oerr(http.StatusBadRequest, "unsupported_token_type", "token_type_hint must be access_token or refresh_token"))
		return
	}
	if err := s.revoke(ctx, c, tok); err != nil {
		s.writeOAuthError(w, err)
		return
	}
	noStore(w)
	w.WriteHeader(http.StatusOK)
}

// revoke revokes an access token (its jti) or a refresh token (its whole
// family) issued to c. Unknown and invalid tokens are ignored (RFC 7009
// section 2.2 answers 200 for them); another client's token is refused
// with invalid_grant (section 2.1) and left valid.
func (s *Server) revoke(ctx context.Context, c *store.Client, tok string) error {
	notYours := invalidGrant("the token was not issued to this client")
	if strings.Count(tok, ".") == 2 {
		claims, err := s.parseToken(ctx, tok, "")
		if errors.Is(err, store.ErrUnavailable) {
			return err
		}
		if err != nil {
			return nil
		}
		if claims.ClientID != c.ID {
			s.opts.Logger.Warn("auth: client tried to revoke another client's access token", "client_id", c.ID)
			return notYours
		}
		if err := s.st.RevokeToken(ctx, claims.ID, claims.ExpiresAt.Time); err != nil {
			return storeErr("revoke token", err)
		}
		return nil
	}
	if len(tok) > maxTokenLen {
		return nil
	}
	rt, err := s.st.RefreshToken(ctx, hash(tok))
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return storeErr("refresh token", err)
	}
	if rt.ClientID != c.ID {
		s.opts.Logger.Warn("auth: client tried to revoke another client's refresh token", "client_id", c.ID, "family", rt.FamilyID)
		return notYours
	}
	if err := s.st.RevokeFamily(ctx, rt.FamilyID, s.now()); err != nil {
		return storeErr("revoke family", err)
	}
	return nil
}

// handleMetadata serves RFC 8414 authorization server metadata.
// It is built from Options.BaseURL only, never from the request, so it is
// the same for every request and may be cached; without BaseURL it is 404.
func (s *Server) handleMetadata(w http.ResponseWriter, r *http.Request) {
	b := s.opts.BaseURL
	if b == "" {
		writeEnvelope(w, http.StatusNotFound, "not_found", "authorization server metadata needs the server's public URL, which is not configured")
		return
	}
	w.Header().Set("Cache-Control", "public, max-age=3600")
	// MCP clients in browsers read it cross-origin; it holds nothing
	// private.
	w.Header().Set("Access-Control-Allow-Origin", "*")
	m := map[string]any{
		"issuer":                           b,
		"authorization_endpoint":           b + "/v1/oauth/authorize",
		"token_endpoint":                   b + "/v1/oauth/token",
		"revocation_endpoint":              b + "/v1/oauth/revoke",
		"jwks_uri":                         b + "/.well-known/jwks.json",
		"response_types_supported":         []string{"code"},
		"response_modes_supported":         []string{"query"},
		"grant_types_supported":            []string{"authorization_code", "refresh_token", "client_credentials"},
		"code_challenge_methods_supported": []string{"S256"},
		"scopes_supported":                 []string{ScopeRead, ScopeWrite},
		// "none": public clients (registered dynamically or described
		// by a metadata document) authenticate with PKCE alone.
		"token_endpoint_auth_methods_supported":      []string{"client_secret_basic", "client_secret_post", "none"},
		"revocation_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post", "none"},
		// RFC 9207: the authorization response names the issuer.
		"authorization_response_iss_parameter_supported": true,
		"client_id_metadata_document_supported":          s.opts.ClientFetcher != nil,
	}
	if s.opts.Registration.MaxClients > 0 {
		m["registration_endpoint"] = b + "/v1/oauth/register"
	}
	writeJSON(w, http.StatusOK, m)
}
