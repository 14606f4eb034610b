package logs_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seokit/seokit/logs"
	"github.com/seokit/seokit/logs/logstest"
	"github.com/seokit/seokit/seo"
)

func TestDirRangesConformance(t *testing.T) {
	logstest.RunRangeSource(t, func(t *testing.T) logs.RangeSource {
		dir := t.TempDir()
		for name, body := range logstest.Files {
			ext := ".json"
			if !strings.HasPrefix(body, "{") {
				ext = ".txt"
			}
			if err := os.WriteFile(filepath.Join(dir, name+ext), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return logs.DirRanges(dir)
	})
}

func TestHTTPRangesConformance(t *testing.T) {
	logstest.RunRangeSource(t, func(t *testing.T) logs.RangeSource {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, ok := logstest.Files[strings.TrimPrefix(r.URL.Path, "/")]
			if !ok {
				http.NotFound(w, r)
				return
			}
			_, _ = w.Write([]byte(body))
		}))
		t.Cleanup(srv.Close)
		urls := map[string]string{}
		for name := range logs.RangeURLs {
			urls[name] = srv.URL + "/" + name
		}
		return logs.NewHTTPRanges(seo.NewFetcher(&seo.FetcherOptions{AllowPrivate: true}), &logs.HTTPRangesOptions{URLs: urls})
	})
}
