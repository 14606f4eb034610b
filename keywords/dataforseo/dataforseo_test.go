package dataforseo_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/seokit/seokit/keywords"
	"github.com/seokit/seokit/keywords/dataforseo"
	"github.com/seokit/seokit/seo"
)

var enUS = seo.Locale{Language: "en", Region: "US"}

// answer is one canned HTTP answer.
type answer struct {
	status  int
	fixture string // file in testdata
	header  map[string]string
	delay   time.Duration
}

// fake is a DataForSEO server that checks each request and answers the
// next canned answer (the last one repeats).
type fake struct {
	t       *testing.T
	path    string
	answers []answer
	mu      sync.Mutex
	tasks   []map[string]any
	calls   int
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	i := min(f.calls, len(f.answers)-1)
	f.calls++
	f.mu.Unlock()
	if r.Method != http.MethodPost {
		f.t.Errorf("method = %s, want POST", r.Method)
	}
	if r.URL.Path != f.path {
		f.t.Errorf("path = %s, want %s", r.URL.Path, f.path)
	}
	if u, p, ok := r.BasicAuth(); !ok || u != "login@example.com" || p != "s3cret" {
		f.t.Errorf("basic auth = %q %q %v", u, p, ok)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		f.t.Errorf("content type = %q", ct)
	}
	body, _ := io.ReadAll(r.Body)
	var tasks []map[string]any
	if err := json.Unmarshal(body, &tasks); err != nil {
		f.t.Errorf("body is not an array of tasks: %v: %s", err, body)
	}
	if len(tasks) != 1 {
		f.t.Errorf("live endpoints take one task per call, got %d", len(tasks))
	}
	f.mu.Lock()
	f.tasks = append(f.tasks, tasks...)
	f.mu.Unlock()
	a := f.answers[i]
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
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.status)
	if a.fixture != "" {
		b, err := os.ReadFile(filepath.Join("testdata", a.fixture))
		if err != nil {
			f.t.Fatal(err)
		}
		w.Write(b)
	}
}

func newSource(t *testing.T, path string, answers ...answer) (*dataforseo.Source, *fake) {
	t.Helper()
	f := &fake{t: t, path: path, answers: answers}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return dataforseo.New("login@example.com", "s3cret", &dataforseo.Options{BaseURL: srv.URL, Timeout: 2 * time.Second}), f
}

func ip(n int) *int         { return &n }
func fp(f float64) *float64 { return &f }

