package httpapi

import "github.com/seokit/seokit/httpapi/service"

// Accounts returns the accounts service over the server's store, its auth
// server and the usage counts of its rate limiter (the counts every
// charge goes to): the dashboard's account, keys, apps, usage and admin
// pages call it.
func (s *Server) Accounts() service.Accounts {
	a, _ := service.NewAccounts(s.st, s.auth, s.limiter) // fails only without a store, which New refuses
	return a
}
