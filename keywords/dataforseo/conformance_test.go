package dataforseo_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"testing"

	"github.com/seokit/seokit/keywords/dataforseo"
	"github.com/seokit/seokit/keywords/keywordstest"
)

// conformanceServer answers like DataForSEO: suggestions from the fixture,
// and search volumes only for the keywords asked.
func conformanceServer(t *testing.T) *httptest.Server {
	sugg, err := os.ReadFile("testdata/suggestions_ok.json")
	if err != nil {
		t.Fatal(err)
	}
	vol, err := os.ReadFile("testdata/search_volume_ok.json")
	if err != nil {
		t.Fatal(err)
	}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case dataforseo.SuggestionsPath:
			w.Write(sugg)
		case dataforseo.SearchVolumePath:
			body, _ := io.ReadAll(r.Body)
			var tasks []struct {
				Keywords []string `json:"keywords"`
			}
			if json.Unmarshal(body, &tasks) != nil || len(tasks) != 1 {
				w.WriteHeader(500)
				return
			}
			var env map[string]any
			json.Unmarshal(vol, &env)
			task := env["tasks"].([]any)[0].(map[string]any)
			var keep []any
			for _, it := range task["result"].([]any) {
				if slices.Contains(tasks[0].Keywords, it.(map[string]any)["keyword"].(string)) {
					keep = append(keep, it)
				}
			}
			task["result"] = keep
			json.NewEncoder(w).Encode(env)
		default:
			w.WriteHeader(404)
		}
	}))
}

func TestConformance(t *testing.T) {
	srv := conformanceServer(t)
	defer srv.Close()
	src := dataforseo.New("login", "pw", &dataforseo.Options{BaseURL: srv.URL})
	keywordstest.RunSource(t, src, keywordstest.Case{Seed: "cheap laptops", Locale: enUS, Known: []string{"buy laptop", "laptop deals"}})
}
