package rankings

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/seokit/seokit/seo"
)

// Tracker checks keyword positions of domains through a Source and keeps
// them in a Store.
type Tracker struct {
	src  Source // nil: answers come from the store only
	st   Store
	opts TrackerOptions
}

// SubdomainRule says which result hosts count as the tracked domain.
type SubdomainRule int

// Subdomain rules.
const (
	// ExactHost matches the tracked host only, ignoring a leading "www."
	// on either side: example.com matches example.com and
	// www.example.com, not blog.example.com.
	ExactHost SubdomainRule = iota
	// AnySubdomain matches every host under the tracked host's registrable
	// domain (public suffix list): example.com matches blog.example.com
	// and shop.example.com. notexample.com never matches example.com.
	AnySubdomain
)

// Defaults of TrackerOptions.
const (
	DefaultDepth       = 100
	DefaultConcurrency = 4
	DefaultMaxAge      = 24 * time.Hour
	DefaultMaxKeywords = 1000
)

// TrackerOptions configures a Tracker. The zero value is usable.
type TrackerOptions struct {
	// Subdomains is the rule deciding which result URLs belong to the
	// domain; the zero value is ExactHost.
	Subdomains SubdomainRule
	// Depth is how many organic results to examine; zero means
	// DefaultDepth (100).
	Depth int
	// Concurrency bounds the searches run at once; zero means
	// DefaultConcurrency (4).
	Concurrency int
	// MaxAge is how old a stored position may be before Rankings checks it
	// again; zero means DefaultMaxAge (24 hours).
	MaxAge time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// MaxKeywords caps the keywords of one call; zero means
	// DefaultMaxKeywords (1000). More is an *seo.InputError for "keywords".
	MaxKeywords int
}

// CheckOptions selects the locale and device of a check.
type CheckOptions struct {
	Locale seo.Locale // zero means en-US
	Device Device     // "" means Desktop
	// NoTrack makes Rankings a read: it answers (and checks live what is
	// stale) without adding the keywords to the tracked list.
	NoTrack bool
	// BeforeSearch, when set, is called by Rankings with the number of
	// keywords it is about to search live (those not checked within
	// MaxAge), before any search; its error is Rankings' error, with
	// nothing searched. A server charges the searches, paid at the
	// source, to the caller with it.
	BeforeSearch func(ctx context.Context, searches int) error
}

// NewTracker returns a Tracker. src may be nil (store-only: imported data).
func NewTracker(src Source, st Store, opts *TrackerOptions) *Tracker {
	t := &Tracker{src: src, st: st}
	if opts != nil {
		t.opts = *opts
	}
	if t.opts.Depth <= 0 {
		t.opts.Depth = DefaultDepth
	}
	if t.opts.Concurrency <= 0 {
		t.opts.Concurrency = DefaultConcurrency
	}
	if t.opts.MaxAge <= 0 {
		t.opts.MaxAge = DefaultMaxAge
	}
	if t.opts.Now == nil {
		t.opts.Now = time.Now
	}
	if t.opts.MaxKeywords <= 0 {
		t.opts.MaxKeywords = DefaultMaxKeywords
	}
	return t
}

// Target is a tracked domain, optionally narrowed to a URL path prefix.
type Target struct {
	// Host is the lowercase host name, without port and leading "www.".
	Host string
	// Path is a path prefix ("/blog") or "" for the whole host.
	Path string
}

// String returns the target as stored: host, then path when set.
func (t Target) String() string { return t.Host + t.Path }

