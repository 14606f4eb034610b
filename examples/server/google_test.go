package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
)

// TestGSCGrantFlags: -gsc-grant takes ACCOUNT_ID=PROPERTY[,PROPERTY...],
// repeatable, the properties normalised as the API compares them;
// SEOKIT_GSC_GRANTS is read only without the flag; bad grants are
// refused saying what the flag wants.
func TestGSCGrantFlags(t *testing.T) {
	t.Setenv("SEOKIT_GSC_GRANTS", "acct_env=sc-domain:env.example")
	c, err := parse([]string{"-gsc-grant", "acct_a=sc-domain:Example.com, https://www.example.org", "-gsc-grant", "acct_b=*", "-gsc-grant", "acct_a=sc-domain:example.com"}, &syncBuffer{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.gscGrants.String(), "acct_a=sc-domain:example.com,https://www.example.org/ acct_b=*"; got != want {
		t.Errorf("grants %q, want %q", got, want)
	}
	c, err = parse(nil, &syncBuffer{})
	if err != nil || c.gscGrants.String() != "acct_env=sc-domain:env.example" {
		t.Errorf("grants of SEOKIT_GSC_GRANTS: %q, %v", c.gscGrants.String(), err)
	}
	for _, tc := range []struct{ arg, want string }{
		{"sc-domain:example.com", "want ACCOUNT_ID=PROPERTY"},
		{"admin@localhost=sc-domain:example.com", "account's ID (acct_"},
		{"acct_a=example.com", `"example.com" is not a Search Console property`},
		{"acct_a=", `"" is not a Search Console property`},
		{"acct_a=ftp://example.com/", "is not a Search Console property"},
	} {
		_, err := parse([]string{"-gsc-grant", tc.arg}, &syncBuffer{})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "gsc-grant") {
			t.Errorf("-gsc-grant %q: %v, want an error saying %q", tc.arg, err, tc.want)
		}
	}
	t.Setenv("SEOKIT_GSC_GRANTS", "acct_a=nope")
	if _, err := parse(nil, &syncBuffer{}); err == nil || !strings.Contains(err.Error(), "SEOKIT_GSC_GRANTS") {
		t.Errorf("bad SEOKIT_GSC_GRANTS: %v", err)
	}
}

// TestGSCAccess: the server's IndexAccess lets an admin account inspect
// every property, another account only its granted ones, each exactly.
func TestGSCAccess(t *testing.T) {
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, ":memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	mk := func(email string, admin bool) string {
		a := &store.Account{Email: email, Name: email, Plan: store.Pro, Admin: admin}
		if err := st.CreateAccount(ctx, a); err != nil {
			t.Fatal(err)
		}
		return a.ID
	}
	admin, granted, other := mk("admin@localhost", true), mk("granted@example.com", false), mk("other@example.net", false)
	var g gscGrants
	if err := g.Set(granted + "=sc-domain:example.com"); err != nil {
		t.Fatal(err)
	}
	if err := g.Set("acct_all=*"); err != nil {
		t.Fatal(err)
	}
	// As the server wires it: -gsc-credentials sets the inspector and
	// the grants decide.
	key := filepath.Join(t.TempDir(), "sa.json")
	if err := os.WriteFile(key, []byte(`{"type":"service_account","client_email":"sa@p.iam.gserviceaccount.com","private_key":"unused"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	opts := &httpapi.Options{Store: st}
	if err := googleDrivers(ctx, &config{gscCredentials: key, gscGrants: g}, opts); err != nil || opts.Inspector == nil || opts.IndexAccess == nil {
		t.Fatalf("googleDrivers: %v; inspector %v", err, opts.Inspector)
	}
	may := opts.IndexAccess
	for _, tc := range []struct {
		account, property string
		want              bool
	}{
		{admin, "sc-domain:victim.example", true},
		{granted, "sc-domain:example.com", true},
		{granted, "https://www.example.com/", false},
		{granted, "sc-domain:example.org", false},
		{other, "sc-domain:example.com", false},
		{"acct_all", "sc-domain:anything.example", true},
		{"acct_gone", "sc-domain:example.com", false},
	} {
		if ok, err := may(ctx, tc.account, tc.property); err != nil || ok != tc.want {
			t.Errorf("account %s, %s: %v, %v; want %v", tc.account, tc.property, ok, err, tc.want)
		}
	}
}
