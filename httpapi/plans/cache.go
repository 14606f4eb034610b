package plans

import (
	"sync"
	"time"

	"github.com/seokit/seokit/internal/keyed"
)

// Cache remembers accounts' limits (Table.For of their records) for a
// short time, so a request does not read its account from the store each
// time. It holds at most the number of accounts given to NewCache, the
// least recently used going first. It is safe for concurrent use.
type Cache struct {
	ttl time.Duration
	mu  sync.Mutex
	c   *keyed.Map[cachedLimits]
}

type cachedLimits struct {
	limits Limits
	at     time.Time
}

// NewCache returns a Cache of at most max accounts, each remembered for
// ttl.
func NewCache(max int, ttl time.Duration) *Cache {
	return &Cache{c: keyed.New[cachedLimits](max), ttl: ttl}
}

// Get returns the limits remembered for the account, and false when there
// are none, they are older than the ttl at now, or now is before they were
// put (the clock went back).
func (c *Cache) Get(accountID string, now time.Time) (Limits, bool) {
	c.mu.Lock()
	v, ok := c.c.Get(accountID)
	c.mu.Unlock()
	if !ok || now.Sub(v.at) > c.ttl || now.Before(v.at) {
		return Limits{}, false
	}
	return v.limits, true
}

// Put remembers the account's limits as of now.
func (c *Cache) Put(accountID string, l Limits, now time.Time) {
	c.mu.Lock()
	c.c.Add(accountID, cachedLimits{l, now})
	c.mu.Unlock()
}
