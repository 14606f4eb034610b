package dashboard_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/dashboard"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
	"github.com/seokit/seokit/internal/pgtest"
	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/memstore"
	"github.com/seokit/seokit/seo"
)

// loginAs signs c in as email and returns the session's CSRF token.
func (e *env) loginAs(t *testing.T, c *http.Client, email, password string) string {
	t.Helper()
	_, body := get(t, c, e.srv.URL+"/dashboard/login")
	resp, _ := post(t, c, e.srv.URL+"/dashboard/login", url.Values{
		"csrf_token": {csrfOf(t, body)}, "email": {email}, "password": {password}, "next": {"/dashboard/"},
	})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("login as %s: %d", email, resp.StatusCode)
	}
	_, body = get(t, c, e.srv.URL+"/dashboard/")
	return csrfOf(t, body)
}

func track(t *testing.T, e *env, c *http.Client, token, domain string, kws ...string) {
	t.Helper()
	resp, body := post(t, c, e.srv.URL+"/dashboard/rankings", url.Values{"csrf_token": {token}, "domain": {domain},
		"keywords": {strings.Join(kws, "\n")}, "locale": {"en-US"}, "device": {"desktop"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("track %s %q: %d\n%s", domain, kws, resp.StatusCode, body)
	}
}

func observe(t *testing.T, rs rankings.Store, now time.Time, domain, kw string, pos float64) {
	t.Helper()
	p := pos
	err := rs.Record(context.Background(), []rankings.Observation{{Domain: domain, Keyword: kw, Locale: seo.Locale{Language: "en", Region: "US"},
		Device: rankings.Desktop, Date: rankings.Day(now), Position: &p, Depth: 100, Source: "test", CheckedAt: now}})
	if err != nil {
		t.Fatal(err)
	}
}

// TestRankingsPerAccount: each account sees only the keywords it tracks,
// never another account's domains or keyword lists.
func TestRankingsPerAccount(t *testing.T) {
	rs := memstore.New(nil)
	e := newEnv(t, &envOptions{rankings: rs})
	if _, err := e.au.CreateAccount(context.Background(), "bea@example.com", "Bea", "bea's long password", store.Free); err != nil {
		t.Fatal(err)
	}
	ada, bea := e.client(t), e.client(t)
	adaTok := e.login(t, ada)
	beaTok := e.loginAs(t, bea, "bea@example.com", "bea's long password")
	track(t, e, ada, adaTok, "www.ada-shop.example", "oak tables", "walnut desks")
	track(t, e, bea, beaTok, "bea-blog.example", "pine chairs")
	now := e.clock.Now()
	observe(t, rs, now, "ada-shop.example", "oak tables", 4)
	observe(t, rs, now, "bea-blog.example", "pine chairs", 9)

	_, body := get(t, ada, e.srv.URL+"/dashboard/rankings")
	if !strings.Contains(body, "ada-shop.example") || !strings.Contains(body, "2 keywords") || strings.Contains(body, "bea-blog.example") {
		t.Errorf("Ada's domain list is wrong:\n%s", body)
	}
	_, body = get(t, ada, e.srv.URL+"/dashboard/rankings?domain=ada-shop.example")
	if !strings.Contains(body, "oak tables") || !strings.Contains(body, "4 on ") || !strings.Contains(body, `<circle class="dot`) {
		t.Errorf("Ada does not see her keyword's position:\n%s", body)
	}

	_, body = get(t, bea, e.srv.URL+"/dashboard/rankings")
	if strings.Contains(body, "ada-shop.example") || !strings.Contains(body, "bea-blog.example") {
		t.Errorf("Bea's domain list is wrong:\n%s", body)
	}
	resp, body := get(t, bea, e.srv.URL+"/dashboard/rankings?domain=ada-shop.example")
	if resp.StatusCode != http.StatusNotFound || strings.Contains(body, "oak tables") || strings.Contains(body, "walnut desks") {
		t.Errorf("Bea sees Ada's domain: status %d\n%s", resp.StatusCode, body)
	}
	// Tracking one keyword of the same domain shows Bea that one only.
	track(t, e, bea, beaTok, "ada-shop.example", "cedar shelves")
	_, body = get(t, bea, e.srv.URL+"/dashboard/rankings?domain=ada-shop.example")
	if !strings.Contains(body, "cedar shelves") || strings.Contains(body, "oak tables") || strings.Contains(body, "walnut desks") || !strings.Contains(body, "1 keyword<") {
		t.Errorf("Bea sees Ada's keyword list:\n%s", body)
	}
}

// TestUntrack: stopping hides a keyword for the account; the rankings store
// stops checking it only when no account tracks it any more.
func TestUntrack(t *testing.T) {
	rs := memstore.New(nil)
	e := newEnv(t, &envOptions{rankings: rs})
	ctx := context.Background()
	if _, err := e.au.CreateAccount(ctx, "bea@example.com", "Bea", "bea's long password", store.Free); err != nil {
		t.Fatal(err)
	}
	ada, bea := e.client(t), e.client(t)
	adaTok := e.login(t, ada)
	beaTok := e.loginAs(t, bea, "bea@example.com", "bea's long password")
	track(t, e, ada, adaTok, "shop.example", "oak tables")
	track(t, e, bea, beaTok, "shop.example", "oak tables")
	observe(t, rs, e.clock.Now(), "shop.example", "oak tables", 3)
	stop := func(c *http.Client, token string) {
		t.Helper()
		resp, _ := post(t, c, e.srv.URL+"/dashboard/rankings/untrack", url.Values{"csrf_token": {token}, "domain": {"shop.example"},
			"keyword": {"oak tables"}, "locale": {"en-US"}, "device": {"desktop"}})
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("untrack: %d", resp.StatusCode)
		}
	}
	tracked := func() int {
		ts, err := rs.Tracked(ctx, rankings.Filter{Domain: "shop.example"})
		if err != nil {
			t.Fatal(err)
		}
		return len(ts)
	}
	stop(ada, adaTok)
	if resp, _ := get(t, ada, e.srv.URL+"/dashboard/rankings?domain=shop.example"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("Ada still sees the domain: %d", resp.StatusCode)
	}
	if n := tracked(); n != 1 {
		t.Errorf("store tracks %d keywords while Bea still tracks one", n)
	}
	stop(bea, beaTok)
	if n := tracked(); n != 0 {
		t.Errorf("store still tracks %d keywords nobody watches", n)
	}
	if h, _ := rs.History(ctx, rankings.Filter{Domain: "shop.example"}); len(h) != 1 {
		t.Errorf("history lost: %d observations", len(h))
	}
}

func TestTrackBadInput(t *testing.T) {
	rs := memstore.New(nil)
	e := newEnv(t, &envOptions{rankings: rs})
	c := e.client(t)
	token := e.login(t, c)
	many := make([]string, 101)
	for i := range many {
		many[i] = "keyword " + strconv.Itoa(i)
	}
	for _, tc := range []struct {
		name, domain, keywords, locale, device, field string
	}{
		{"no domain", "", "oak", "en-US", "desktop", "rk-domain"},
		{"domain with query", "https://shop.example/?q=1", "oak", "en-US", "desktop", "rk-domain"},
		{"no keywords", "shop.example", " \n ", "en-US", "desktop", "rk-keywords"},
		{"too many keywords", "shop.example", strings.Join(many, "\n"), "en-US", "desktop", "rk-keywords"},
		{"control character", "shop.example", "oak\x00", "en-US", "desktop", "rk-keywords"},
		{"bad locale", "shop.example", "oak", "english", "desktop", "rk-locale"},
		{"bad device", "shop.example", "oak", "en-US", "tablet", "rk-device"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := post(t, c, e.srv.URL+"/dashboard/rankings", url.Values{"csrf_token": {token}, "domain": {tc.domain},
				"keywords": {tc.keywords}, "locale": {tc.locale}, "device": {tc.device}})
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `role="alert"`) {
				t.Fatalf("status %d\n%s", resp.StatusCode, body)
			}
			i := strings.Index(body, `id="`+tc.field+`"`)
			if i < 0 || !strings.Contains(body[i:i+strings.Index(body[i:], ">")], `aria-invalid="true"`) {
				t.Errorf("field %s not marked invalid", tc.field)
			}
		})
	}
	if ts, _ := rs.Tracked(context.Background(), rankings.Filter{}); len(ts) != 0 {
		t.Errorf("bad input tracked %d keywords", len(ts))
	}
}

