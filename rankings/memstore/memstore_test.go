package memstore_test

import (
	"testing"

	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/memstore"
	"github.com/seokit/seokit/rankings/rankingstest"
)

func TestConformance(t *testing.T) {
	rankingstest.RunStore(t, func(t *testing.T) rankings.Store { return memstore.New(nil) })
}
