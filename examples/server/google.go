package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"golang.org/x/oauth2/jwt"

	"github.com/seokit/seokit/fieldvitals/crux"
	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/indexstatus"
	"github.com/seokit/seokit/indexstatus/searchconsole"
)

// maxKeyFile bounds a service-account key file (about 2.3 kB).
const maxKeyFile = 64 << 10

// googleDrivers sets the index status inspector (a service account) and
// the CrUX source (an API key) that c configures; each absent one leaves
// its endpoints answering 503.
func googleDrivers(ctx context.Context, c *config, opts *httpapi.Options) error {
	if c.gscCredentials != "" {
		f, err := os.Open(c.gscCredentials)
		if err != nil {
			return fmt.Errorf("-gsc-credentials: %w", err)
		}
		data, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
		f.Close()
		if err != nil || len(data) > maxKeyFile {
			return fmt.Errorf("-gsc-credentials: %s is not a service-account key file (unreadable or over %d bytes)", c.gscCredentials, maxKeyFile)
		}
		var k struct {
			Type         string `json:"type"`
			ClientEmail  string `json:"client_email"`
			PrivateKey   string `json:"private_key"`
			PrivateKeyID string `json:"private_key_id"`
			TokenURI     string `json:"token_uri"`
		}
		if err := json.Unmarshal(data, &k); err != nil {
			return fmt.Errorf("-gsc-credentials: %s is not JSON: %v", c.gscCredentials, err)
		}
		if k.Type != "service_account" || k.ClientEmail == "" || k.PrivateKey == "" {
			return fmt.Errorf("-gsc-credentials: %s is not a service-account key (type service_account with client_email and private_key)", c.gscCredentials)
		}
		if k.TokenURI == "" {
			k.TokenURI = "https://oauth2.googleapis.com/token"
		}
		jc := &jwt.Config{Email: k.ClientEmail, PrivateKey: []byte(k.PrivateKey), PrivateKeyID: k.PrivateKeyID, Scopes: []string{searchconsole.Scope}, TokenURL: k.TokenURI}
		ins, err := searchconsole.New(&searchconsole.Options{TokenSource: jc.TokenSource(ctx), BaseURL: os.Getenv("SEARCHCONSOLE_BASE_URL")})
		if err != nil {
			return fmt.Errorf("-gsc-credentials: %w", err)
		}
		opts.Inspector = ins
		opts.IndexLedger = indexstatus.NewLedger(indexstatus.Quota{}, nil)
		opts.IndexAccess = c.gscGrants.access(opts.Store)
	}
	if c.cruxKey != "" {
		src, err := crux.New(c.cruxKey, &crux.Options{BaseURL: os.Getenv("CRUX_BASE_URL")})
		if err != nil {
			return fmt.Errorf("-crux-key: %w", err)
		}
		opts.FieldVitals = src
	}
	return nil
}

// allProperties, granted to an account, is every property the service
// account reaches.
const allProperties = "*"

// gscGrants are the -gsc-grant flags: by account ID, the Search Console
// properties (normalised by indexstatus.ParseProperty, or allProperties)
// the account may inspect with -gsc-credentials' service account.
type gscGrants map[string][]string

// String lists the grants as the flag takes them, accounts in order.
func (g gscGrants) String() string {
	var out []string
	for _, id := range slices.Sorted(func(yield func(string) bool) {
		for id := range g {
			if !yield(id) {
				return
			}
		}
	}) {
		out = append(out, id+"="+strings.Join(g[id], ","))
	}
	return strings.Join(out, " ")
}

// Set adds one grant, ACCOUNT_ID=PROPERTY[,PROPERTY...] ("*" for every
// property), to those of earlier flags.
func (g *gscGrants) Set(v string) error {
	id, list, ok := strings.Cut(strings.TrimSpace(v), "=")
	id = strings.TrimSpace(id)
	if !ok || !strings.HasPrefix(id, "acct_") || strings.ContainsAny(id, " \t,") {
		return fmt.Errorf("%q: want ACCOUNT_ID=PROPERTY[,PROPERTY...] with the account's ID (acct_..., from \"accounts list\"), such as acct_x=sc-domain:example.com,https://www.example.org/", v)
	}
	if *g == nil {
		*g = gscGrants{}
	}
	for _, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		if p != allProperties {
			n, err := indexstatus.ParseProperty(p)
			if err != nil {
				return fmt.Errorf("%q: %q is not a Search Console property (sc-domain:example.com, or a URL prefix such as https://www.example.com/, or * for all)", v, p)
			}
			p = n
		}
		if !slices.Contains((*g)[id], p) {
			(*g)[id] = append((*g)[id], p)
		}
	}
	return nil
}

// setAll sets the grants of the environment variable env (entries
// separated by spaces or semicolons), used when no -gsc-grant is given.
func (g *gscGrants) setAll(env string) error {
	for _, e := range strings.FieldsFunc(env, func(r rune) bool { return r == ';' || r == ' ' || r == '\t' || r == '\n' }) {
		if err := g.Set(e); err != nil {
			return err
		}
	}
	return nil
}

// access is the server's httpapi.Options.IndexAccess: an admin account
// (the one the first start creates, admin@localhost, and those created
// with -admin: the operator's own) may inspect every property the service
// account was added to; any other account the properties granted to its
// ID.
func (g gscGrants) access(st store.Store) func(ctx context.Context, accountID, property string) (bool, error) {
	return func(ctx context.Context, accountID, property string) (bool, error) {
		for _, p := range g[accountID] {
			if p == allProperties || p == property {
				return true, nil
			}
		}
		a, err := st.Account(ctx, accountID)
		if errors.Is(err, store.ErrNotFound) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		return a.Admin, nil
	}
}
