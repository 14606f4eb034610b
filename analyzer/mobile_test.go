package analyzer

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/seokit/seokit/seo"
)

func TestMobile(t *testing.T) {
	t.Parallel()
	var base, mobileBase string
	vars := func() map[string]string { return map[string]string{"BASE": base, "MOBILE": mobileBase} }
	serve := func(name string, header ...string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			for i := 0; i+1 < len(header); i += 2 {
				w.Header().Set(header[i], header[i+1])
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(fixture(t, "mobilefetch", name, vars()))
		}
	}
	status := func(code int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) { http.Error(w, "oops", code) }
	}
	redirect := func(to func() string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, to(), http.StatusFound) }
	}
	hangUp := func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}
	vary := []string{"Vary", "User-Agent"}

	all := mobileIDs
	except := func(ids ...string) []string {
		return slices.DeleteFunc(slices.Clone(all), func(id string) bool { return slices.Contains(ids, id) })
	}
	parity := []string{"mobile.parity_robots", "mobile.parity_canonical", "mobile.parity_title",
		"mobile.parity_description", "mobile.parity_h1", "mobile.parity_hreflang",
		"mobile.parity_structured_data", "mobile.parity_internal_links", "mobile.parity_word_count"}

	for _, tt := range []struct {
		name string
		// desktop and mobile answer /page; mhost answers any path on the
		// mobile host name; home answers "/".
		desktop, mobile, mhost, home http.HandlerFunc
		want, absent                 []string
		check                        func(t *testing.T, m *MobileSummary)
	}{
		{
			name: "identical", desktop: serve("desktop.html"), mobile: serve("desktop.html"),
			absent: all,
			check: func(t *testing.T, m *MobileSummary) {
				if m.Status != 200 || m.Title != "Vegetable garden planning guide for beginners" || !m.Indexable ||
					m.InternalLinks != 10 || m.WordCount < 100 || m.FinalURL != base+"/page" {
					t.Errorf("summary %+v", m)
				}
			},
		},
		{
			name: "dynamic serving without Vary", desktop: serve("desktop.html"), mobile: serve("mobile-vary.html"),
			want: []string{"mobile.vary_missing"}, absent: except("mobile.vary_missing"),
		},
		{
			name: "dynamic serving with Vary", desktop: serve("desktop.html", vary...), mobile: serve("mobile-vary.html", vary...),
			absent: all,
		},
		{
			name: "mobile content differs", desktop: serve("desktop.html", vary...), mobile: serve("mobile-diff.html", vary...),
			want:   parity,
			absent: []string{"mobile.status_mismatch", "mobile.faulty_redirect", "mobile.vary_missing", "mobile.separate_url_unpaired"},
			check: func(t *testing.T, m *MobileSummary) {
				if m.Indexable || m.Title != "Garden guide (mobile)" || m.Canonical != base+"/mobile-page" || m.InternalLinks != 2 {
					t.Errorf("summary %+v", m)
				}
			},
		},
		{
			name: "mobile server error", desktop: serve("desktop.html"), mobile: status(http.StatusServiceUnavailable),
			want: []string{"mobile.status_mismatch"}, absent: except("mobile.status_mismatch"),
			check: func(t *testing.T, m *MobileSummary) {
				if m.Status != http.StatusServiceUnavailable {
					t.Errorf("summary status %d", m.Status)
				}
			},
		},
		{
			name: "mobile fetch fails", desktop: serve("desktop.html"), mobile: hangUp,
			want: []string{"mobile.status_mismatch"}, absent: except("mobile.status_mismatch"),
			check: func(t *testing.T, m *MobileSummary) {
				if m.Error == "" {
					t.Errorf("summary has no error: %+v", m)
				}
			},
		},
		{
			name: "mobile redirected to the home page", desktop: serve("desktop.html"),
			mobile: redirect(func() string { return "/" }), home: serve("desktop.html"),
			want: []string{"mobile.faulty_redirect"}, absent: []string{"mobile.status_mismatch", "mobile.separate_url_unpaired"},
		},
		{
			name: "separate mobile host without annotations", desktop: serve("desktop.html"),
			mobile: redirect(func() string { return mobileBase + "/page" }), mhost: serve("desktop.html"),
			want:   []string{"mobile.separate_url_unpaired"},
			absent: except("mobile.separate_url_unpaired"),
			check: func(t *testing.T, m *MobileSummary) {
				if m.FinalURL != mobileBase+"/page" {
					t.Errorf("final URL %s", m.FinalURL)
				}
			},
		},
		{
			name: "separate mobile host annotated both ways", desktop: serve("desktop-paired.html"),
			mobile: redirect(func() string { return mobileBase + "/page" }), mhost: serve("desktop.html"),
			absent: all,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				isMobile := strings.Contains(r.UserAgent(), "Mobile")
				switch {
				case strings.HasPrefix(r.Host, "localhost") && tt.mhost != nil:
					tt.mhost(w, r)
				case r.URL.Path == "/" && tt.home != nil:
					tt.home(w, r)
				case r.URL.Path != "/page":
					http.NotFound(w, r)
				case isMobile:
					tt.mobile(w, r)
				default:
					tt.desktop(w, r)
				}
			}))
			defer srv.Close()
			base = srv.URL
			mobileBase = strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)

			f := newTestFetcher(t)
			resp, err := f.Fetch(context.Background(), &seo.Request{URL: base + "/page", UserAgent: seo.DefaultUserAgent})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := AnalyzeResponse(context.Background(), resp, &Options{Depth: Complete, AnalyzeMobile: true, Fetcher: f})
			if err != nil {
				t.Fatal(err)
			}
			assertIDs(t, rep, tt.want, tt.absent)
			if rep.Mobile == nil {
				t.Fatal("Report.Mobile is nil")
			}
			for _, id := range tt.want {
				if f := finding(rep, id); f != nil && !strings.Contains(f.Evidence.Detail, "desktop") {
					t.Errorf("%s evidence %+v does not give the desktop value", id, f.Evidence)
				}
			}
			if tt.check != nil {
				tt.check(t, rep.Mobile)
			}
		})
	}
}

func TestMobileParityThreshold(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		d, m    int
		pct     float64
		reports bool
	}{
		{"equal", 100, 100, 20, false},
		{"at the threshold", 100, 80, 20, false},
		{"beyond the threshold", 100, 79, 20, true},
		{"more on mobile", 100, 121, 20, true},
		{"custom threshold", 100, 60, 50, false},
		{"nothing on desktop", 0, 50, 20, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := newConfig(nil)
			if err != nil {
				t.Fatal(err)
			}
			r := newReporter(cfg, "https://example.com/")
			mobCount(r, "mobile.parity_word_count", "words", tt.d, tt.m, tt.pct)
			if got := len(r.Findings()) > 0; got != tt.reports {
				t.Errorf("reported %v, want %v", got, tt.reports)
			}
		})
	}
}

func TestMobileDisabled(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Write([]byte("<!doctype html><title>x</title>"))
	}))
	defer srv.Close()
	_, err := AnalyzeHTML(context.Background(), srv.URL+"/", nil, []byte("<!doctype html><title>x</title>"),
		&Options{AnalyzeMobile: true, Fetcher: newTestFetcher(t), Disable: []string{"mobile"}})
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 0 {
		t.Errorf("the smartphone fetch ran %d times with the mobile area disabled", calls.Load())
	}
}
