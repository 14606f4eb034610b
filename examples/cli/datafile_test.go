package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seokit/seokit/keywords/local"
	"github.com/seokit/seokit/seo"
)

// TestDefaultDataFile: without -db the commands use the file the server
// reads with -data-db (seokit-data.db, or $SEOKIT_DATA_DB), so that what the
// CLI imports the server serves.
func TestDefaultDataFile(t *testing.T) {
	planner, err := filepath.Abs("testdata/keyword-planner.csv")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	custom := filepath.Join(t.TempDir(), "elsewhere.db")
	for _, c := range []struct {
		name string
		env  map[string]string
		file string
	}{
		{"default", nil, filepath.Join(dir, defaultDataDB)},
		{"environment", map[string]string{dataDBEnv: custom}, custom},
	} {
		t.Run(c.name, func(t *testing.T) {
			fakeEnv(t, c.env)
			if code, _, errOut := runCLI(t, "keywords", "import", planner); code != 0 {
				t.Fatalf("import: %d %s", code, errOut)
			}
			if _, err := os.Stat(c.file); err != nil {
				t.Fatalf("import did not write %s: %v", c.file, err)
			}
			if _, err := os.Stat(filepath.Join(dir, "seokit.db")); err == nil {
				t.Error("the CLI still writes seokit.db")
			}
			// What the server opens with -data-db FILE sees the import.
			st, err := local.Open(context.Background(), c.file, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			kws, err := st.Volumes(context.Background(), []string{"trail running shoes"}, seo.Locale{Language: "en", Region: "US"})
			if err != nil || len(kws) != 1 || kws[0].Volume == nil || *kws[0].Volume != 9900 {
				t.Errorf("server-side read of %s: %+v %v", c.file, kws, err)
			}
			if code, out, _ := runCLI(t, "keywords", "suggest", "trail"); code != 0 || !strings.Contains(out, "trail running shoes") {
				t.Errorf("suggest from the default file: %d %s", code, out)
			}
		})
	}
	_, _, errOut := runCLI(t, "keywords", "import", "-h")
	if !strings.Contains(errOut, defaultDataDB) || !strings.Contains(errOut, dataDBEnv) {
		t.Errorf("import -h does not name the data file and %s:\n%s", dataDBEnv, errOut)
	}
	var out strings.Builder
	run(context.Background(), []string{"help"}, &out, &out)
	if !strings.Contains(out.String(), "seokit-data.db") || !strings.Contains(out.String(), "-data-db") {
		t.Errorf("usage does not name the shared data file:\n%s", out.String())
	}
}

func TestRedactDSN(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"seokit-data.db": "seokit-data.db",
		"postgres://seokit:s3cret@db:5432/seokit":  "postgres://seokit:xxxxx@db:5432/seokit",
		"postgresql://u@db/seokit?sslmode=disable": "postgresql://u@db/seokit?sslmode=disable",
		"postgres://u:p@[::1:bad/x":                "postgres://(unparsable DSN)",
	} {
		if got := redactDSN(in); got != want {
			t.Errorf("redactDSN(%q) = %q, want %q", in, got, want)
		}
	}
}
