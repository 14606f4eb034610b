package service

import (
	"net/url"

	"github.com/seokit/seokit/seo"
)

// Target is the start of a site analysis, parsed once where a request
// enters a service and passed down from there: the checks that follow
// (the address policy, the project's domain, the crawl scope, the mute
// list) read its parts instead of parsing the request's domain or url
// again.
type Target struct {
	// Field is the request field it was parsed from, "domain" or "url";
	// errors about the target name it.
	Field string
	// Raw is the value the client sent.
	Raw string
	// URL is the start URL: https://host/ for a domain, the URL given
	// (its path at least "/") for a url.
	URL *url.URL
}

// Host is the target's host with its port, in lower case for a domain.
func (t *Target) Host() string { return t.URL.Host }

// ParseTarget parses a site request's domain or url (exactly one): a
// domain as seo.ParseHost takes it (a port allowed), a url as
// seo.ParseURL does, its host name within the DNS's lengths. Errors are
// *seo.InputError naming the field.
func ParseTarget(domain, rawURL string) (Target, error) {
	switch {
	case domain != "" && rawURL != "":
		return Target{}, &seo.InputError{Field: "url", Reason: "give either domain or url, not both"}
	case rawURL != "":
		u, err := seo.ParseURL(rawURL)
		if err != nil {
			if ie, ok := seo.AsInputError(err); ok {
				return Target{}, ie.WithField("url")
			}
			return Target{}, err
		}
		if err := seo.CheckHostName("url", u.Hostname()); err != nil {
			return Target{}, err
		}
		if u.Path == "" {
			u.Path = "/"
		}
		return Target{Field: "url", Raw: rawURL, URL: u}, nil
	default:
		host, err := seo.ParseHost(domain, &seo.DomainOptions{AllowPort: true})
		if err != nil {
			return Target{}, err // "domain is empty" included
		}
		return Target{Field: "domain", Raw: domain, URL: &url.URL{Scheme: "https", Host: host, Path: "/"}}, nil
	}
}
