package crawlertest_test

import (
	"testing"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
)

func TestMemoryFrontierConformance(t *testing.T) {
	crawlertest.RunFrontier(t, func(t *testing.T) crawler.Frontier { return crawler.NewMemoryFrontier() })
}
