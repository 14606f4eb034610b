package dashboard

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/seokit/seokit/httpapi/plans"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

// adminPageSize is how many accounts the admin page lists at once.
const adminPageSize = 50

// maxDailyLimit bounds the daily limit the admin page accepts.
const maxDailyLimit = 1_000_000_000

type adminRow struct {
	store.Account
	Limit int // effective daily limit
}

type adminView struct {
	Accounts []adminRow
	// After is the cursor of this page ("" for the first), Next the
	// cursor of the next page ("" on the last).
	After, Next string
	// Email is the "find by email" query, Missing whether it found none.
	Email   string
	Missing bool
	Plans   []store.Plan
	// NewEmail and NewPassword show a generated password once.
	NewEmail, NewPassword string
	Form                  adminForm
}

// adminForm is the new-account form as sent, shown again on errors.
type adminForm struct {
	Email, Name, Plan, DailyLimit string
	Admin                         bool
}

// adminOnly serves h to admin accounts; others get the not-found page, as
// if the admin pages did not exist.
func (d *Dashboard) adminOnly(h func(w http.ResponseWriter, r *http.Request, s *session, a *store.Account)) func(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	return func(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
		if !a.Admin {
			d.errorPage(w, r, a, http.StatusNotFound, "This page does not exist.")
			return
		}
		h(w, r, s, a)
	}
}

// adminView lists one page of accounts after the cursor, or the account
// with the given email.
func (d *Dashboard) adminView(r *http.Request, s *session, a *store.Account, after, email string) (*view, error) {
	av := &adminView{After: after, Email: email, Plans: plans.Names,
		Form: adminForm{Plan: string(store.Free)}}
	var list []store.Account
	if email != "" {
		acct, err := d.acc.AccountByEmail(r.Context(), email)
		switch {
		case err == nil:
			list = []store.Account{*acct}
		case isNotFound(err) || errors.Is(err, seo.ErrInvalidInput):
			av.Missing = true
		default:
			return nil, err
		}
	} else {
		var err error
		// One more than a page tells whether a next page exists.
		if list, err = d.acc.ListAccounts(r.Context(), after, adminPageSize+1); err != nil {
			return nil, err
		}
		if len(list) > adminPageSize {
			list = list[:adminPageSize]
			av.Next = list[len(list)-1].ID
		}
	}
	for _, x := range list {
		av.Accounts = append(av.Accounts, adminRow{Account: x, Limit: d.limit(r.Context(), &x)})
	}
	v := d.base("Accounts", "admin", s, a)
	v.P = av
	return v, nil
}

func (d *Dashboard) adminPage(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	q := r.URL.Query()
	v, err := d.adminView(r, s, a, q.Get("after"), strings.TrimSpace(q.Get("email")))
	if err != nil {
		d.unavailable(w, r, err)
		return
	}
	switch q.Get("done") {
	case "plan":
		v.Notice = "The plan was saved. It applies to the account's next request."
	}
	d.render(w, r, http.StatusOK, "admin", v)
}

// parseDailyLimit reads the daily-limit field: empty is 0 (the plan's).
func parseDailyLimit(s string) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > maxDailyLimit {
		return 0, &seo.InputError{Field: "dailyLimit", Value: s, Reason: "must be a whole number from 0 (the plan's limit) to 1000000000"}
	}
	return n, nil
}

