package auth

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/seokit/seokit/httpapi/internal/ui"
	"github.com/seokit/seokit/httpapi/store"
)

//go:embed templates/consent.html
var templateFS embed.FS

var consentTmpl = template.Must(template.ParseFS(templateFS, "templates/consent.html"))

// csrfCookie holds the random value the consent form's CSRF token is
// bound to.
const csrfCookie = "seokit_oauth_csrf"

// authzRequest is a validated authorization request.
type authzRequest struct {
	client      *store.Client
	redirectURI string
	state       string
	challenge   string
	scopes      []string
	resource    string // RFC 8707 resource indicator; empty: the API
	// document is set when the client is described by a client ID
	// metadata document, not yet stored: it is stored when the user
	// consents.
	document bool
}

// params returns the request as the form's hidden fields.
func (a *authzRequest) params() map[string]string {
	return map[string]string{
		"client_id":             a.client.ID,
		"redirect_uri":          a.redirectURI,
		"response_type":         "code",
		"scope":                 strings.Join(a.scopes, " "),
		"state":                 a.state,
		"code_challenge":        a.challenge,
		"code_challenge_method": "S256",
		"resource":              a.resource,
	}
}

// authzError is a failed authorization request: fatal ones (bad client or
// redirect URI) show an error page; the others redirect to the client.
type authzError struct {
	fatal  bool
	status int
	code   string
	desc   string
}

func (e *authzError) Error() string { return "auth: authorize: " + e.code + ": " + e.desc }

// checkAuthz validates the authorization request parameters in q, sent
// from the client address addr.
func (s *Server) checkAuthz(ctx context.Context, addr string, q url.Values) (*authzRequest, error) {
	for _, k := range []string{"client_id", "redirect_uri", "response_type", "scope", "state", "code_challenge", "code_challenge_method", "resource"} {
		if len(q[k]) > 1 {
			return nil, &authzError{fatal: true, status: http.StatusBadRequest, code: "invalid_request", desc: k + " is repeated"}
		}
	}
	id := q.Get("client_id")
	if id == "" || len(id) > maxClientIDLen {
		return nil, &authzError{fatal: true, status: http.StatusBadRequest, code: "invalid_request", desc: "client_id is missing or invalid"}
	}
	var c *store.Client
	document := false
	if isDocumentClientID(id) {
		// A client ID metadata document: fetched (or cached) now, so
		// the redirect URI is checked against what the client
		// publishes today.
		var err error
		if c, err = s.documentClient(ctx, addr, id); err != nil {
			var ae *authzError
			if errors.As(err, &ae) {
				return nil, ae
			}
			return nil, err
		}
		document = true
	} else {
		var err error
		c, err = s.st.Client(ctx, id)
		if errors.Is(err, store.ErrNotFound) || err == nil && !c.RevokedAt.IsZero() {
			return nil, &authzError{fatal: true, status: http.StatusBadRequest, code: "invalid_client", desc: "unknown client"}
		}
		if err != nil {
			return nil, storeErr("client", err)
		}
	}
	ru := q.Get("redirect_uri")
	// Exact string match (RFC 9700 section 2.1): no normalisation.
	if ru == "" || !slices.Contains(c.RedirectURIs, ru) {
		return nil, &authzError{fatal: true, status: http.StatusBadRequest, code: "invalid_request", desc: "redirect_uri is not registered for this client"}
	}
	a := &authzRequest{client: c, redirectURI: ru, state: q.Get("state"), document: document}
	if len(a.state) > 1024 {
		return a, &authzError{code: "invalid_request", desc: "state is longer than 1024 bytes"}
	}
	if rt := q.Get("response_type"); rt != "code" {
		return a, &authzError{code: "unsupported_response_type", desc: "response_type must be code"}
	}
	a.challenge = q.Get("code_challenge")
	switch m := q.Get("code_challenge_method"); {
	case a.challenge == "":
		return a, &authzError{code: "invalid_request", desc: "code_challenge is required (PKCE S256)"}
	case m != "S256":
		return a, &authzError{code: "invalid_request", desc: "code_challenge_method must be S256"}
	}
	if b, err := base64.RawURLEncoding.DecodeString(a.challenge); err != nil || len(b) != sha256.Size {
		return a, &authzError{code: "invalid_request", desc: "code_challenge is not a base64url SHA-256"}
	}
	sc, err := requestedScopes(q.Get("scope"), c.Scopes)
	if err != nil {
		return a, &authzError{code: "invalid_scope", desc: "scope must be a subset of " + strings.Join(c.Scopes, " ")}
	}
	if len(sc) == 0 {
		return a, &authzError{code: "invalid_scope", desc: "no scope requested"}
	}
	a.scopes = sc
	res, err := s.checkResource(q.Get("resource"))
	if err != nil {
		return a, &authzError{code: "invalid_target", desc: err.(*oauthError).desc}
	}
	a.resource = res
	return a, nil
}

