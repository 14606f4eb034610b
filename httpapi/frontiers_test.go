package httpapi

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

// recordingFrontiers opens an in-memory frontier per Open and records the
// URLs each one was given and which jobs were removed.
type recordingFrontiers struct {
	mu      sync.Mutex
	opened  map[string][]*recordingFrontier
	removed map[string]bool
}

type recordingFrontier struct {
	*crawler.MemoryFrontier
	mu   sync.Mutex
	urls []string
}

func (f *recordingFrontier) Push(ctx context.Context, items []crawler.Item) (int, error) {
	f.mu.Lock()
	for _, it := range items {
		f.urls = append(f.urls, it.URL)
	}
	f.mu.Unlock()
	return f.MemoryFrontier.Push(ctx, items)
}

func (r *recordingFrontiers) Open(_ context.Context, jobID string) (crawler.Frontier, error) {
	f := &recordingFrontier{MemoryFrontier: crawler.NewMemoryFrontier()}
	r.mu.Lock()
	r.opened[jobID] = append(r.opened[jobID], f)
	r.mu.Unlock()
	return f, nil
}

func (r *recordingFrontiers) Remove(_ context.Context, jobID string) error {
	r.mu.Lock()
	r.removed[jobID] = true
	r.mu.Unlock()
	return nil
}

var _ Frontiers = (*recordingFrontiers)(nil)

// TestJobsDoNotShareFrontiers runs two site analyses at once: each crawls
// on a frontier of its own, opened for its job ID, holding only its own
// site's URLs, and removed when the job ends.
func TestJobsDoNotShareFrontiers(t *testing.T) {
	fr := &recordingFrontiers{opened: map[string][]*recordingFrontier{}, removed: map[string]bool{}}
	a := newTestAPI(t, &Options{AllowPrivate: true, JobWorkers: 2, Frontiers: fr, Limits: map[store.Plan]int{store.Free: 10_000}})
	_, keyB := a.account("b@example.com", store.Free, auth.ScopeRead, auth.ScopeWrite)
	sites := []string{crawlSite(t, 6, 0).URL, crawlSite(t, 4, 0).URL}
	keys := []string{a.key, keyB}
	ids := make([]string, 2)
	for i, site := range sites {
		resp := a.call("POST", "/v1/analyze/site", keys[i], fmt.Sprintf(`{"domain":%q,"options":{"skipExternalLinks":true}}`, hostOf(t, site)))
		wantStatus(t, resp, 202)
		var j Job
		readJSON(t, resp, &j)
		ids[i] = j.ID
	}
	for i, id := range ids {
		j := waitJob(t, a, keys[i], id, func(j Job) bool { return j.Status == "succeeded" || j.Status == "failed" })
		if j.Status != "succeeded" {
			t.Fatalf("job %d: %+v", i, j)
		}
	}
	a.srv.Close() // the workers are done with the frontiers
	fr.mu.Lock()
	defer fr.mu.Unlock()
	if len(fr.opened) != 2 {
		t.Fatalf("frontiers opened for %d jobs, want 2", len(fr.opened))
	}
	for i, id := range ids {
		fs := fr.opened[id]
		if len(fs) != 1 || !fr.removed[id] {
			t.Errorf("job %d: %d frontiers opened, removed %v; want 1, removed", i, len(fs), fr.removed[id])
			continue
		}
		if len(fs[0].urls) == 0 {
			t.Errorf("job %d: its frontier was not used", i)
		}
		for _, u := range fs[0].urls {
			if !strings.HasPrefix(u, sites[i]) {
				t.Errorf("job %d's frontier holds %s, of another site", i, u)
			}
		}
	}
}

func TestCrawlerTemplateFrontierRefused(t *testing.T) {
	_, err := New(context.Background(), &Options{CrawlerOptions: &crawler.Options{Frontier: crawler.NewMemoryFrontier()}})
	var ie *seo.InputError
	if !errors.As(err, &ie) || !errors.Is(err, seo.ErrInvalidInput) || ie.Field != "CrawlerOptions.Frontier" {
		t.Fatalf("New with a frontier in the template: %v", err)
	}
}

func TestCrawlTemplateDeepCopy(t *testing.T) {
	s := &Server{opts: Options{CrawlerOptions: &crawler.Options{StripParams: []string{"a"}}}}
	s.opts.CrawlerOptions.Analyzer = nil
	a, b := s.crawlTemplate(), s.crawlTemplate()
	a.StripParams[0] = "changed"
	if b.StripParams[0] != "a" || s.opts.CrawlerOptions.StripParams[0] != "a" {
		t.Error("jobs share the template's StripParams")
	}
}

func TestHelperID(t *testing.T) {
	tests := []struct {
		id, job string
		helper  bool
	}{
		{helperID("job_abc", 1), "job_abc", true},
		{helperID("job_abc", 12), "job_abc", true},
		{"job_abc", "job_abc", false},
		{"job_abc~wx", "job_abc~wx", false},
	}
	for _, tc := range tests {
		job, ok := parseHelperID(tc.id)
		if job != tc.job || ok != tc.helper {
			t.Errorf("parseHelperID(%q) = %q, %v; want %q, %v", tc.id, job, ok, tc.job, tc.helper)
		}
	}
}
