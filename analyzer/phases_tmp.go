package analyzer

import "context"

// Temporary until the link and mobile phases land (linkcheck.go, mobile.go).
func runLinkChecks(ctx context.Context, p *Page, env *Env, r *Reporter) {}
func runMobile(ctx context.Context, p *Page, env *Env, r *Reporter)     {}
