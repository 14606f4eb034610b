package seo

import (
	"encoding/json"
	"testing"
)

// TestCountsJSON checks that Counts encodes as {"error","warning","notice"}
// however the Score holding it is reached: through a pointer, by value, or
// inside a value that is not addressable (a map entry, an interface).
func TestCountsJSON(t *testing.T) {
	t.Parallel()
	s := Score{Value: 80, Counts: Counts{Errors: 1, Warnings: 2, Notices: 3}}
	const want = `{"value":80,"counts":{"error":1,"notice":3,"warning":2}}`
	for _, tc := range []struct {
		name string
		v    any
		want string
	}{
		{"pointer", &s, want},
		{"value", s, want},
		{"map value", map[string]Score{"s": s}, `{"s":` + want + `}`},
		{"struct in interface", struct{ S Score }{s}, `{"S":` + want + `}`},
	} {
		b, err := json.Marshal(tc.v)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if string(b) != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, b, tc.want)
		}
	}
	var back Score
	if err := json.Unmarshal([]byte(want), &back); err != nil || back != s {
		t.Errorf("round trip: %+v, %v", back, err)
	}
}
