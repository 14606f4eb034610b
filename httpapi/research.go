// The keyword research services: suggestions, rankings and reports, as
// the /v1 handlers and the dashboard's rankings page call them.

package httpapi

import (
	"context"
	"net"
	"strconv"
	"strings"

	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/keywords"
	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/reports"
	"github.com/seokit/seokit/seo"
)

// RankingsResponse is the body of GET /v1/rankings (service.RankingsResponse).
type RankingsResponse = service.RankingsResponse

// Values of RankingsResponse.SourceStatus.
const (
	SourceConfigured = service.SourceConfigured
	SourceNone       = service.SourceNone
)

// noSourceMessage is RankingsResponse.Message without a SERP source.
const noSourceMessage = "No SERP source is configured on this server: positions come only from imported data " +
	"(Search Console exports, CSV history), and keywords without imported data are unchecked, not \"not ranked\"."

// Keywords returns the keyword suggestions service over the server's
// Suggester.
func (s *Server) Keywords() service.Keywords { return research{s} }

// Rankings returns the rankings service over the server's Tracker: GET
// /v1/rankings and the dashboard's "Track keywords" call it, and it
// charges each check to the account's daily quota.
func (s *Server) Rankings() service.Rankings { return research{s} }

// Reports returns the ranking reports service over the server's Reports
// builder.
func (s *Server) Reports() service.Reports { return research{s} }

// research implements service.Keywords, service.Rankings and
// service.Reports.
type research struct{ s *Server }

var (
	_ service.Keywords = research{}
	_ service.Rankings = research{}
	_ service.Reports  = research{}
)

// researchCost is the quota units of a suggestion, a ranking check or a
// report: one, which the API's per-request count pays.
const researchCost = 1

// locale parses an optional locale; "" means en-US.
func locale(v string) (seo.Locale, error) {
	if v == "" {
		return seo.Locale{Language: "en", Region: "US"}, nil
	}
	return seo.ParseLocale(v)
}

// device parses an optional device; "" is returned as is.
func device(v string) (rankings.Device, error) {
	switch d := rankings.Device(v); d {
	case "", rankings.Desktop, rankings.Mobile:
		return d, nil
	}
	return "", service.Invalid("device", `device must be "desktop" or "mobile"`)
}

func (x research) SuggestJSON(ctx context.Context, accountID string, dst []byte, req service.SuggestRequest) ([]byte, error) {
	query := strings.TrimSpace(req.Query)
	if query == "" {
		return nil, service.Invalid("query", "query is required")
	}
	loc, err := locale(req.Locale)
	if err != nil {
		return nil, err
	}
	if req.Limit < 0 || req.Limit > service.MaxSuggestions {
		return nil, service.Invalid("limit", "limit must be an integer from 1 to "+strconv.Itoa(service.MaxSuggestions))
	}
	if x.s.opts.Suggester == nil {
		return nil, &service.NotConfiguredError{What: "keyword suggestions"}
	}
	if err := x.s.charge(ctx, accountID, researchCost); err != nil {
		return nil, err
	}
	if req.Site != "" {
		return x.suggestWithSite(ctx, accountID, dst, query, loc, req)
	}
	return x.s.opts.Suggester.SuggestJSON(ctx, dst, query, loc, &keywords.SuggestOptions{Limit: req.Limit})
}

func (x research) Source() (string, bool) {
	t := x.s.opts.Tracker
	if t == nil || !t.HasSource() {
		return "", false
	}
	return t.SourceName(), true
}

