package dashboard

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/seokit/seokit/httpapi/store"
)

// Cookie names. The session cookie has Path=/ so that the OAuth consent
// page (/v1/oauth/authorize) sees who is signed in.
const (
	sessionCookie    = "seokit_session"
	loginCSRFCookie  = "seokit_login_csrf"
	sessionIDPrefix  = "dsess_"
	csrfField        = "csrf_token"
	maxSessionCookie = 512
)

// session is a signed-in browser: a random ID (revocable through the
// store's token revocation list), the account, the expiry and the
// account's password generation at sign-in (see passwordGen).
type session struct {
	ID        string
	AccountID string
	Expires   time.Time
	Gen       string
}

func randomString(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func (d *Dashboard) mac(parts ...string) string {
	m := hmac.New(sha256.New, d.opts.SessionKey)
	for _, p := range parts {
		m.Write([]byte(p))
		m.Write([]byte{0})
	}
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// passwordGen identifies the account's current password: a MAC of its
// argon2id hash, which has a fresh random salt each time a password is set.
// A session carries the generation of its sign-in and is refused once the
// password changed (by the user, an operator or -reset-admin-password),
// without storing anything per session.
func (d *Dashboard) passwordGen(a *store.Account) string {
	return d.mac("password generation", a.ID, a.PasswordHash)[:22]
}

// encode returns the cookie value of s: payload and HMAC, both base64url.
func (d *Dashboard) encode(s *session) string {
	payload := s.ID + "|" + s.AccountID + "|" + strconv.FormatInt(s.Expires.Unix(), 10) + "|" + s.Gen
	p := base64.RawURLEncoding.EncodeToString([]byte(payload))
	return p + "." + d.mac("session", p)
}

// decode checks the signature and expiry of a cookie value.
func (d *Dashboard) decode(v string) (*session, bool) {
	if len(v) > maxSessionCookie {
		return nil, false
	}
	p, sig, ok := strings.Cut(v, ".")
	if !ok || !hmac.Equal([]byte(sig), []byte(d.mac("session", p))) {
		return nil, false
	}
	raw, err := base64.RawURLEncoding.DecodeString(p)
	if err != nil {
		return nil, false
	}
	f := strings.Split(string(raw), "|")
	if len(f) != 4 || !strings.HasPrefix(f[0], sessionIDPrefix) || f[1] == "" || f[3] == "" {
		return nil, false
	}
	exp, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return nil, false
	}
	s := &session{ID: f[0], AccountID: f[1], Expires: time.Unix(exp, 0), Gen: f[3]}
	if !d.now().Before(s.Expires) {
		return nil, false
	}
	return s, true
}

// secure reports whether cookies for r must be Secure.
func (d *Dashboard) secure(r *http.Request) bool {
	return d.opts.Secure || r.TLS != nil
}

// session returns the valid, unrevoked session of r.
func (d *Dashboard) session(r *http.Request) (*session, error) {
	s, _, err := d.sessionAccount(r)
	return s, err
}

// sessionAccount returns the valid session of r and its account: nil, nil
// when r has none, it was signed out, its account is gone or the account's
// password changed after the sign-in. Errors are the store's.
func (d *Dashboard) sessionAccount(r *http.Request) (*session, *store.Account, error) {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return nil, nil, nil
	}
	s, ok := d.decode(c.Value)
	if !ok {
		return nil, nil, nil
	}
	revoked, err := d.st.TokenRevoked(r.Context(), s.ID)
	if err != nil {
		return nil, nil, err
	}
	if revoked {
		return nil, nil, nil
	}
	a, err := d.acc.Account(r.Context(), s.AccountID)
	if isNotFound(err) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	if !hmac.Equal([]byte(s.Gen), []byte(d.passwordGen(a))) {
		return nil, nil, nil
	}
	return s, a, nil
}

