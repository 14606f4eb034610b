package logs

import (
	"strings"
	"testing"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
)

// TestCatalog checks that every log check has a source, is in the logs
// area, and shares no ID with the page and site checks.
func TestCatalog(t *testing.T) {
	other := map[string]bool{}
	for _, c := range append(analyzer.Catalog(), crawler.Catalog()...) {
		other[c.ID] = true
	}
	for _, c := range Catalog() {
		if c.Source == "" || !strings.HasPrefix(c.ID, "logs.") || c.Summary == "" || other[c.ID] {
			t.Errorf("check %+v", c)
		}
	}
}
