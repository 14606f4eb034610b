package keywords

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/seokit/seokit/seo"
)

// Query limits enforced by Suggest.
const (
	// MaxQueryChars is the longest query, in characters.
	MaxQueryChars = 200
	// MaxQueryWords is the most words in a query.
	MaxQueryWords = 10
	// MaxLimit is the largest SuggestOptions.Limit.
	MaxLimit = 1000
	// DefaultLimit is used when SuggestOptions.Limit is zero.
	DefaultLimit = 50
	// DefaultSourceTimeout bounds each source call when
	// SuggesterOptions.SourceTimeout is zero.
	DefaultSourceTimeout = 10 * time.Second
)

// Suggester merges keyword sources: it asks each for ideas, fills missing
// volumes from the others, de-duplicates stem- and case-folded phrases and
// caches answers with their age.
//
// Complete answers are also kept in process memory, bounded in size
// (SuggesterOptions.MemoryCacheBytes) and age (MemoryCacheTTL), so a
// repeated query costs neither a source nor the persistent Cache. An
// answer served from memory says so like any cached one: CachedAt is when
// it was computed and AgeSeconds its age. Concurrent identical queries are
// computed once. A Suggester is safe for concurrent use.
type Suggester struct {
	sources   []Source
	versioned []Versioned
	opts      SuggesterOptions
	mem       *memCache // nil when turned off
}

// SuggesterOptions configures a Suggester. The zero value is usable.
type SuggesterOptions struct {
	// Cache, when set, stores answers; a stored answer younger than MaxAge
	// is returned without asking the sources.
	Cache Cache
	// MaxAge is how long a cached answer is served; zero means
	// DefaultCacheMaxAge.
	MaxAge time.Duration
	// SourceTimeout bounds each call to a source; zero means
	// DefaultSourceTimeout.
	SourceTimeout time.Duration
	// Now returns the current time; nil means time.Now.
	Now func() time.Time

	// MemoryCacheBytes bounds the in-process cache of complete answers,
	// keyed by locale, normalised query and limit and evicted least
	// recently used first; the size of an answer is estimated from its
	// fields and strings. Zero means DefaultMemoryCacheBytes; a negative
	// value turns the in-process cache off.
	MemoryCacheBytes int64
	// MemoryCacheTTL is how long an answer is served from memory; zero
	// means DefaultMemoryCacheTTL. It is never longer than MaxAge. Answers
	// of sources implementing Versioned are dropped as soon as their data
	// changes; Purge drops all of them.
	MemoryCacheTTL time.Duration
}

// SuggestOptions configures one call to Suggest.
type SuggestOptions struct {
	// Limit is the most suggestions returned; 0 means 50, at most 1000.
	Limit int
}

// Suggestions is the answer to a query.
type Suggestions struct {
	Query       string    `json:"query"`
	Locale      string    `json:"locale"`
	Suggestions []Keyword `json:"suggestions"`
	// Sources names the sources that answered.
	Sources []string `json:"sources"`
	// Failed names the sources that failed; the answer is partial then.
	Failed []string `json:"failed,omitempty"`
	// CachedAt is when a cached answer was computed; zero for a fresh one.
	CachedAt time.Time `json:"cachedAt,omitzero"`
	// AgeSeconds is how old a cached answer is, in whole seconds.
	AgeSeconds int64 `json:"ageSeconds,omitempty"`

	pre *precoded // JSON of Suggestions for an answer served from memory
}

// NewSuggester returns a Suggester over sources, asked in order.
func NewSuggester(sources []Source, opts *SuggesterOptions) *Suggester {
	s := &Suggester{sources: sources}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.MaxAge <= 0 {
		s.opts.MaxAge = DefaultCacheMaxAge
	}
	if s.opts.SourceTimeout <= 0 {
		s.opts.SourceTimeout = DefaultSourceTimeout
	}
	if s.opts.Now == nil {
		s.opts.Now = time.Now
	}
	if s.opts.MemoryCacheBytes == 0 {
		s.opts.MemoryCacheBytes = DefaultMemoryCacheBytes
	}
	if s.opts.MemoryCacheTTL <= 0 {
		s.opts.MemoryCacheTTL = DefaultMemoryCacheTTL
	}
	s.opts.MemoryCacheTTL = min(s.opts.MemoryCacheTTL, s.opts.MaxAge)
	if s.opts.MemoryCacheBytes > 0 {
		s.mem = newMemCache(s.opts.MemoryCacheBytes, s.opts.MemoryCacheTTL, s.opts.MaxAge)
	}
	for _, src := range sources {
		if v, ok := src.(Versioned); ok {
			s.versioned = append(s.versioned, v)
		}
	}
	return s
}

