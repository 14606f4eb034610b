package logs

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seokit/seokit/seo"
)

func bot(t *testing.T, token string) *Bot {
	t.Helper()
	for _, b := range Registry() {
		if b.Token == token {
			return &b
		}
	}
	t.Fatalf("no bot %s in the registry", token)
	return nil
}

// verifyDNS is the DNS of the verification tests.
func verifyDNS(t testing.TB) *testDNS {
	return startDNS(t, map[string][]string{
		"66.249.66.1":   {"crawl-66-249-66-1.googlebot.com"},
		"203.0.113.9":   {"evil.example.com"},
		"203.0.113.10":  {"fake.googlebot.com"},
		"157.55.39.1":   {"msnbot-157-55-39-1.search.msn.com"},
		"2001:db8::7":   {"crawl.googlebot.com"},
		"198.51.100.20": {"spider-198-51-100-20.crawl.baidu.com"},
	}, map[string][]string{
		"crawl-66-249-66-1.googlebot.com":      {"66.249.66.1"},
		"fake.googlebot.com":                   {"198.51.100.1"},
		"msnbot-157-55-39-1.search.msn.com":    {"157.55.39.1"},
		"crawl.googlebot.com":                  {"2001:db8::7"},
		"spider-198-51-100-20.crawl.baidu.com": {"198.51.100.20"},
	}, "203.0.113.12")
}

// TestVerify checks every verdict against a DNS server on loopback and the
// range files of testdata/ranges (the operators' documented formats).
func TestVerify(t *testing.T) {
	d := verifyDNS(t)
	v := NewVerifier(&VerifierOptions{Resolver: NewDNSResolver(d.addr), Ranges: DirRanges("testdata/ranges"), LookupTimeout: 10 * time.Second})
	cases := []struct {
		name, token, ip string
		want            VerdictStatus
		method, reason  string
	}{
		{"google by ranges", "Googlebot", "66.249.64.5", Verified, "ranges", "google-common, created 2026-11-30"},
		{"google ipv6 by ranges", "Googlebot", "2001:4860:4801:10::1", Verified, "ranges", "google-common"},
		{"google by FCrDNS", "Googlebot", "66.249.66.1", Verified, "rdns", "crawl-66-249-66-1.googlebot.com resolves back"},
		{"google ipv6 by FCrDNS", "Googlebot", "2001:db8::7", Verified, "rdns", "crawl.googlebot.com"},
		{"same operator, other token", "Googlebot-Image", "66.249.66.1", Verified, "rdns", "googlebot.com"},
		{"name under another domain", "Googlebot", "203.0.113.9", Spoofed, "rdns", "evil.example.com is not under googlebot.com"},
		{"name does not resolve back", "Googlebot", "203.0.113.10", Spoofed, "rdns", "does not resolve back"},
		{"no reverse name", "Googlebot", "203.0.113.11", Spoofed, "rdns", "no reverse DNS name"},
		{"dns failure", "Googlebot", "203.0.113.12", Unverifiable, "", "reverse DNS failed"},
		{"bing by FCrDNS", "bingbot", "157.55.39.1", Verified, "rdns", "search.msn.com"},
		{"baidu by FCrDNS", "Baiduspider", "198.51.100.20", Verified, "rdns", "crawl.baidu.com"},
		{"bing from google's address", "bingbot", "66.249.66.1", Spoofed, "rdns", "not under search.msn.com"},
		{"gptbot in its ranges", "GPTBot", "20.15.240.70", Verified, "ranges", "openai-gptbot, created 2026-11-28"},
		{"gptbot outside its ranges", "GPTBot", "198.51.100.7", Spoofed, "ranges", "outside OpenAI's published ranges for GPTBot"},
		{"ccbot in a plain-text list", "CCBot", "18.97.14.80", Verified, "ranges", "commoncrawl"},
		{"no published method", "ClaudeBot", "198.51.100.7", Unverifiable, "", "Anthropic publishes no way to verify ClaudeBot"},
		{"range file missing", "OAI-SearchBot", "20.15.240.70", Unverifiable, "", "range files unavailable"},
		{"no address", "Googlebot", "", Unverifiable, "", "no client address"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var ip netip.Addr
			if c.ip != "" {
				ip = netip.MustParseAddr(c.ip)
			}
			got := v.Verify(context.Background(), bot(t, c.token), ip)
			if got.Status != c.want || got.Method != c.method || !strings.Contains(got.Reason, c.reason) {
				t.Fatalf("Verify(%s, %s) = %+v, want %s by %q with %q", c.token, c.ip, got, c.want, c.method, c.reason)
			}
		})
	}
	// Verdicts are cached: asking again sends no query.
	before := d.queries.Load()
	for _, c := range cases[:8] {
		if c.ip != "" {
			v.Verify(context.Background(), bot(t, c.token), netip.MustParseAddr(c.ip))
		}
	}
	if n := d.queries.Load() - before; n != 0 {
		t.Fatalf("cached verdicts sent %d DNS queries", n)
	}
}

