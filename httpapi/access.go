package httpapi

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/seo"
)

// SiteBasicAuth is an HTTP basic authentication credential of a site
// analysis. The password is never returned: job answers show
// "[redacted]".
type SiteBasicAuth = crawler.BasicAuth

// prefixField puts "options." before the field of an *seo.InputError.
func prefixField(err error) error {
	if ie, ok := seo.AsInputError(err); ok {
		return ie.WithField("options." + ie.Field)
	}
	return err
}

// siteSecrets are the credentials of a site analysis, kept in the job
// store only encrypted (storedSiteRequest.Sealed).
type siteSecrets struct {
	Headers   map[string]string `json:"headers,omitempty"`
	BasicAuth *SiteBasicAuth    `json:"basicAuth,omitempty"`
	Cookies   map[string]string `json:"cookies,omitempty"`
}

// storedSiteRequest is a site request as the job store keeps it: the
// request with its credentials redacted, and the credentials sealed.
type storedSiteRequest struct {
	SiteRequest
	// Sealed is base64 of nonce||AES-256-GCM ciphertext of siteSecrets.
	Sealed string `json:"sealed,omitempty"`
}

// redactSecrets replaces the credentials of o by seo.Redacted: the values
// of secret headers (seo.IsSecretHeader), the password, cookie values.
func redactSecrets(o *SiteOptions) {
	if len(o.Headers) > 0 {
		h := make(map[string]string, len(o.Headers))
		for k, v := range o.Headers {
			if seo.IsSecretHeader(k) {
				v = seo.Redacted
			}
			h[k] = v
		}
		o.Headers = h
	}
	if o.BasicAuth != nil {
		o.BasicAuth = &SiteBasicAuth{Username: o.BasicAuth.Username, Password: seo.Redacted}
	}
	if len(o.Cookies) > 0 {
		c := make(map[string]string, len(o.Cookies))
		for k := range o.Cookies {
			c[k] = seo.Redacted
		}
		o.Cookies = c
	}
}

// credentialKey derives the key that seals stored credentials from the
// server's master secret (Options.CallbackSecret) with HKDF-SHA256.
func (s *Server) credentialKey() ([]byte, error) {
	return hkdf.Key(sha256.New, s.cbSecret, nil, "seokit job credentials v1", 32)
}

// credentialAEAD is the AES-GCM cipher that seals stored credentials and
// webhook secrets under credentialKey.
func (s *Server) credentialAEAD() (cipher.AEAD, error) {
	key, err := s.credentialKey()
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// sealRequest encodes req for the job store, its credentials encrypted.
func (s *Server) sealRequest(req SiteRequest) ([]byte, error) {
	o := req.Options
	if len(o.Headers) == 0 && o.BasicAuth == nil && len(o.Cookies) == 0 {
		return json.Marshal(req)
	}
	plain, err := json.Marshal(siteSecrets{Headers: o.Headers, BasicAuth: o.BasicAuth, Cookies: o.Cookies})
	if err != nil {
		return nil, err
	}
	gcm, err := s.credentialAEAD()
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, gcm.NonceSize())
	rand.Read(nonce)
	st := storedSiteRequest{SiteRequest: req, Sealed: base64.StdEncoding.EncodeToString(gcm.Seal(nonce, nonce, plain, nil))}
	redactSecrets(&st.Options)
	return json.Marshal(st)
}

// errSealed is the cause of a stored request whose credentials cannot be
// decrypted: the server's CallbackSecret is not the one that sealed them.
var errSealed = errors.New("the job's credentials cannot be decrypted (the server's CallbackSecret changed)")

// openRequest decodes a stored site request, its credentials decrypted.
func (s *Server) openRequest(body []byte) (SiteRequest, error) {
	var st storedSiteRequest
	if err := json.Unmarshal(body, &st); err != nil {
		return SiteRequest{}, err
	}
	if st.Sealed == "" {
		return st.SiteRequest, nil
	}
	raw, err := base64.StdEncoding.DecodeString(st.Sealed)
	if err != nil {
		return SiteRequest{}, errSealed
	}
	gcm, err := s.credentialAEAD()
	if err != nil {
		return SiteRequest{}, err
	}
	if len(raw) < gcm.NonceSize() {
		return SiteRequest{}, errSealed
	}
	plain, err := gcm.Open(nil, raw[:gcm.NonceSize()], raw[gcm.NonceSize():], nil)
	if err != nil {
		return SiteRequest{}, errSealed
	}
	var sec siteSecrets
	if err := json.Unmarshal(plain, &sec); err != nil {
		return SiteRequest{}, fmt.Errorf("httpapi: stored credentials: %w", err)
	}
	req := st.SiteRequest
	req.Options.Headers, req.Options.BasicAuth, req.Options.Cookies = sec.Headers, sec.BasicAuth, sec.Cookies
	return req, nil
}
