package mcpserver_test

import "github.com/seokit/seokit/httpapi/auth"

type authPrincipal struct{ account string }

func (a *authPrincipal) principal() *auth.Principal {
	return &auth.Principal{AccountID: a.account, Permissions: []string{auth.ScopeRead, auth.ScopeWrite}}
}
