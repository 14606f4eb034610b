package keywords

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/seokit/seokit/seo"
)

// SiteSourceName is the Keyword.Source of the ideas of a SitePhrases.
const SiteSourceName = "site"

// Defaults of SitePhrasesOptions.
const (
	// DefaultMaxSitePhrases caps the distinct phrases a SitePhrases keeps
	// per language.
	DefaultMaxSitePhrases = 50_000
	// DefaultMaxSiteTextBytes caps the text read of one page.
	DefaultMaxSiteTextBytes = 64 << 10
)

// SitePage is the text of one crawled page: its title, description,
// headings, link texts, in any order.
type SitePage struct {
	URL string
	// Lang is the page's language ("en", "fr-CA"); "" uses
	// SitePhrasesOptions.Language.
	Lang  string
	Texts []string
}

// SitePhrasesOptions configures a SitePhrases. The zero value is usable.
type SitePhrasesOptions struct {
	// Language is the language of pages that declare none; "" skips them.
	Language string
	// MaxPhrases caps the distinct phrases kept per language; zero means
	// DefaultMaxSitePhrases. Phrases first seen past the cap are counted
	// in Dropped, not kept.
	MaxPhrases int
	// MaxTextBytes caps the text read of one page; zero means
	// DefaultMaxSiteTextBytes.
	MaxTextBytes int
}

// SitePhrases is a Source of the noun phrases a site uses (Phrases over
// its pages' text): keyword ideas that occur on the site, each with the
// number of pages it is on and an example URL. It knows no volumes. It is
// safe for concurrent use: a crawler's sink may Add pages while it runs.
type SitePhrases struct {
	opts SitePhrasesOptions

	mu      sync.Mutex
	langs   map[string]map[string]*sitePhrase // language → fold key → phrase
	pages   map[string]int                    // language → pages added
	skipped int
	dropped int
}

type sitePhrase struct {
	phrase string
	stems  []string
	count  int // occurrences
	pages  int
	url    string // the first page it was seen on
	seen   int    // the last page (sequence number) counted in pages
}

var _ Source = (*SitePhrases)(nil)

// NewSitePhrases returns an empty SitePhrases.
func NewSitePhrases(opts *SitePhrasesOptions) *SitePhrases {
	s := &SitePhrases{langs: map[string]map[string]*sitePhrase{}, pages: map[string]int{}}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.MaxPhrases <= 0 {
		s.opts.MaxPhrases = DefaultMaxSitePhrases
	}
	if s.opts.MaxTextBytes <= 0 {
		s.opts.MaxTextBytes = DefaultMaxSiteTextBytes
	}
	return s
}

// primaryLang returns the primary subtag of a language tag, lowercased.
func primaryLang(tag string) string {
	tag = strings.ToLower(strings.TrimSpace(tag))
	if i := strings.IndexAny(tag, "-_"); i >= 0 {
		tag = tag[:i]
	}
	return tag
}

// Add counts the phrases of one page. A page without a language Phrases
// knows is counted as skipped.
func (s *SitePhrases) Add(p SitePage) {
	lang := primaryLang(p.Lang)
	if lang == "" {
		lang = primaryLang(s.opts.Language)
	}
	if _, ok := phraseLangs[lang]; !ok {
		s.mu.Lock()
		s.skipped++
		s.mu.Unlock()
		return
	}
	var phrases []string
	budget := s.opts.MaxTextBytes
	for _, t := range p.Texts {
		if budget <= 0 {
			break
		}
		if len(t) > budget {
			t = t[:budget]
		}
		budget -= len(t)
		phrases = append(phrases, Phrases(lang, t)...)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.langs[lang]
	if m == nil {
		m = map[string]*sitePhrase{}
		s.langs[lang] = m
	}
	s.pages[lang]++
	seq := s.pages[lang]
	for _, ph := range phrases {
		key := FoldKey(lang, ph)
		sp := m[key]
		if sp == nil {
			if len(m) >= s.opts.MaxPhrases {
				s.dropped++
				continue
			}
			sp = &sitePhrase{phrase: ph, stems: strings.Fields(key), url: p.URL}
			m[key] = sp
		}
		sp.count++
		if sp.seen != seq {
			sp.seen = seq
			sp.pages++
		}
	}
}

// Stats returns the pages added per language, the pages skipped (no
// language Phrases knows) and the phrases dropped at MaxPhrases.
func (s *SitePhrases) Stats() (pages map[string]int, skipped, dropped int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pages = make(map[string]int, len(s.pages))
	for l, n := range s.pages {
		pages[l] = n
	}
	return pages, s.skipped, s.dropped
}

// Name returns SiteSourceName.
func (s *SitePhrases) Name() string { return SiteSourceName }

// Suggest returns the site's phrases in loc's language that contain every
// stem of seed, by the number of pages each is on, then occurrences. Each
// says why in Keyword.Why.
func (s *SitePhrases) Suggest(ctx context.Context, seed string, loc seo.Locale, limit int) ([]Keyword, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	lang := primaryLang(loc.Language)
	want := Stems(lang, seed)
	if len(want) == 0 || limit < 1 {
		return nil, nil
	}
	type cand struct{ sp *sitePhrase }
	s.mu.Lock()
	total := s.pages[lang]
	var cands []cand
	for _, sp := range s.langs[lang] {
		if containsAll(sp.stems, want) {
			cands = append(cands, cand{sp})
		}
	}
	// Ideas are built under the lock: phrases change while pages are added.
	slices.SortFunc(cands, func(a, b cand) int {
		if c := cmp.Compare(b.sp.pages, a.sp.pages); c != 0 {
			return c
		}
		if c := cmp.Compare(b.sp.count, a.sp.count); c != 0 {
			return c
		}
		return cmp.Compare(a.sp.phrase, b.sp.phrase)
	})
	cands = cands[:min(len(cands), limit)]
	out := make([]Keyword, 0, len(cands))
	for _, c := range cands {
		times := "once"
		if c.sp.count != 1 {
			times = fmt.Sprintf("%d times", c.sp.count)
		}
		why := fmt.Sprintf("used on %d of %d crawled pages (%s), first on %s", c.sp.pages, total, times, c.sp.url)
		out = append(out, Keyword{Keyword: c.sp.phrase, Source: SiteSourceName, Why: why})
	}
	s.mu.Unlock()
	return out, nil
}

// Volumes knows no volumes: a phrase on a site is not a search figure.
func (s *SitePhrases) Volumes(ctx context.Context, keywords []string, loc seo.Locale) ([]Keyword, error) {
	if len(keywords) > MaxVolumeKeywords {
		return nil, &seo.InputError{Field: "keywords", Reason: fmt.Sprintf("must be at most %d", MaxVolumeKeywords)}
	}
	return nil, ctx.Err()
}

// containsAll reports whether every stem of want is among stems.
func containsAll(stems, want []string) bool {
	for _, w := range want {
		if !slices.Contains(stems, w) {
			return false
		}
	}
	return true
}