// Purge drops every answer the Suggester holds in memory, for changes of
// a source's data that it cannot see through Versioned. The persistent
// Cache is not touched.
func (s *Suggester) Purge() {
	if s.mem != nil {
		s.mem.purge()
	}
}

// version is the sum of the versioned sources' data versions: it changes
// whenever one of them does.
func (s *Suggester) version() uint64 {
	var v uint64
	for _, src := range s.versioned {
		v += src.DataVersion()
	}
	return v
}

// fromMemory returns a caller's copy of an answer held in memory, spelled
// as the caller's query, with its age as of now.
func fromMemory(e *memEntry, q string, now time.Time) *Suggestions {
	r := e.answer()
	r.Query = q
	r.AgeSeconds = max(0, int64(now.Sub(r.CachedAt)/time.Second))
	return r
}

// ValidateQuery checks a suggestion query: trimmed non-empty, at most
// MaxQueryChars characters and MaxQueryWords words. It returns the trimmed
// query or an *seo.InputError for the field "query".
func ValidateQuery(query string) (string, error) {
	q := strings.TrimSpace(query)
	switch {
	case !utf8.ValidString(q):
		return "", &seo.InputError{Field: "query", Value: q, Reason: "must be valid UTF-8"}
	case q == "" || len(Words(q)) == 0:
		return "", &seo.InputError{Field: "query", Value: query, Reason: "must contain at least one word"}
	case utf8.RuneCountInString(q) > MaxQueryChars:
		return "", &seo.InputError{Field: "query", Value: q, Reason: fmt.Sprintf("must be at most %d characters", MaxQueryChars)}
	case len(strings.Fields(q)) > MaxQueryWords:
		return "", &seo.InputError{Field: "query", Value: q, Reason: fmt.Sprintf("must be at most %d words", MaxQueryWords)}
	}
	return q, nil
}

// ValidateLocale checks that loc is a known xx-XX locale; anything else is
// an *seo.InputError for the field "locale".
func ValidateLocale(loc seo.Locale) error {
	if loc.Language == "" {
		return &seo.InputError{Field: "locale", Reason: "is required, such as en-US"}
	}
	_, err := seo.ParseLocale(loc.String())
	return err
}

// ValidateLimit resolves a suggestion limit: 0 means DefaultLimit; below 0
// or above MaxLimit is an *seo.InputError for the field "limit".
func ValidateLimit(limit int) (int, error) {
	if limit == 0 {
		return DefaultLimit, nil
	}
	if limit < 1 || limit > MaxLimit {
		return 0, &seo.InputError{Field: "limit", Value: fmt.Sprint(limit), Reason: fmt.Sprintf("must be between 1 and %d", MaxLimit)}
	}
	return limit, nil
}

// Suggest returns suggestions for query in loc. An empty or overlong query
// is an *seo.InputError for the field "query".
//
// Every source is asked concurrently, each within SourceTimeout. Phrases
// with the same FoldKey are merged, keeping the entry that has a volume;
// entries still without a volume are looked up with Volumes on the other
// sources. Exact and prefix matches of the query come first, then the rest
// by volume, highest first. When some sources fail the others' answer is
// returned with the failed ones named in Failed; when all fail the error
// wraps seo.ErrUnavailable. Complete answers are kept in memory (see
// Suggester) and served from there with their age; a partial answer or an
// error is never kept.
func (s *Suggester) Suggest(ctx context.Context, query string, loc seo.Locale, opts *SuggestOptions) (*Suggestions, error) {
	a, err := s.answer(ctx, query, loc, opts)
	if err != nil {
		return nil, err
	}
	if a.entry != nil {
		return fromMemory(a.entry, a.query, a.now), nil
	}
	return a.res, nil
}

