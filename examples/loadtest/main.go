// Command loadtest measures GET /v1/keywords/suggest of the seokit API
// under load, with API-key authentication and daily limits on, against
// the same route with authentication and limits switched off
// (Options.DisableAuth), in the same process and the same run.
//
// Both handlers run in-process behind loopback listeners and share one
// keyword table: a generated table of synthetic keywords (-keywords,
// 100,000 by default) imported into a keywords/local SQLite store, so each
// request does the real suggestion work. The synthetic volumes and
// difficulties exist only to give the queries something to rank; they are
// labelled with the source "loadtest-synthetic" and are not market data.
//
// Both handlers share one keywords.Suggester with its default in-process
// answer cache, as a production server has: the first request for a query
// (and again once the cached answer is a minute old) does the SQLite
// lookup, the others are served from memory.
//
// The authenticated handler has a fresh SQLite store (accounts, keys,
// usage counters) with an Enterprise account whose daily limit is raised
// above what the run can send, and an API key with the read permission
// sent in X-API-Key. The Enterprise plan's request rate and burst
// (plans.Limits.RequestRate and RequestBurst) are -account-rate and
// -account-burst, by default far above what the run can send, so that the
// run measures the success path; lower ones measure the 429 path, and the
// table says how many answers were 2xx and how many 429. Every request is
// still authenticated (the verified key is kept in memory and read again
// from the store every 10 s, auth.DefaultKeyCacheTTL), counted against
// the daily limit (ratelimit.Local: in the store, a lease of requests at a
// time for a busy account) and checked against the rate.
//
// The two targets are measured in alternating rounds (baseline, then
// authenticated, repeated) so that drift of the machine affects both.
// Each target gets -connections keep-alive connections, each sending one
// request after another (closed loop). The generator is a minimal HTTP/1.1
// client: requests are built once, sent on a plain TCP connection and the
// answers' heads parsed just enough to find the status and the body's
// length, because the generator shares the CPU with the servers and a
// heavier client (net/http's takes about a tenth of the CPU here) would
// slow both.
// A latency runs from writing the request to reading the last byte of the
// body.
//
// Usage:
//
//	go run ./examples/loadtest -duration 60s -connections 50
//
// -cpuprofile and -blockprofile write pprof profiles of the run: where the
// CPU went, and where request goroutines waited (for a lock or a database
// connection), which shows a serial section that caps throughput.
//
// It prints, for each target, the requests, throughput, latency
// percentiles, 2xx, 429, 5xx and non-2xx counts, and the ratio of authenticated to
// baseline throughput; it exits 1 if any request got a 5xx, if the
// authenticated p99 is 20 ms or more, or if the ratio is below 0.5.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/plans"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
	"github.com/seokit/seokit/keywords"
	"github.com/seokit/seokit/keywords/local"
	"github.com/seokit/seokit/seo"
)

// Config is one run.
type Config struct {
	Duration    time.Duration // total measured time, split between the two targets
	Connections int           // concurrent keep-alive connections per target
	Keywords    int           // size of the generated keyword table
	Dir         string        // where the SQLite files go; "" means a temporary directory
	// Thresholds of the pass/fail verdict.
	MaxP99   time.Duration
	MinRatio float64
	// AccountRate and AccountBurst are the Enterprise plan's request rate
	// and burst; zero means 1e6/s and 1<<30, the success path.
	AccountRate  float64
	AccountBurst int

	startProfile func() error // -cpuprofile
	stopProfile  func()
}

// Stats are the figures of one target.
type Stats struct {
	Name       string
	Requests   int
	Elapsed    time.Duration
	Throughput float64 // requests per second
	P50, P90   time.Duration
	P99, Max   time.Duration
	Status2xx  int
	Status429  int
	Status5xx  int
	Non2xx     int
	Errors     int // transport errors (no HTTP answer)
	// CPUPerReq is the process's user+sys CPU time during the target's
	// measured phases per request, the generator's share included;
	// AllocPerReq the bytes allocated (runtime.MemStats.TotalAlloc) per
	// request. Neither depends on how busy the machine is.
	CPUPerReq   time.Duration
	AllocPerReq float64
}

// Result is the outcome of a run.
type Result struct {
	Baseline, Authed Stats
	Ratio            float64 // Authed.Throughput / Baseline.Throughput
	Failures         []string
}

