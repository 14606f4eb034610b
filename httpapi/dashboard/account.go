package dashboard

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/store"
)

type accountView struct {
	Limit     int
	MinLength int
}

func (d *Dashboard) accountView(ctx context.Context, s *session, a *store.Account) *view {
	v := d.base("Your account", "account", s, a)
	v.P = &accountView{Limit: d.limit(ctx, a), MinLength: auth.MinPasswordLen}
	return v
}

func (d *Dashboard) accountPage(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	v := d.accountView(r.Context(), s, a)
	if r.URL.Query().Get("done") == "password" {
		v.Notice = "Your password was changed. Every other browser signed in to this account was signed out."
	}
	d.render(w, r, http.StatusOK, "account", v)
}

// changePassword sets the signed-in account's password after checking the
// current one. The change signs out every other session of the account;
// this browser gets a new session.
func (d *Dashboard) changePassword(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	current := r.PostFormValue("current_password")
	next := r.PostFormValue("new_password")
	fail := func(status int, field, msg string) {
		v := d.accountView(r.Context(), s, a)
		v.Error, v.Fields = msg, map[string]string{field: msg}
		d.render(w, r, status, "account", v)
	}
	// The current password is checked as a sign-in is, through the same
	// throttle per (address, account).
	if _, err := d.au.SignIn(r, a.Email, current); err != nil {
		switch {
		case errors.Is(err, auth.ErrThrottled):
			w.Header().Set("Retry-After", strconv.Itoa(auth.RetryAfterSeconds(err)))
			fail(http.StatusTooManyRequests, "current_password", "Too many wrong passwords. Wait a minute and try again.")
		case errors.Is(err, auth.ErrInvalidCredentials):
			fail(http.StatusForbidden, "current_password", "The current password is wrong.")
		default:
			d.unavailable(w, r, err)
		}
		return
	}
	switch {
	case next != r.PostFormValue("confirm_password"):
		fail(http.StatusBadRequest, "confirm_password", "The new password and its confirmation differ.")
		return
	case next == current:
		fail(http.StatusBadRequest, "new_password", "The new password must differ from the current one.")
		return
	}
	updated, err := d.acc.SetPassword(r.Context(), a.ID, next)
	if err != nil {
		if _, msg, ok := fieldError(err); ok {
			fail(http.StatusBadRequest, "new_password", "The new "+msg+".")
			return
		}
		d.unavailable(w, r, err)
		return
	}
	d.startSession(w, r, updated)
	http.Redirect(w, r, Prefix+"/account?done=password", http.StatusSeeOther)
}
