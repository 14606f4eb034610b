package crawler_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/seo"
)

// scopeSite serves pages by path (with query) and records every request.
type scopeSite struct {
	*httptest.Server
	mu    sync.Mutex
	reqs  []*http.Request
	pages map[string]string
}

func newScopeSite(t *testing.T, pages map[string]string, guard func(*http.Request) bool) *scopeSite {
	t.Helper()
	s := &scopeSite{pages: pages}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.reqs = append(s.reqs, r.Clone(context.Background()))
		s.mu.Unlock()
		if guard != nil && !guard(r) {
			http.Error(w, "login required", http.StatusUnauthorized)
			return
		}
		body, ok := pages[r.URL.RequestURI()]
		if !ok {
			body, ok = pages[r.URL.Path]
		}
		if !ok {
			http.NotFound(w, r)
			return
		}
		if strings.HasPrefix(body, "redirect:") {
			http.Redirect(w, r, strings.TrimPrefix(body, "redirect:"), http.StatusFound)
			return
		}
		if strings.HasPrefix(body, "<?xml") || r.URL.Path == "/robots.txt" {
			w.Header().Set("Content-Type", "text/plain")
			if strings.HasPrefix(body, "<?xml") {
				w.Header().Set("Content-Type", "application/xml")
			}
			fmt.Fprint(w, body)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><html lang=en><head><title>%s</title></head><body><h1>%s</h1>%s</body></html>", r.URL.Path, r.URL.Path, body)
	}))
	t.Cleanup(s.Close)
	return s
}

// requested returns the distinct request URIs that are pages of the site.
func (s *scopeSite) requested() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, r := range s.reqs {
		u := r.URL.RequestURI()
		if _, ok := s.pages[u]; (ok || s.pages[r.URL.Path] != "") && u != "/robots.txt" && !slices.Contains(out, u) {
			out = append(out, u)
		}
	}
	slices.Sort(out)
	return out
}

func links(hrefs ...string) string {
	var b strings.Builder
	for _, h := range hrefs {
		fmt.Fprintf(&b, `<a href="%s">%s</a> `, h, h)
	}
	return b.String()
}

func scopePages() map[string]string {
	return map[string]string{
		"/":           links("/blog/a", "/blog/b", "/shop/x", "/shop/y", "/p?color=red&size=m&ref=1", "/deep/a/b/c"),
		"/blog/a":     links("/"),
		"/blog/b":     links("/"),
		"/shop/x":     links("/"),
		"/shop/y":     links("/"),
		"/p":          links("/"),
		"/deep/a/b/c": links("/"),
		"/robots.txt": "User-agent: *\nAllow: /\n",
	}
}

func skips(rep *crawler.SiteReport) map[string]int {
	m := map[string]int{}
	for _, s := range rep.Crawl.ScopeSkipped {
		m[s.Reason] = s.Count
	}
	return m
}

func TestScopeFilters(t *testing.T) {
	tests := []struct {
		name  string
		scope crawler.Scope
		want  []string
		skips map[string]int
	}{
		{"none", crawler.Scope{}, []string{"/", "/blog/a", "/blog/b", "/deep/a/b/c", "/p?color=red&size=m&ref=1", "/shop/x", "/shop/y"}, map[string]int{}},
		{"exclude", crawler.Scope{Exclude: []string{`/shop/`, `/deep/`}}, []string{"/", "/blog/a", "/blog/b", "/p?color=red&size=m&ref=1"}, map[string]int{crawler.SkipExcluded: 3}},
		{"include", crawler.Scope{Include: []string{`^http://[^/]+/(blog/.*)?$`}}, []string{"/", "/blog/a", "/blog/b"}, map[string]int{crawler.SkipNotIncluded: 4}},
		{"folder depth", crawler.Scope{MaxFolderDepth: 2}, []string{"/", "/blog/a", "/blog/b", "/p?color=red&size=m&ref=1", "/shop/x", "/shop/y"}, map[string]int{crawler.SkipFolderDepth: 1}},
		{"keep params", crawler.Scope{KeepParams: []string{"color"}}, []string{"/", "/blog/a", "/blog/b", "/deep/a/b/c", "/p?color=red", "/shop/x", "/shop/y"}, map[string]int{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			site := newScopeSite(t, scopePages(), nil)
			o := crawler.Options{SkipExternalLinks: true, Scope: tt.scope}
			rep, err := crawler.New(testOptions(o)).Run(context.Background(), site.URL)
			if err != nil {
				t.Fatal(err)
			}
			if got := site.requested(); !slices.Equal(got, tt.want) {
				t.Errorf("requested %q, want %q", got, tt.want)
			}
			got := skips(rep)
			for k, v := range tt.skips {
				if got[k] != v {
					t.Errorf("ScopeSkipped[%s] = %d, want %d (%+v)", k, got[k], v, rep.Crawl.ScopeSkipped)
				}
			}
			if len(got) != len(tt.skips) {
				t.Errorf("ScopeSkipped = %+v, want %v", rep.Crawl.ScopeSkipped, tt.skips)
			}
			n := 0
			for _, v := range tt.skips {
				n += v
			}
			if rep.Crawl.Skipped < n {
				t.Errorf("Skipped = %d, want at least %d", rep.Crawl.Skipped, n)
			}
		})
	}
}