func main() {
	var cfg Config
	flag.DurationVar(&cfg.Duration, "duration", 60*time.Second, "measured time per target")
	flag.IntVar(&cfg.Connections, "connections", 50, "concurrent connections per target")
	flag.IntVar(&cfg.Keywords, "keywords", 100_000, "keywords in the generated table")
	flag.DurationVar(&cfg.MaxP99, "max-p99", 20*time.Millisecond, "fail if the authenticated p99 is at least this")
	flag.Float64Var(&cfg.MinRatio, "min-ratio", 0.5, "fail if authenticated/baseline throughput is below this")
	flag.Float64Var(&cfg.AccountRate, "account-rate", 1e6, "requests per second the load test's account may sustain (its plan's RequestRate); lower it to measure 429 answers")
	flag.IntVar(&cfg.AccountBurst, "account-burst", 1<<30, "requests the account may send at once (its plan's RequestBurst)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the measured load to this file")
	blockprofile := flag.String("blockprofile", "", "write a profile of where goroutines waited (locks, channels, connection pools) to this file")
	flag.Parse()
	if *blockprofile != "" {
		runtime.SetBlockProfileRate(int(10 * time.Microsecond)) // sample waits by duration, ~1 per 10 µs waited
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "loadtest:", err)
			os.Exit(2)
		}
		defer f.Close()
		cfg.startProfile = func() error { return pprof.StartCPUProfile(f) }
		cfg.stopProfile = pprof.StopCPUProfile
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := Run(ctx, cfg, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(2)
	}
	if *blockprofile != "" {
		if err := writeProfile("block", *blockprofile); err != nil {
			fmt.Fprintln(os.Stderr, "loadtest:", err)
			os.Exit(2)
		}
	}
	if len(res.Failures) > 0 {
		os.Exit(1)
	}
}