// redirectWith sends the user agent back to the client with params and
// the issuer (RFC 9207, so a client talking to several authorization
// servers knows which one answered), with a 303 so the POST is not
// repeated.
func (s *Server) redirectWith(w http.ResponseWriter, r *http.Request, redirectURI string, params map[string]string) {
	if s.opts.BaseURL != "" {
		params["iss"] = s.opts.Issuer
	}
	u, err := url.Parse(redirectURI)
	if err != nil { // registered URIs were validated; never happens
		http.Error(w, "bad redirect uri", http.StatusInternalServerError)
		return
	}
	q := u.Query()
	for k, v := range params {
		if v != "" {
			q.Set(k, v)
		}
	}
	u.RawQuery = q.Encode()
	noStore(w)
	http.Redirect(w, r, u.String(), http.StatusSeeOther)
}

// handleAuthzError shows the error page or redirects with the error.
func (s *Server) handleAuthzError(w http.ResponseWriter, r *http.Request, a *authzRequest, err error) {
	var e *authzError
	if !errors.As(err, &e) {
		s.opts.Logger.Error("auth: authorize", "err", err)
		s.renderPage(w, r, http.StatusServiceUnavailable, &pageData{Fatal: true, Error: "The service is unavailable. Try again later."})
		return
	}
	if e.fatal || a == nil {
		s.renderPage(w, r, e.status, &pageData{Fatal: true, Error: e.desc})
		return
	}
	s.redirectWith(w, r, a.redirectURI, map[string]string{"error": e.code, "error_description": e.desc, "state": a.state})
}

// pageData fills the consent template.
type pageData struct {
	Fatal      bool
	Error      string
	ClientName string
	Scopes     []string
	Action     string
	Hidden     map[string]string
	SignedIn   bool
	Email      string
	// CSS is the stylesheet shared with the dashboard, inlined under the
	// page's CSP hash.
	CSS template.CSS
}

// consentPolicy is the Content-Security-Policy of the consent page: no
// script, only the inlined shared stylesheet (by hash), no framing.
var consentPolicy = "default-src 'none'; style-src " + ui.CSSHash + "; frame-ancestors 'none'; base-uri 'none'"

// renderPage writes the consent or error page with strict headers.
func (s *Server) renderPage(w http.ResponseWriter, r *http.Request, status int, d *pageData) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", consentPolicy)
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	noStore(w)
	d.CSS = template.CSS(ui.CSS) // a constant embedded file, never user input
	w.WriteHeader(status)
	if err := consentTmpl.Execute(w, d); err != nil {
		s.opts.Logger.Error("auth: render consent page", "err", err)
	}
}

