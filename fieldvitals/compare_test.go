package fieldvitals_test

import (
	"strings"
	"testing"

	"github.com/seokit/seokit/fieldvitals"
)

func TestCompare(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	field := &fieldvitals.Record{Status: fieldvitals.StatusOK, Query: fieldvitals.Query{URL: "https://example.com/"}, Metrics: []fieldvitals.Metric{
		{Name: "lcp", Status: "ok", P75: f(3200), Rating: "needs_improvement"},
		{Name: "inp", Status: "ok", P75: f(240), Rating: "needs_improvement"},
		{Name: "cls", Status: "insufficient_data"},
	}}
	tests := []struct {
		name  string
		lab   fieldvitals.Lab
		field *fieldvitals.Record
		check func(t *testing.T, cs []fieldvitals.Comparison)
	}{
		{"both", fieldvitals.Lab{LCPMs: f(1200), CLS: f(0.01), TBTMs: f(90)}, field, func(t *testing.T, cs []fieldvitals.Comparison) {
			if cs[0].Difference == nil || *cs[0].Difference != 2000 || !strings.Contains(cs[0].Explanation, "2000 ms worse") {
				t.Errorf("LCP %+v", cs[0])
			}
			if cs[1].Field != nil || cs[1].Difference != nil {
				t.Errorf("CLS without field data has %+v", cs[1])
			}
			if cs[2].Difference != nil || cs[2].LabRating != "" || cs[2].LabMetric != "tbt" {
				t.Errorf("INP against TBT must not be compared on one scale: %+v", cs[2])
			}
		}},
		{"no field data", fieldvitals.Lab{LCPMs: f(1200)}, &fieldvitals.Record{Status: fieldvitals.StatusInsufficient, Query: fieldvitals.Query{Origin: "https://example.com"}}, func(t *testing.T, cs []fieldvitals.Comparison) {
			for _, c := range cs {
				if c.Field != nil || c.Difference != nil || !strings.Contains(c.Explanation, "not enough real-user data for this origin") {
					t.Errorf("%+v", c)
				}
			}
		}},
		{"no lab", fieldvitals.Lab{}, field, func(t *testing.T, cs []fieldvitals.Comparison) {
			if cs[0].Lab != nil || cs[0].Field == nil || !strings.Contains(cs[0].Explanation, "Not measured in the lab") {
				t.Errorf("%+v", cs[0])
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.check(t, fieldvitals.Compare(tc.lab, tc.field)) })
	}
}
