// Package dashboard is the web dashboard of the seokit API: sign-in, API
// keys, OAuth applications, usage, site analyses and ranking history, as
// server-rendered html/template pages under /dashboard/.
//
// Everything it serves is embedded (templates, one stylesheet, one small
// script); pages work with JavaScript off, the script only adds copy
// buttons, confirmations and live progress.
//
// # Security
//
// Passwords are checked against the argon2id hashes of package auth.
// A session is a cookie (HttpOnly, SameSite=Lax, Secure on TLS or with
// Options.Secure) carrying a random session ID, the account ID and the
// expiry, signed with HMAC-SHA-256 under Options.SessionKey. Signing out
// revokes the session ID through the store's token revocation list, so a
// copied cookie stops working too. Every form carries a CSRF token bound to
// the session (the sign-in form one bound to a cookie) and unsafe requests
// are also checked with net/http's cross-origin protection. Pages are sent
// with a strict Content-Security-Policy (no inline script or style),
// framing denied, nosniff and no-store. Crawled text (titles, URLs,
// evidence) is escaped by html/template; the downloadable crawler report is
// served sandboxed.
//
// # Wiring
//
// Mount the Dashboard next to the API and give its SessionAccount to the
// auth server, so the OAuth consent page knows who is signed in:
//
//	d, _ := dashboard.New(st, au, &dashboard.Options{SessionKey: key, Analyses: api})
//	mux.Handle("/dashboard/", d)
//	mux.Handle("/dashboard", d)
package dashboard