func (x research) History(ctx context.Context, _ string, req service.HistoryRequest) (*service.RankingHistory, error) {
	t := x.s.opts.Tracker
	if t == nil {
		return nil, &service.NotConfiguredError{What: "rankings"}
	}
	tg, err := rankings.ParseTarget(req.Domain)
	if err != nil {
		return nil, err
	}
	switch {
	case len(req.Keywords) == 0:
		return nil, &seo.InputError{Field: "keywords", Reason: "is empty: give at least one keyword"}
	case len(req.Keywords) > service.MaxTrack:
		return nil, &seo.InputError{Field: "keywords", Reason: "has more than " + strconv.Itoa(service.MaxTrack) + " keywords"}
	}
	st := t.Store()
	f := rankings.Filter{Domain: tg.String(), Keywords: req.Keywords}
	h := &service.RankingHistory{}
	if h.Latest, err = st.Latest(ctx, f); err != nil {
		return nil, err
	}
	if fs, ok := st.(rankings.FailureStore); ok {
		if h.Failures, err = fs.LatestFailures(ctx, f); err != nil {
			return nil, err
		}
	}
	f.From, f.To = req.From, req.To
	if h.Observations, err = st.History(ctx, f); err != nil {
		return nil, err
	}
	return h, nil
}

func (x research) Check(ctx context.Context, accountID string, req service.RankingsRequest) (*service.RankingsResponse, error) {
	domain, tracked, err := x.s.rankingsTarget(ctx, accountID, req.Domain, req.ProjectID)
	if err != nil {
		return nil, err
	}
	raw := req.Keywords
	if len(raw) == 0 {
		raw = tracked
	}
	if len(raw) == 0 {
		return nil, service.Invalid("keywords[]", "at least one keywords[] parameter is required")
	}
	if len(raw) > MaxRankingKeywords {
		return nil, service.Invalid("keywords[]", "at most "+strconv.Itoa(MaxRankingKeywords)+" keywords are accepted per request")
	}
	kws, err := cleanKeywords("keywords", raw)
	if err != nil {
		return nil, err
	}
	loc, err := locale(req.Locale)
	if err != nil {
		return nil, err
	}
	dev, err := device(req.Device)
	if err != nil {
		return nil, err
	}
	if dev == "" {
		dev = rankings.Desktop
	}
	t := x.s.opts.Tracker
	if t == nil {
		return nil, &service.NotConfiguredError{What: "rankings"}
	}
	if err := x.s.charge(ctx, accountID, researchCost); err != nil {
		return nil, err
	}
	// A read: GET /v1/rankings tracks nothing (POST /v1/rankings/track and
	// projects do).
	res, err := t.Rankings(ctx, domain, kws, &rankings.CheckOptions{Locale: loc, Device: dev, NoTrack: true, BeforeSearch: x.chargeSearches(accountID)})
	if err != nil {
		return nil, err
	}
	if res == nil {
		res = []rankings.Ranking{}
	}
	body := &service.RankingsResponse{Domain: domain, Locale: loc.String(), Device: string(dev), SourceStatus: SourceNone, Message: noSourceMessage, Rankings: res}
	if name, ok := x.Source(); ok {
		body.Source, body.SourceStatus, body.Message = &name, SourceConfigured, ""
	}
	return body, nil
}

// chargeSearches is the rankings.CheckOptions.BeforeSearch of a call of
// accountID that has charged researchCost: a keyword searched live costs
// one unit of the daily quota, the call's unit being the first, since the
// server's SERP provider is paid per search (and its quota shared by every
// account); a keyword checked within the tracker's MaxAge answers from the
// store for nothing. Searches the day cannot pay are refused before any
// unit is counted (chargeFor).
func (x research) chargeSearches(accountID string) func(context.Context, int) error {
	return func(ctx context.Context, searches int) error {
		what := "a rankings call searching " + strconv.Itoa(searches) + " keywords live"
		return x.s.chargeFor(service.WithPaid(ctx, researchCost), accountID, searches, what)
	}
}

func (x research) Track(ctx context.Context, accountID string, req service.TrackRequest) ([]rankings.Ranking, error) {
	domain, kws, opts, err := trackArgs(req)
	if err != nil {
		return nil, err
	}
	t := x.s.opts.Tracker
	if t == nil {
		return nil, &service.NotConfiguredError{What: "rankings"}
	}
	if err := x.s.charge(ctx, accountID, researchCost); err != nil {
		return nil, err
	}
	opts.BeforeSearch = x.chargeSearches(accountID)
	if !t.HasSource() {
		// Nothing to check live: the keywords are tracked and their
		// stored states returned.
		if err := t.Track(ctx, domain, kws, opts); err != nil {
			return nil, err
		}
		return t.Latest(ctx, domain, kws, opts)
	}
	return t.Rankings(ctx, domain, kws, opts)
}

