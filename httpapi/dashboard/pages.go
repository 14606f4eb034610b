// Writing pages: the view every template gets, executing the templates,
// error pages and the field a form error names.

package dashboard

import (
	"bytes"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

// view is what every page template renders: the layout's fields and the
// page's own data in P.
type view struct {
	Title   string
	Nav     string
	Account *store.Account
	CSRF    string
	Notice  string
	Error   string
	// Fields maps a form field to its error message.
	Fields map[string]string
	// Refresh, when > 0, reloads the page after that many seconds when
	// JavaScript is off (live progress).
	Refresh int
	P       any
}

var funcs = template.FuncMap{
	"when": func(t time.Time) string {
		if t.IsZero() {
			return "never"
		}
		return t.UTC().Format("2006-01-02 15:04 UTC")
	},
	"day":   func(t time.Time) string { return t.UTC().Format("2006-01-02") },
	"clock": func(t time.Time) string { return t.UTC().Format("15:04 UTC") },
	"join":  strings.Join,
	// deref reads an optional value (a *bool or *float64 the template
	// tested for nil).
	"deref": func(v any) any {
		switch p := v.(type) {
		case *bool:
			return *p
		case *float64:
			return *p
		}
		return v
	},
	"pct": func(share float64) float64 { return 100 * share },
	// metricValue writes a Web Vitals value: CLS with two decimals, the
	// others in milliseconds.
	"metricValue": func(metric string, v float64) string {
		if metric == "cls" {
			return strconv.FormatFloat(v, 'f', 2, 64)
		}
		return strconv.FormatFloat(v, 'f', 0, 64) + " ms"
	},
	"has": func(list []string, s string) bool {
		for _, x := range list {
			if x == s {
				return true
			}
		}
		return false
	},
}

func urlQueryEscape(s string) string { return url.QueryEscape(s) }

func isNotFound(err error) bool {
	return errors.Is(err, store.ErrNotFound) || errors.Is(err, seo.ErrNotFound)
}

// render writes a page. The template runs into a buffer first so a
// failure gives a clean error page, not half a page.
func (d *Dashboard) render(w http.ResponseWriter, r *http.Request, status int, page string, v *view) {
	t, ok := d.pages[page]
	if !ok {
		d.log.Error("dashboard: no template", "page", page)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout.html", v); err != nil {
		d.log.Error("dashboard: render", "page", page, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// errorPage shows msg with status; a is the signed-in account or nil.
func (d *Dashboard) errorPage(w http.ResponseWriter, r *http.Request, a *store.Account, status int, msg string) {
	d.render(w, r, status, "error", &view{Title: http.StatusText(status), Account: a, Error: msg})
}

// unavailable answers a store failure with 503.
func (d *Dashboard) unavailable(w http.ResponseWriter, r *http.Request, err error) {
	d.log.Error("dashboard: store", "path", r.URL.Path, "err", err)
	d.errorPage(w, r, nil, http.StatusServiceUnavailable, "The service is unavailable. Try again in a moment.")
}

// fieldError returns the field and message of a bad-input error: a
// *seo.InputError, or a service's *service.FieldError (worded for the
// user already).
func fieldError(err error) (field, msg string, ok bool) {
	var fe *service.FieldError
	if errors.As(err, &fe) {
		return fe.Field, fe.Message, true
	}
	ie, ok := seo.AsInputError(err)
	if !ok {
		return "", "", false
	}
	msg = ie.Field + " " + ie.Reason
	if ie.Value != "" {
		msg = ie.Field + " " + strings.TrimSpace(ie.Reason) + " (got " + clip(ie.Value) + ")"
	}
	return ie.Field, msg, true
}

func clip(s string) string {
	const n = 80
	if len(s) <= n {
		return s
	}
	for i := n; i > 0; i-- {
		if (s[i] & 0xC0) != 0x80 {
			return s[:i] + "…"
		}
	}
	return ""
}

// safeNext returns next when it is a path inside the dashboard, else the
// overview: the sign-in page never redirects elsewhere.
func safeNext(next string) string {
	if strings.HasPrefix(next, Prefix+"/") && !strings.HasPrefix(next, "//") && !strings.ContainsAny(next, "\\\r\n") {
		if u, err := url.Parse(next); err == nil && u.Scheme == "" && u.Host == "" {
			return next
		}
	}
	return Prefix + "/"
}