// TestVerifyBudget checks that MaxLookups bounds the DNS verifications.
func TestVerifyBudget(t *testing.T) {
	d := verifyDNS(t)
	v := NewVerifier(&VerifierOptions{Resolver: NewDNSResolver(d.addr), MaxLookups: 2})
	g := bot(t, "Googlebot")
	reqs := []VerifyRequest{
		{g, netip.MustParseAddr("66.249.66.1")}, {g, netip.MustParseAddr("203.0.113.9")},
		{g, netip.MustParseAddr("203.0.113.10")}, {g, netip.MustParseAddr("203.0.113.11")},
	}
	out := v.VerifyAll(context.Background(), reqs)
	var spent, done int
	for _, vd := range out {
		if strings.Contains(vd.Reason, "lookup budget spent") {
			spent++
		} else {
			done++
		}
	}
	if spent != 2 || done != 2 || v.Lookups() != 2 {
		t.Fatalf("verdicts %+v: %d made, %d over budget, %d lookups; want 2, 2, 2", out, done, spent, v.Lookups())
	}
}

// TestVerifyBudgetPerAnalysis: MaxLookups bounds each Analyze, not every
// analysis sharing the Verifier (a server's, across accounts): a log of
// forged addresses spends its own budget, and the next log still gets
// its verifications; each report counts its own lookups.
func TestVerifyBudgetPerAnalysis(t *testing.T) {
	d := verifyDNS(t)
	v := NewVerifier(&VerifierOptions{Resolver: NewDNSResolver(d.addr), MaxLookups: 2})
	const ua = `"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"`
	log := func(ips ...string) io.Reader {
		var b strings.Builder
		for _, ip := range ips {
			b.WriteString(ip + ` - - [01/Nov/2026:10:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" ` + ua + "\n")
		}
		return strings.NewReader(b.String())
	}
	for i, ips := range [][]string{{"203.0.113.9", "203.0.113.10", "203.0.113.11"}, {"66.249.66.1", "203.0.113.20", "203.0.113.21"}} {
		rep, err := Analyze(context.Background(), []Input{Reader("access.log", log(ips...))}, &Options{Format: FormatCombined, Verifier: v})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Verification.Lookups != 2 || rep.Totals.UnverifiableHits != 1 {
			t.Errorf("log %d: %d lookups, %d unverifiable hits; want 2 and 1 (over its budget)", i, rep.Verification.Lookups, rep.Totals.UnverifiableHits)
		}
	}
	if v.Lookups() != 4 {
		t.Errorf("the verifier made %d lookups; want 4", v.Lookups())
	}
}

