package riverjobs_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/queuetest"
	"github.com/seokit/seokit/httpapi/riverjobs"
)

// Queue passes the Queue conformance suite as a durable queue: each
// subtest has its own PostgreSQL database, and the queues it opens share
// it like instances of one service.
func TestQueueConformance(t *testing.T) {
	t.Parallel() // a database of its own; it waits on events and deadlines, not on time
	var n atomic.Int64
	queuetest.Run(t, func(t *testing.T) func(*testing.T) httpapi.Queue {
		pool := dsnPool(t, migrated.DSN(t))
		return func(t *testing.T) httpapi.Queue {
			q, err := riverjobs.New(context.Background(), pool, &riverjobs.Options{
				Workers: 4,
				ID:      fmt.Sprintf("conformance-%d", n.Add(1)),
				Logger:  testLogger(t),
			})
			if err != nil {
				t.Fatal(err)
			}
			return q
		}
	}, &queuetest.Options{Durable: true})
}
