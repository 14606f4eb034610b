package rankings

import (
	"testing"

	"github.com/seokit/seokit/seo"
)

func TestDayNumberRoundTrip(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		n    int64
	}{{"epoch", 0}, {"2025", 20089}, {"negative", -3}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := DayNumber(DayFromNumber(c.n)); got != c.n {
				t.Errorf("DayNumber(DayFromNumber(%d)) = %d", c.n, got)
			}
		})
	}
}

func TestCheckLocale(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		l    seo.Locale
		ok   bool
	}{
		{"zero", seo.Locale{}, true},
		{"en-US", seo.Locale{Language: "en", Region: "US"}, true},
		{"uppercase language", seo.Locale{Language: "EN", Region: "US"}, false},
		{"region only", seo.Locale{Region: "US"}, false},
		{"unknown", seo.Locale{Language: "qq", Region: "QQ"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for range 2 { // the second call goes through the cache
				if err := checkLocale("locale", c.l); (err == nil) != c.ok {
					t.Errorf("checkLocale(%+v) = %v, want ok %v", c.l, err, c.ok)
				}
			}
		})
	}
}