// TestVerifyAllStops checks that VerifyAll returns when its context ends,
// leaving the rest unverifiable.
func TestVerifyAllStops(t *testing.T) {
	d := verifyDNS(t)
	v := NewVerifier(&VerifierOptions{Resolver: NewDNSResolver(d.addr)})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := v.VerifyAll(ctx, []VerifyRequest{{bot(t, "Googlebot"), netip.MustParseAddr("66.249.66.1")}})
	if out[0].Status != Unverifiable || !strings.Contains(out[0].Reason, "stopped") {
		t.Fatalf("verdict after cancel = %+v", out[0])
	}
}

// TestHTTPRanges fetches a range file through the safe fetcher from a
// local server, caches it with its date, and refetches after the TTL.
func TestHTTPRanges(t *testing.T) {
	body, err := os.ReadFile("testdata/ranges/google-common.json")
	if err != nil {
		t.Fatal(err)
	}
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	h := NewHTTPRanges(seo.NewFetcher(&seo.FetcherOptions{AllowPrivate: true}),
		&HTTPRangesOptions{URLs: map[string]string{"google-common": srv.URL + "/googlebot.json"}, Now: func() time.Time { return now }})
	for range 3 {
		l, err := h.Ranges(context.Background(), "google-common")
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Prefixes) != 2 || l.Created.Format(time.DateOnly) != "2026-11-30" || !l.Fetched.Equal(now) {
			t.Fatalf("list = %+v", l)
		}
	}
	if hits.Load() != 1 {
		t.Fatalf("fetched %d times, want once", hits.Load())
	}
	now = now.Add(25 * time.Hour)
	if _, err := h.Ranges(context.Background(), "google-common"); err != nil || hits.Load() != 2 {
		t.Fatalf("after the TTL: err %v, fetched %d times, want 2", err, hits.Load())
	}
	// The default fetcher refuses loopback: a range URL cannot reach
	// private addresses.
	safe := NewHTTPRanges(nil, &HTTPRangesOptions{URLs: map[string]string{"bing": srv.URL}})
	if _, err := safe.Ranges(context.Background(), "bing"); err == nil {
		t.Fatal("default fetcher fetched a loopback range URL")
	}
}

// blockingResolver records reverse lookups and holds each until its
// context ends.
type blockingResolver struct {
	entered chan struct{}
	n       atomic.Int64
}

func (r *blockingResolver) LookupAddr(ctx context.Context, _ string) ([]string, error) {
	r.n.Add(1)
	r.entered <- struct{}{}
	<-ctx.Done()
	return nil, ctx.Err()
}

func (r *blockingResolver) LookupNetIP(ctx context.Context, _, _ string) ([]netip.Addr, error) {
	return nil, ctx.Err()
}

// TestVerifyAllLimit checks that VerifyAll runs at most Concurrency
// verifications at once: with lookups that never answer, exactly that many
// start before the context is cancelled, and none after.
func TestVerifyAllLimit(t *testing.T) {
	r := &blockingResolver{entered: make(chan struct{}, 16)}
	v := NewVerifier(&VerifierOptions{Resolver: r, Concurrency: 3})
	g := bot(t, "Googlebot")
	var reqs []VerifyRequest
	for i := range 8 {
		reqs = append(reqs, VerifyRequest{g, netip.AddrFrom4([4]byte{203, 0, 113, byte(i + 1)})})
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan []Verdict)
	go func() { done <- v.VerifyAll(ctx, reqs) }()
	for range 3 {
		<-r.entered
	}
	cancel()
	out := <-done
	if n := r.n.Load(); n != 3 {
		t.Fatalf("%d lookups started, want the limit 3", n)
	}
	for i, vd := range out {
		if vd.Status != Unverifiable {
			t.Fatalf("verdict %d = %+v after cancel", i, vd)
		}
		if _, ok := v.Cached(g, reqs[i].IP); ok {
			t.Fatalf("a stopped verification was cached")
		}
	}
}