func TestSuggest(t *testing.T) {
	src, f := newSource(t, dataforseo.SuggestionsPath, answer{status: 200, fixture: "suggestions_ok.json"})
	got, err := src.Suggest(context.Background(), "  cheap laptops ", enUS, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []keywords.Keyword{
		{
			Keyword: "cheap laptops for sale", Volume: ip(2900), Difficulty: ip(53),
			DifficultyMethod: "dataforseo:keyword_difficulty", PaidCompetition: ip(100), CPC: fp(0.8),
			Monthly: []keywords.MonthlyVolume{mv(2024, 7, 2900), mv(2024, 8, 3600), mv(2024, 9, 2400)},
			Source:  "dataforseo", UpdatedAt: time.Date(2024, 10, 1, 12, 0, 0, 0, time.UTC),
		},
		{
			Keyword: "cheap laptops under 200", Volume: ip(1300), PaidCompetition: ip(87), CPC: fp(0.41),
			Monthly: []keywords.MonthlyVolume{mv(2024, 9, 1300)},
			Source:  "dataforseo", UpdatedAt: time.Date(2024, 10, 2, 8, 30, 0, 0, time.UTC),
		},
		{
			Keyword: "cheap laptops near me", Difficulty: ip(21), DifficultyMethod: "dataforseo:keyword_difficulty",
			Source: "dataforseo", UpdatedAt: time.Date(2024, 10, 2, 8, 30, 0, 0, time.UTC),
		},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Suggest (-want +got):\n%s", d)
	}
	if len(f.tasks) != 1 {
		t.Fatalf("tasks = %d", len(f.tasks))
	}
	task := f.tasks[0]
	code, _ := keywords.LocationCode(enUS)
	for k, v := range map[string]any{"keyword": "cheap laptops", "location_code": float64(code), "language_code": "en", "limit": float64(3)} {
		if task[k] != v {
			t.Errorf("task[%s] = %v, want %v", k, task[k], v)
		}
	}
}

func TestSuggestDefaultLimitAndChinese(t *testing.T) {
	src, f := newSource(t, dataforseo.SuggestionsPath, answer{status: 200, fixture: "suggestions_ok.json"})
	if _, err := src.Suggest(context.Background(), "laptop", seo.Locale{Language: "zh", Region: "TW"}, 0); err != nil {
		t.Fatal(err)
	}
	if f.tasks[0]["limit"] != float64(100) || f.tasks[0]["language_code"] != "zh-TW" || f.tasks[0]["location_code"] != float64(2158) {
		t.Errorf("task = %v", f.tasks[0])
	}
}

func TestVolumes(t *testing.T) {
	src, f := newSource(t, dataforseo.SearchVolumePath, answer{status: 200, fixture: "search_volume_ok.json"})
	got, err := src.Volumes(context.Background(), []string{"Buy  Laptop", "laptop deals", "zxqv laptop", "buy laptop"}, enUS)
	if err != nil {
		t.Fatal(err)
	}
	want := []keywords.Keyword{
		{Keyword: "buy laptop", Volume: ip(12100), PaidCompetition: ip(100), CPC: fp(2.2),
			Monthly: []keywords.MonthlyVolume{mv(2024, 9, 12100), mv(2024, 10, 14800)}, Source: "dataforseo"},
		{Keyword: "laptop deals", Volume: ip(90500), PaidCompetition: ip(48), CPC: fp(1.73),
			Monthly: []keywords.MonthlyVolume{mv(2024, 10, 110000)}, Source: "dataforseo"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Volumes (-want +got):\n%s", d)
	}
	for _, k := range got {
		if k.Difficulty != nil {
			t.Errorf("%s: Google Ads has no organic difficulty, got %d", k.Keyword, *k.Difficulty)
		}
	}
	kws, _ := f.tasks[0]["keywords"].([]any)
	if fmt.Sprint(kws) != "[buy laptop laptop deals zxqv laptop]" {
		t.Errorf("keywords sent = %v", kws)
	}
}

func TestVolumesLimit(t *testing.T) {
	src, f := newSource(t, dataforseo.SearchVolumePath, answer{status: 200, fixture: "search_volume_ok.json"})
	kws := make([]string, keywords.MaxVolumeKeywords+1)
	for i := range kws {
		kws[i] = fmt.Sprintf("keyword %d", i)
	}
	if _, err := src.Volumes(context.Background(), kws, enUS); err == nil {
		t.Fatal("1001 keywords accepted")
	} else if ie, ok := seo.AsInputError(err); !ok || ie.Field != "keywords" {
		t.Fatalf("error %v, want InputError for keywords", err)
	}
	if _, err := src.Volumes(context.Background(), kws[:1000], enUS); err != nil {
		t.Fatal(err)
	}
	if len(f.tasks) != 1 || len(f.tasks[0]["keywords"].([]any)) != 1000 {
		t.Errorf("1000 keywords should be one task, got %d tasks", len(f.tasks))
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name      string
		answer    answer
		is        error
		field     string // InputError field, if any
		retry     time.Duration
		msgSubstr string
	}{
		{"http 401", answer{status: 401, fixture: "unauthorized.json"}, seo.ErrUnavailable, "", 0, "credentials rejected"},
		{"http 402", answer{status: 402, fixture: "payment.json"}, seo.ErrUnavailable, "", 0, "payment"},
		{"http 429 with retry-after", answer{status: 429, header: map[string]string{"Retry-After": "30"}}, seo.ErrRateLimited, "", 30 * time.Second, "rate limited"},
		{"http 500", answer{status: 500}, seo.ErrUnavailable, "", 0, "HTTP 500"},
		{"request-level rate limit", answer{status: 200, fixture: "rate_limited.json"}, seo.ErrRateLimited, "", 0, "40202"},
		{"task 40101", answer{status: 200, fixture: "task_40101.json"}, seo.ErrUnavailable, "", 0, "40101"},
		{"task 40501 invalid field", answer{status: 200, fixture: "task_40501.json"}, seo.ErrInvalidInput, "query", 0, "40501"},
		{"garbage html", answer{status: 200, fixture: "garbage.html"}, seo.ErrUnavailable, "", 0, "not DataForSEO JSON"},
		{"truncated json", answer{status: 200, fixture: "truncated.json"}, seo.ErrUnavailable, "", 0, "not DataForSEO JSON"},
		{"slow server", answer{status: 200, fixture: "suggestions_ok.json", delay: time.Minute}, seo.ErrUnavailable, "", 0, "deadline"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, _ := newSource(t, dataforseo.SuggestionsPath, tt.answer)
			start := time.Now()
			got, err := src.Suggest(context.Background(), "cheap laptops", enUS, 10)
			if err == nil {
				t.Fatalf("no error, got %d keywords", len(got))
			}
			if got != nil {
				t.Errorf("result %v returned with error", got)
			}
			if !errors.Is(err, tt.is) {
				t.Errorf("error %v is not %v", err, tt.is)
			}
			if !strings.Contains(err.Error(), tt.msgSubstr) {
				t.Errorf("error %q does not mention %q", err, tt.msgSubstr)
			}
			if tt.field != "" {
				ie, ok := seo.AsInputError(err)
				if !ok || ie.Field != tt.field {
					t.Errorf("error %v: want InputError for %q", err, tt.field)
				}
			}
			if tt.retry > 0 {
				var rl *seo.RateLimitError
				if !errors.As(err, &rl) || rl.RetryAfter != tt.retry {
					t.Errorf("error %v: want RetryAfter %v", err, tt.retry)
				}
			}
			if time.Since(start) > 30*time.Second { // far below the slow answer's minute
				t.Errorf("took %v, timeout is 2s", time.Since(start))
			}
		})
	}
}

func TestBadInput(t *testing.T) {
	src, f := newSource(t, dataforseo.SuggestionsPath, answer{status: 200, fixture: "suggestions_ok.json"})
	ctx := context.Background()
	tests := []struct {
		name  string
		call  func() error
		field string
	}{
		{"empty seed", func() error { _, err := src.Suggest(ctx, "  ", enUS, 10); return err }, "query"},
		{"negative limit", func() error { _, err := src.Suggest(ctx, "x", enUS, -1); return err }, "limit"},
		{"limit too large", func() error { _, err := src.Suggest(ctx, "x", enUS, 1001); return err }, "limit"},
		{"no region", func() error { _, err := src.Suggest(ctx, "x", seo.Locale{Language: "en"}, 10); return err }, "locale"},
		{"volumes empty keyword", func() error { _, err := src.Volumes(ctx, []string{"a", ""}, enUS); return err }, "keywords[1]"},
		{"volumes long keyword", func() error { _, err := src.Volumes(ctx, []string{strings.Repeat("a", 81)}, enUS); return err }, "keywords[0]"},
		{"volumes eleven words", func() error { _, err := src.Volumes(ctx, []string{"a b c d e f g h i j k"}, enUS); return err }, "keywords[0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			ie, ok := seo.AsInputError(err)
			if !ok || ie.Field != tt.field {
				t.Errorf("error %v: want InputError for %q", err, tt.field)
			}
		})
	}
	if f.calls != 0 {
		t.Errorf("bad input reached the provider %d times", f.calls)
	}
}

func mv(y, m, v int) keywords.MonthlyVolume {
	return keywords.MonthlyVolume{Year: y, Month: m, Volume: v}
}