// SuggestJSON is Suggest with the answer appended to b as JSON, exactly
// as Suggestions.AppendJSON writes it. An answer held in memory is written
// from its stored encoding without being copied, which makes it the
// cheapest way to serve repeated queries. Errors are Suggest's; b is
// returned unchanged with them.
func (s *Suggester) SuggestJSON(ctx context.Context, b []byte, query string, loc seo.Locale, opts *SuggestOptions) ([]byte, error) {
	a, err := s.answer(ctx, query, loc, opts)
	if err != nil {
		return b, err
	}
	if e := a.entry; e != nil && e.enc != nil {
		hdr := *e.res // read-only view: the slices stay the entry's
		hdr.Query = a.query
		hdr.AgeSeconds = max(0, int64(a.now.Sub(hdr.CachedAt)/time.Second))
		return hdr.appendWire(b, e.enc)
	}
	res := a.res
	if a.entry != nil {
		res = fromMemory(a.entry, a.query, a.now)
	}
	if res.Suggestions == nil {
		res.Suggestions = []Keyword{} // a list, never null
	}
	return res.AppendJSON(b)
}

// answered is an answer from memory (entry) or a fresh one (res).
type answered struct {
	entry *memEntry
	res   *Suggestions
	query string // the trimmed query
	now   time.Time
}

// answer validates the request and finds its answer in memory or
// computes it, keeping complete answers in memory.
func (s *Suggester) answer(ctx context.Context, query string, loc seo.Locale, opts *SuggestOptions) (answered, error) {
	q, err := ValidateQuery(query)
	if err != nil {
		return answered{}, err
	}
	if err := ValidateLocale(loc); err != nil {
		return answered{}, err
	}
	var o SuggestOptions
	if opts != nil {
		o = *opts
	}
	limit, err := ValidateLimit(o.Limit)
	if err != nil {
		return answered{}, err
	}
	if len(s.sources) == 0 {
		return answered{}, fmt.Errorf("keywords: no sources configured: %w", seo.ErrUnavailable)
	}
	if err := ctx.Err(); err != nil {
		return answered{}, err
	}
	now := s.opts.Now()
	a := answered{query: q, now: now}
	if s.mem == nil {
		a.res, err = s.lookup(ctx, q, loc, limit, now)
		return a, err
	}
	key, version := memKey(q, loc, limit), s.version()
	if e, ok := s.mem.get(key, version, now); ok {
		a.entry = e
		return a, nil
	}
	f, leader := s.mem.join(key)
	if !leader {
		// Another request computes the same answer: wait for it, or
		// compute it alone if that one fails.
		e, err := f.wait(ctx)
		if err != nil {
			return answered{}, err
		}
		if e != nil {
			a.entry = e
			return a, nil
		}
		a.res, err = s.lookup(ctx, q, loc, limit, now)
		return a, err
	}
	var kept *memEntry
	defer func() { s.mem.land(key, f, kept) }()
	a.res, err = s.lookup(ctx, q, loc, limit, now)
	if err != nil || len(a.res.Failed) > 0 {
		return a, err
	}
	keep := copyAnswer(a.res)
	if keep.Suggestions == nil {
		keep.Suggestions = []Keyword{}
	}
	keep.AgeSeconds = 0
	if keep.CachedAt.IsZero() {
		keep.CachedAt = now
	}
	kept = s.mem.put(key, keep, version, now)
	return a, nil
}

// lookup answers from the persistent Cache or the sources: it asks every
// source, merges their answers, fills missing volumes from the other
// sources, ranks and caps the list, and caches a complete answer.
func (s *Suggester) lookup(ctx context.Context, q string, loc seo.Locale, limit int, now time.Time) (*Suggestions, error) {
	if c := s.cached(ctx, q, loc, limit, now); c != nil {
		return c, nil
	}
	answers := s.ask(ctx, q, loc, limit)
	res := &Suggestions{Query: q, Locale: loc.String(), Suggestions: []Keyword{}, Sources: []string{}}
	var errs []error
	var ok []Source
	for i, a := range answers {
		name := s.sources[i].Name()
		if a.err != nil {
			res.Failed = append(res.Failed, name)
			errs = append(errs, fmt.Errorf("%s: %w", name, a.err))
			continue
		}
		res.Sources = append(res.Sources, name)
		ok = append(ok, s.sources[i])
	}
	if len(ok) == 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if ie, isInput := seo.AsInputError(errs[0]); isInput && len(errs) == 1 {
			return nil, ie
		}
		return nil, fmt.Errorf("keywords: every source failed: %w", errors.Join(append([]error{seo.ErrUnavailable}, errs...)...))
	}
	list, merged := mergeAnswers(loc.Language, answers)
	s.fillVolumes(ctx, loc, ok, list, merged, res)
	list = rankSuggestions(loc.Language, q, list)
	if len(list) > limit {
		list = list[:limit]
	}
	for i := range list {
		list[i].Why = Explain(&list[i])
	}
	res.Suggestions = append(res.Suggestions, list...)
	if s.opts.Cache != nil && len(res.Failed) == 0 {
		// A cache write failure costs only a later recomputation.
		_ = s.opts.Cache.PutSuggestions(ctx, res, limit, now)
	}
	return res, nil
}

