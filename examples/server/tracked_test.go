//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seokit/seokit/httpapi/plans"
	"github.com/seokit/seokit/httpapi/store"
)

// TestTrackedKeywordsPlanCap tracks keywords through POST
// /v1/rankings/track as a Free account of the running server: every
// tracked keyword is searched daily at the server's expense, so the plan's
// cap (plans.Limits.TrackedKeywords, 10 for Free) refuses the eleventh with
// a 400 naming keywords, and tracking the same ten again is no new one.
func TestTrackedKeywordsPlanCap(t *testing.T) {
	dir := t.TempDir()
	key := freeKeyAt(t, filepath.Join(dir, "api.db"), "tracker@example.com")
	_, base, _ := start(t, dir)
	limit := plans.Defaults[store.Free].TrackedKeywords
	track := func(kws ...string) (int, map[string]any) {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"domain": "www.oak-shop.example", "keywords": kws, "locale": "en-US"})
		req, _ := http.NewRequest("POST", base+"/v1/rankings/track", strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-API-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	var kws []string
	for i := range limit {
		kws = append(kws, fmt.Sprintf("oak table %d", i))
	}
	if code, body := track(kws...); code != http.StatusOK {
		t.Fatalf("%d keywords on a Free plan: %d %v", limit, code, body)
	}
	code, body := track("oak chairs")
	e, _ := body["error"].(map[string]any)
	if code != http.StatusBadRequest || e["code"] != "invalid_request" || e["field"] != "keywords" ||
		!strings.Contains(fmt.Sprint(e["message"]), fmt.Sprintf("%d tracked keywords", limit)) {
		t.Errorf("keyword %d on a Free plan: %d %v, want 400 invalid_request naming keywords and the cap", limit+1, code, body)
	}
	if code, body := track(kws[0], kws[limit-1]); code != http.StatusOK {
		t.Errorf("keywords already tracked, at the cap: %d %v", code, body)
	}
}
