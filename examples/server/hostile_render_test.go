//go:build linux

package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/render/chromium"
)

// The hostile pages of the rendering suite. The memory bombs allocate from
// their first script, before the page can settle: 12 ArrayBuffers of
// 256 MiB, each filled so that its pages are resident; the V8 heap without
// end, in arrays of a million numbers; a WebAssembly memory grown to 3 GiB, 64 MiB at a time, filled.
var renderBombs = []struct{ name, path, body string }{
	{"ArrayBuffer 12 x 256 MiB", "/arraybuffer", `<!doctype html><title>ab</title><script>
const keep = [];
for (let i = 0; i < 12; i++) { const a = new Uint8Array(256 << 20); a.fill(1); keep.push(a); }
</script>`},
	{"V8 heap without end", "/heap", `<!doctype html><title>heap</title><script>
const keep = [];
for (let i = 0; ; i++) keep.push(new Array(1 << 20).fill(i));
</script>`},
	{"wasm Memory.grow to 3 GiB", "/wasm", `<!doctype html><title>wasm</title><script>
const mem = new WebAssembly.Memory({initial: 1, maximum: 49152});
for (let pages = 1; pages + 1024 <= 49152; pages += 1024) { mem.grow(1024); new Uint8Array(mem.buffer, pages << 16).fill(1); }
</script>`},
}

// hugeDOM builds 2,000,000 nodes; busyWorkers starts 64 Web Workers that
// loop without end and keeps the page loading (a request the server holds
// for busyHold) so that they run that long.
const (
	hugeDOM = `<!doctype html><title>huge</title><body><script>
for (let i = 0; i < 2000000; i++) { const d = document.createElement("div"); d.textContent = "n" + i; document.body.appendChild(d); }
</script>`
	busyWorkers = `<!doctype html><title>workers</title><body><p>busy<script>
const src = URL.createObjectURL(new Blob(["for (;;) {}"], {type: "text/javascript"}));
for (let i = 0; i < 64; i++) new Worker(src);
fetch("/hold");
</script>`
	busyHold = 8 * time.Second
)

// requireChromium skips the test visibly without a browser, and fails it
// when SEOKIT_REQUIRE_SERVERS=1.
func requireChromium(t *testing.T) {
	t.Helper()
	names := chromium.ExecNames
	if v := os.Getenv("SEOKIT_CHROMIUM"); v != "" {
		names = []string{v}
	}
	for _, n := range names {
		if _, err := exec.LookPath(n); err == nil {
			return
		}
	}
	msg := "SKIP: no Chromium for the rendering suite (looked for $SEOKIT_CHROMIUM and " + strings.Join(names, ", ") + ")"
	if os.Getenv("SEOKIT_REQUIRE_SERVERS") == "1" {
		t.Fatal("SEOKIT_REQUIRE_SERVERS=1: " + msg)
	}
	t.Skip(msg)
}

// treePSS is the summed PSS of pid's descendants (pid itself left out),
// read from /proc (RSS where PSS cannot be read).
func treePSS(pid int) int64 {
	entries, _ := os.ReadDir("/proc")
	children := map[int][]int{}
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(st)
		if i := strings.LastIndexByte(s, ')'); i >= 0 {
			if f := strings.Fields(s[i+1:]); len(f) > 1 {
				pp, _ := strconv.Atoi(f[1])
				children[pp] = append(children[pp], n)
			}
		}
	}
	var total int64
	queue := slices.Clone(children[pid])
	for len(queue) > 0 {
		n := queue[0]
		queue = append(queue[1:], children[n]...)
		if v, err := procKBField(n, "smaps_rollup", "Pss:"); err == nil {
			total += v
		} else if v, err := procStatus(n, "VmRSS"); err == nil {
			total += v
		}
	}
	return total
}

// procKBField reads a kB field of /proc/pid/file in bytes.
func procKBField(pid int, file, field string) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/" + file)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field); ok {
			if f := strings.Fields(v); len(f) > 0 {
				kb, err := strconv.ParseInt(f[0], 10, 64)
				return kb << 10, err
			}
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/%s", field, pid, file)
}

var renderReasonRE = regexp.MustCompile(`"render":\{[^{}]*?"reason":"([^"]*)"`)

// renderState is the render state a page answer reports, or what went
// wrong.
func renderState(a answer) string {
	if a.err != nil {
		return "error: " + a.err.Error()
	}
	if a.status != http.StatusOK {
		return fmt.Sprintf("status %d: %.200s", a.status, a.head)
	}
	if m := renderReasonRE.FindSubmatch(a.head); m != nil {
		return string(m[1])
	}
	if bytes.Contains(a.head, []byte(`"rendered":true`)) {
		return "rendered"
	}
	return fmt.Sprintf("no render state in %.300s", a.head)
}

var renderTimingRE = regexp.MustCompile(`"elapsedMs":(\d+),"timedOut":(true|false)`)

// renderTiming is the rendering's own time and whether its budget ended
// it, as the answer reports them.
func renderTiming(a answer) string {
	if m := renderTimingRE.FindSubmatch(a.head); m != nil {
		return fmt.Sprintf(" (rendering %s ms, timed out: %s)", m[1], m[2])
	}
	return ""
}

// latencyP99 is the 99th percentile of ds.
func latencyP99(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[(len(s)*99+99)/100-1]
}