// runWatchlist is the conformance test of a Watchlist.
func runWatchlist(t *testing.T, w dashboard.Watchlist) {
	ctx := context.Background()
	us := seo.Locale{Language: "en", Region: "US"}
	de := seo.Locale{Language: "de", Region: "DE"}
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	a1 := rankings.Tracked{Domain: "b.example", Keyword: "oak", Locale: us, Device: rankings.Desktop, AddedAt: at}
	a2 := rankings.Tracked{Domain: "a.example", Keyword: "pine", Locale: de, Device: rankings.Mobile, AddedAt: at}
	a3 := rankings.Tracked{Domain: "a.example", Keyword: "elm", Locale: us, Device: rankings.Desktop, AddedAt: at}
	if err := w.Watch(ctx, "acct_a", []rankings.Tracked{a1, a2, a3, a1}, 0); err != nil {
		t.Fatalf("watch: %v", err)
	}
	if err := w.Watch(ctx, "acct_b", []rankings.Tracked{a1}, 0); err != nil {
		t.Fatalf("watch: %v", err)
	}
	got, err := w.Watched(ctx, "acct_a", "")
	if err != nil {
		t.Fatal(err)
	}
	want := []rankings.Tracked{a3, a2, a1}
	if len(got) != len(want) {
		t.Fatalf("watched %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].Domain != want[i].Domain || got[i].Keyword != want[i].Keyword || got[i].Locale != want[i].Locale ||
			got[i].Device != want[i].Device || !got[i].AddedAt.Equal(at) {
			t.Errorf("watched[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
	if got, _ := w.Watched(ctx, "acct_b", "a.example"); len(got) != 0 {
		t.Errorf("acct_b sees %+v of a.example", got)
	}
	if got, _ := w.Watched(ctx, "acct_a", "a.example"); len(got) != 2 {
		t.Errorf("acct_a has %d entries for a.example, want 2", len(got))
	}
	if err := w.Unwatch(ctx, "acct_a", a1); err != nil {
		t.Fatal(err)
	}
	if ok, err := w.Watching(ctx, a1); err != nil || !ok {
		t.Errorf("a1 watched by acct_b: %v, %v", ok, err)
	}
	if err := w.Unwatch(ctx, "acct_b", a1); err != nil {
		t.Fatal(err)
	}
	if ok, err := w.Watching(ctx, a1); err != nil || ok {
		t.Errorf("a1 watched by nobody: %v, %v", ok, err)
	}
	if err := w.Unwatch(ctx, "acct_b", a1); err != nil {
		t.Errorf("second unwatch: %v", err)
	}
	if got, _ := w.Watched(ctx, "acct_a", ""); len(got) != 2 {
		t.Errorf("after unwatch acct_a has %d entries, want 2", len(got))
	}
	runWatchLimit(t, w)
}

// runWatchLimit is the conformance test of Watch's limit: entries past it
// are refused all together, naming keywords; an account over its limit
// keeps its entries and may watch them again; concurrent calls cannot
// together pass it.
func runWatchLimit(t *testing.T, w dashboard.Watchlist) {
	ctx := context.Background()
	us := seo.Locale{Language: "en", Region: "US"}
	kw := func(k string) rankings.Tracked {
		return rankings.Tracked{Domain: "c.example", Keyword: k, Locale: us, Device: rankings.Desktop, AddedAt: time.Unix(1e9, 0)}
	}
	count := func(acct string) int {
		got, err := w.Watched(ctx, acct, "")
		if err != nil {
			t.Fatal(err)
		}
		return len(got)
	}
	err := w.Watch(ctx, "acct_c", []rankings.Tracked{kw("a"), kw("b"), kw("c")}, 2)
	var in *seo.InputError
	if !errors.As(err, &in) || in.Field != "keywords" || !strings.Contains(in.Error(), "2 tracked keywords") {
		t.Fatalf("3 entries within a limit of 2: %v, want an input error naming keywords and the limit", err)
	}
	if n := count("acct_c"); n != 0 {
		t.Fatalf("refused watch added %d entries", n)
	}
	if err := w.Watch(ctx, "acct_c", []rankings.Tracked{kw("a"), kw("b")}, 2); err != nil {
		t.Fatalf("2 entries within 2: %v", err)
	}
	// A lowered limit keeps the entries; watching them again adds nothing.
	if err := w.Watch(ctx, "acct_c", []rankings.Tracked{kw("b"), kw("a")}, 1); err != nil {
		t.Errorf("entries already watched, over a lowered limit: %v", err)
	}
	if err := w.Watch(ctx, "acct_c", []rankings.Tracked{kw("a"), kw("d")}, 2); !errors.As(err, &in) {
		t.Errorf("a new entry past the limit: %v, want an input error", err)
	}
	if n := count("acct_c"); n != 2 {
		t.Errorf("acct_c has %d entries, want 2", n)
	}
	// Eight forms at once, one new keyword each, within a limit of 3.
	var wg sync.WaitGroup
	var refused atomic.Int32
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Go(func() {
			err := w.Watch(ctx, "acct_d", []rankings.Tracked{kw(strconv.Itoa(i))}, 3)
			switch {
			case errors.As(err, new(*seo.InputError)):
				refused.Add(1)
			case err != nil:
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent watch: %v", err)
	}
	if n := count("acct_d"); n != 3 || refused.Load() != 5 {
		t.Errorf("concurrent watches within 3: %d entries, %d refused; want 3 and 5", n, refused.Load())
	}
}

func TestMemoryWatchlist(t *testing.T) { runWatchlist(t, dashboard.NewMemoryWatchlist()) }

func TestSQLWatchlist(t *testing.T) {
	for _, tc := range []struct {
		name string
		dsn  func(t *testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return t.TempDir() + "/w.db" }},
		{"postgres", func(t *testing.T) string { return pgtest.DSN(t) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			st, err := sqlstore.Open(ctx, tc.dsn(t), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			w, err := dashboard.NewSQLWatchlist(ctx, st.DB(), string(st.Dialect()))
			if err != nil {
				t.Fatal(err)
			}
			runWatchlist(t, w)
			// A second open over the same tables keeps the entries.
			w2, err := dashboard.NewSQLWatchlist(ctx, st.DB(), string(st.Dialect()))
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := w2.Watched(ctx, "acct_a", ""); len(got) != 2 {
				t.Errorf("reopened watchlist has %d entries, want 2", len(got))
			}
		})
	}
	if _, err := dashboard.NewSQLWatchlist(context.Background(), nil, "sqlite"); err == nil {
		t.Error("nil database accepted")
	}
}

// TestRankingStates: the latest position column shows each keyword's
// state as the API does: unchecked (saying no provider is configured),
// not ranked within the depth, failed with the provider's error and the
// last position; never a bare "no check".
func TestRankingStates(t *testing.T) {
	rs := memstore.New(nil)
	e := newEnv(t, &envOptions{rankings: rs})
	c := e.client(t)
	tok := e.login(t, c)
	track(t, e, c, tok, "shop.example", "ranked kw", "absent kw", "failing kw", "never kw")
	now := e.clock.Now()
	ctx := context.Background()
	observe(t, rs, now.Add(-48*time.Hour), "shop.example", "ranked kw", 4)
	observe(t, rs, now.Add(-48*time.Hour), "shop.example", "failing kw", 7)
	en := seo.Locale{Language: "en", Region: "US"}
	if err := rs.Record(ctx, []rankings.Observation{{Domain: "shop.example", Keyword: "absent kw", Locale: en, Device: rankings.Desktop,
		Date: rankings.Day(now), Depth: 100, Source: "test", CheckedAt: now}}); err != nil {
		t.Fatal(err)
	}
	if err := rs.RecordFailures(ctx, []rankings.Failure{{Domain: "shop.example", Keyword: "failing kw", Locale: en, Device: rankings.Desktop,
		At: now, Source: "serpapi", Error: "serpapi: quota exhausted"}}); err != nil {
		t.Fatal(err)
	}
	_, body := get(t, c, e.srv.URL+"/dashboard/rankings?domain=shop.example")
	for _, want := range []string{
		"No SERP provider is configured",
		`<span class="rank-status ranked">ranked</span></td><td>4 on `,
		`<span class="rank-status not_ranked">not ranked</span></td><td>not ranked in the top 100 on `,
		`<span class="rank-status failed">check failed</span></td><td>check failed (last position 7) on `,
		"serpapi: quota exhausted",
		`<span class="rank-status unchecked">unchecked</span></td><td>unchecked<br><span class="muted">not checked: no SERP source is configured`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("rankings page lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, ">not_ranked<") {
		t.Error("rankings page shows the raw status not_ranked")
	}
	if strings.Contains(body, "no check in the last") {
		t.Error("rankings page still says only \"no check in the last 90 days\"")
	}
}