// writeProfile writes the named runtime profile to path.
func writeProfile(name, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup(name).WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Run sets up both targets, runs the load and prints the figures to w.
// Failures of the verdict are in Result.Failures; err is for setup errors.
func Run(ctx context.Context, cfg Config, w io.Writer) (*Result, error) {
	if cfg.Duration <= 0 || cfg.Connections <= 0 {
		return nil, fmt.Errorf("loadtest: duration and connections must be positive")
	}
	if cfg.Keywords <= 0 {
		cfg.Keywords = 100_000
	}
	if cfg.MaxP99 <= 0 {
		cfg.MaxP99 = 20 * time.Millisecond
	}
	if cfg.MinRatio <= 0 {
		cfg.MinRatio = 0.5
	}
	if cfg.AccountRate <= 0 {
		cfg.AccountRate = 1e6
	}
	if cfg.AccountBurst <= 0 {
		cfg.AccountBurst = 1 << 30
	}
	dir := cfg.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "seokit-loadtest-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	loc := seo.Locale{Language: "en", Region: "US"}

	start := time.Now()
	ks, err := local.Open(ctx, filepath.Join(dir, "keywords.db"), nil)
	if err != nil {
		return nil, err
	}
	defer ks.Close()
	table, queries := generate(cfg.Keywords)
	for i := 0; i < len(table); i += local.MaxPutKeywords {
		if err := ks.Put(ctx, table[i:min(i+local.MaxPutKeywords, len(table))], loc); err != nil {
			return nil, fmt.Errorf("loadtest: import keywords: %w", err)
		}
	}
	n, err := ks.Count(ctx, loc)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "keyword table: %d synthetic keywords imported into keywords/local (SQLite) in %v\n", n, time.Since(start).Round(time.Millisecond))
	sugg := keywords.NewSuggester([]keywords.Source{ks}, nil)
	quiet := slog.New(slog.DiscardHandler)

	// Baseline: authentication, permissions and limits off.
	baseSt, err := sqlstore.Open(ctx, ":memory:", nil)
	if err != nil {
		return nil, err
	}
	defer baseSt.Close()
	base, err := httpapi.New(ctx, &httpapi.Options{Store: baseSt, Suggester: sugg, DisableAuth: true, Logger: quiet})
	if err != nil {
		return nil, err
	}
	defer base.Close()

	// Authenticated: a fresh SQLite store, an Enterprise account with a
	// raised limit and the configured rate, and an API key.
	st, err := sqlstore.Open(ctx, filepath.Join(dir, "api.db"), nil)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	const dailyLimit = 1 << 30
	authed, err := httpapi.New(ctx, &httpapi.Options{
		Store: st, Suggester: sugg, Logger: quiet,
		Limits: map[store.Plan]int{store.Enterprise: dailyLimit},
		Plans:  map[store.Plan]plans.Limits{store.Enterprise: {RequestRate: cfg.AccountRate, RequestBurst: cfg.AccountBurst}},
	})
	if err != nil {
		return nil, err
	}
	defer authed.Close()
	acct, err := authed.Auth().CreateAccount(ctx, "load@example.com", "Load test", "", store.Enterprise)
	if err != nil {
		return nil, err
	}
	key, _, err := authed.Auth().CreateAPIKey(ctx, acct.ID, "loadtest", []string{auth.ScopeRead}, time.Time{})
	if err != nil {
		return nil, err
	}

	baseURL, stopBase, err := serve(base)
	if err != nil {
		return nil, err
	}
	defer stopBase()
	authURL, stopAuth, err := serve(authed)
	if err != nil {
		return nil, err
	}
	defer stopAuth()

	targets := []*target{
		{name: "baseline (auth and limits off)", url: baseURL},
		{name: "API key, Enterprise limits", url: authURL, key: key},
	}
	for _, t := range targets {
		t.addr = strings.TrimPrefix(t.url, "http://")
		t.requests = buildRequests(t.addr, t.key, queries)
	}
	// Rounds of at most 10 s per target, alternating.
	rounds := max(1, int(cfg.Duration/(10*time.Second)))
	phase := cfg.Duration / time.Duration(rounds)
	warm := min(phase/10, time.Second)
	fmt.Fprintf(w, "load: GET /v1/keywords/suggest, %d connections per target, %v per target in %d alternating round(s), %d distinct queries, warm-up %v per target; account rate %g/s, burst %d\n",
		cfg.Connections, cfg.Duration, rounds, len(queries), warm, cfg.AccountRate, cfg.AccountBurst)
	for _, t := range targets {
		t.run(ctx, cfg.Connections, warm, false)
	}
	if cfg.startProfile != nil {
		if err := cfg.startProfile(); err != nil {
			return nil, err
		}
	}
	for range rounds {
		for _, t := range targets {
			t.run(ctx, cfg.Connections, phase, true)
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
	}

	if cfg.stopProfile != nil {
		cfg.stopProfile()
	}
	res := &Result{Baseline: targets[0].stats(), Authed: targets[1].stats()}
	if res.Baseline.Throughput > 0 {
		res.Ratio = res.Authed.Throughput / res.Baseline.Throughput
	}
	fmt.Fprintf(w, "%-32s %9s %10s %9s %9s %9s %9s %9s %7s %6s %7s %6s\n", "target", "requests", "req/s", "p50", "p90", "p99", "max", "2xx", "429", "5xx", "non-2xx", "errors")
	for _, s := range []Stats{res.Baseline, res.Authed} {
		fmt.Fprintf(w, "%-32s %9d %10.1f %9s %9s %9s %9s %9d %7d %6d %7d %6d\n", s.Name, s.Requests, s.Throughput,
			ms(s.P50), ms(s.P90), ms(s.P99), ms(s.Max), s.Status2xx, s.Status429, s.Status5xx, s.Non2xx, s.Errors)
	}
	for _, s := range []Stats{res.Baseline, res.Authed} {
		fmt.Fprintf(w, "%-32s CPU per request %.1fµs, allocated per request %.0f B (process-wide, generator included)\n", s.Name, float64(s.CPUPerReq)/1e3, s.AllocPerReq)
	}
	if res.Baseline.CPUPerReq > 0 {
		fmt.Fprintf(w, "CPU per request authenticated/baseline: %.3f (its inverse %.3f is the throughput ratio a machine with CPU to spare only for this would see)\n",
			float64(res.Authed.CPUPerReq)/float64(res.Baseline.CPUPerReq), float64(res.Baseline.CPUPerReq)/float64(max(res.Authed.CPUPerReq, 1)))
	}
	fmt.Fprintf(w, "throughput ratio authenticated/baseline: %.3f\n", res.Ratio)
	for _, s := range []Stats{res.Baseline, res.Authed} {
		if s.Status5xx > 0 {
			res.Failures = append(res.Failures, fmt.Sprintf("%s: %d responses with status 5xx", s.Name, s.Status5xx))
		}
		if s.Errors > 0 {
			res.Failures = append(res.Failures, fmt.Sprintf("%s: %d requests without an HTTP answer", s.Name, s.Errors))
		}
		if s.Requests == 0 {
			res.Failures = append(res.Failures, s.Name+": no requests completed")
		}
	}
	if res.Authed.P99 >= cfg.MaxP99 {
		res.Failures = append(res.Failures, fmt.Sprintf("authenticated p99 %s is not under %s", ms(res.Authed.P99), ms(cfg.MaxP99)))
	}
	if res.Ratio < cfg.MinRatio {
		res.Failures = append(res.Failures, fmt.Sprintf("throughput ratio %.3f is below %.2f", res.Ratio, cfg.MinRatio))
	}
	if len(res.Failures) == 0 {
		fmt.Fprintf(w, "PASS: zero 5xx, authenticated p99 under %s, ratio at least %.2f\n", ms(cfg.MaxP99), cfg.MinRatio)
	}
	for _, f := range res.Failures {
		fmt.Fprintln(w, "FAIL:", f)
	}
	return res, nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond)) }

