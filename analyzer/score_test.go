package analyzer

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"syscall"
	"testing"

	"github.com/seokit/seokit/seo"
)

// TestScoreStates checks that only an HTML page answered 2xx gets a page
// score: a page that could not be fetched, an error status, a redirect not
// followed and a non-HTML response have none, with the reason, and keep
// their findings.
func TestScoreStates(t *testing.T) {
	t.Parallel()
	page := []byte("<!DOCTYPE html><html lang=en><head><title>A page about tea and its many kinds</title></head><body><h1>Tea</h1><p>Tea.</p></body></html>")
	resp := func(status int, ctype string) *seo.Response {
		return &seo.Response{RequestedURL: "https://example.com/a", URL: "https://example.com/a", Status: status,
			Header: http.Header{"Content-Type": {ctype}, "Location": {"/b"}}, Body: page, BodyBytes: int64(len(page))}
	}
	tests := []struct {
		name    string
		f       httpFailingFetcher
		reason  string
		finding string
	}{
		{"not fetched", httpFailingFetcher{err: fmt.Errorf("seo: dial example.com:443: %w", syscall.ECONNREFUSED)}, ScoreNotFetched, "http.unreachable"},
		{"404", httpFailingFetcher{resp: resp(404, "text/html")}, ScoreErrorStatus, "http.status_4xx"},
		{"500", httpFailingFetcher{resp: resp(500, "text/html")}, ScoreErrorStatus, "http.status_5xx"},
		{"redirect", httpFailingFetcher{resp: resp(301, "text/html")}, ScoreRedirect, ""},
		{"pdf", httpFailingFetcher{resp: resp(200, "application/pdf")}, ScoreNotHTML, ""},
		{"html 200", httpFailingFetcher{resp: resp(200, "text/html")}, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Analyze(context.Background(), "https://example.com/a", &Options{Depth: Basic, Fetcher: tc.f})
			if err != nil {
				t.Fatal(err)
			}
			if rep.ScoreReason != tc.reason || (rep.Score == nil) != (tc.reason != "") {
				t.Errorf("score %+v reason %q, want reason %q", rep.Score, rep.ScoreReason, tc.reason)
			}
			if tc.finding != "" && finding(rep, tc.finding) == nil {
				t.Errorf("finding %s missing: %v", tc.finding, findingIDs(rep))
			}
			b, err := json.Marshal(rep)
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Score  json.RawMessage `json:"score"`
				Reason *string         `json:"scoreReason"`
			}
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			if tc.reason != "" && (string(got.Score) != "null" || got.Reason == nil || *got.Reason != tc.reason) {
				t.Errorf("JSON score %s reason %v, want null and %q", got.Score, got.Reason, tc.reason)
			}
			if tc.reason == "" && (string(got.Score) == "null" || got.Reason != nil) {
				t.Errorf("JSON score %s reason %v, want an object and no reason", got.Score, got.Reason)
			}
		})
	}
}