// ParseTarget parses a tracked domain: a host name ("example.com",
// "www.example.com"), optionally followed by a path prefix
// ("example.com/blog"), or a URL ("https://example.com/blog/"). The host
// goes through seo.ParseHost or seo.ParseDomain, and a port is refused.
// Anything else is an *seo.InputError for "domain".
func ParseTarget(raw string) (Target, error) {
	s := strings.TrimSpace(raw)
	var u *url.URL
	var err error
	if !strings.Contains(s, "://") {
		host, path, _ := strings.Cut(s, "/")
		var h string
		h, err = seo.ParseHost(host, nil)
		u = &url.URL{Scheme: "https", Host: h, Path: "/"}
		if err == nil && path != "" {
			p, perr := url.Parse("/" + path)
			if perr != nil || p.RawQuery != "" || p.Fragment != "" || strings.ContainsAny(path, "?# \t") {
				return Target{}, &seo.InputError{Field: "domain", Value: raw, Reason: "the path after the domain must be a plain URL path such as /blog"}
			}
			u.Path = p.Path
		}
	} else if u, err = seo.ParseDomain(s); err == nil && u.Port() != "" {
		err = &seo.InputError{Field: "domain", Value: raw, Reason: "must not have a port"}
	}
	if err != nil {
		if ie, ok := seo.AsInputError(err); ok {
			c := ie.WithField("domain")
			c.Value = raw
			return Target{}, c
		}
		return Target{}, &seo.InputError{Field: "domain", Value: raw, Reason: err.Error()}
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return Target{}, &seo.InputError{Field: "domain", Value: raw, Reason: "must not have a query or fragment"}
	}
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	path := strings.TrimRight(u.Path, "/")
	return Target{Host: host, Path: path}, nil
}

// Matches reports whether the result URL raw belongs to t under rule: its
// host matches (see SubdomainRule) and, when t has a path, its path is
// t.Path or below it (segment-wise: /blog matches /blog/x, not /blogger).
func (t Target) Matches(raw string, rule SubdomainRule) bool {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return false
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	switch rule {
	case AnySubdomain:
		if !seo.HostInScope(host, t.Host, true) {
			return false
		}
	default:
		if strings.TrimPrefix(host, "www.") != t.Host {
			return false
		}
	}
	if t.Path == "" {
		return true
	}
	p := u.Path
	if p == "" {
		p = "/"
	}
	return p == t.Path || strings.HasPrefix(p, t.Path+"/")
}

// FindPosition returns the first organic result of serp belonging to t
// under rule, or nil.
func FindPosition(serp *SERP, t Target, rule SubdomainRule) *Result {
	for i := range serp.Results {
		if t.Matches(serp.Results[i].URL, rule) {
			return &serp.Results[i]
		}
	}
	return nil
}

// checkArgs validates the arguments shared by Check and Rankings.
func (t *Tracker) checkArgs(domain string, keywords []string, opts *CheckOptions) (Target, []string, seo.Locale, Device, error) {
	tg, err := ParseTarget(domain)
	if err != nil {
		return tg, nil, seo.Locale{}, "", err
	}
	ks, err := t.normalizeKeywords(keywords)
	if err != nil {
		return tg, nil, seo.Locale{}, "", err
	}
	loc, dev := seo.Locale{Language: "en", Region: "US"}, Desktop
	if opts != nil {
		if opts.Locale != (seo.Locale{}) {
			if err := checkLocale("locale", opts.Locale); err != nil {
				return tg, nil, loc, "", err
			}
			loc = opts.Locale
		}
		if dev, err = NormalizeDevice("device", opts.Device); err != nil {
			return tg, nil, loc, "", err
		}
	}
	return tg, ks, loc, dev, nil
}

