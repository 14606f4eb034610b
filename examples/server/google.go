package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"golang.org/x/oauth2/jwt"

	"github.com/seokit/seokit/fieldvitals/crux"
	"github.com/seokit/seokit/httpapi"
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
