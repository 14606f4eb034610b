package googleads_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/seokit/seokit/keywords"
	"github.com/seokit/seokit/keywords/googleads"
	"github.com/seokit/seokit/keywords/keywordstest"
)

// conformanceServer answers like Google Ads: ideas from the fixture and
// historical metrics only for the keywords asked.
func conformanceServer(t *testing.T) *httptest.Server {
	ideas, err := os.ReadFile("testdata/ideas_ok.json")
	if err != nil {
		t.Fatal(err)
	}
	hist, err := os.ReadFile("testdata/historical_ok.json")
	if err != nil {
		t.Fatal(err)
	}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, ":generateKeywordIdeas"):
			w.Write(ideas)
		case strings.HasSuffix(r.URL.Path, ":generateKeywordHistoricalMetrics"):
			body, _ := io.ReadAll(r.Body)
			var req struct {
				Keywords []string `json:"keywords"`
			}
			if json.Unmarshal(body, &req) != nil {
				w.WriteHeader(400)
				return
			}
			var resp struct {
				Results []map[string]any `json:"results"`
			}
			json.Unmarshal(hist, &resp)
			resp.Results = slices.DeleteFunc(resp.Results, func(m map[string]any) bool {
				return !slices.Contains(req.Keywords, m["text"].(string))
			})
			json.NewEncoder(w).Encode(resp)
		default:
			w.WriteHeader(404)
		}
	}))
}

func TestConformance(t *testing.T) {
	srv := conformanceServer(t)
	defer srv.Close()
	src, err := googleads.New("1234567890", "dev", oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "t"}), &googleads.Options{BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	keywordstest.RunSource(t, src, keywordstest.Case{Seed: "buy laptop", Locale: enUS, Known: []string{"buy laptop"},
		With: func(t *testing.T, a keywordstest.Answer) keywords.Source {
			ans, ok := failureAnswers[a]
			if !ok {
				return nil
			}
			srv := httptest.NewServer(ans)
			t.Cleanup(srv.Close)
			src, err := googleads.New("1234567890", "dev", oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "ya29.secret-token"}),
				&googleads.Options{BaseURL: srv.URL, Timeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			return src
		},
		Secrets: []string{"ya29.secret-token"},
	})
}

// failureAnswers are the recorded Google Ads answers of each provider
// failure the conformance suite asks for.
var failureAnswers = map[keywordstest.Answer]answer{
	keywordstest.ServerError:  {status: 500, fixture: "internal.json"},
	keywordstest.RateLimited:  {status: 429, fixture: "resource_exhausted.json"},
	keywordstest.Unauthorized: {status: 401, fixture: "unauthenticated.json"},
	keywordstest.Garbage:      {status: 200, fixture: "garbage.html"},
	keywordstest.Truncated:    {status: 200, fixture: "truncated.json"},
	keywordstest.Slow:         {status: 200, fixture: "ideas_ok.json", delay: 3 * time.Second},
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