func TestScopeInvalid(t *testing.T) {
	site := newScopeSite(t, scopePages(), nil)
	tests := []struct {
		scope crawler.Scope
		strip []string
		field string
	}{
		{crawler.Scope{Include: []string{"ok", "(unclosed"}}, nil, "include[1]"},
		{crawler.Scope{Exclude: []string{"[z-a]"}}, nil, "exclude[0]"},
		{crawler.Scope{Exclude: []string{strings.Repeat("a", crawler.MaxScopePatternLength+1)}}, nil, "exclude[0]"},
		{crawler.Scope{Include: make([]string, crawler.MaxScopePatterns+1)}, nil, "include"},
		{crawler.Scope{Exclude: []string{`/$`}}, nil, "exclude"},
		{crawler.Scope{Include: []string{`/blog/`}}, nil, "include"},
		{crawler.Scope{KeepParams: []string{"a"}}, []string{"b"}, "keepParams"},
		{crawler.Scope{MaxFolderDepth: -1}, nil, "maxFolderDepth"},
		{crawler.Scope{URLs: []string{site.URL + "/", "ftp://x/"}}, nil, "urls[1]"},
		{crawler.Scope{Header: http.Header{"Host": {"evil"}}}, nil, "header.Host"},
		{crawler.Scope{Header: http.Header{"Connection": {"close"}}}, nil, "header.Connection"},
		{crawler.Scope{BasicAuth: &crawler.BasicAuth{Username: "a:b"}}, nil, "basicAuth"},
		{crawler.Scope{Cookies: []*http.Cookie{{Name: "bad name", Value: "v"}}}, nil, "cookies[0]"},
		{crawler.Scope{BasicAuth: &crawler.BasicAuth{Username: "u", Password: strings.Repeat("p", seo.MaxRequestHeaderBytes)}}, nil, "basicAuth"},
		{crawler.Scope{Cookies: []*http.Cookie{{Name: "a", Value: "v"}, {Name: "b", Value: strings.Repeat("v", seo.MaxRequestHeaderBytes)}}}, nil, "cookies[1]"},
	}
	for _, tt := range tests {
		t.Run(tt.field, func(t *testing.T) {
			_, err := crawler.New(testOptions(crawler.Options{Scope: tt.scope, StripParams: tt.strip})).Run(context.Background(), site.URL)
			ie, ok := seo.AsInputError(err)
			if !ok || ie.Field != tt.field || !errors.Is(err, seo.ErrInvalidInput) {
				t.Fatalf("err = %v, want an InputError for %s", err, tt.field)
			}
		})
	}
}

