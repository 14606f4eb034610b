package auth

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// throttle limits failed attempts per key (client_id, email) with a token
// bucket each, in a map bounded to max entries.
type throttle struct {
	mu    sync.Mutex
	limit rate.Limit
	burst int
	max   int
	m     map[string]*rate.Limiter
}

func newThrottle(limit rate.Limit, burst, max int) *throttle {
	return &throttle{limit: limit, burst: burst, max: max, m: make(map[string]*rate.Limiter)}
}

// blocked reports whether key has no attempts left at now.
func (t *throttle) blocked(key string, now time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	l, ok := t.m[key]
	return ok && l.TokensAt(now) < 1
}

// fail records a failed attempt of key at now.
func (t *throttle) fail(key string, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	l, ok := t.m[key]
	if !ok {
		if len(t.m) >= t.max {
			t.evict(now)
		}
		l = rate.NewLimiter(t.limit, t.burst)
		t.m[key] = l
	}
	l.AllowN(now, 1)
}

// evict drops the limiters that have refilled completely (they carry no
// state); if none has, an arbitrary one, so the map stays bounded.
func (t *throttle) evict(now time.Time) {
	for k, l := range t.m {
		if l.TokensAt(now) >= float64(t.burst) {
			delete(t.m, k)
		}
	}
	if len(t.m) >= t.max {
		for k := range t.m {
			delete(t.m, k)
			break
		}
	}
}
