package service

import "context"

// An action that spends server resources or provider money costs units of
// the account's daily quota (one, a rendering site analysis more); the
// service that runs it charges them, for every caller.

type paidKey struct{}

// WithPaid returns a context recording that units of the quota were
// already charged for the request it carries: a surface that counts every
// request (the API counts one unit per request) says so, and the service
// charges the rest of the action's cost, never the same unit twice.
func WithPaid(ctx context.Context, units int) context.Context {
	return context.WithValue(ctx, paidKey{}, units)
}

// Paid returns the units WithPaid recorded in ctx, 0 when none.
func Paid(ctx context.Context) int {
	n, _ := ctx.Value(paidKey{}).(int)
	return n
}

// Due is what an action costing cost units still owes in ctx: cost less
// what the request paid, never below zero.
func Due(ctx context.Context, cost int) int {
	return max(cost-Paid(ctx), 0)
}
