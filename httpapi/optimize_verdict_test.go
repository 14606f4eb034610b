package httpapi

import (
	"slices"
	"testing"
)

// TestOptimizeVerdicts: the README's example is not rated good next to its
// content.empty error, and a reading ease not computed is null with a
// reason (both shapes are checked against openapi.json by the contract
// test).
func TestOptimizeVerdicts(t *testing.T) {
	a := newTestAPI(t, nil)
	tests := []struct {
		name, body, rating, reason string
		cappedBy                   []string
	}{
		{"readme example", `{"content":"Green tea is ...","keywords":["green tea"],"locale":"en-US"}`, "bad", "too_short", []string{"content.empty"}},
		{"unsupported language", `{"content":"Kawa jest gorąca. Lubię kawę rano. Kawa z mlekiem jest dobra. Pijemy ją codziennie z przyjaciółmi w małej kawiarni.","keywords":["kawa"],"locale":"pl-PL"}`, "", "unsupported_language", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := a.call("POST", "/v1/optimize/content", a.key, tt.body)
			wantStatus(t, resp, 200)
			var rep struct {
				SEORating   string   `json:"seoRating"`
				SEOCappedBy []string `json:"seoCappedBy"`
				Readability map[string]any
				Keyphrases  []struct {
					DensityRating string `json:"densityRating"`
				} `json:"keyphrases"`
			}
			readJSON(t, resp, &rep)
			if tt.rating != "" && rep.SEORating != tt.rating {
				t.Errorf("seoRating %q, want %q", rep.SEORating, tt.rating)
			}
			if !slices.Equal(rep.SEOCappedBy, tt.cappedBy) {
				t.Errorf("seoCappedBy %v, want %v", rep.SEOCappedBy, tt.cappedBy)
			}
			if score, ok := rep.Readability["score"]; !ok || score != nil || rep.Readability["reason"] != tt.reason {
				t.Errorf("readability %v, want score null and reason %s", rep.Readability, tt.reason)
			}
			if len(rep.Keyphrases) != 1 || rep.Keyphrases[0].DensityRating == "" {
				t.Errorf("keyphrases %+v", rep.Keyphrases)
			}
		})
	}
}