// cached returns the persistent Cache's answer when it is at most MaxAge
// old, capped to limit, and nil otherwise.
func (s *Suggester) cached(ctx context.Context, q string, loc seo.Locale, limit int, now time.Time) *Suggestions {
	if s.opts.Cache == nil {
		return nil
	}
	c, err := s.opts.Cache.GetSuggestions(ctx, q, loc, limit)
	if err != nil || c == nil || now.Sub(c.CachedAt) > s.opts.MaxAge {
		return nil
	}
	c.AgeSeconds = int64(now.Sub(c.CachedAt) / time.Second)
	if len(c.Suggestions) > limit {
		c.Suggestions = c.Suggestions[:limit]
	}
	return c
}

// sourceAnswer is one source's suggestions, or why there are none.
type sourceAnswer struct {
	kws []Keyword
	err error
}

// ask asks every source at once, each within SourceTimeout; answers are in
// the order of the sources.
func (s *Suggester) ask(ctx context.Context, q string, loc seo.Locale, limit int) []sourceAnswer {
	answers := make([]sourceAnswer, len(s.sources))
	var wg sync.WaitGroup
	for i, src := range s.sources {
		wg.Go(func() {
			cctx, cancel := context.WithTimeout(ctx, s.opts.SourceTimeout)
			defer cancel()
			kws, err := src.Suggest(cctx, q, loc, limit)
			if err == nil {
				err = checkAnswer(kws)
			}
			answers[i] = sourceAnswer{kws, err}
		})
	}
	wg.Wait()
	return answers
}

// mergeAnswers merges the answers into one list, one entry per folded
// phrase (prefer decides between entries); merged maps each folded phrase
// to its index in the list.
func mergeAnswers(lang string, answers []sourceAnswer) (list []Keyword, merged map[string]int) {
	merged = map[string]int{}
	for _, a := range answers {
		if a.err != nil {
			continue
		}
		for _, k := range a.kws {
			key := FoldKey(lang, k.Keyword)
			if key == "" {
				continue
			}
			j, seen := merged[key]
			if !seen {
				merged[key] = len(list)
				list = append(list, k)
				continue
			}
			list[j] = prefer(list[j], k)
		}
	}
	return list, merged
}

// fillVolumes asks each source that answered for the volumes of the
// entries of the other sources that have none (at most MaxVolumeKeywords
// per source); a source that fails is listed in res.Failed as
// "name (volumes)".
func (s *Suggester) fillVolumes(ctx context.Context, loc seo.Locale, ok []Source, list []Keyword, merged map[string]int, res *Suggestions) {
	for _, src := range ok {
		var ask []string
		for _, k := range list {
			if k.Volume == nil && k.Source != src.Name() {
				ask = append(ask, k.Keyword)
			}
		}
		if len(ask) == 0 {
			continue
		}
		if len(ask) > MaxVolumeKeywords {
			ask = ask[:MaxVolumeKeywords]
		}
		cctx, cancel := context.WithTimeout(ctx, s.opts.SourceTimeout)
		vols, err := src.Volumes(cctx, ask, loc)
		cancel()
		if err == nil {
			err = checkAnswer(vols)
		}
		if err != nil {
			res.Failed = append(res.Failed, src.Name()+" (volumes)")
			continue
		}
		for _, v := range vols {
			if j, seen := merged[FoldKey(loc.Language, v.Keyword)]; seen && v.Volume != nil {
				list[j] = prefer(list[j], v)
			}
		}
	}
}

