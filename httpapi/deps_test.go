package httpapi

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencies: the handler depends on interfaces only, so embedding
// it links no database driver and no dashboard; examples/server wires
// those in.
func TestDependencies(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	out, err := exec.Command(gobin, "list", "-deps", "github.com/seokit/seokit/httpapi").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	forbidden := []string{
		"github.com/seokit/seokit/httpapi/dashboard",
		"github.com/seokit/seokit/httpapi/store/sqlstore",
		"github.com/seokit/seokit/httpapi/riverjobs",
		"github.com/seokit/seokit/httpapi/ratelimit/redislimit",
		"modernc.org/sqlite",
		"github.com/jackc/pgx",
		"github.com/redis/",
		"github.com/riverqueue/",
		"github.com/seokit/seokit/render/chromium",
		"github.com/chromedp/",
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if dep == f || strings.HasPrefix(dep, f+"/") || (strings.HasSuffix(f, "/") && strings.HasPrefix(dep, f)) {
				t.Errorf("httpapi depends on %s", dep)
			}
		}
	}
}
