package dashboard_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/dashboard"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/memstore"
	"github.com/seokit/seokit/seo"
)

// BenchmarkRankingsPage renders the rankings page of an account tracking
// 50 keywords with 90 days of history each (4,500 observations; the
// maximum the page charts), watchlist in SQLite.
func BenchmarkRankingsPage(b *testing.B) {
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, ":memory:", nil)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	au, err := auth.New(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	w, err := dashboard.NewSQLWatchlist(ctx, st.DB(), string(st.Dialect()))
	if err != nil {
		b.Fatal(err)
	}
	rs := memstore.New(nil)
	d, err := dashboard.New(st, au, &dashboard.Options{Tracking: storeTracking{rankings.NewTracker(nil, rs, nil)}, Watchlist: w, Quota: fixedQuota(1000)})
	if err != nil {
		b.Fatal(err)
	}
	acct, err := au.CreateAccount(ctx, testEmail, "Ada", testPassword, store.Free)
	if err != nil {
		b.Fatal(err)
	}
	us := seo.Locale{Language: "en", Region: "US"}
	today := rankings.Day(time.Now())
	var tracked []rankings.Tracked
	var obs []rankings.Observation
	for k := range 50 {
		kw := "keyword " + strconv.Itoa(k)
		tracked = append(tracked, rankings.Tracked{Domain: "shop.example", Keyword: kw, Locale: us, Device: rankings.Desktop, AddedAt: today})
		for i := range 90 {
			p := float64(1 + (k+i)%40)
			obs = append(obs, rankings.Observation{Domain: "shop.example", Keyword: kw, Locale: us, Device: rankings.Desktop,
				Date: today.AddDate(0, 0, -i), Position: &p, Depth: 100, Source: "bench", CheckedAt: today.AddDate(0, 0, -i)})
		}
	}
	if err := rs.Record(ctx, obs); err != nil {
		b.Fatal(err)
	}
	if err := w.Watch(ctx, acct.ID, tracked, 0); err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(d)
	defer srv.Close()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	resp, err := c.Get(srv.URL + "/dashboard/login")
	if err != nil {
		b.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := csrfRE.FindStringSubmatch(string(page))
	if m == nil {
		b.Fatal("no csrf token")
	}
	resp, err = c.PostForm(srv.URL+"/dashboard/login", url.Values{"csrf_token": {m[1]}, "email": {testEmail}, "password": {testPassword}})
	if err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
	b.ResetTimer()
	var n int64
	for b.Loop() {
		resp, err := c.Get(srv.URL + "/dashboard/rankings?domain=shop.example")
		if err != nil {
			b.Fatal(err)
		}
		m, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("status %d", resp.StatusCode)
		}
		n = m
	}
	b.ReportMetric(float64(n), "page-bytes")
}
