package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
	"github.com/seokit/seokit/keywords"
	"github.com/seokit/seokit/keywords/local"
)

// benchServer returns a server over an in-memory store and a key of an
// account whose limit the benchmark never reaches.
func benchServer(b *testing.B, disableAuth bool, sg *keywords.Suggester) (*Server, string) {
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, ":memory:", nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	s, err := New(ctx, &Options{Store: st, DisableAuth: disableAuth, Suggester: sg, Logger: slog.New(slog.DiscardHandler),
		BurstRate: 1e9, Burst: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	if disableAuth {
		return s, ""
	}
	acct, err := s.Auth().CreateAccount(ctx, "bench@example.com", "bench", "", store.Enterprise)
	if err != nil {
		b.Fatal(err)
	}
	acct.DailyLimit = 1 << 30
	if err := st.UpdateAccount(ctx, acct); err != nil {
		b.Fatal(err)
	}
	key, _, err := s.Auth().CreateAPIKey(ctx, acct.ID, "bench", []string{auth.ScopeRead}, time.Time{})
	if err != nil {
		b.Fatal(err)
	}
	return s, key
}

// BenchmarkListJobs measures one GET /v1/analyze/site through the whole
// middleware chain: with an API key (authentication, daily counter in
// SQLite, permission) and with DisableAuth as the baseline.
func BenchmarkListJobs(b *testing.B) {
	for _, tc := range []struct {
		name    string
		disable bool
	}{{"apikey", false}, {"noauth", true}} {
		b.Run(tc.name, func(b *testing.B) {
			s, key := benchServer(b, tc.disable, nil)
			b.ReportAllocs()
			for b.Loop() {
				r := httptest.NewRequest("GET", "/v1/analyze/site", nil)
				r.RemoteAddr = "127.0.0.1:5000"
				if key != "" {
					r.Header.Set("X-API-Key", key)
				}
				w := httptest.NewRecorder()
				s.ServeHTTP(w, r)
				if w.Code != http.StatusOK {
					b.Fatalf("status %d: %s", w.Code, w.Body)
				}
			}
		})
	}
}

// benchKeywords fills a keywords/local store with n synthetic phrases
// (every head with every modifier and qualifier). Their volumes and
// difficulties are arbitrary deterministic numbers, marked as estimates
// from the source "bench-synthetic", only so the suggestion code has
// figures to rank; they are not market data.
func benchKeywords(b *testing.B, n int) (*local.Store, []string) {
	ctx := context.Background()
	ks, err := local.Open(ctx, ":memory:", nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ks.Close() })
	heads := []string{"table", "chair", "lamp", "desk", "boots", "jacket", "kettle", "drill", "tent", "bike"}
	mods := []string{"oak", "steel", "cheap", "best", "modern", "vintage", "small", "black", "kids", "outdoor"}
	quals := []string{"", "for sale", "near me", "online", "reviews", "price", "ideas", "set", "repair", "brands"}
	var kws []keywords.Keyword
	for i := 0; len(kws) < n && i < len(heads)*len(mods)*len(quals); i++ {
		p := mods[(i/len(heads))%len(mods)] + " " + heads[i%len(heads)]
		if q := quals[i/(len(heads)*len(mods))]; q != "" {
			p += " " + q
		}
		vol, diff := 10+(i*7919)%50000/(1+i%13), (i*31)%101
		kws = append(kws, keywords.Keyword{Keyword: p, Volume: &vol, Difficulty: &diff,
			DifficultyMethod: "bench-synthetic", Source: "bench-synthetic", Estimated: true})
	}
	if err := ks.Put(ctx, kws, enUS); err != nil {
		b.Fatal(err)
	}
	var queries []string
	for i, h := range heads {
		queries = append(queries, h, mods[i]+" "+h)
	}
	return ks, queries
}

// BenchmarkSuggest measures one GET /v1/keywords/suggest through the
// whole handler, as the load test sends it: with an API key and with
// DisableAuth as the baseline.
func BenchmarkSuggest(b *testing.B) {
	for _, tc := range []struct {
		name    string
		disable bool
	}{{"apikey", false}, {"noauth", true}} {
		b.Run(tc.name, func(b *testing.B) {
			ks, queries := benchKeywords(b, 1000)
			s, key := benchServer(b, tc.disable, keywords.NewSuggester([]keywords.Source{ks}, nil))
			urls := make([]string, len(queries))
			for i, q := range queries {
				urls[i] = "/v1/keywords/suggest?query=" + url.QueryEscape(q) + "&locale=en-US"
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				r := httptest.NewRequest("GET", urls[i%len(urls)], nil)
				i++
				r.RemoteAddr = "127.0.0.1:5000"
				if key != "" {
					r.Header.Set("X-API-Key", key)
				}
				w := httptest.NewRecorder()
				s.ServeHTTP(w, r)
				if w.Code != http.StatusOK {
					b.Fatalf("status %d: %s", w.Code, w.Body)
				}
			}
		})
	}
}

// BenchmarkAnalyzePage measures one POST /v1/analyze/page with link
// checks of a page on a loopback site, through the whole handler with
// DisableAuth: the fetches dominate, so it shows what the shared
// fetcher's connection pool saves.
func BenchmarkAnalyzePage(b *testing.B) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Path != "/" {
			w.Write([]byte(`<!doctype html><title>Other</title>`))
			return
		}
		w.Write([]byte(`<!doctype html><html lang="en"><head><title>Oak tables made by hand</title></head>
<body><h1>Oak tables</h1><p>Solid oak tables that last for generations.</p>
<a href="/a">A</a> <a href="/b">B</a> <a href="/c">C</a></body></html>`))
	}))
	b.Cleanup(site.Close)
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, ":memory:", nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	s, err := New(ctx, &Options{Store: st, DisableAuth: true, AllowPrivate: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	body := `{"url":"` + site.URL + `/","options":{"checkLinks":true}}`
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest("POST", "/v1/analyze/page", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.RemoteAddr = "127.0.0.1:5000"
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
}
