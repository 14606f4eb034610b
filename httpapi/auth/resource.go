package auth

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// resourceMetadataPath is the well-known prefix of RFC 9728 protected
// resource metadata; a resource at path P publishes its document at this
// prefix followed by P.
const resourceMetadataPath = "/.well-known/oauth-protected-resource"

// maxResources bounds Options.Resources.
const maxResources = 16

// checkResourcePaths validates Options.Resources.
func checkResourcePaths(paths []string) ([]string, error) {
	if len(paths) > maxResources {
		return nil, fmt.Errorf("auth: options: more than %d Resources", maxResources)
	}
	var out []string
	for _, p := range paths {
		u, err := url.Parse(p)
		if err != nil || !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || u.Path != p || u.RawQuery != "" || u.Fragment != "" ||
			len(p) < 2 || strings.HasSuffix(p, "/") || strings.HasPrefix(p, "/.well-known/") {
			return nil, fmt.Errorf("auth: options: resource path %q must be an absolute path like /mcp, without query, fragment or trailing slash", p)
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// audiences are the audiences of the tokens this server issues: the API's
// (Options.Audience) and each protected resource's identifier.
func (s *Server) audiences() []string {
	out := []string{s.opts.Audience}
	for _, p := range s.opts.Resources {
		if u := s.ResourceURI(p); u != "" {
			out = append(out, u)
		}
	}
	return out
}

// ResourceURI is the RFC 8707 resource identifier of the protected
// resource at path (one of Options.Resources): BaseURL followed by the
// path, "https://api.example.com/mcp". It is the audience of the tokens
// issued for it. It is empty when path is not a protected resource or
// BaseURL is not set (tokens cannot then be bound to it; API keys still
// work).
func (s *Server) ResourceURI(path string) string {
	if s.opts.BaseURL == "" || !slices.Contains(s.opts.Resources, path) {
		return ""
	}
	return s.opts.BaseURL + path
}

// ResourceMetadataURL is the URL of the RFC 9728 metadata of the
// protected resource at path ("/.well-known/oauth-protected-resource/mcp"
// under BaseURL), the resource_metadata of its WWW-Authenticate challenges;
// empty when ResourceURI is.
func (s *Server) ResourceMetadataURL(path string) string {
	if s.ResourceURI(path) == "" {
		return ""
	}
	return s.opts.BaseURL + resourceMetadataPath + path
}

// checkResource validates the resource parameter of an authorization or
// token request (RFC 8707 section 2): empty, or the identifier of one of
// the protected resources. Anything else is invalid_target.
func (s *Server) checkResource(param string) (string, error) {
	if param == "" {
		return "", nil
	}
	for _, p := range s.opts.Resources {
		if u := s.ResourceURI(p); u != "" && u == param {
			return u, nil
		}
	}
	return "", oerr(http.StatusBadRequest, "invalid_target", fmt.Sprintf("resource %q is not a resource this server issues tokens for", clip(param)))
}

// AuthenticateResource authenticates a request to the protected resource
// at path (one of Options.Resources). It accepts:
//
//   - access tokens in Authorization: Bearer whose audience is the
//     resource's identifier ([Server.ResourceURI]), from the
//     authorization-code flow with the resource indicator (RFC 8707) or
//     the client-credentials grant with a resource parameter. Tokens for
//     the API or any other audience are refused (ErrInvalidCredentials),
//     so a token obtained for one resource cannot be replayed at another;
//   - API keys, in X-API-Key or as the bearer token itself
//     ("Authorization: Bearer seo_live_..."), for scripts. The api_key
//     query parameter is not read: credentials do not go in URLs here.
//
// Errors are those of [Server.Authenticate].
func (s *Server) AuthenticateResource(r *http.Request, path string) (*Principal, error) {
	ctx := r.Context()
	if h := r.Header.Get("Authorization"); h != "" {
		if len(h) > maxTokenLen+len("Bearer ") {
			return nil, fmt.Errorf("%w: authorization header too long", ErrInvalidCredentials)
		}
		scheme, tok, ok := strings.Cut(h, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") {
			return nil, fmt.Errorf("%w: authorization scheme is not bearer", ErrInvalidCredentials)
		}
		tok = strings.TrimSpace(tok)
		if strings.HasPrefix(tok, KeyPrefix) {
			return s.authenticateKey(ctx, tok)
		}
		aud := s.ResourceURI(path)
		if aud == "" {
			return nil, fmt.Errorf("%w: %s accepts only API keys: the server has no public URL to bind tokens to", ErrInvalidCredentials, path)
		}
		return s.authenticateToken(ctx, tok, aud)
	}
	if key := r.Header.Get("X-API-Key"); key != "" {
		return s.authenticateKey(ctx, key)
	}
	return nil, ErrNoCredentials
}

// quote makes v an RFC 9110 quoted-string.
func quote(v string) string {
	return strconv.Quote(strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r > 0x7e {
			return -1
		}
		return r
	}, v))
}

// ResourceChallenge is the WWW-Authenticate value of a 401 or 403 from the
// protected resource at path (RFC 6750 section 3, RFC 9728 section 5.1):
// Bearer with the resource_metadata URL (when the server has a public
// URL), the scope the request needs (scope, empty for none), and for
// errCode "invalid_token" or "insufficient_scope" the error. A request
// without credentials gets no error code, as RFC 6750 asks.
func (s *Server) ResourceChallenge(path, errCode, scope, desc string) string {
	parts := []string{`realm="seokit"`}
	if errCode != "" {
		parts = append(parts, "error="+quote(errCode))
		if desc != "" {
			parts = append(parts, "error_description="+quote(desc))
		}
	}
	if scope != "" {
		parts = append(parts, "scope="+quote(scope))
	}
	if m := s.ResourceMetadataURL(path); m != "" {
		parts = append(parts, "resource_metadata="+quote(m))
	}
	return "Bearer " + strings.Join(parts, ", ")
}

// handleResourceMetadata serves the RFC 9728 metadata of the protected
// resources: at /.well-known/oauth-protected-resource followed by the
// resource's path, and at /.well-known/oauth-protected-resource itself
// for the first resource (clients that try the root form). Like the
// authorization server metadata it is built from BaseURL only.
func (s *Server) handleResourceMetadata(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.Path, resourceMetadataPath)
	if path == "" && len(s.opts.Resources) > 0 {
		path = s.opts.Resources[0]
	}
	res := s.ResourceURI(path)
	if res == "" {
		if s.opts.BaseURL == "" {
			writeEnvelope(w, http.StatusNotFound, "not_found", "protected resource metadata needs the server's public URL, which is not configured")
			return
		}
		writeEnvelope(w, http.StatusNotFound, "not_found", "no protected resource at this path")
		return
	}
	w.Header().Set("Cache-Control", "public, max-age=3600")
	// Browser-based MCP clients read it cross-origin; it holds nothing
	// private.
	w.Header().Set("Access-Control-Allow-Origin", "*")
	writeJSON(w, http.StatusOK, map[string]any{
		"resource":                 res,
		"resource_name":            "seokit " + strings.TrimPrefix(path, "/"),
		"authorization_servers":    []string{s.opts.Issuer},
		"jwks_uri":                 s.opts.BaseURL + "/.well-known/jwks.json",
		"scopes_supported":         []string{ScopeRead, ScopeWrite},
		"bearer_methods_supported": []string{"header"},
	})
}
