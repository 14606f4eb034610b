package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fakeEnv sets the provider environment for one test.
func fakeEnv(t *testing.T, env map[string]string) {
	t.Helper()
	old := getenv
	getenv = func(k string) string { return env[k] }
	t.Cleanup(func() { getenv = old })
}

// serpAPI is a SerpApi stand-in on loopback answering from testdata.
func serpAPI(t *testing.T) *httptest.Server {
	t.Helper()
	ok, err := os.ReadFile("testdata/serpapi-trail-running-shoes.json")
	if err != nil {
		t.Fatal(err)
	}
	quota, err := os.ReadFile("testdata/serpapi-out-of-searches.json")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if r.URL.Path != "/search.json" || q.Get("api_key") != "test-key" || q.Get("engine") != "google" {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"error":"Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key"}`))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch q.Get("q") {
		case "trail running shoes":
			w.Write(ok)
		case "quota":
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write(quota)
		default:
			w.Write([]byte(`{"search_metadata":{"status":"Success"},"search_information":{"organic_results_state":"Fully empty"}}`))
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestRankingsCheck(t *testing.T) {
	fixedClock(t, "2026-02-01")
	srv := serpAPI(t)
	fakeEnv(t, map[string]string{"SERPAPI_KEY": "test-key", "SERPAPI_BASE_URL": srv.URL})
	db := filepath.Join(t.TempDir(), "seokit-data.db")

	code, out, errOut := runCLI(t, "rankings", "check", "-db", db, "-domain", "example.com", "-json", "trail running shoes", "zzqx")
	if code != 0 {
		t.Fatalf("check: %d %s", code, errOut)
	}
	var res []struct {
		Keyword  string
		Position *int
		URL      string
		Source   string
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || res[0].Position == nil || *res[0].Position != 3 || res[0].URL != "https://www.example.com/trail-running-shoes" || res[0].Source != "serpapi" {
		t.Fatalf("check results %+v, want trail running shoes at 3 from serpapi", res)
	}
	if res[1].Position != nil {
		t.Errorf("zzqx ranked at %d, want not ranked", *res[1].Position)
	}
	// The check was stored: the report sees it.
	code, out, _ = runCLI(t, "report", "-db", db, "-domain", "example.com", "-start", "2026-02-01", "-end", "2026-02-01")
	if code != 0 || !strings.Contains(out, "2 checked, 1 ranked, 1 not ranked") {
		t.Errorf("report after check: %d\n%s", code, out)
	}

	// The table says each keyword's state.
	code, out, _ = runCLI(t, "rankings", "check", "-db", db, "-domain", "example.com", "trail running shoes", "zzqx")
	if code != 0 || !strings.Contains(out, "STATUS") || !regexp.MustCompile(`zzqx +not_ranked +not ranked `).MatchString(out) ||
		!regexp.MustCompile(`trail running shoes +ranked +3 `).MatchString(out) {
		t.Errorf("check table: exit %d\n%s", code, out)
	}

	// A provider failure is a failed row and an error, not "not ranked".
	code, out, errOut = runCLI(t, "rankings", "check", "-db", db, "-domain", "example.com", "quota")
	if code != 2 || strings.Contains(out, "not ranked") || !strings.Contains(out, "failed") || !strings.Contains(errOut, "rate limited") {
		t.Errorf("quota: exit %d, out %q, err %q", code, out, errOut)
	}
}

func TestRankingsBadInput(t *testing.T) {
	fixedClock(t, "2026-02-01")
	db := filepath.Join(t.TempDir(), "seokit-data.db")
	for _, c := range []struct {
		name string
		env  map[string]string
		args []string
		msg  string
	}{
		{"no provider", nil, []string{"check", "-db", db, "-domain", "example.com", "shoes"}, "no SERP provider configured"},
		{"provider without key", nil, []string{"check", "-db", db, "-source", "dataforseo", "-domain", "example.com", "shoes"}, "set DATAFORSEO_LOGIN and DATAFORSEO_PASSWORD"},
		{"unknown provider", map[string]string{"SERPAPI_KEY": "k"}, []string{"check", "-db", db, "-source", "bing", "-domain", "example.com", "shoes"}, "unknown provider"},
		{"check without keywords", nil, []string{"check", "-db", db, "-domain", "example.com"}, "at least one keyword"},
		{"check without domain", nil, []string{"check", "-db", db, "shoes"}, "-domain is required"},
		{"bad device", map[string]string{"SERPAPI_KEY": "k"}, []string{"check", "-db", db, "-device", "tablet", "-domain", "example.com", "shoes"}, "must be desktop or mobile"},
		{"track nothing", nil, []string{"track", "-db", db, "-domain", "example.com"}, "takes keywords or -import-gsc"},
		{"track bad domain", nil, []string{"track", "-db", db, "-domain", "exa mple.com", "shoes"}, "invalid domain"},
		{"track empty keyword", nil, []string{"track", "-db", db, "-domain", "example.com", " "}, "invalid keywords[0]"},
		{"import without date", nil, []string{"track", "-db", db, "-domain", "example.com", "-import-gsc", "testdata/gsc-queries-2026-01-31.csv"}, "go together"},
		{"import bad date", nil, []string{"track", "-db", db, "-domain", "example.com", "-import-gsc", "testdata/gsc-queries-2026-01-31.csv", "-date", "31.01.2026"}, "invalid date"},
		{"import future date", nil, []string{"track", "-db", db, "-domain", "example.com", "-import-gsc", "testdata/gsc-queries-2026-01-31.csv", "-date", "2026-03-01"}, "in the future"},
		{"import not csv", nil, []string{"track", "-db", db, "-domain", "example.com", "-import-gsc", "testdata/not-csv.bin", "-date", "2026-01-31"}, "import-gsc"},
		{"unknown subcommand", nil, []string{"list"}, "unknown subcommand"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fakeEnv(t, c.env)
			code, _, errOut := runCLI(t, append([]string{"rankings"}, c.args...)...)
			if code != 2 || !strings.Contains(errOut, c.msg) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut, c.msg)
			}
		})
	}
	// Nothing was written by the failures.
	code, out, _ := runCLI(t, "report", "-db", db, "-domain", "example.com", "-start", "2026-01-01", "-end", "2026-01-31")
	if code != 0 || !strings.Contains(out, "0 tracked") {
		t.Errorf("after bad input: %d\n%s", code, out)
	}
}
