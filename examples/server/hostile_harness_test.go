//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"text/tabwriter"
	"time"
	"unsafe"

	"github.com/seokit/seokit/httpapi/store"
)

// Bounds of the hostile-input suite.
const (
	// rssTarget is the server's peak RSS the suite asserts.
	rssTarget = 1 << 30
	// rssKill is where the watchdog kills a server to protect the machine;
	// the run then reports "exceeded".
	rssKill = 3 << 30
	// asLimit is the address-space limit (RLIMIT_AS) set on the server
	// process, a backstop for growth faster than the watchdog samples.
	asLimit = 8 << 30
	// pageAnswerMax and storedResultMax are the answer-size targets.
	pageAnswerMax   = 5 << 20
	storedResultMax = 20 << 20
	// errorAnswerMax bounds an error envelope.
	errorAnswerMax = 64 << 10
	// headKeep is how much of each answer the suite keeps to inspect.
	headKeep = 64 << 10
)

// skipHostile skips where the suite's figures mean nothing.
func skipHostile(t *testing.T) {
	t.Helper()
	if raceBuild {
		t.Skip("SKIP: the hostile-input suite measures the server's RSS, which the race detector inflates; run it without -race: go test ./examples/server -run '^TestHostile' -count 1 -v")
	}
	if testing.Short() {
		t.Skip("SKIP: hostile-input suite in -short mode")
	}
}

// rssSample is one reading of the server's resident set.
type rssSample struct {
	at  time.Duration
	rss int64
}

// watched is a server child process under an RSS watchdog.
type watched struct {
	*instance
	key      string
	password string
	started  time.Time
	exceeded atomic.Bool
	stopMon  chan struct{}
	monDone  chan struct{}

	mu      sync.Mutex
	samples []rssSample
	hwm     int64 // VmHWM read by stop
}

// startWatched starts the server with args (plus loopback -addr) in a
// child process, caps its address space, and samples its RSS every 100 ms
// until stop; past rssKill the watchdog kills it.
func startWatched(t *testing.T, args ...string) *watched {
	t.Helper()
	in := startInstance(t, args...)
	w := &watched{instance: in, started: time.Now(), stopMon: make(chan struct{}), monDone: make(chan struct{})}
	if m := keyRE.FindStringSubmatch(in.out.String()); m != nil {
		w.key = m[1]
	}
	if m := dashRE.FindStringSubmatch(in.out.String()); m != nil {
		w.password = m[3]
	}
	if w.key == "" {
		t.Fatalf("server printed no API key:\n%s", in.out)
	}
	if err := setAddressSpaceLimit(in.cmd.Process.Pid, asLimit); err != nil {
		t.Logf("no address-space limit on the server (%v); the RSS watchdog alone protects the machine", err)
	}
	go w.monitor()
	t.Cleanup(func() {
		w.stopMonitor()
		in.kill()
	})
	return w
}