// TestHostileRender runs the server with its default rendering envelope
// against hostile pages: three memory bombs at once from two Free accounts
// (the Chromium tree's peak PSS must stay under the browser's memory
// limit, and each bomb must be reported "not rendered: memory limit"), a
// 2,000,000-node DOM (answered within the rendering budget and its grace),
// and a page of 64 busy Web Workers while /healthz is polled (the page
// answered within its budget and grace; the /healthz p99 printed, and
// under a second).
func TestHostileRender(t *testing.T) {
	skipHostile(t)
	requireChromium(t)
	mux := http.NewServeMux()
	for _, b := range renderBombs {
		mux.Handle(b.path, htmlHandler(b.body))
	}
	mux.Handle("/huge", htmlHandler(hugeDOM))
	mux.Handle("/workers", htmlHandler(busyWorkers))
	mux.HandleFunc("/hold", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(busyHold):
		case <-r.Context().Done():
		}
	})
	site := serve(t, mux)
	_, db := dbArgs(t)
	srv := startWatched(t, append(db, "-allow-private")...)
	if !strings.Contains(srv.out.String(), "rendering available") {
		t.Fatalf("the server did not start its renderer:\n%s", srv.out)
	}
	for _, line := range strings.Split(srv.out.String(), "\n") {
		if strings.Contains(line, "rendering") || strings.Contains(line, "sandbox") {
			t.Logf("server: %s", line)
		}
	}
	pid := srv.cmd.Process.Pid
	c := hostileClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	keys := []string{freeKey(t, db[:2], "free1@example.com"), freeKey(t, db[:2], "free2@example.com")}
	analyze := func(key, path string) answer {
		return call(ctx, c, "POST", srv.base+"/v1/analyze/page", withKey(key, "application/json"),
			strings.NewReader(`{"url":"`+site.URL+path+`","options":{"render":"always"}}`))
	}

	// The three bombs at once, two from the first account (its
	// concurrency), one from the second, while the tree is sampled.
	var peak int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			peak = max(peak, treePSS(pid))
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	answers := make([]answer, len(renderBombs))
	var wg sync.WaitGroup
	for i, b := range renderBombs {
		wg.Go(func() { answers[i] = analyze(keys[i%2], b.path) })
	}
	wg.Wait()
	close(stop)
	<-sampled
	limit := int64(chromium.DefaultMaxBrowserMemory)
	t.Logf("Chromium tree peak PSS while the three bombs rendered: %s (limit %s)", mb(peak), mb(limit))
	if peak >= limit {
		t.Errorf("the Chromium tree reached %s of PSS, the limit is %s", mb(peak), mb(limit))
	}
	for i, b := range renderBombs {
		st := renderState(answers[i])
		t.Logf("%-26s %s in %s", b.name+":", st, answers[i].took.Round(time.Millisecond))
		if st != "not rendered: memory limit" {
			t.Errorf("%s: reported %q, want \"not rendered: memory limit\" (answer %.1500s)", b.name, st, answers[i].head)
		}
	}

	// The 2,000,000-node DOM: the answer comes within the rendering
	// budget and its grace (plus the raw fetch and analysis).
	a := analyze(keys[1], "/huge")
	t.Logf("2,000,000-node DOM: %s in %s", renderState(a), a.took.Round(time.Millisecond))
	if a.status != http.StatusOK || a.took > 35*time.Second {
		t.Errorf("2,000,000-node DOM: status %d after %s, want 200 within 35 s (20 s budget, 5 s grace)", a.status, a.took)
	}

	// /healthz while nothing renders, then while the busy workers page
	// renders.
	health := func(until func() bool) []time.Duration {
		var ds []time.Duration
		for !until() && ctx.Err() == nil {
			h := call(ctx, c, "GET", srv.base+"/healthz", nil, nil)
			if h.err == nil && h.status == http.StatusOK {
				ds = append(ds, h.took)
			}
			time.Sleep(50 * time.Millisecond)
		}
		return ds
	}
	idleEnd := time.Now().Add(2 * time.Second)
	idle := health(func() bool { return time.Now().After(idleEnd) })
	done := make(chan answer, 1)
	go func() { done <- analyze(keys[0], "/workers") }()
	var wa answer
	busy := health(func() bool {
		select {
		case wa = <-done:
			return true
		default:
			return false
		}
	})
	if wa.status == 0 && wa.err == nil {
		wa = <-done
	}
	t.Logf("64 busy workers: %s in %s%s", renderState(wa), wa.took.Round(time.Millisecond), renderTiming(wa))
	t.Logf("/healthz p99: %s idle (%d requests), %s while the 64 busy workers page rendered (%d requests)",
		latencyP99(idle).Round(time.Millisecond), len(idle), latencyP99(busy).Round(time.Millisecond), len(busy))
	if m := renderTimingRE.FindSubmatch(wa.head); m != nil {
		if ms, _ := strconv.Atoi(string(m[1])); ms > 26000 {
			t.Errorf("the workers page rendered for %d ms, beyond its 20 s budget and 5 s grace", ms)
		}
	} else {
		t.Errorf("64 busy workers: no rendering in the answer: %s", renderState(wa))
	}
	if len(busy) < 20 {
		t.Errorf("only %d /healthz answers while the workers page rendered", len(busy))
	}
	if p := latencyP99(busy); p > time.Second {
		t.Errorf("/healthz p99 %s while the workers page rendered, want under 1 s", p)
	}
	if !srv.alive() {
		t.Fatalf("the server died:\n%s", srv.out)
	}
}

// htmlHandler answers body as HTML.
func htmlHandler(body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(body))
	})
}
