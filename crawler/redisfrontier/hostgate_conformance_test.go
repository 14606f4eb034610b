package redisfrontier_test

import (
	"testing"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
	"github.com/seokit/seokit/crawler/redisfrontier"
	"github.com/seokit/seokit/internal/redistest"
)

// HostGate passes the HostGate conformance suite; each subtest has its own
// key prefix on one server.
func TestHostGateConformance(t *testing.T) {
	srv := redistest.Start(t)
	c := client(t, srv)
	crawlertest.RunHostGate(t, func(t *testing.T) crawler.HostGate {
		g, err := redisfrontier.NewHostGate(c, &redisfrontier.GateOptions{Prefix: "seokit:hostgate:" + newID() + ":"})
		if err != nil {
			t.Fatal(err)
		}
		return g
	})
}