func TestListMode(t *testing.T) {
	pages := scopePages()
	site := newScopeSite(t, pages, nil)
	pages["/list.xml"] = `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
		`<url><loc>` + site.URL + `/blog/b</loc></url><url><loc>` + site.URL + `/shop/y</loc></url></urlset>`
	tests := []struct {
		name  string
		scope crawler.Scope
		want  []string
	}{
		{"urls", crawler.Scope{URLs: []string{site.URL + "/blog/a", site.URL + "/blog/a#x", site.URL + "/shop/x", "http://elsewhere.example/"}}, []string{"/blog/a", "/shop/x"}},
		{"sitemap", crawler.Scope{ListSitemap: site.URL + "/list.xml"}, []string{"/blog/b", "/list.xml", "/shop/y"}},
		{"exclude", crawler.Scope{URLs: []string{site.URL + "/blog/a", site.URL + "/shop/x"}, Exclude: []string{"/shop/"}}, []string{"/blog/a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			site.mu.Lock()
			site.reqs = nil
			site.mu.Unlock()
			rep, err := crawler.New(testOptions(crawler.Options{SkipExternalLinks: true, Scope: tt.scope})).Run(context.Background(), site.URL)
			if err != nil {
				t.Fatal(err)
			}
			if got := site.requested(); !slices.Equal(got, tt.want) {
				t.Errorf("requested %q, want %q", got, tt.want)
			}
			if rep.Crawl.Fetched != len(rep.Pages) || rep.Crawl.Fetched != len(tt.want)-strings.Count(strings.Join(tt.want, " "), ".xml") {
				t.Errorf("fetched %d, pages %d", rep.Crawl.Fetched, len(rep.Pages))
			}
		})
	}
	// The links of a listed page are recorded: / links to /blog/a.
	rep, err := crawler.New(testOptions(crawler.Options{SkipExternalLinks: true, Scope: crawler.Scope{URLs: []string{site.URL + "/", site.URL + "/blog/a"}}})).Run(context.Background(), site.URL)
	if err != nil {
		t.Fatal(err)
	}
	if p := pagesByPath(t, site.URL, rep); len(p) != 2 || p["/blog/a"].Inlinks != 1 {
		t.Errorf("list crawl of / and /blog/a = %+v, want two pages, /blog/a linked once", rep.Pages)
	}
}

func TestAccessCredentials(t *testing.T) {
	var mu sync.Mutex
	var leaked []string
	hits := 0
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits++
		for k := range r.Header {
			if seo.IsSecretHeader(k) || strings.EqualFold(k, "X-Staging") {
				leaked = append(leaked, k)
			}
		}
		mu.Unlock()
		fmt.Fprint(w, "<html><title>other</title></html>")
	}))
	defer other.Close()
	guard := func(r *http.Request) bool {
		u, p, ok := r.BasicAuth()
		c, err := r.Cookie("session")
		return ok && u == "ann" && p == "s3cret-pw" && err == nil && c.Value == "cookie-val" && r.Header.Get("X-Api-Key") == "key-val" && r.Header.Get("X-Staging") == "1"
	}
	pages := map[string]string{
		"/":           links("/a", other.URL+"/ext", "/off"),
		"/a":          links("/"),
		"/off":        "redirect:" + other.URL + "/landing",
		"/robots.txt": "User-agent: *\nDisallow: /private\n",
	}
	site := newScopeSite(t, pages, guard)
	var logs strings.Builder
	o := crawler.Options{
		ExternalTimeout: 0,
		Progress:        func(p crawler.Progress) { b, _ := json.Marshal(p); logs.Write(b) },
		Scope: crawler.Scope{
			Header:    http.Header{"X-Api-Key": {"key-val"}, "X-Staging": {"1"}},
			BasicAuth: &crawler.BasicAuth{Username: "ann", Password: "s3cret-pw"},
			Cookies:   []*http.Cookie{{Name: "session", Value: "cookie-val"}},
		},
	}
	logs.WriteString(fmt.Sprintf("%v %+v", o.BasicAuth, o.BasicAuth))
	rep, err := crawler.New(testOptions(o)).Run(context.Background(), site.URL)
	if err != nil {
		t.Fatal(err)
	}
	pagesBy := pagesByPath(t, site.URL, rep)
	for _, p := range []string{"/", "/a"} {
		if pagesBy[p].Status != http.StatusOK {
			t.Errorf("%s: status %d, want 200 (credentials sent)", p, pagesBy[p].Status)
		}
	}
	if pagesBy["/off"].Status != http.StatusFound {
		t.Errorf("/off: status %d", pagesBy["/off"].Status)
	}
	mu.Lock()
	if hits == 0 {
		t.Error("the external link was not checked")
	}
	if len(leaked) > 0 {
		t.Errorf("credentials sent to another host: %v", leaked)
	}
	mu.Unlock()
	b, _ := json.Marshal(rep)
	all := string(b) + logs.String()
	for _, secret := range []string{"s3cret-pw", "cookie-val", "key-val", "YW5uOnMzY3JldC1wdw"} {
		if strings.Contains(all, secret) {
			t.Errorf("%q appears in the report or logs", secret)
		}
	}
}

func TestUserAgentPresetRobotsGroup(t *testing.T) {
	pages := map[string]string{
		"/":  links("/g", "/b", "/s"),
		"/g": "", "/b": "", "/s": "",
		"/robots.txt": "User-agent: Googlebot\nDisallow: /g\n\nUser-agent: bingbot\nDisallow: /b\n\nUser-agent: *\nDisallow: /s\n",
	}
	tests := []struct {
		ua, token, blocked, uaPart string
	}{
		{"googlebot-smartphone", "", "/g", "Googlebot/2.1"},
		{"googlebot-desktop", "", "/g", "Googlebot/2.1"},
		{"bingbot", "", "/b", "bingbot/2.0"},
		{"", "", "/s", "seokit"},
		{"MyBot/1.0", "", "/s", "MyBot/1.0"},
		{"MyBot/1.0", "bingbot", "/b", "MyBot/1.0"},
	}
	for _, tt := range tests {
		t.Run(tt.ua+"/"+tt.token, func(t *testing.T) {
			site := newScopeSite(t, pages, nil)
			rep, err := crawler.New(testOptions(crawler.Options{SkipExternalLinks: true, UserAgent: tt.ua, RobotsToken: tt.token})).Run(context.Background(), site.URL)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, p := range []string{"/", "/b", "/g", "/s"} {
				if p != tt.blocked {
					want = append(want, p)
				}
			}
			if got := site.requested(); !slices.Equal(got, want) {
				t.Errorf("requested %q, want %q", got, want)
			}
			if rep.Crawl.Blocked != 1 {
				t.Errorf("Blocked = %d, want 1", rep.Crawl.Blocked)
			}
			site.mu.Lock()
			ua := site.reqs[len(site.reqs)-1].UserAgent()
			site.mu.Unlock()
			if !strings.Contains(ua, tt.uaPart) {
				t.Errorf("User-Agent %q, want it to contain %q", ua, tt.uaPart)
			}
		})
	}
}

// TestValidateStart refuses, before any fetch, a scope that leaves out the
// start URL, naming the member, as Run does when the crawl starts.
func TestValidateStart(t *testing.T) {
	tests := []struct {
		name, domain string
		scope        crawler.Scope
		field        string
	}{
		{"no scope", "example.com", crawler.Scope{}, ""},
		{"excluded home", "example.com", crawler.Scope{Exclude: []string{`\.com/$`}}, "exclude"},
		{"not included", "example.com", crawler.Scope{Include: []string{`/blog/`}}, "include"},
		{"included", "example.com", crawler.Scope{Include: []string{`^https://example\.com/`}}, ""},
		{"http fallback", "example.com", crawler.Scope{Include: []string{`^http://`}}, ""},
		{"scheme given", "https://example.com/", crawler.Scope{Include: []string{`^http://`}}, "include"},
		{"deep start", "https://example.com/a/b/c", crawler.Scope{MaxFolderDepth: 2}, "maxFolderDepth"},
		{"shallow start", "https://example.com/a/b", crawler.Scope{MaxFolderDepth: 2}, ""},
		{"list crawl", "example.com", crawler.Scope{Exclude: []string{`/$`}, URLs: []string{"https://example.com/a"}}, ""},
		{"bad pattern", "example.com", crawler.Scope{Include: []string{`(`}}, "include[0]"},
		{"bad domain", "exa mple.com", crawler.Scope{}, "domain"},
	}
	for _, tt := range tests {
		err := crawler.ValidateStart(tt.domain, &tt.scope)
		if tt.field == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
			}
			continue
		}
		ie, ok := seo.AsInputError(err)
		if !ok || ie.Field != tt.field || !errors.Is(err, seo.ErrInvalidInput) {
			t.Errorf("%s: error %v, want an InputError on %s", tt.name, err, tt.field)
		}
	}
	// The check is the crawl's: Run refuses the same scopes on the same field.
	site := newScopeSite(t, scopePages(), nil)
	for _, sc := range []crawler.Scope{{Exclude: []string{`/$`}}, {Include: []string{`/blog/`}}} {
		pre := crawler.ValidateStart(site.URL, &sc)
		_, run := crawler.New(testOptions(crawler.Options{Scope: sc})).Run(context.Background(), site.URL)
		a, _ := seo.AsInputError(pre)
		b, _ := seo.AsInputError(run)
		if a == nil || b == nil || a.Field != b.Field || a.Value != b.Value {
			t.Errorf("%+v: ValidateStart %v, Run %v", sc, pre, run)
		}
	}
}