// TestVerifyFailureCached checks that a failed lookup is kept for
// FailureTTL, not for TTL: a DNS server that fails costs one query per
// address until then.
func TestVerifyFailureCached(t *testing.T) {
	d := verifyDNS(t)
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	v := NewVerifier(&VerifierOptions{Resolver: NewDNSResolver(d.addr), Now: func() time.Time { return now }})
	g, ip := bot(t, "Googlebot"), netip.MustParseAddr("203.0.113.12")
	ask := func() int64 {
		before := d.queries.Load()
		if vd := v.Verify(context.Background(), g, ip); vd.Status != Unverifiable || !strings.Contains(vd.Reason, "reverse DNS failed") {
			t.Fatalf("verdict %+v", vd)
		}
		return d.queries.Load() - before
	}
	if n := ask(); n == 0 {
		t.Fatal("the first verification sent no query")
	}
	now = now.Add(9 * time.Minute)
	if n := ask(); n != 0 {
		t.Fatalf("a failure 9 minutes old sent %d queries again", n)
	}
	now = now.Add(2 * time.Minute)
	if n := ask(); n == 0 {
		t.Fatal("a failure 11 minutes old was still used (FailureTTL is 10 minutes)")
	}
}

// hangingResolver never answers: each lookup ends with its context (the
// verification's LookupTimeout), as a reverse DNS zone whose servers do
// not answer makes it. It counts the reverse lookups.
type hangingResolver struct{ n atomic.Int64 }

func (r *hangingResolver) LookupAddr(ctx context.Context, _ string) ([]string, error) {
	r.n.Add(1)
	<-ctx.Done()
	return nil, ctx.Err()
}

func (r *hangingResolver) LookupNetIP(ctx context.Context, _, _ string) ([]netip.Addr, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestVerifyTimeBudgetPerAnalysis: a log of many addresses calling
// themselves Googlebot whose reverse DNS never answers spends at most the
// analysis's DNS time (MaxLookupTime, by default 360 lookup timeouts
// summed), not a timeout for each of MaxLookups addresses: on a server
// that was 20,000 × 5 s / 16 ≈ 1 h 44 min of a job worker for one upload.
// The rest are unverifiable, saying the DNS time is spent.
func TestVerifyTimeBudgetPerAnalysis(t *testing.T) {
	r := &hangingResolver{}
	const timeout = 5 * time.Millisecond
	v := NewVerifier(&VerifierOptions{Resolver: r, LookupTimeout: timeout, Concurrency: 4})
	const ua = `"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"`
	var b strings.Builder
	const addrs = 2000
	for i := range addrs {
		fmt.Fprintf(&b, "198.51.%d.%d - - [01/Nov/2026:10:00:00 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" %s\n", i/250, i%250+1, ua)
	}
	start := time.Now()
	rep, err := Analyze(context.Background(), []Input{Reader("access.log", strings.NewReader(b.String()))}, &Options{Format: FormatCombined, Verifier: v})
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	// 360 timeouts' worth, and the verifications in flight when it was
	// spent.
	t.Logf("%d reverse lookups of %d addresses, %v", r.n.Load(), addrs, took)
	if n := r.n.Load(); n > 360+4 {
		t.Errorf("%d reverse lookups of %d addresses that never answer (%v); want at most 364, the analysis's DNS time", n, addrs, took)
	}
	if rep.Verification.Lookups != int(r.n.Load()) {
		t.Errorf("the report counts %d lookups; the resolver was asked %d", rep.Verification.Lookups, r.n.Load())
	}
	if rep.Totals.UnverifiableHits != addrs {
		t.Errorf("%d unverifiable hits; want %d", rep.Totals.UnverifiableHits, addrs)
	}
	if _, ok := v.Cached(bot(t, "Googlebot"), netip.MustParseAddr("198.51.7.250")); ok {
		t.Error("a verdict of a spent DNS time was cached: the next analysis would inherit it")
	}
}
