package service

import (
	"context"
	"errors"
	"time"

	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/store"
)

// Accounts is the accounts service: accounts (an admin's listing, plan
// and limit changes), passwords, an account's API keys and OAuth
// applications, and its daily request counts. Package auth owns the
// secrets (password hashing, key and client secret generation): the
// service calls its functions, never the store around them. The
// dashboard's overview, keys, apps, account, usage and admin pages call
// it; the API server offers it as httpapi.Server.Accounts.
type Accounts interface {
	// Account returns an account by ID; ErrNotFound when there is none.
	Account(ctx context.Context, id string) (*store.Account, error)
	// AccountByEmail returns the account with the e-mail address.
	AccountByEmail(ctx context.Context, email string) (*store.Account, error)
	// ListAccounts returns at most limit accounts after the cursor (an
	// account ID, "" for the first page), in ID order.
	ListAccounts(ctx context.Context, after string, limit int) ([]store.Account, error)
	// CreateAccount creates an account (auth.Server.CreateAccount: the
	// e-mail and password policies apply).
	CreateAccount(ctx context.Context, email, name, password string, plan store.Plan) (*store.Account, error)
	// UpdateAccount stores a changed account (plan, daily limit).
	UpdateAccount(ctx context.Context, a *store.Account) error
	// SetPassword sets an account's password and signs out its sessions
	// (auth.Server.SetPassword).
	SetPassword(ctx context.Context, accountID, password string) (*store.Account, error)

	// Keys lists the account's API keys, revoked ones included.
	Keys(ctx context.Context, accountID string) ([]store.APIKey, error)
	// CreateKey creates an API key and returns its value, shown once.
	CreateKey(ctx context.Context, accountID, name string, permissions []string, expires time.Time) (string, *store.APIKey, error)
	// RevokeKey revokes one of the account's keys.
	RevokeKey(ctx context.Context, accountID, id string) error

	// Clients lists the account's OAuth applications.
	Clients(ctx context.Context, accountID string) ([]store.Client, error)
	// Client returns one of the account's live applications; another
	// account's, or a revoked one, is ErrNotFound.
	Client(ctx context.Context, accountID, id string) (*store.Client, error)
	// CreateClient registers an application and returns its secret,
	// shown once.
	CreateClient(ctx context.Context, accountID, name string, redirectURIs, scopes []string) (string, *store.Client, error)
	// RotateClientSecret replaces an application's secret.
	RotateClientSecret(ctx context.Context, accountID, clientID string) (string, error)
	// DeleteClient deletes one of the account's applications.
	DeleteClient(ctx context.Context, accountID, id string) error

	// Usage returns the account's daily request counts in [from, to]
	// (UTC days, days without requests left out).
	Usage(ctx context.Context, accountID string, from, to time.Time) ([]store.Usage, error)
}

// AccountsStore is the part of the store the accounts service reads and
// writes besides what auth does. store.Store implements it.
type AccountsStore interface {
	store.Accounts
	store.Keys
	store.Clients
}

// UsageReader reads an account's daily request counts. store.Store and
// ratelimit.Limiter implement it.
type UsageReader interface {
	Usage(ctx context.Context, accountID string, from, to time.Time) ([]store.Usage, error)
}

// NewAccounts returns the accounts service over st and au, reading the
// daily counts from usage (nil means st's, when it has them). A server
// without an auth server (authentication turned off) answers a
// *NotConfiguredError to what needs one, as one without usage counts
// does to Usage.
func NewAccounts(st AccountsStore, au *auth.Server, usage UsageReader) (Accounts, error) {
	if st == nil {
		return nil, errors.New("service: NewAccounts needs a store")
	}
	if usage == nil {
		usage, _ = st.(UsageReader)
	}
	return &accounts{st: st, au: au, usage: usage}, nil
}

// errNoAuth answers what needs the auth server on a server without one.
var errNoAuth = &NotConfiguredError{What: "accounts"}

type accounts struct {
	st    AccountsStore
	au    *auth.Server
	usage UsageReader
}

func (x *accounts) Account(ctx context.Context, id string) (*store.Account, error) {
	return x.st.Account(ctx, id)
}

func (x *accounts) AccountByEmail(ctx context.Context, email string) (*store.Account, error) {
	return x.st.AccountByEmail(ctx, email)
}

func (x *accounts) ListAccounts(ctx context.Context, after string, limit int) ([]store.Account, error) {
	return x.st.ListAccounts(ctx, after, limit)
}

func (x *accounts) CreateAccount(ctx context.Context, email, name, password string, plan store.Plan) (*store.Account, error) {
	if x.au == nil {
		return nil, errNoAuth
	}
	return x.au.CreateAccount(ctx, email, name, password, plan)
}

func (x *accounts) UpdateAccount(ctx context.Context, a *store.Account) error {
	return x.st.UpdateAccount(ctx, a)
}

func (x *accounts) SetPassword(ctx context.Context, accountID, password string) (*store.Account, error) {
	if x.au == nil {
		return nil, errNoAuth
	}
	return x.au.SetPassword(ctx, accountID, password)
}

func (x *accounts) Keys(ctx context.Context, accountID string) ([]store.APIKey, error) {
	return x.st.Keys(ctx, accountID)
}

func (x *accounts) CreateKey(ctx context.Context, accountID, name string, permissions []string, expires time.Time) (string, *store.APIKey, error) {
	if x.au == nil {
		return "", nil, errNoAuth
	}
	return x.au.CreateAPIKey(ctx, accountID, name, permissions, expires)
}

func (x *accounts) RevokeKey(ctx context.Context, accountID, id string) error {
	if x.au == nil {
		return errNoAuth
	}
	return x.au.RevokeAPIKey(ctx, accountID, id)
}

func (x *accounts) Clients(ctx context.Context, accountID string) ([]store.Client, error) {
	return x.st.Clients(ctx, accountID)
}

func (x *accounts) Client(ctx context.Context, accountID, id string) (*store.Client, error) {
	c, err := x.st.Client(ctx, id)
	if err != nil {
		return nil, err
	}
	if c.AccountID != accountID || !c.RevokedAt.IsZero() {
		return nil, store.ErrNotFound
	}
	return c, nil
}

func (x *accounts) CreateClient(ctx context.Context, accountID, name string, redirectURIs, scopes []string) (string, *store.Client, error) {
	if x.au == nil {
		return "", nil, errNoAuth
	}
	return x.au.CreateClient(ctx, accountID, name, redirectURIs, scopes)
}

func (x *accounts) RotateClientSecret(ctx context.Context, accountID, clientID string) (string, error) {
	if x.au == nil {
		return "", errNoAuth
	}
	return x.au.RotateClientSecret(ctx, accountID, clientID)
}

func (x *accounts) DeleteClient(ctx context.Context, accountID, id string) error {
	return x.st.DeleteClient(ctx, accountID, id)
}

func (x *accounts) Usage(ctx context.Context, accountID string, from, to time.Time) ([]store.Usage, error) {
	if x.usage == nil {
		return nil, &NotConfiguredError{What: "usage counts"}
	}
	return x.usage.Usage(ctx, accountID, from, to)
}
