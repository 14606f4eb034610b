package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/ratelimit"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
	"github.com/seokit/seokit/seo"
)

// defaultProbeInterval is how often /healthz writes the heartbeat row at
// most; checks in between answer the last outcome.
const defaultProbeInterval = 5 * time.Second

// writeProbe checks that the API database accepts writes: it upserts this
// instance's heartbeat row (table seokit_heartbeat) and keeps the outcome,
// so /healthz reports a failing write path (a full disk, a read-only file
// or volume) that a ping and reads do not show.
type writeProbe struct {
	db       *sql.DB
	ph       func(int) string
	instance string
	interval time.Duration
	now      func() time.Time

	mu      sync.Mutex
	created bool
	at      time.Time // last probe; zero before the first
	err     error     // its outcome
}

// newWriteProbe returns the write probe of st's database; interval zero
// means defaultProbeInterval.
func newWriteProbe(st *sqlstore.Store, interval time.Duration) *writeProbe {
	if interval <= 0 {
		interval = defaultProbeInterval
	}
	host, _ := os.Hostname()
	return &writeProbe{
		db: st.DB(),
		ph: func(n int) string {
			if st.Dialect() == sqlstore.Postgres {
				return "$" + strconv.Itoa(n)
			}
			return "?"
		},
		instance: seo.Clip(host) + ":" + strconv.Itoa(os.Getpid()),
		interval: interval,
		now:      time.Now,
	}
}

// check writes the heartbeat unless the last write is more recent than the
// interval, and returns the outcome of the last write.
func (p *writeProbe) check(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if !p.at.IsZero() && now.Sub(p.at) < p.interval {
		return p.err
	}
	p.at, p.err = now, p.write(ctx, now)
	return p.err
}

func (p *writeProbe) write(ctx context.Context, now time.Time) error {
	if !p.created {
		if _, err := p.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS seokit_heartbeat (instance TEXT PRIMARY KEY, at TEXT NOT NULL)`); err != nil {
			return err
		}
		p.created = true
	}
	_, err := p.db.ExecContext(ctx, `INSERT INTO seokit_heartbeat (instance, at) VALUES (`+p.ph(1)+`, `+p.ph(2)+`)
		ON CONFLICT (instance) DO UPDATE SET at = excluded.at`, p.instance, now.UTC().Format(time.RFC3339Nano))
	return err
}

// ready answers GET /healthz for load balancers: 200 "ok" when the store
// answers and accepts writes (probe) and the rate limiter's Redis, if any,
// answers, each within two seconds; else 503 naming the component that
// fails and its error.
func ready(st store.Store, limiter ratelimit.Limiter, probe *writeProbe) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		down := func(what string, err error) {
			http.Error(w, fmt.Sprintf("%s: %s", what, seo.Clip(err.Error())), http.StatusServiceUnavailable)
		}
		if err := st.Ping(ctx); err != nil {
			down("database unavailable", err)
			return
		}
		if probe != nil {
			if err := probe.check(ctx); err != nil {
				down("database writes failing", err)
				return
			}
		}
		if p, ok := limiter.(ratelimit.Pinger); ok {
			if err := p.Ping(ctx); err != nil {
				down(componentName(limiter, "rate limiter")+" unavailable", err)
				return
			}
		}
		io.WriteString(w, "ok\n")
	})
}

// componentName is v's own name (httpapi.Component) or else role.
func componentName(v any, role string) string {
	if c, ok := v.(httpapi.Component); ok && c.Component() != "" {
		return c.Component()
	}
	return role
}
