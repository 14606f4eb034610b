package httpapi

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/seo"
)

// MaxMutes caps the check IDs and areas of one mute list.
const MaxMutes = 200

// MuteList is the body of PUT /v1/mutes/{domain} and the answer of GET and
// PUT: the check IDs and areas an account mutes for a domain. Page and
// site analyses of the domain leave the findings of these checks out of
// their findings and scores and count them under "muted".
type MuteList struct {
	// Domain is the project's host name, without "www." (set in answers).
	Domain string `json:"domain,omitempty"`
	// IDs are check IDs ("security.csp_missing") or areas ("social") of
	// the page and site catalogues, at most MaxMutes.
	IDs []string `json:"ids"`
}

// getMutes serves GET /v1/mutes/{domain}.
func (s *Server) getMutes(w http.ResponseWriter, r *http.Request) {
	domain, err := muteDomain(r.PathValue("domain"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	ids, err := s.st.Mutes(r.Context(), principal(r.Context()).AccountID, domain)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, MuteList{Domain: domain, IDs: orEmpty(ids)})
}

// putMutes serves PUT /v1/mutes/{domain}: it replaces the list; an empty
// list unmutes everything, a missing or null one is refused.
func (s *Server) putMutes(w http.ResponseWriter, r *http.Request) {
	domain, err := muteDomain(r.PathValue("domain"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	var body MuteList
	if err := decodeJSON(w, r, s.opts.MaxBodyBytes, &body); err != nil {
		s.fail(w, r, err)
		return
	}
	if body.IDs == nil {
		s.fail(w, r, invalid("ids", "ids is required: send the check IDs and areas to mute, or [] to unmute everything"))
		return
	}
	ids, err := s.SetMutes(r.Context(), principal(r.Context()).AccountID, domain, body.IDs)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, MuteList{Domain: domain, IDs: ids})
}

// Mutes returns the check IDs and areas the account mutes for domain (a
// host name; "www." is ignored), never nil.
func (s *Server) Mutes(ctx context.Context, accountID, domain string) ([]string, error) {
	d, err := muteDomain(domain)
	if err != nil {
		return nil, err
	}
	ids, err := s.st.Mutes(ctx, accountID, d)
	return orEmpty(ids), err
}

// SetMutes validates ids (see validateMutes, field "ids"), removes
// repeats and stores them as the account's mute list for domain; it
// returns the list stored. The dashboard calls it.
func (s *Server) SetMutes(ctx context.Context, accountID, domain string, ids []string) ([]string, error) {
	d, err := muteDomain(domain)
	if err != nil {
		return nil, err
	}
	if err := validateMutes("ids", ids); err != nil {
		return nil, err
	}
	ids = unionIDs(nil, ids)
	if err := s.st.SetMutes(ctx, accountID, d, ids); err != nil {
		return nil, err
	}
	return ids, nil
}

// validateMutes checks a mute list: at most MaxMutes entries, each a check
// ID or area of the page or site catalogue; an unknown one is an
// *seo.InputError naming field[i].
func validateMutes(field string, ids []string) error {
	if len(ids) > MaxMutes {
		return &seo.InputError{Field: field, Value: strconv.Itoa(len(ids)) + " entries", Reason: "must hold at most " + strconv.Itoa(MaxMutes) + " check IDs or areas"}
	}
	return analyzer.ValidateIDs(field, ids, crawler.Catalog())
}

// muteDomain validates a domain as a site analysis does (seo.ParseHost
// with a port allowed) and returns its project key: the lower-case host
// without a leading "www.".
func muteDomain(raw string) (string, error) {
	host, err := seo.ParseHost(raw, &seo.DomainOptions{AllowPort: true})
	if err != nil {
		return "", err
	}
	return projectKey(host), nil
}

// projectKey is the key of a host's mute list: lower case, without "www.".
func projectKey(host string) string {
	return strings.TrimPrefix(strings.ToLower(host), "www.")
}

// analysisMutes returns the mute list of an analysis of host by the
// account: the domain's stored list and the request's (already
// validated), without repeats.
func (s *Server) analysisMutes(ctx context.Context, accountID, host string, request []string) ([]string, error) {
	stored, err := s.st.Mutes(ctx, accountID, projectKey(host))
	if err != nil {
		return nil, err
	}
	return unionIDs(stored, request), nil
}

// unionIDs returns a followed by the entries of b not in a, without
// repeats, never nil.
func unionIDs(a, b []string) []string {
	out := make([]string, 0, len(a)+len(b))
	for _, id := range slices.Concat(a, b) {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// pageMutes keeps the entries of ids a page analysis knows, dropping the
// site-scope ones (site.orphan, "site") that only crawls report.
func pageMutes(ids []string) []string {
	var out []string
	for _, id := range ids {
		if analyzer.ValidateIDs("", []string{id}) == nil {
			out = append(out, id)
		}
	}
	return out
}

func orEmpty(ids []string) []string {
	if ids == nil {
		return []string{}
	}
	return ids
}