// normalizeKeywords trims, checks and de-duplicates keywords (first
// occurrence kept, case-sensitive after trimming).
func (t *Tracker) normalizeKeywords(keywords []string) ([]string, error) {
	if len(keywords) == 0 {
		return nil, &seo.InputError{Field: "keywords", Reason: "is empty: give at least one keyword"}
	}
	if len(keywords) > t.opts.MaxKeywords {
		return nil, &seo.InputError{Field: "keywords", Value: fmt.Sprint(len(keywords)), Reason: fmt.Sprintf("has more than %d keywords", t.opts.MaxKeywords)}
	}
	seen := make(map[string]bool, len(keywords))
	out := make([]string, 0, len(keywords))
	for i, k := range keywords {
		s, err := NormalizeKeyword(fmt.Sprintf("keywords[%d]", i), k)
		if err != nil {
			return nil, err
		}
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out, nil
}

// Check searches each keyword now, finds domain in the results, stores the
// observations and returns them in the keywords' order (trimmed and
// de-duplicated).
//
// domain is a host, optionally with a path prefix (see ParseTarget);
// results match it under TrackerOptions.Subdomains. Position is the
// organic rank of the first matching result, nil when none is found within
// the depth examined (Status not_ranked).
//
// A provider failure is never a "not ranked": when the search of a
// keyword fails, its entry has Status failed with the provider's error
// (and the last stored position, which the failure does not overwrite),
// the failure is recorded when the store is a [FailureStore], and Check
// returns the entries with an error joining the failures (each naming its
// keyword). The keywords searched successfully are stored. Without a
// Source, Check returns an error wrapping seo.ErrUnavailable.
func (t *Tracker) Check(ctx context.Context, domain string, keywords []string, opts *CheckOptions) ([]Ranking, error) {
	tg, ks, loc, dev, err := t.checkArgs(domain, keywords, opts)
	if err != nil {
		return nil, err
	}
	byKw, failed, err := t.check(ctx, tg, ks, loc, dev)
	if err != nil {
		return nil, err
	}
	out := make([]Ranking, len(ks))
	var errs []error
	for i, k := range ks {
		out[i] = byKw[k]
		if e := failed[k]; e != nil {
			errs = append(errs, e)
		}
	}
	return out, errors.Join(errs...)
}

// check searches ks and returns an entry per keyword: the new observation,
// or for a failed search the failure over the last stored observation.
// failed holds the failures by keyword; err is for a missing source, a
// failed write or a cancelled ctx.
func (t *Tracker) check(ctx context.Context, tg Target, ks []string, loc seo.Locale, dev Device) (map[string]Ranking, map[string]error, error) {
	good, failed, fails, err := t.checkEach(ctx, tg, ks, loc, dev)
	if err != nil {
		return nil, nil, err
	}
	out := make(map[string]Ranking, len(ks))
	for _, o := range good {
		out[o.Keyword] = NewRanking(o.Keyword, &o, nil, true)
	}
	if len(fails) > 0 {
		bad := make([]string, 0, len(fails))
		for _, f := range fails {
			bad = append(bad, f.Keyword)
		}
		prev, err := t.latest(ctx, tg, bad, loc, dev)
		if err != nil {
			return nil, nil, err
		}
		for i := range fails {
			f := &fails[i]
			var o *Observation
			if p, ok := prev[f.Keyword]; ok {
				o = &p
			}
			out[f.Keyword] = NewRanking(f.Keyword, o, f, true)
		}
	}
	return out, failed, nil
}

// latest reads the latest observation of each keyword.
func (t *Tracker) latest(ctx context.Context, tg Target, ks []string, loc seo.Locale, dev Device) (map[string]Observation, error) {
	latest, err := t.st.Latest(ctx, Filter{Domain: tg.String(), Keywords: ks, Locale: loc, Device: dev})
	if err != nil {
		return nil, fmt.Errorf("rankings: read latest: %w", err)
	}
	m := make(map[string]Observation, len(latest))
	for _, o := range latest {
		m[o.Keyword] = o
	}
	return m, nil
}

// checkEach searches the keywords with bounded concurrency and records the
// successful ones, and the failures when the store is a FailureStore. It
// returns the observations in the keywords' order, the errors by keyword
// and the failures as recorded; err is for a missing source, a failed
// write or a cancelled ctx.
func (t *Tracker) checkEach(ctx context.Context, tg Target, ks []string, loc seo.Locale, dev Device) ([]Observation, map[string]error, []Failure, error) {
	if t.src == nil {
		return nil, nil, nil, errNoSource
	}
	obs := make([]*Observation, len(ks))
	errs := make([]error, len(ks))
	sem := make(chan struct{}, t.opts.Concurrency)
	var wg sync.WaitGroup
	for i, k := range ks {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			errs[i] = ctx.Err()
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			obs[i], errs[i] = t.search(ctx, tg, k, loc, dev)
		}()
	}
	wg.Wait()
	var good []Observation
	var fails []Failure
	failed := map[string]error{}
	now := t.opts.Now().UTC()
	for i := range ks {
		if errs[i] != nil {
			failed[ks[i]] = fmt.Errorf("rankings: check %q: %w", ks[i], errs[i])
			fails = append(fails, Failure{Domain: tg.String(), Keyword: ks[i], Locale: loc, Device: dev, At: now,
				Source: t.src.Name(), Error: FailureMessage(errs[i])})
			continue
		}
		good = append(good, *obs[i])
	}
	if err := ctx.Err(); err != nil {
		// A cancelled request says nothing about the provider.
		return nil, nil, nil, err
	}
	if len(good) > 0 {
		if err := t.st.Record(ctx, good); err != nil {
			return nil, nil, nil, fmt.Errorf("rankings: store observations: %w", err)
		}
	}
	if fs, ok := t.st.(FailureStore); ok && len(fails) > 0 {
		if err := fs.RecordFailures(ctx, fails); err != nil {
			return nil, nil, nil, fmt.Errorf("rankings: store failures: %w", err)
		}
	}
	return good, failed, fails, nil
}

