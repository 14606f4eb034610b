package dataforseo

import (
	"errors"
	"testing"

	"github.com/seokit/seokit/seo"
)

func TestStatusError(t *testing.T) {
	fields := map[string]string{"keyword": "query"}
	tests := []struct {
		name  string
		code  int
		msg   string
		is    error
		field string
	}{
		{"search engine error", 40101, "Internal SE Server Error.", seo.ErrUnavailable, ""},
		{"auth", 40100, "You are not authorized to access this resource.", seo.ErrUnavailable, ""},
		{"rate limit", 40202, "Rate-limit per minute exceeded.", seo.ErrRateLimited, ""},
		{"mapped field", 40501, "Invalid Field: 'keyword'.", seo.ErrInvalidInput, "query"},
		{"unmapped field", 40501, "Invalid Field: 'tag'.", seo.ErrInvalidInput, ""},
		{"server", 50000, "Internal Error.", seo.ErrUnavailable, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := StatusError("dataforseo", tt.code, tt.msg, fields)
			if !errors.Is(err, tt.is) {
				t.Errorf("%v is not %v", err, tt.is)
			}
			ie, ok := seo.AsInputError(err)
			if tt.field != "" && (!ok || ie.Field != tt.field) {
				t.Errorf("%v: want InputError for %q", err, tt.field)
			}
			if tt.field == "" && ok {
				t.Errorf("%v: unexpected InputError", err)
			}
		})
	}
}
