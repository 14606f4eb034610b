package keywords

import (
	"testing"

	"golang.org/x/text/language"

	"github.com/seokit/seokit/seo"
)

func TestLocationCode(t *testing.T) {
	t.Parallel()
	// Examples checked against the published Google Ads geo target table.
	tests := []struct {
		name   string
		loc    seo.Locale
		want   int
		wantOK bool
	}{
		{"united states", seo.Locale{Language: "en", Region: "US"}, 2840, true},
		{"united kingdom", seo.Locale{Language: "en", Region: "GB"}, 2826, true},
		{"germany", seo.Locale{Language: "de", Region: "DE"}, 2276, true},
		{"japan", seo.Locale{Language: "ja", Region: "JP"}, 2392, true},
		{"brazil", seo.Locale{Language: "pt", Region: "BR"}, 2076, true},
		{"afghanistan three digit padding", seo.Locale{Language: "fa", Region: "AF"}, 2004, true},
		{"lowercase region", seo.Locale{Language: "fr", Region: "fr"}, 2250, true},
		{"no region", seo.Locale{Language: "en"}, 0, false},
		{"historic yugoslavia", seo.Locale{Language: "sr", Region: "YU"}, 0, false},
		{"reserved uk", seo.Locale{Language: "en", Region: "UK"}, 0, false},
		{"unknown", seo.Locale{Language: "en", Region: "QQ"}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := LocationCode(tt.loc)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("LocationCode(%v) = %d, %v; want %d, %v", tt.loc, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestLocationCodeTableMatchesM49(t *testing.T) {
	t.Parallel()
	if len(isoNumeric) != 249 {
		t.Errorf("table has %d countries, ISO 3166-1 assigns 249", len(isoNumeric))
	}
	seen := map[int]string{}
	for a2, n := range isoNumeric {
		r, err := language.ParseRegion(a2)
		if err != nil || !r.IsCountry() {
			t.Errorf("%s: not a country in x/text: %v", a2, err)
			continue
		}
		if r.M49() != n {
			t.Errorf("%s: table %d, M49 %d", a2, n, r.M49())
		}
		if other, dup := seen[n]; dup {
			t.Errorf("%s and %s share numeric code %d", a2, other, n)
		}
		seen[n] = a2
	}
}

func TestAdsLanguage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		loc    seo.Locale
		want   string
		wantOK bool
	}{
		{"english", seo.Locale{Language: "en", Region: "US"}, "languageConstants/1000", true},
		{"german", seo.Locale{Language: "de", Region: "AT"}, "languageConstants/1001", true},
		{"portuguese", seo.Locale{Language: "pt", Region: "BR"}, "languageConstants/1014", true},
		{"russian", seo.Locale{Language: "ru", Region: "RU"}, "languageConstants/1031", true},
		{"simplified chinese", seo.Locale{Language: "zh", Region: "CN"}, "languageConstants/1017", true},
		{"traditional chinese taiwan", seo.Locale{Language: "zh", Region: "TW"}, "languageConstants/1018", true},
		{"traditional chinese hong kong", seo.Locale{Language: "zh", Region: "HK"}, "languageConstants/1018", true},
		{"hebrew", seo.Locale{Language: "he", Region: "IL"}, "languageConstants/1027", true},
		{"filipino", seo.Locale{Language: "tl", Region: "PH"}, "languageConstants/1042", true},
		{"malay", seo.Locale{Language: "ms", Region: "MY"}, "languageConstants/1102", true},
		{"uppercase language", seo.Locale{Language: "EN", Region: "GB"}, "languageConstants/1000", true},
		{"unknown swahili", seo.Locale{Language: "sw", Region: "KE"}, "", false},
		{"empty", seo.Locale{}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := AdsLanguage(tt.loc)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("AdsLanguage(%v) = %q, %v; want %q, %v", tt.loc, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}
