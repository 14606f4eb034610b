package analyzer

import "testing"

// TestCatalogSources checks that every check ID names the standard,
// guideline or peer tool its rule follows, so that "checks -v" and the
// JSON catalogue can justify each finding.
func TestCatalogSources(t *testing.T) {
	t.Parallel()
	cat := Catalog()
	if len(cat) == 0 {
		t.Fatal("empty catalogue")
	}
	for _, c := range cat {
		if c.Source == "" {
			t.Errorf("%s has no Source", c.ID)
		}
	}
}
