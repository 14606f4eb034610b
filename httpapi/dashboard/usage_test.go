package dashboard_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/dashboard"
	"github.com/seokit/seokit/httpapi/ratelimit"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
)

var _ dashboard.Usage = ratelimit.Limiter(nil)

// TestUsageThroughLimiter shows the counts of Options.Usage (the limiter
// the API instances share) rather than the store's own counters.
func TestUsageThroughLimiter(t *testing.T) {
	ctx := context.Background()
	shared, err := sqlstore.Open(ctx, ":memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer shared.Close()
	lim := ratelimit.NewLocal(shared)
	e := newEnv(t, &envOptions{opts: dashboard.Options{Usage: lim, Quota: fixedQuota(50)}})
	now := e.clock.Now()
	for range 7 {
		res, err := lim.Take(ctx, ratelimit.Request{Account: e.acct.ID, Now: now, Daily: 50, Rate: 100, Burst: 100})
		if err != nil || res.Refused != ratelimit.Admitted {
			t.Fatalf("take: %+v, %v", res, err)
		}
	}
	// The store's own counter says 2: the page must not show it.
	for range 2 {
		if _, _, err := e.st.Take(ctx, e.acct.ID, now.UTC().Truncate(24*time.Hour), 50); err != nil {
			t.Fatal(err)
		}
	}
	c := e.client(t)
	e.login(t, c)
	_, body := get(t, c, e.srv.URL+"/dashboard/usage")
	if !strings.Contains(body, `7 <span class="muted">of 50 requests`) {
		t.Errorf("usage page does not show the limiter's 7 requests:\n%s", body)
	}
}