// setAddressSpaceLimit sets RLIMIT_AS of process pid (prlimit(2)).
func setAddressSpaceLimit(pid int, limit uint64) error {
	lim := syscall.Rlimit{Cur: limit, Max: limit}
	_, _, e := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, uintptr(pid), uintptr(syscall.RLIMIT_AS), uintptr(unsafe.Pointer(&lim)), 0, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

// procStatus reads a kB field of /proc/pid/status in bytes.
func procStatus(pid int, field string) (int64, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

func (w *watched) monitor() {
	defer close(w.monDone)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	pid := w.cmd.Process.Pid
	for {
		rss, err := procStatus(pid, "VmRSS")
		if err == nil {
			w.mu.Lock()
			w.samples = append(w.samples, rssSample{time.Since(w.started), rss})
			w.mu.Unlock()
			if rss > rssKill && !w.exceeded.Load() {
				w.exceeded.Store(true)
				w.cmd.Process.Signal(syscall.SIGKILL)
			}
		}
		select {
		case <-w.stopMon:
			return
		case <-w.exited:
			return
		case <-tick.C:
		}
	}
}

func (w *watched) stopMonitor() {
	select {
	case <-w.stopMon:
	default:
		close(w.stopMon)
	}
	<-w.monDone
}

// alive reports whether the server process still runs.
func (w *watched) alive() bool {
	select {
	case <-w.exited:
		return false
	default:
		return true
	}
}

// stop reads the server's VmHWM, then shuts it down with SIGTERM (SIGKILL
// after 40 s) and waits for it.
func (w *watched) stop() {
	if hwm, err := procStatus(w.cmd.Process.Pid, "VmHWM"); err == nil && w.alive() {
		w.mu.Lock()
		w.hwm = hwm
		w.mu.Unlock()
	}
	w.stopMonitor()
	w.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-w.exited:
	case <-time.After(40 * time.Second):
		w.kill()
	}
}

// peak returns the peak RSS: VmHWM when stop read it, else the highest
// sample, and how it was measured.
func (w *watched) peak() (int64, string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var max int64
	for _, s := range w.samples {
		max = max2(max, s.rss)
	}
	switch {
	case w.exceeded.Load():
		return max, "EXCEEDED: killed by the watchdog at " + mb(max) + " (limit " + mb(rssKill) + ")"
	case w.hwm > 0:
		return w.hwm, "VmHWM"
	}
	return max, "highest VmRSS sample (the server exited before VmHWM was read)"
}

func max2(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

// curve summarises the RSS samples: the highest in each tenth of the run.
func (w *watched) curve() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.samples) == 0 {
		return "no samples"
	}
	end := w.samples[len(w.samples)-1].at
	const buckets = 10
	var peaks [buckets]int64
	for _, s := range w.samples {
		i := int(int64(s.at) * buckets / int64(end+1))
		peaks[i] = max2(peaks[i], s.rss)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d samples over %s, highest VmRSS per tenth:", len(w.samples), end.Round(time.Second))
	for _, p := range peaks {
		b.WriteString(" " + mb(p))
	}
	return b.String()
}

// mb formats bytes in MB.
func mb(n int64) string { return fmt.Sprintf("%.0fMB", float64(n)/(1<<20)) }

// answer is what one request got.
type answer struct {
	status     int
	size       int64
	head       []byte
	retryAfter string
	location   string
	sum        [32]byte
	err        error
	took       time.Duration
}

// hostileClient is the suite's HTTP client: no redirects followed, long
// timeout (every wait is bounded by it or a context).
func hostileClient(t *testing.T) *http.Client {
	tr := &http.Transport{MaxIdleConnsPerHost: 16, DisableCompression: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 4 * time.Minute,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// call sends one request and reads the whole answer, keeping its first
// headKeep bytes and its SHA-256. Errors are returned in the answer, so
// call is safe from any goroutine.
func call(ctx context.Context, c *http.Client, method, url string, hdr http.Header, body io.Reader) answer {
	start := time.Now()
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return answer{err: err}
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	resp, err := c.Do(req)
	if err != nil {
		return answer{err: err, took: time.Since(start)}
	}
	defer resp.Body.Close()
	a := answer{status: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After"), location: resp.Header.Get("Location")}
	h := sha256.New()
	var head bytes.Buffer
	a.size, a.err = io.Copy(io.MultiWriter(h, &limitedBuffer{b: &head, n: headKeep}), resp.Body)
	a.head = head.Bytes()
	copy(a.sum[:], h.Sum(nil))
	a.took = time.Since(start)
	return a
}

// limitedBuffer keeps the first n bytes written to it and discards the
// rest.
type limitedBuffer struct {
	b *bytes.Buffer
	n int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.n - l.b.Len(); room > 0 {
		l.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// withKey returns headers carrying the API key and a content type.
func withKey(key, contentType string) http.Header {
	h := http.Header{}
	if key != "" {
		h.Set("X-API-Key", key)
	}
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	return h
}

// apiEnvelope is the error body of the API.
type apiEnvelope struct {
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Status  int    `json:"status"`
		Field   string `json:"field"`
	} `json:"error"`
}

// envelope parses a's body as the error envelope and returns what is wrong
// with it ("" when it is a whole envelope repeating the status).
func (a answer) envelope() (apiEnvelope, string) {
	var e apiEnvelope
	if a.size > errorAnswerMax {
		return e, fmt.Sprintf("error answer of %d bytes", a.size)
	}
	if err := json.Unmarshal(a.head, &e); err != nil || e.Error == nil {
		return e, fmt.Sprintf("no error envelope: %.200q", a.head)
	}
	if e.Error.Code == "" || e.Error.Message == "" || e.Error.Status != a.status {
		return e, fmt.Sprintf("incomplete envelope: %.200s", a.head)
	}
	return e, ""
}

// refusalProblem says what is wrong with a as an answer of a loaded
// server: "" for 200/202, for 503 unavailable with Retry-After and for 429
// rate_limited, all with the envelope; anything else is a problem.
func (a answer) refusalProblem() string {
	if a.err != nil {
		return "transport error: " + a.err.Error()
	}
	switch a.status {
	case http.StatusOK, http.StatusAccepted:
		return ""
	case http.StatusServiceUnavailable, http.StatusTooManyRequests:
		e, p := a.envelope()
		if p != "" {
			return p
		}
		if a.retryAfter == "" {
			return fmt.Sprintf("%d without Retry-After", a.status)
		}
		if want := map[int]string{503: "unavailable", 429: "rate_limited"}[a.status]; e.Error.Code != want {
			return fmt.Sprintf("%d with code %q, want %q", a.status, e.Error.Code, want)
		}
		return ""
	}
	return fmt.Sprintf("status %d: %.200s", a.status, a.head)
}

// hostilePageProblem says what is wrong with a as the answer to a page
// analysis of a hostile page: it must be 200 under pageAnswerMax, a 4xx
// with the envelope, or a proper refusal.
func (a answer) hostilePageProblem() string {
	if a.err != nil {
		return "transport error: " + a.err.Error()
	}
	switch {
	case a.status == http.StatusOK:
		if a.size > pageAnswerMax {
			return fmt.Sprintf("answer of %d bytes, over %d", a.size, pageAnswerMax)
		}
		return ""
	case a.status >= 400 && a.status < 500 && a.status != http.StatusTooManyRequests:
		_, p := a.envelope()
		return p
	}
	return a.refusalProblem()
}

// statusCounts renders answers' statuses as "200x3 503x1".
func statusCounts(as []answer) string {
	n := map[string]int{}
	for _, a := range as {
		k := strconv.Itoa(a.status)
		if a.err != nil {
			k = "err"
		}
		n[k]++
	}
	keys := make([]string, 0, len(n))
	for k := range n {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%sx%d", k, n[k]))
	}
	return strings.Join(parts, " ")
}

// sizes renders answers' body sizes in KB, and times.
func sizes(as []answer) string {
	var parts []string
	for _, a := range as {
		parts = append(parts, fmt.Sprintf("%.0fKB/%.1fs", float64(a.size)/1024, a.took.Seconds()))
	}
	return strings.Join(parts, " ")
}

// table formats rows as aligned columns.
func table(header string, rows [][]string) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
	return b.String()
}

// jobState is the part of GET /v1/analyze/site/{id} the suite reads.
type jobState struct {
	ID     string          `json:"id"`
	Status string          `json:"status"`
	Error  string          `json:"error"`
	Result json.RawMessage `json:"result"`
	// Progress is absent from a finished job's answer on some servers.
	Progress *struct {
		PagesDone int `json:"pagesDone"`
		Queued    int `json:"queued"`
	} `json:"progress"`
}

// progress renders the job's progress, if known.
func (js jobState) progress() string {
	if js.Progress == nil {
		return ""
	}
	return fmt.Sprintf(", %d pages done, %d queued", js.Progress.PagesDone, js.Progress.Queued)
}

// waitJob polls GET /v1/analyze/site/{id} once a second until the job is
// done, the deadline passes or the server dies, and returns the last
// answer and state.
func waitJob(ctx context.Context, c *http.Client, w *watched, key, id string, deadline time.Time) (answer, jobState) {
	var (
		a  answer
		js jobState
	)
	for {
		a = call(ctx, c, "GET", w.base+"/v1/analyze/site/"+id, withKey(key, ""), nil)
		js = jobState{}
		if a.err == nil && a.status == http.StatusOK {
			json.Unmarshal(a.head, &js) // a result over headKeep leaves Status from the head unparsed
			if js.Status == "" {
				js.Status = statusOf(a.head)
			}
		}
		if store.JobStatus(js.Status).Done() || !w.alive() || time.Now().After(deadline) || ctx.Err() != nil {
			return a, js
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// statusOf finds "status":"..." in a truncated job answer.
func statusOf(head []byte) string {
	for _, s := range []store.JobStatus{store.JobQueued, store.JobRunning, store.JobSucceeded, store.JobFailed, store.JobCanceled} {
		if bytes.Contains(head, []byte(`"status":"`+string(s)+`"`)) {
			return string(s)
		}
	}
	return ""
}