// rankSuggestions orders list in place and returns it: the query itself
// first, then Search Console queries at striking distance (positions
// 8-20, most impressions first), then phrases starting with the query,
// then the others; within each, higher volumes first, then unknown
// volumes, those with Search Console impressions first, in the sources'
// order. Each entry is ranked once: folding stems every word, too slow to
// repeat in the sort's comparisons.
func rankSuggestions(lang, q string, list []Keyword) []Keyword {
	qn, qk := NormalizePhrase(q), FoldKey(lang, q)
	type ranked struct {
		rank int
		kw   Keyword
	}
	rl := make([]ranked, len(list))
	for i, k := range list {
		r := 3
		switch {
		case FoldKey(lang, k.Keyword) == qk:
			r = 0
		case StrikingDistance(&k):
			r = 1
		case strings.HasPrefix(NormalizePhrase(k.Keyword), qn):
			r = 2
		}
		rl[i] = ranked{r, k}
	}
	slices.SortStableFunc(rl, func(x, y ranked) int {
		if c := cmp.Compare(x.rank, y.rank); c != 0 {
			return c
		}
		a, b := x.kw, y.kw
		switch {
		case a.Volume != nil && b.Volume == nil:
			return -1
		case a.Volume == nil && b.Volume != nil:
			return 1
		case a.Volume != nil && *a.Volume != *b.Volume:
			return cmp.Compare(*b.Volume, *a.Volume)
		case a.Volume == nil:
			return cmp.Compare(impressions(b), impressions(a))
		}
		return cmp.Compare(a.Keyword, b.Keyword)
	})
	for i := range rl {
		list[i] = rl[i].kw
	}
	return list
}

// impressions returns k's Search Console impressions, 0 without.
func impressions(k Keyword) int {
	if k.SearchConsole == nil {
		return 0
	}
	return k.SearchConsole.Impressions
}

// prefer merges two entries for the same folded phrase: the one with a
// provider volume wins, the first on a tie; a missing difficulty is taken
// from the other entry together with its method, so its origin stays named.
func prefer(a, b Keyword) Keyword {
	win, other := a, b
	if a.Volume == nil && b.Volume != nil {
		win, other = b, a
		win.Expansion = win.Expansion && a.Expansion
	}
	if win.Difficulty == nil && other.Difficulty != nil && other.DifficultyMethod != "" {
		win.Difficulty, win.DifficultyMethod = other.Difficulty, other.DifficultyMethod
	}
	if win.SearchConsole == nil {
		win.SearchConsole = other.SearchConsole
	}
	switch {
	case win.Why == "":
		win.Why = other.Why
	case other.Why != "" && other.Why != win.Why:
		win.Why += "; " + other.Why
	}
	return win
}

// CheckKeyword reports whether a driver's keyword is well formed: a
// non-empty phrase, a source name, volume nil or at least 0, difficulty
// and paid competition nil or 0-100. Sources answering otherwise are
// treated as unavailable (a garbage answer).
func CheckKeyword(k Keyword) error {
	switch {
	case strings.TrimSpace(k.Keyword) == "":
		return errors.New("empty keyword")
	case k.Source == "":
		return fmt.Errorf("keyword %q has no source", k.Keyword)
	case k.Volume != nil && *k.Volume < 0:
		return fmt.Errorf("keyword %q has negative volume %d", k.Keyword, *k.Volume)
	case k.Difficulty != nil && (*k.Difficulty < 0 || *k.Difficulty > 100):
		return fmt.Errorf("keyword %q has difficulty %d outside 0-100", k.Keyword, *k.Difficulty)
	case k.PaidCompetition != nil && (*k.PaidCompetition < 0 || *k.PaidCompetition > 100):
		return fmt.Errorf("keyword %q has paid competition %d outside 0-100", k.Keyword, *k.PaidCompetition)
	case k.CPC != nil && *k.CPC < 0:
		return fmt.Errorf("keyword %q has negative cpc", k.Keyword)
	}
	return nil
}

func checkAnswer(kws []Keyword) error {
	for _, k := range kws {
		if err := CheckKeyword(k); err != nil {
			return fmt.Errorf("keywords: garbage answer: %v: %w", err, seo.ErrUnavailable)
		}
	}
	return nil
}
