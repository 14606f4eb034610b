package analyzer

import "context"

// Temporary until the link and mobile phases land.
func runLinkChecks(ctx context.Context, p *Page, env *Env, r *Reporter) {}
func runMobile(ctx context.Context, p *Page, env *Env, r *Reporter)     {}
func newRobotsPolicy(f Fetcher) RobotsPolicy                            { return nil }