// search runs one query and turns its answer into an observation.
func (t *Tracker) search(ctx context.Context, tg Target, k string, loc seo.Locale, dev Device) (*Observation, error) {
	serp, err := t.src.Search(ctx, Query{Keyword: k, Locale: loc, Device: dev, Depth: t.opts.Depth})
	if err != nil {
		return nil, err
	}
	if serp == nil {
		return nil, fmt.Errorf("source %s returned no result page: %w", t.src.Name(), seo.ErrUnavailable)
	}
	now := t.opts.Now()
	checked := serp.CheckedAt
	if checked.IsZero() {
		checked = now
	}
	depth := serp.Depth
	if depth < len(serp.Results) {
		depth = len(serp.Results)
	}
	source := serp.Source
	if source == "" {
		source = t.src.Name()
	}
	o := &Observation{Domain: tg.String(), Keyword: k, Locale: loc, Device: dev, Date: Day(checked),
		Depth: depth, Average: serp.Average, Source: source, CheckedAt: checked.UTC()}
	if r := FindPosition(serp, tg, t.opts.Subdomains); r != nil {
		if r.Position < 1 {
			return nil, fmt.Errorf("source %s answered position %d for %s: %w", source, r.Position, r.URL, seo.ErrUnavailable)
		}
		p := float64(r.Position)
		o.Position, o.URL = &p, r.URL
	}
	return o, nil
}

// RankingOf turns a stored observation into the API's view (see
// [NewRanking]): Position is the rank (an average rounded to the nearest
// integer, with the exact value in AveragePosition).
func RankingOf(o Observation) Ranking {
	return NewRanking(o.Keyword, &o, nil, true)
}

// HasSource reports whether t checks positions through a Source; without
// one it answers from the store only (imported data).
func (t *Tracker) HasSource() bool { return t.src != nil }

// Store is the store t reads and writes.
func (t *Tracker) Store() Store { return t.st }

// SourceName is the name of t's Source, or "" without one.
func (t *Tracker) SourceName() string {
	if t.src == nil {
		return ""
	}
	return t.src.Name()
}

