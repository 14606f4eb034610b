package seo

import "strings"

// ParseDomainHost validates a bare domain as data sources keyed by domain
// take it (a Search Console or GA4 property's domain): a host name with no
// scheme, port, path or query. It returns the host name; errors are
// *InputError for the field "domain".
func ParseDomainHost(raw string) (string, error) {
	if strings.Contains(raw, "://") {
		return "", &InputError{Field: "domain", Value: raw, Reason: "must be a domain name such as example.com, without scheme"}
	}
	u, err := ParseDomain(raw)
	if err != nil {
		return "", err
	}
	if u.Port() != "" {
		return "", &InputError{Field: "domain", Value: raw, Reason: "must not have a port"}
	}
	return u.Hostname(), nil
}