// serve runs h on a loopback listener.
func serve(h http.Handler) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), func() { srv.Close() }, nil
}

// buildRequests returns the raw HTTP/1.1 request of each query, built
// once so that the generator spends its CPU on sending and reading, not
// on building requests: generator and servers share the machine.
func buildRequests(addr, key string, queries []string) [][]byte {
	out := make([][]byte, len(queries))
	for i, q := range queries {
		r := "GET /v1/keywords/suggest?query=" + url.QueryEscape(q) + "&locale=en-US HTTP/1.1\r\nHost: " + addr +
			"\r\nUser-Agent: seokit-loadtest\r\nAccept: application/json\r\n"
		if key != "" {
			r += "X-API-Key: " + key + "\r\n"
		}
		out[i] = []byte(r + "\r\n")
	}
	return out
}

// requestTimeout bounds one request, from sending to the end of the body.
const requestTimeout = 10 * time.Second

// target is one server under load and its measurements.
type target struct {
	name, url, key string
	addr           string   // host:port
	requests       [][]byte // raw request per query

	mu        sync.Mutex
	latencies []time.Duration
	elapsed   time.Duration
	cpu       time.Duration // process user+sys CPU in the measured phases
	alloc     uint64        // bytes allocated in the measured phases
	s2xx      int
	s429      int
	s5xx      int
	non2xx    int
	errs      int
}

// conn is one keep-alive connection of the generator: a plain HTTP/1.1
// client (one request at a time, no pipelining) reading answers with
// readResponse.
type conn struct {
	addr string
	c    net.Conn
	br   *bufio.Reader
}

func (c *conn) close() {
	if c.c != nil {
		c.c.Close()
		c.c = nil
	}
}

// do sends req and reads the whole answer; it returns the status code.
func (c *conn) do(req []byte) (int, error) {
	if c.c == nil {
		nc, err := net.DialTimeout("tcp", c.addr, 5*time.Second)
		if err != nil {
			return 0, err
		}
		c.c = nc
		if c.br == nil {
			c.br = bufio.NewReaderSize(nc, 32<<10)
		} else {
			c.br.Reset(nc)
		}
	}
	c.c.SetDeadline(time.Now().Add(requestTimeout))
	if _, err := c.c.Write(req); err != nil {
		c.close()
		return 0, err
	}
	code, closeAfter, err := readResponse(c.br)
	if err != nil {
		c.close()
		return 0, err
	}
	if closeAfter {
		c.close()
	}
	return code, nil
}