// csrfToken is the HMAC of the cookie value bound to the client.
func (s *Server) csrfToken(nonce, clientID string) string {
	m := hmac.New(sha256.New, s.opts.CSRFKey)
	m.Write([]byte(nonce))
	m.Write([]byte{0})
	m.Write([]byte(clientID))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// showConsent renders the consent page for a, setting the CSRF cookie.
func (s *Server) showConsent(w http.ResponseWriter, r *http.Request, a *authzRequest, status int, msg, email string) {
	nonce := ""
	if c, err := r.Cookie(csrfCookie); err == nil && len(c.Value) == 43 {
		nonce = c.Value
	} else {
		nonce = randomToken()
		http.SetCookie(w, &http.Cookie{
			Name: csrfCookie, Value: nonce, Path: "/v1/oauth/authorize",
			HttpOnly: true, Secure: r.TLS != nil || strings.HasPrefix(s.opts.BaseURL, "https:"),
			SameSite: http.SameSiteStrictMode,
		})
	}
	hidden := a.params()
	hidden["csrf_token"] = s.csrfToken(nonce, a.client.ID)
	_, signedIn := s.sessionAccount(r)
	s.renderPage(w, r, status, &pageData{
		ClientName: a.client.Name,
		Scopes:     a.scopes,
		Action:     "/v1/oauth/authorize",
		Hidden:     hidden,
		SignedIn:   signedIn,
		Error:      msg,
		Email:      email,
	})
}

func (s *Server) sessionAccount(r *http.Request) (string, bool) {
	if s.opts.SessionAccount == nil {
		return "", false
	}
	id, ok := s.opts.SessionAccount(r)
	return id, ok && id != ""
}

// handleAuthorize serves GET /v1/oauth/authorize.
func (s *Server) handleAuthorize(w http.ResponseWriter, r *http.Request) {
	a, err := s.checkAuthz(r.Context(), s.ClientAddr(r), r.URL.Query())
	if err != nil {
		s.handleAuthzError(w, r, a, err)
		return
	}
	s.showConsent(w, r, a, http.StatusOK, "", "")
}

// handleConsent serves POST /v1/oauth/authorize: the consent form.
func (s *Server) handleConsent(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxTokenBody)
	if err := r.ParseForm(); err != nil {
		s.renderPage(w, r, http.StatusBadRequest, &pageData{Fatal: true, Error: "The form cannot be read."})
		return
	}
	ctx := r.Context()
	a, err := s.checkAuthz(ctx, s.ClientAddr(r), r.PostForm)
	if err != nil {
		s.handleAuthzError(w, r, a, err)
		return
	}
	ck, cerr := r.Cookie(csrfCookie)
	if cerr != nil || !hmac.Equal([]byte(s.csrfToken(ck.Value, a.client.ID)), []byte(r.PostForm.Get("csrf_token"))) {
		s.renderPage(w, r, http.StatusForbidden, &pageData{Fatal: true, Error: "The form has expired or was not sent from this site. Start again from the application."})
		return
	}
	switch r.PostForm.Get("action") {
	case "deny":
		s.redirectWith(w, r, a.redirectURI, map[string]string{"error": "access_denied", "error_description": "the user denied access", "state": a.state})
		return
	case "allow":
	default:
		s.renderPage(w, r, http.StatusBadRequest, &pageData{Fatal: true, Error: "Choose Allow or Deny."})
		return
	}
	accountID, ok := s.sessionAccount(r)
	if !ok {
		email := r.PostForm.Get("email")
		acct, err := s.SignIn(r, email, r.PostForm.Get("password"))
		switch {
		case errors.Is(err, ErrThrottled):
			w.Header().Set("Retry-After", strconv.Itoa(RetryAfterSeconds(err)))
			s.showConsent(w, r, a, http.StatusTooManyRequests, "Too many failed attempts. Wait a minute and try again.", email)
			return
		case errors.Is(err, store.ErrUnavailable):
			s.handleAuthzError(w, r, a, err)
			return
		case err != nil:
			s.showConsent(w, r, a, http.StatusUnauthorized, "Wrong email or password.", email)
			return
		}
		accountID = acct.ID
	}
	if a.document {
		// The client exists in the store from its first grant on, so
		// the token endpoint knows it.
		if err := s.storeDocumentClient(ctx, a.client); err != nil {
			s.handleAuthzError(w, r, nil, err)
			return
		}
	}
	code := randomToken()
	now := s.now()
	ac := &store.AuthCode{
		Hash:        hash(code),
		ClientID:    a.client.ID,
		AccountID:   accountID,
		RedirectURI: a.redirectURI,
		Scopes:      a.scopes,
		Challenge:   a.challenge,
		Resource:    a.resource,
		FamilyID:    "fam_" + randomBase62(22),
		ExpiresAt:   now.Add(s.opts.CodeTTL),
		CreatedAt:   now,
	}
	if err := s.st.CreateCode(ctx, ac); err != nil {
		s.handleAuthzError(w, r, nil, storeErr("create code", err))
		return
	}
	s.redirectWith(w, r, a.redirectURI, map[string]string{"code": code, "state": a.state})
}