// createAccount makes an account with a generated password, shown once.
func (d *Dashboard) createAccount(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	f := adminForm{
		Email: strings.TrimSpace(r.PostFormValue("email")), Name: strings.TrimSpace(r.PostFormValue("name")),
		Plan: r.PostFormValue("plan"), DailyLimit: r.PostFormValue("daily_limit"), Admin: r.PostFormValue("admin") == "on",
	}
	fail := func(err error) {
		field, msg, ok := fieldError(err)
		if !ok {
			d.unavailable(w, r, err)
			return
		}
		v, lerr := d.adminView(r, s, a, "", "")
		if lerr != nil {
			d.unavailable(w, r, lerr)
			return
		}
		v.P.(*adminView).Form = f
		v.Error, v.Fields = msg, map[string]string{field: msg}
		d.render(w, r, http.StatusBadRequest, "admin", v)
	}
	limit, err := parseDailyLimit(f.DailyLimit)
	if err != nil {
		fail(err)
		return
	}
	password := randomString(18)
	acct, err := d.acc.CreateAccount(r.Context(), f.Email, f.Name, password, store.Plan(f.Plan))
	if err != nil {
		fail(err)
		return
	}
	if limit > 0 || f.Admin {
		acct.DailyLimit, acct.Admin = limit, f.Admin
		if err := d.acc.UpdateAccount(r.Context(), acct); err != nil {
			d.unavailable(w, r, err)
			return
		}
	}
	d.log.Info("dashboard: account created", "by", a.ID, "account", acct.ID, "plan", acct.Plan, "admin", acct.Admin)
	v, err := d.adminView(r, s, a, "", acct.Email)
	if err != nil {
		d.unavailable(w, r, err)
		return
	}
	av := v.P.(*adminView)
	av.NewEmail, av.NewPassword = acct.Email, password
	v.Notice = "The account was created."
	d.render(w, r, http.StatusCreated, "admin", v)
}

// targetAccount returns the account named in the path, or answers 404.
func (d *Dashboard) targetAccount(w http.ResponseWriter, r *http.Request, a *store.Account) (*store.Account, bool) {
	t, err := d.acc.Account(r.Context(), r.PathValue("id"))
	if isNotFound(err) {
		d.errorPage(w, r, a, http.StatusNotFound, "No such account.")
		return nil, false
	}
	if err != nil {
		d.unavailable(w, r, err)
		return nil, false
	}
	return t, true
}

// setPlan changes an account's plan and daily limit.
func (d *Dashboard) setPlan(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	after := r.PostFormValue("after")
	t, ok := d.targetAccount(w, r, a)
	if !ok {
		return
	}
	limit, err := parseDailyLimit(r.PostFormValue("daily_limit"))
	if err == nil {
		t.Plan, t.DailyLimit = store.Plan(r.PostFormValue("plan")), limit
		err = d.acc.UpdateAccount(r.Context(), t)
	}
	if err != nil {
		field, msg, ok := fieldError(err)
		if !ok {
			if isNotFound(err) {
				d.errorPage(w, r, a, http.StatusNotFound, "No such account.")
				return
			}
			d.unavailable(w, r, err)
			return
		}
		v, lerr := d.adminView(r, s, a, after, "")
		if lerr != nil {
			d.unavailable(w, r, lerr)
			return
		}
		msg = t.Email + ": " + msg
		v.Error, v.Fields = msg, map[string]string{field: msg}
		d.render(w, r, http.StatusBadRequest, "admin", v)
		return
	}
	d.log.Info("dashboard: plan changed", "by", a.ID, "account", t.ID, "plan", t.Plan, "dailyLimit", t.DailyLimit)
	q := url.Values{"done": {"plan"}}
	if after != "" {
		q.Set("after", after)
	}
	http.Redirect(w, r, Prefix+"/admin/accounts?"+q.Encode(), http.StatusSeeOther)
}

// resetPassword gives an account a new generated password, shown once,
// which signs out all of its sessions (an admin resetting their own
// password stays signed in here).
func (d *Dashboard) resetPassword(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	t, ok := d.targetAccount(w, r, a)
	if !ok {
		return
	}
	password := randomString(18)
	updated, err := d.acc.SetPassword(r.Context(), t.ID, password)
	if isNotFound(err) {
		d.errorPage(w, r, a, http.StatusNotFound, "No such account.")
		return
	}
	if err != nil {
		d.unavailable(w, r, err)
		return
	}
	d.log.Info("dashboard: password reset", "by", a.ID, "account", t.ID)
	if updated.ID == a.ID {
		s, a = d.startSession(w, r, updated), updated
	}
	v, err := d.adminView(r, s, a, "", updated.Email)
	if err != nil {
		d.unavailable(w, r, err)
		return
	}
	av := v.P.(*adminView)
	av.NewEmail, av.NewPassword = updated.Email, password
	v.Notice = "The password was reset. Every browser signed in to that account was signed out."
	d.render(w, r, http.StatusOK, "admin", v)
}
