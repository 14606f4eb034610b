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
	"maps"
	"net/http"
	"slices"
	"strconv"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/seo"
)

// SiteBasicAuth is an HTTP basic authentication credential of a site
// analysis. The password is never returned: job answers show
// "[redacted]".
type SiteBasicAuth struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

// validateSiteScope checks the scope, list and access options of a site
// analysis against the crawler's rules and the plan's cap on list URLs
// (maxURLs); errors name the options.* field.
func validateSiteScope(o *SiteOptions, maxURLs int) error {
	if len(o.URLs) > maxURLs {
		return &seo.InputError{Field: "options.urls", Value: strconv.Itoa(len(o.URLs)),
			Reason: "at most " + strconv.Itoa(maxURLs) + " URLs, the cap of this account's plan"}
	}
	if o.UserAgent != "" {
		if _, _, err := seo.ResolveUserAgent(o.UserAgent); err != nil {
			return prefixField(err)
		}
	}
	h := http.Header{}
	for k, v := range o.Headers {
		h[k] = []string{v}
	}
	if err := seo.ValidateRequestHeader("headers", h); err != nil {
		return prefixField(err)
	}
	if len(o.Cookies) > crawler.MaxCookies {
		return invalid("options.cookies", "at most "+strconv.Itoa(crawler.MaxCookies)+" cookies")
	}
	for _, name := range slices.Sorted(maps.Keys(o.Cookies)) {
		if (&http.Cookie{Name: name, Value: o.Cookies[name]}).Valid() != nil {
			return invalid("options.cookies."+name, "not a valid cookie name and value")
		}
	}
	sc := siteScope(o)
	return prefixField(sc.Validate())
}

// prefixField puts "options." before the field of an *seo.InputError.
func prefixField(err error) error {
	if ie, ok := seo.AsInputError(err); ok {
		return ie.WithField("options." + ie.Field)
	}
	return err
}

// siteScope is the crawler.Scope of a site analysis's options.
func siteScope(o *SiteOptions) crawler.Scope {
	sc := crawler.Scope{
		Include: o.Include, Exclude: o.Exclude, KeepParams: o.KeepParams,
		MaxFolderDepth: o.MaxFolderDepth, URLs: o.URLs,
	}
	if len(o.Headers) > 0 {
		sc.Header = http.Header{}
		for k, v := range o.Headers {
			sc.Header.Set(k, v)
		}
	}
	if b := o.BasicAuth; b != nil {
		sc.BasicAuth = &crawler.BasicAuth{Username: b.Username, Password: b.Password}
	}
	for _, name := range slices.Sorted(maps.Keys(o.Cookies)) {
		sc.Cookies = append(sc.Cookies, &http.Cookie{Name: name, Value: o.Cookies[name]})
	}
	return sc
}

// applySiteScope sets the scope, list, access and user-agent options of a
// site analysis on co.
func applySiteScope(co *crawler.Options, o *SiteOptions) {
	co.Scope = siteScope(o)
	if o.UserAgent != "" {
		if ua, token, err := seo.ResolveUserAgent(o.UserAgent); err == nil {
			co.UserAgent, co.RobotsToken = ua, token
		}
	}
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
	key, err := s.credentialKey()
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCM(block)
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
	key, err := s.credentialKey()
	if err != nil {
		return SiteRequest{}, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return SiteRequest{}, err
	}
	gcm, err := cipher.NewGCM(block)
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