func (x research) Untrack(ctx context.Context, _ string, req service.TrackRequest) error {
	domain, kws, opts, err := trackArgs(req)
	if err != nil {
		return err
	}
	t := x.s.opts.Tracker
	if t == nil {
		return &service.NotConfiguredError{What: "rankings"}
	}
	return t.Untrack(ctx, domain, kws, opts)
}

// trackArgs validates a TrackRequest: the target, 1 to service.MaxTrack
// keywords (normalized), the locale and the device.
func trackArgs(req service.TrackRequest) (domain string, kws []string, opts *rankings.CheckOptions, err error) {
	tg, err := rankings.ParseTarget(req.Domain)
	if err != nil {
		return "", nil, nil, err
	}
	switch {
	case len(req.Keywords) == 0:
		return "", nil, nil, &seo.InputError{Field: "keywords", Reason: "is empty: give at least one keyword"}
	case len(req.Keywords) > service.MaxTrack:
		return "", nil, nil, &seo.InputError{Field: "keywords", Value: strconv.Itoa(len(req.Keywords)) + " keywords", Reason: "has more than " + strconv.Itoa(service.MaxTrack)}
	}
	kws = make([]string, 0, len(req.Keywords))
	for i, k := range req.Keywords {
		k, err := rankings.NormalizeKeyword("keywords["+strconv.Itoa(i)+"]", k)
		if err != nil {
			return "", nil, nil, err
		}
		kws = append(kws, k)
	}
	loc, err := locale(req.Locale)
	if err != nil {
		return "", nil, nil, err
	}
	dev, err := rankings.NormalizeDevice("device", rankings.Device(req.Device))
	if err != nil {
		return "", nil, nil, err
	}
	return tg.String(), kws, &rankings.CheckOptions{Locale: loc, Device: dev}, nil
}

// rankingsTarget resolves the host name and default keywords of a
// rankings request: domain, or the project's (domain, when given too,
// must be the project's).
func (s *Server) rankingsTarget(ctx context.Context, accountID, domain, projectID string) (host string, tracked []string, err error) {
	if projectID == "" {
		host, err = researchDomain(domain)
		return host, nil, err
	}
	p, err := s.getProject(ctx, accountID, projectID, "projectId")
	if err != nil {
		return "", nil, err
	}
	host = p.Domain
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h // rankings are per host name
	}
	if domain != "" {
		d, err := researchDomain(domain)
		if err != nil {
			return "", nil, err
		}
		if !strings.EqualFold(d, host) {
			return "", nil, service.Invalid("domain", "domain must be the project's domain "+host+", or be left out")
		}
	}
	return host, p.Keywords, nil
}

// researchDomain parses the domain of a rankings or reports request to a
// host name, without a port (seo.ParseHost): rankings are per host name.
func researchDomain(raw string) (string, error) {
	return seo.ParseHost(raw, nil)
}

func (x research) Build(ctx context.Context, accountID string, req service.ReportRequest) (*reports.Report, error) {
	domain, err := researchDomain(req.Domain)
	if err != nil {
		return nil, err
	}
	// Parsed as the reports package parses them; the range's own checks
	// (order, length, future) are Build's, with the builder's options.
	start, err := reports.ParseDay("start", req.Start)
	if err != nil {
		return nil, err
	}
	end, err := reports.ParseDay("end", req.End)
	if err != nil {
		return nil, err
	}
	if start.After(end) {
		return nil, service.Invalid("start", "start must not be after end")
	}
	var bo reports.BuildOptions
	if req.Locale != "" {
		if bo.Locale, err = seo.ParseLocale(req.Locale); err != nil {
			return nil, err
		}
	}
	if bo.Device, err = device(req.Device); err != nil {
		return nil, err
	}
	if x.s.opts.Reports == nil {
		return nil, &service.NotConfiguredError{What: "reports"}
	}
	if err := x.s.charge(ctx, accountID, researchCost); err != nil {
		return nil, err
	}
	return x.s.opts.Reports.Build(ctx, domain, start, end, &bo)
}