// SessionAccount reports the account signed in to the dashboard with r's
// session cookie. Plug it into auth.Options.SessionAccount so the OAuth
// consent page asks a signed-in user only for consent.
func (d *Dashboard) SessionAccount(r *http.Request) (string, bool) {
	s, err := d.session(r)
	if err != nil {
		d.log.Warn("dashboard: session check", "err", err)
		return "", false
	}
	if s == nil {
		return "", false
	}
	return s.AccountID, true
}

// startSession sets a new session cookie for the account, valid until its
// password changes, and returns the session.
func (d *Dashboard) startSession(w http.ResponseWriter, r *http.Request, a *store.Account) *session {
	s := &session{ID: sessionIDPrefix + randomString(18), AccountID: a.ID, Expires: d.now().Add(d.opts.SessionTTL), Gen: d.passwordGen(a)}
	http.SetCookie(w, &http.Cookie{
		Name: sessionCookie, Value: d.encode(s), Path: "/",
		Expires: s.Expires, MaxAge: int(d.opts.SessionTTL / time.Second),
		HttpOnly: true, Secure: d.secure(r), SameSite: http.SameSiteLaxMode,
	})
	return s
}

// endSession revokes s until its expiry and clears the cookie.
func (d *Dashboard) endSession(ctx context.Context, w http.ResponseWriter, r *http.Request, s *session) error {
	http.SetCookie(w, &http.Cookie{
		Name: sessionCookie, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: d.secure(r), SameSite: http.SameSiteLaxMode,
	})
	return d.st.RevokeToken(ctx, s.ID, s.Expires)
}

// csrfToken is the form token of a signed-in session.
func (d *Dashboard) csrfToken(s *session) string { return d.mac("csrf", s.ID) }

// checkCSRF compares the form's token with the session's.
func (d *Dashboard) checkCSRF(r *http.Request, s *session) bool {
	got := r.PostFormValue(csrfField)
	return got != "" && hmac.Equal([]byte(got), []byte(d.csrfToken(s)))
}

// loginCSRF returns the login form's token, setting its cookie when absent.
func (d *Dashboard) loginCSRF(w http.ResponseWriter, r *http.Request) string {
	nonce := ""
	if c, err := r.Cookie(loginCSRFCookie); err == nil && len(c.Value) == 32 {
		nonce = c.Value
	} else {
		nonce = randomString(24)
		http.SetCookie(w, &http.Cookie{
			Name: loginCSRFCookie, Value: nonce, Path: Prefix + "/login",
			HttpOnly: true, Secure: d.secure(r), SameSite: http.SameSiteStrictMode,
		})
	}
	return d.mac("login", nonce)
}

func (d *Dashboard) checkLoginCSRF(r *http.Request) bool {
	c, err := r.Cookie(loginCSRFCookie)
	got := r.PostFormValue(csrfField)
	return err == nil && got != "" && hmac.Equal([]byte(got), []byte(d.mac("login", c.Value)))
}

// signedIn wraps a handler that needs a session: without one, GET goes to
// the sign-in page and other methods get 401; unsafe methods must carry
// the session's CSRF token.
func (d *Dashboard) signedIn(h func(w http.ResponseWriter, r *http.Request, s *session, a *store.Account)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s, a, err := d.sessionAccount(r)
		if err != nil {
			d.unavailable(w, r, err)
			return
		}
		if s == nil {
			if r.Method == http.MethodGet {
				http.Redirect(w, r, Prefix+"/login?next="+urlQueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			d.errorPage(w, r, nil, http.StatusUnauthorized, "Your session has ended. Sign in again.")
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
			if err := r.ParseForm(); err != nil {
				d.errorPage(w, r, nil, http.StatusBadRequest, "The form cannot be read.")
				return
			}
			if !d.checkCSRF(r, s) {
				d.errorPage(w, r, nil, http.StatusForbidden, "The form has expired or was not sent from this site. Reload the page and try again.")
				return
			}
		}
		h(w, r, s, a)
	}
}
