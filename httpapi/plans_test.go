package httpapi

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/seokit/seokit/httpapi/plans"
	"github.com/seokit/seokit/httpapi/store"
)

// TestPlansProse: the OpenAPI document, the package doc and the README
// state the default plans as plans.Defaults defines them.
func TestPlansProse(t *testing.T) {
	free, pro := plans.Defaults[store.Free], plans.Defaults[store.Pro]
	n := func(v int) string { // 10000 as "10,000"
		s := strconv.Itoa(v)
		for i := len(s) - 3; i > 0; i -= 3 {
			s = s[:i] + "," + s[i:]
		}
		return s
	}
	daily := "Free " + strconv.Itoa(free.DailyRequests) + ", Pro " + strconv.Itoa(pro.DailyRequests)
	tests := []struct {
		file string
		want []string
	}{
		{"openapi.json", []string{
			daily + ", Enterprise custom",
			"Free " + n(free.ConcurrentSiteJobs) + ", Pro " + n(pro.ConcurrentSiteJobs) + " by default",
			"Free " + n(free.MaxSitePages) + ", Pro " + n(pro.MaxSitePages) + " by default",
		}},
		{"doc.go", []string{
			daily + ", Enterprise",
			"Free " + n(free.MaxSitePages) + " pages and " + n(free.ConcurrentSiteJobs) + ", Pro " + n(pro.MaxSitePages) + " and " + n(pro.ConcurrentSiteJobs),
		}},
		{"../docs/api.md", []string{daily + ", Enterprise set per account"}},
		{"../docs/server.md", []string{
			"Free " + n(free.MaxSitePages) + " pages and " + n(free.ConcurrentSiteJobs) + " analysis queued or running at once, Pro " +
				n(pro.MaxSitePages) + " pages and " + n(pro.ConcurrentSiteJobs),
		}},
	}
	for _, tt := range tests {
		b, err := os.ReadFile(tt.file)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Join(strings.Fields(strings.ReplaceAll(string(b), "\n//", "\n")), " ")
		for _, w := range tt.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s does not say %q", tt.file, w)
			}
		}
	}
}