// Rankings returns the latest state of each keyword for domain, checking
// live (when a Source is set) those never checked or older than the
// freshness window; the keywords become tracked unless opts.NoTrack.
//
// Every entry has a Status (see [NewRanking]): without a Source, keywords
// never observed are unchecked, saying no source is configured; a live
// check that fails, or a stored failure later than the last observation,
// is failed, with the error and the last known position. Errors are for
// bad input, the store and a cancelled ctx, not for the provider.
func (t *Tracker) Rankings(ctx context.Context, domain string, keywords []string, opts *CheckOptions) ([]Ranking, error) {
	tg, ks, loc, dev, err := t.checkArgs(domain, keywords, opts)
	if err != nil {
		return nil, err
	}
	latest, err := t.latest(ctx, tg, ks, loc, dev)
	if err != nil {
		return nil, err
	}
	var stale []string
	if t.src != nil {
		now := t.opts.Now()
		for _, k := range ks {
			o, ok := latest[k]
			if !ok || now.Sub(o.CheckedAt) > t.opts.MaxAge {
				stale = append(stale, k)
			}
		}
	}
	// A refused search tracks nothing either: the daily re-checks would
	// search the keywords anyway.
	if len(stale) > 0 && opts != nil && opts.BeforeSearch != nil {
		if err := opts.BeforeSearch(ctx, len(stale)); err != nil {
			return nil, err
		}
	}
	if opts == nil || !opts.NoTrack {
		if err := t.track(ctx, tg, ks, loc, dev); err != nil {
			return nil, err
		}
	}
	fails := map[string]*Failure{}
	if fs, ok := t.st.(FailureStore); ok {
		got, err := fs.LatestFailures(ctx, Filter{Domain: tg.String(), Keywords: ks, Locale: loc, Device: dev})
		if err != nil {
			return nil, fmt.Errorf("rankings: read failures: %w", err)
		}
		for i := range got {
			fails[got[i].Keyword] = &got[i]
		}
	}
	byKw := make(map[string]Ranking, len(ks))
	for _, k := range ks {
		var o *Observation
		if p, ok := latest[k]; ok {
			o = &p
		}
		byKw[k] = NewRanking(k, o, fails[k], t.src != nil)
	}
	if len(stale) > 0 {
		fresh, _, err := t.check(ctx, tg, stale, loc, dev)
		if err != nil {
			return nil, err
		}
		for k, r := range fresh {
			byKw[k] = r
		}
	}
	out := make([]Ranking, len(ks))
	for i, k := range ks {
		out[i] = byKw[k]
	}
	return out, nil
}

// Latest returns the stored ranking of each keyword, as Rankings would
// before checking anything live: no search is made and nothing becomes
// tracked. A monitor reads it before a check to compare with after.
func (t *Tracker) Latest(ctx context.Context, domain string, keywords []string, opts *CheckOptions) ([]Ranking, error) {
	tg, ks, loc, dev, err := t.checkArgs(domain, keywords, opts)
	if err != nil {
		return nil, err
	}
	latest, err := t.latest(ctx, tg, ks, loc, dev)
	if err != nil {
		return nil, err
	}
	out := make([]Ranking, len(ks))
	for i, k := range ks {
		var o *Observation
		if p, ok := latest[k]; ok {
			o = &p
		}
		out[i] = NewRanking(k, o, nil, t.src != nil)
	}
	return out, nil
}

func (t *Tracker) track(ctx context.Context, tg Target, ks []string, loc seo.Locale, dev Device) error {
	tr := make([]Tracked, len(ks))
	now := t.opts.Now()
	for i, k := range ks {
		tr[i] = Tracked{Domain: tg.String(), Keyword: k, Locale: loc, Device: dev, AddedAt: now}
	}
	if err := t.st.Track(ctx, tr); err != nil {
		return fmt.Errorf("rankings: track: %w", err)
	}
	return nil
}

// Track starts tracking keywords for domain (validated as in Check) so
// that the scheduler checks them daily. Ones already tracked are kept.
func (t *Tracker) Track(ctx context.Context, domain string, keywords []string, opts *CheckOptions) error {
	tg, ks, loc, dev, err := t.checkArgs(domain, keywords, opts)
	if err != nil {
		return err
	}
	return t.track(ctx, tg, ks, loc, dev)
}

// Untrack stops tracking keywords for domain (every keyword when keywords
// is nil) for the locale and device of opts; their history is kept.
func (t *Tracker) Untrack(ctx context.Context, domain string, keywords []string, opts *CheckOptions) error {
	tg, err := ParseTarget(domain)
	if err != nil {
		return err
	}
	f := Filter{Domain: tg.String()}
	if keywords != nil {
		if f.Keywords, err = t.normalizeKeywords(keywords); err != nil {
			return err
		}
	}
	if opts != nil {
		f.Locale = opts.Locale
		if opts.Device != "" {
			if f.Device, err = NormalizeDevice("device", opts.Device); err != nil {
				return err
			}
		}
	}
	if err := t.st.Untrack(ctx, f); err != nil {
		return fmt.Errorf("rankings: untrack: %w", err)
	}
	return nil
}
