package render_test

import (
	"errors"
	"testing"

	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/seo"
)

func TestParseMode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want render.Mode
		bad  bool
	}{
		{"", render.None, false},
		{"none", render.None, false},
		{"auto", render.Auto, false},
		{"always", render.Always, false},
		{"Always", "", true},
		{"yes", "", true},
	} {
		got, err := render.ParseMode(tc.in)
		if tc.bad {
			var ie *seo.InputError
			if !errors.As(err, &ie) || ie.Field != "render" || !errors.Is(err, seo.ErrInvalidInput) {
				t.Errorf("ParseMode(%q) error = %v, want an input error on render", tc.in, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseMode(%q) = %q, %v, want %q", tc.in, got, err, tc.want)
		}
	}
	if !errors.Is(render.ErrUnavailable, seo.ErrUnavailable) {
		t.Error("ErrUnavailable does not wrap seo.ErrUnavailable")
	}
}
