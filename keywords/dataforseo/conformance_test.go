package dataforseo_test

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/seokit/seokit/keywords"
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
	keywordstest.RunSource(t, src, keywordstest.Case{Seed: "cheap laptops", Locale: enUS, Known: []string{"buy laptop", "laptop deals"},
		With: func(t *testing.T, a keywordstest.Answer) keywords.Source {
			ans, ok := failureAnswers[a]
			if !ok {
				return nil
			}
			srv := httptest.NewServer(ans)
			t.Cleanup(srv.Close)
			return dataforseo.New("login", "pw", &dataforseo.Options{BaseURL: srv.URL, Timeout: time.Second})
		},
		// The Basic credentials as the Authorization header carries them.
		Secrets: []string{base64.StdEncoding.EncodeToString([]byte("login:pw"))},
	})
}

// failureAnswers are the recorded DataForSEO answers of each provider
// failure the conformance suite asks for.
var failureAnswers = map[keywordstest.Answer]answer{
	keywordstest.ServerError:  {status: 500},
	keywordstest.RateLimited:  {status: 200, fixture: "rate_limited.json"},
	keywordstest.Unauthorized: {status: 401, fixture: "unauthorized.json"},
	keywordstest.Garbage:      {status: 200, fixture: "garbage.html"},
	keywordstest.Truncated:    {status: 200, fixture: "truncated.json"},
	keywordstest.Slow:         {status: 200, fixture: "suggestions_ok.json", delay: 3 * time.Second},
}

// ServeHTTP gives a to every request, whatever its endpoint.
func (a answer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if a.delay > 0 {
		select {
		case <-time.After(a.delay):
		case <-r.Context().Done():
			return
		}
	}
	for k, v := range a.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(a.status)
	if a.fixture != "" {
		b, _ := os.ReadFile(filepath.Join("testdata", a.fixture))
		w.Write(b)
	}
}
