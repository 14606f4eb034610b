package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
	"github.com/seokit/seokit/internal/pgtest"
	"github.com/seokit/seokit/internal/redistest"
)

// childArgsEnv carries the flags of a server the test binary runs as a
// child process (see TestMain), so a test can kill it like a crashed host.
const childArgsEnv = "SEOKIT_TEST_SERVER_ARGS"

func TestMain(m *testing.M) {
	if a := os.Getenv(childArgsEnv); a != "" {
		var args []string
		if err := json.Unmarshal([]byte(a), &args); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		if err := run(ctx, args, os.Stdout, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// instance is a server running in a child process.
type instance struct {
	cmd    *exec.Cmd
	base   string
	out    *syncBuffer
	exited chan struct{}
}

// kill kills the instance at once, like a crashed host, and waits for it.
func (in *instance) kill() {
	in.cmd.Process.Signal(syscall.SIGKILL)
	<-in.exited
}

// startInstance runs the server with args in a child process and waits
// until it listens.
func startInstance(t *testing.T, args ...string) *instance {
	t.Helper()
	a, _ := json.Marshal(append([]string{"-addr", "127.0.0.1:0"}, args...))
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childArgsEnv+"="+string(a))
	for _, v := range []string{"DATAFORSEO_LOGIN", "DATAFORSEO_PASSWORD", "SERPAPI_KEY", "GOOGLE_CSE_KEY", "GOOGLE_CSE_CX", "SEOKIT_ADDR"} {
		cmd.Env = append(cmd.Env, v+"=")
	}
	pr, pw := io.Pipe()
	in := &instance{cmd: cmd, out: &syncBuffer{}, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		cmd.Wait()
		pw.Close()
		close(in.exited)
	}()
	t.Cleanup(in.kill)
	listening := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			in.out.Write([]byte(sc.Text() + "\n"))
			if m := listenRE.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case listening <- m[1]:
				default: // only the first address is read
				}
			}
		}
	}()
	select {
	case in.base = <-listening:
	case <-in.exited:
		time.Sleep(100 * time.Millisecond) // let the reader drain the output
		t.Fatalf("instance exited:\n%s", in.out)
	case <-time.After(60 * time.Second):
		t.Fatalf("instance did not start:\n%s", in.out)
	}
	return in
}

// roundRobin serves on one loopback address and sends each request to the
// next instance in turn.
func roundRobin(t *testing.T, bases ...string) *httptest.Server {
	var n atomic.Uint64
	targets := make([]*url.URL, len(bases))
	for i, b := range bases {
		targets[i], _ = url.Parse(b)
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(targets[n.Add(1)%uint64(len(targets))])
		},
		Transport: &http.Transport{MaxIdleConnsPerHost: 100},
	}
	ts := httptest.NewServer(rp)
	t.Cleanup(ts.Close)
	return ts
}

// slowSite is a local site of n pages, each linking to the next few, each
// answering after delay. Pages from held on wait until release is called
// (or their request ends), so a crawl cannot finish before the test has
// done what it must do while the crawl runs, however busy the machine.
func slowSite(t *testing.T, n int, delay time.Duration, held int) (ts *httptest.Server, release func()) {
	gate := make(chan struct{})
	release = sync.OnceFunc(func() { close(gate) })
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		i := 0
		if p := strings.TrimPrefix(r.URL.Path, "/p"); p != r.URL.Path {
			i, _ = strconv.Atoi(p)
		} else if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		if i >= held {
			select {
			case <-gate:
			case <-r.Context().Done():
				return
			}
		}
		time.Sleep(delay)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><html lang=en><head><title>Page %d of the cluster test site</title><meta name=description content=\"Page %d, one of the pages a killed instance leaves to another.\"></head><body><h1>Page %d</h1><p>Some words on page %d.</p>", i, i, i, i)
		for j := i + 1; j <= i+3 && j < n; j++ {
			fmt.Fprintf(w, "<a href=\"/p%d\">page %d</a> ", j, j)
		}
		fmt.Fprint(w, "</body></html>")
	})
	ts = httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	t.Cleanup(release) // before ts.Close, which waits for held requests
	return ts, release
}

