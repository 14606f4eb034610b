package keywords

import (
	"context"
	"time"

	"github.com/seokit/seokit/seo"
)

// DefaultCacheMaxAge is how long a cached answer is served when
// SuggesterOptions.MaxAge is zero.
const DefaultCacheMaxAge = 7 * 24 * time.Hour

// Cache stores Suggester answers by query and locale. The local driver
// implements it in its SQLite database.
type Cache interface {
	// GetSuggestions returns the answer stored for query and loc computed
	// with a limit of at least limit, with CachedAt set to when it was
	// stored; a miss is an error wrapping seo.ErrNotFound.
	GetSuggestions(ctx context.Context, query string, loc seo.Locale, limit int) (*Suggestions, error)
	// PutSuggestions stores s, computed with limit, as of at, replacing any
	// earlier answer for the same query and locale.
	PutSuggestions(ctx context.Context, s *Suggestions, limit int, at time.Time) error
}