// readResponse reads one HTTP/1.1 response with a Content-Length body (as
// every answer of the API has) and discards the body. It returns the
// status code and whether the server closes the connection. Anything else
// (chunked bodies, bodies delimited by the connection's end, malformed
// heads) is an error, which the run counts as a failed request.
func readResponse(br *bufio.Reader) (code int, closeAfter bool, err error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return 0, false, err
	}
	// "HTTP/1.1 200 OK\r\n"
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' {
		return 0, false, fmt.Errorf("malformed status line %q", line)
	}
	code, err = strconv.Atoi(string(line[9:12]))
	if err != nil || code < 100 || code > 999 {
		return 0, false, fmt.Errorf("malformed status line %q", line)
	}
	length := -1
	for {
		line, err = br.ReadSlice('\n')
		if err != nil {
			return 0, false, err
		}
		h := bytes.TrimRight(line, "\r\n")
		if len(h) == 0 {
			break
		}
		name, value, ok := bytes.Cut(h, []byte(":"))
		if !ok {
			return 0, false, fmt.Errorf("malformed header %q", h)
		}
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			if length, err = strconv.Atoi(string(value)); err != nil || length < 0 {
				return 0, false, fmt.Errorf("bad Content-Length %q", value)
			}
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			return 0, false, fmt.Errorf("unsupported Transfer-Encoding %q", value)
		case bytes.EqualFold(name, []byte("Connection")):
			closeAfter = bytes.EqualFold(value, []byte("close"))
		}
	}
	if length < 0 {
		return 0, false, errors.New("response without Content-Length")
	}
	if _, err := br.Discard(length); err != nil {
		return 0, false, err
	}
	return code, closeAfter, nil
}

// run sends requests on conns connections for d; measured=false is a
// warm-up whose figures are dropped.
func (t *target) run(ctx context.Context, conns int, d time.Duration, measured bool) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var next atomic.Uint64
	var wg sync.WaitGroup
	var ms0 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	cpu0 := processCPU()
	begin := time.Now()
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &conn{addr: t.addr}
			defer c.close()
			lat := make([]time.Duration, 0, 4096)
			var s2xx, s429, s5xx, non2xx, errs int
			for ctx.Err() == nil {
				req := t.requests[next.Add(1)%uint64(len(t.requests))]
				t0 := time.Now()
				code, err := c.do(req)
				if err != nil {
					if ctx.Err() == nil {
						errs++
						time.Sleep(10 * time.Millisecond) // no hot loop against a dead server
					}
					continue
				}
				lat = append(lat, time.Since(t0))
				switch {
				case code >= 200 && code <= 299:
					s2xx++
				case code == http.StatusTooManyRequests:
					s429++
				case code >= 500:
					s5xx++
				}
				if code < 200 || code > 299 {
					non2xx++
				}
			}
			if measured {
				t.mu.Lock()
				t.latencies = append(t.latencies, lat...)
				t.s2xx += s2xx
				t.s429 += s429
				t.s5xx += s5xx
				t.non2xx += non2xx
				t.errs += errs
				t.mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if measured {
		el, cpu := time.Since(begin), processCPU()-cpu0
		var ms1 runtime.MemStats
		runtime.ReadMemStats(&ms1)
		t.mu.Lock()
		t.elapsed += el
		t.cpu += cpu
		t.alloc += ms1.TotalAlloc - ms0.TotalAlloc
		t.mu.Unlock()
	}
}

// processCPU is the user+sys CPU time the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func (t *target) stats() Stats {
	t.mu.Lock()
	defer t.mu.Unlock()
	l := slices.Clone(t.latencies)
	slices.Sort(l)
	s := Stats{Name: t.name, Requests: len(l), Elapsed: t.elapsed, Status2xx: t.s2xx, Status429: t.s429, Status5xx: t.s5xx, Non2xx: t.non2xx, Errors: t.errs}
	if t.elapsed > 0 {
		s.Throughput = float64(len(l)) / t.elapsed.Seconds()
	}
	if len(l) > 0 {
		s.CPUPerReq = t.cpu / time.Duration(len(l))
		s.AllocPerReq = float64(t.alloc) / float64(len(l))
	}
	if len(l) > 0 {
		pct := func(p float64) time.Duration {
			i := int(math.Ceil(p*float64(len(l)))) - 1
			return l[max(0, min(i, len(l)-1))]
		}
		s.P50, s.P90, s.P99, s.Max = pct(0.50), pct(0.90), pct(0.99), l[len(l)-1]
	}
	return s
}