// TestCluster runs three instances on PostgreSQL and Redis behind one
// address: a site analysis submitted to one instance completes on another
// after the first is killed, and the three share one account's daily limit
// of 100 exactly.
func TestCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIP: cluster test in -short mode")
	}
	// Mostly waiting (a slow site, River's rescue of the killed instance's
	// job), in processes and stores of its own: it overlaps the other
	// process tests.
	t.Parallel()
	dsn := pgtest.DSN(t)
	rd := redistest.Start(t)
	// The crawl holds at page 20 until the first instance is killed; the
	// job timeout leaves a busy machine 40 s to start the other two.
	site, release := slowSite(t, 100, 300*time.Millisecond, 20)
	common := []string{"-db", dsn, "-data-db", dsn, "-redis", rd.URL(), "-jobs", "river",
		"-job-timeout", "40s", "-job-rescue-after", "40s", "-pro-limit", "100", "-callback-secret", "cluster-test-secret",
		"-allow-private"}

	a := startInstance(t, common...)
	m := keyRE.FindStringSubmatch(a.out.String())
	if m == nil {
		t.Fatalf("first instance printed no API key:\n%s", a.out)
	}
	key := m[1]

	used := 0
	call := func(base, method, path, body string) (int, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("X-API-Key", key)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		used++
		return resp.StatusCode, data
	}

	// Submit to a while it is alone, so its worker takes the job; then
	// start b and c, watch the progress through them, and kill a.
	host := strings.TrimPrefix(site.URL, "http://")
	code, body := call(a.base, "POST", "/v1/analyze/site", `{"domain":"`+host+`","options":{"maxPages":100}}`)
	if code != http.StatusAccepted {
		t.Fatalf("submit: %d %s", code, body)
	}
	var job struct {
		ID string `json:"id"`
	}
	json.Unmarshal(body, &job)

	st, err := sqlstore.Open(context.Background(), dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	accountID := accountOf(t, st)
	waitJob := func(what string, limit time.Duration, ok func(*store.Job) bool) *store.Job {
		t.Helper()
		deadline := time.Now().Add(limit)
		for {
			j, err := st.Job(context.Background(), accountID, job.ID)
			if err == nil && ok(j) {
				return j
			}
			if time.Now().After(deadline) {
				t.Fatalf("job did not become %s within %s: %+v (err %v)", what, limit, j, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	// Once a runs the job, b and c start while its crawl goes on: on a busy
	// machine their start can take longer than a held page's fetch timeout
	// (30 s), so they must not start only once the crawl holds.
	waitJob("running", 30*time.Second, func(j *store.Job) bool { return j.Status == store.JobRunning })
	b := startInstance(t, common...)
	c := startInstance(t, common...)
	waitJob("running with progress", 30*time.Second, func(j *store.Job) bool {
		return j.Status == store.JobRunning && len(j.Progress) > 0 && strings.Contains(string(j.Progress), `"pagesDone":`) && !strings.Contains(string(j.Progress), `"pagesDone":0`)
	})
	for _, in := range []*instance{b, c} {
		if keyRE.MatchString(in.out.String()) {
			t.Fatalf("a second instance printed an API key:\n%s", in.out)
		}
	}
	lb := roundRobin(t, b.base, c.base) // a is killed below
	// Progress is visible from every other instance.
	code, body = call(lb.URL, "GET", "/v1/analyze/site/"+job.ID, "")
	if code != http.StatusOK || !strings.Contains(string(body), `"running"`) {
		t.Fatalf("job through the other instances: %d %s", code, body)
	}
	a.kill()
	killed := time.Now()
	if j, err := st.Job(context.Background(), accountID, job.ID); err != nil || j.Status != store.JobRunning {
		t.Fatalf("after the kill the job is %v (err %v), want still running", j.Status, err)
	}
	release()

	j := waitJob("done", 90*time.Second, func(j *store.Job) bool { return j.Status.Done() })
	if j.Status != store.JobSucceeded {
		t.Fatalf("job ended %s: %s", j.Status, j.Error)
	}
	t.Logf("the job killed with its first instance succeeded on another %s after the kill", time.Since(killed).Round(100*time.Millisecond))
	code, body = call(lb.URL, "GET", "/v1/analyze/site/"+job.ID, "")
	var done struct {
		Status   string `json:"status"`
		Progress struct {
			PagesDone int `json:"pagesDone"`
		} `json:"progress"`
	}
	json.Unmarshal(body, &done)
	if code != http.StatusOK || done.Status != "succeeded" || done.Progress.PagesDone < 50 || !strings.Contains(string(body), "of the cluster test site") {
		t.Fatalf("finished job through the load balancer: %d %.300s", code, body)
	}
	// River ran it twice: on a, killed, then on another instance.
	var attempts, runners int
	if err := st.DB().QueryRowContext(context.Background(),
		`SELECT attempt, cardinality(attempted_by) FROM river_job WHERE kind = 'seokit.site_analysis'`).Scan(&attempts, &runners); err != nil {
		t.Fatal(err)
	}
	if attempts != 2 || runners != 2 {
		t.Fatalf("River attempts %d by %d instances, want 2 by 2", attempts, runners)
	}

	// The rest of the day's 100 requests, 300 at once through one address.
	remaining := 100 - used
	var ok, limited, other atomic.Int64
	var wg sync.WaitGroup
	for range 300 {
		wg.Go(func() {
			req, _ := http.NewRequest("GET", lb.URL+"/v1/keywords/suggest?query=cluster&locale=en-US", nil)
			req.Header.Set("X-API-Key", key)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				other.Add(1)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			switch resp.StatusCode {
			case http.StatusOK:
				ok.Add(1)
			case http.StatusTooManyRequests:
				limited.Add(1)
			default:
				other.Add(1)
			}
		})
	}
	wg.Wait()
	t.Logf("after %d earlier requests: %d admitted, %d limited, %d other", used, ok.Load(), limited.Load(), other.Load())
	if ok.Load() != int64(remaining) || limited.Load() != int64(300-remaining) || other.Load() != 0 {
		t.Fatalf("admitted %d (want %d), limited %d (want %d), other %d", ok.Load(), remaining, limited.Load(), 300-remaining, other.Load())
	}
}

// accountOf returns the admin account's ID.
func accountOf(t *testing.T, st *sqlstore.Store) string {
	t.Helper()
	a, err := st.AccountByEmail(context.Background(), "admin@localhost")
	if err != nil {
		t.Fatal(err)
	}
	return a.ID
}
