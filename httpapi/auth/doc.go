// Package auth authenticates requests to the seokit HTTP API and serves
// its token, OAuth 2.0 and JWKS endpoints.
//
// # Credentials
//
// Three kinds of credentials are accepted by [Server.Authenticate]:
//
//   - Bearer JWTs in the Authorization header, from POST /v1/auth/token
//     (client credentials: client_id and client_secret as JSON, as the API
//     specification shows, or as an RFC 6749 form with HTTP Basic or body
//     credentials). They are valid for Options.TokenTTL (24 hours) and act
//     as the client's owning account.
//   - API keys in the X-API-Key header (preferred) or the api_key query
//     parameter. A key is "seo_live_", 30 random base62 characters and a
//     6-character base62 CRC-32 of the rest; keys with a bad layout or
//     checksum are refused without a store lookup. Only the SHA-256 of a key
//     is stored; the value is returned once by [Server.CreateAPIKey]. Use
//     [RedactQuery] (every parameter of [SecretParams]) and [RedactHeader]
//     when logging requests.
//   - OAuth 2.0 access tokens from the authorization-code flow
//     (GET/POST /v1/oauth/authorize, POST /v1/oauth/token), acting as the
//     account that consented. PKCE with S256 is required, redirect URIs
//     must match a registered one byte for byte, codes live 10 minutes and
//     are single use, access tokens live Options.OAuthTokenTTL (1 hour) and
//     come with a refresh token (30 days) that rotates on each use. A code
//     or refresh token presented twice revokes every token of its grant.
//     POST /v1/oauth/revoke implements RFC 7009.
//
// # Protected resources (the MCP endpoint)
//
// Options.Resources lists paths under BaseURL ("/mcp") served as OAuth
// protected resources, as the MCP authorization profile asks:
//
//   - RFC 9728 metadata at /.well-known/oauth-protected-resource followed
//     by the path (and at the root form for the first resource): the
//     resource identifier (BaseURL followed by the path), this server as
//     its authorization server, the scopes read and write, bearer tokens
//     in the header. [Server.ResourceChallenge] builds the WWW-Authenticate
//     of its 401 and 403 answers, with resource_metadata and scope.
//   - RFC 8707 resource indicators: the resource parameter of the
//     authorization request is recorded with the grant, a token request
//     may only repeat it, and the grant's tokens have the resource as
//     their audience. An unknown resource is invalid_target.
//     [Server.AuthenticateResource] accepts only tokens for the resource
//     (and API keys, also as the bearer token); [Server.Authenticate], the
//     API's, accepts only the API's audience, so a token never crosses
//     from one to the other.
//
// # Clients that register themselves
//
// Public clients (no secret, token_endpoint_auth_method "none") prove
// their grants with PKCE and their registered redirect URIs; they cannot
// use client_credentials. They come from:
//
//   - RFC 7591 dynamic registration at POST /v1/oauth/register (the
//     registration_endpoint of the metadata), open to anyone and bounded by
//     RegistrationOptions: 10 registrations an hour per address (an IPv6
//     /64), 1000 self-registered clients in all, then 503.
//   - Client ID Metadata Documents: a client_id that is an https URL names
//     the JSON document describing the client, fetched at the authorization
//     request through Options.ClientFetcher (the safe fetcher: private and
//     loopback addresses refused unless its policy allows them), at most 5
//     KB, no redirect, 5 s, a verified certificate, cached 5 minutes
//     (failures 30 s). Its client_id must equal the URL and it must list
//     the redirect URI. The client is stored when a user consents.
//
// Both are owned by RegistryAccountID, which nobody signs in to; their
// grants act as the consenting account. The consent page shows a
// self-registered name as unverified and a document client's host.
//
// Access tokens are Ed25519-signed JWTs ("alg":"EdDSA", "typ":"at+jwt",
// RFC 9068) with iss, aud, sub (the account ID), exp, nbf, iat, jti, scope,
// client_id and, for OAuth tokens, fam (the grant family). Verification
// accepts only EdDSA with a known, unretired kid, requires exp, checks iss,
// aud and typ with Options.Leeway of clock skew, and then the revocation of
// the jti and of the grant family. Signing keys live in the store, are
// cached for Options.KeyRefresh, rotate with [Server.RotateSigningKey] and
// are published at /.well-known/jwks.json until [Server.RetireSigningKey].
// A token whose kid is unknown reloads the keys (at most once a second), so
// a key another instance just added verifies at once.
//
// Verified API keys are trusted from memory for Options.KeyCacheTTL (10
// seconds by default); [Server.RevokeAPIKey] drops the key from this
// process's cache at once, and another instance sharing the store may
// accept a revoked key until its cache entry expires.
//
// The token endpoints answer errors in the RFC 6749 section 5.2 format
// ({"error":"invalid_grant","error_description":"..."}), which OAuth
// clients parse: invalid_client (401, with WWW-Authenticate: Basic when
// the client used Basic), invalid_grant, invalid_scope,
// unsupported_grant_type, invalid_request, unsupported_token_type, and 429
// slow_down with Retry-After when throttled. A refresh request is checked
// (client, expiry, scope) before its token is spent, so a bad one leaves
// the token usable. POST /v1/oauth/revoke refuses with invalid_grant a
// token issued to another client (RFC 7009 section 2.1) and answers 200
// for unknown ones.
//
// # Issuer
//
// Options.BaseURL is the public URL of the server. It is the issuer: the
// "issuer" of the RFC 8414 metadata, whose endpoints are built from it,
// and the "iss" of every token, checked on each. The metadata never
// depends on the request (no Host header is reflected), so it is served
// cacheable; without BaseURL it is not served.
//
// # Throttling failed authentications
//
// One [Throttle] (see [Server.Throttle]) follows the OWASP Authentication
// Cheat Sheet for the token endpoints, the consent page's and the
// dashboard's sign-in ([Server.SignIn]) and the API's key and token checks:
//
//   - per (client address, identity), identity being the client_id or the
//     email: 10 failures, then one every 2 s. It is checked before the
//     secret: once spent, that address gets 429 (slow_down at the token
//     endpoints) with Retry-After even with the right secret. Other
//     addresses are not affected, so guessing cannot lock the owner out.
//     Only failures spend it, so attempts with the right secret are never
//     refused however many run at once.
//   - per address (an IPv6 address counts per /64), over every identity
//     and for API keys and tokens, which name none: 100 failures, then one
//     a second. It is checked after the secret: past it, failures get 429
//     instead of 401, but a credential that verifies is always accepted.
//     Requests without credentials never count.
//   - per identity, over every address: 100 failures, then one a second.
//     Past it the identity is slowed, never locked: each attempt waits one
//     second first and a new address starts with one attempt instead of
//     ten; the right secret from a fresh address still succeeds.
//
// Each table is an LRU of at most 100,000 buckets. An address past its
// budget adds no entries, so flushing a victim's state takes about a
// thousand addresses (or /64s). The client address comes from
// [WithClientAddr] (package httpapi sets it from its trusted proxies),
// else Options.ClientAddr, else the TCP peer.
//
// # Permissions
//
// OAuth clients are granted the scopes "read" and "write". API keys carry
// permissions: "read", "write" (which includes read), and optionally
// operation names that restrict the key to those operations: "analyze",
// "optimize", "keywords", "rankings" and "reports". [Principal.Allowed]
// decides: a route needing "write" needs the write permission; a route
// needing "read" needs read or write; a principal naming operations may
// perform only those. Which route needs which scope and operation is
// documented and enforced by package httpapi, which answers 403 forbidden
// when Allowed is false.
package auth
