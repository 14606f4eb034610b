package seo

import (
	"net"
	"strconv"
	"strings"
)

// Longest host name and label of the DNS (RFC 1035 2.3.4).
const (
	MaxHostNameLength  = 253
	MaxHostLabelLength = 63
)

// DomainOptions are the rules of ParseHost that differ between its users.
// The zero value is the strictest: no port.
type DomainOptions struct {
	// AllowPort accepts a port after the host ("localhost:8080") and keeps
	// it in the result. Without it a port is an error, never dropped.
	AllowPort bool
}

// ParseHost validates a bare domain as the API, its dashboard and the data
// sources keyed by domain take it: a fully qualified host name or an IP
// address, with no scheme, path, query or user info, within the DNS's
// lengths (see CheckHostName), and a port only with o.AllowPort (nil o
// means the zero DomainOptions). It returns the host in lower case, with
// its port when one is given. Errors are *InputError for the field
// "domain" and carry raw.
func ParseHost(raw string, o *DomainOptions) (string, error) {
	var opts DomainOptions
	if o != nil {
		opts = *o
	}
	s := strings.TrimSpace(raw)
	if strings.Contains(s, "://") {
		return "", &InputError{Field: "domain", Value: raw, Reason: "must be a domain name such as example.com, without scheme"}
	}
	if _, port, err := net.SplitHostPort(s); err == nil {
		if !opts.AllowPort {
			return "", &InputError{Field: "domain", Value: raw, Reason: "must not have a port"}
		}
		if port == "" {
			return "", &InputError{Field: "domain", Value: raw, Reason: "has an invalid port"}
		}
	}
	u, err := ParseDomain(s)
	if err != nil {
		if ie, ok := AsInputError(err); ok {
			c := *ie
			c.Value = raw
			return "", &c
		}
		return "", err
	}
	return u.Host, nil
}

// CheckHostName checks a host name (an IP address passes) against the
// DNS's rules: at most MaxHostNameLength characters, each label from 1 to
// MaxHostLabelLength. Errors are *InputError for field.
func CheckHostName(field, host string) error {
	if net.ParseIP(strings.Trim(host, "[]")) != nil {
		return nil
	}
	if len(host) > MaxHostNameLength {
		return &InputError{Field: field, Value: host, Reason: "host name is longer than " + strconv.Itoa(MaxHostNameLength) + " characters"}
	}
	for l := range strings.SplitSeq(host, ".") {
		if len(l) > MaxHostLabelLength {
			return &InputError{Field: field, Value: host, Reason: "host name has a label longer than " + strconv.Itoa(MaxHostLabelLength) + " characters"}
		}
		if l == "" {
			return &InputError{Field: field, Value: host, Reason: "host name has an empty label"}
		}
	}
	return nil
}
