package main

import (
	"bufio"
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// TestRunShort runs the load for about two seconds with four connections
// over a small table: zero 5xx, both targets served requests, and every
// figure is printed. The latency and ratio thresholds are not asserted
// here: a short run on a busy machine says little about them.
func TestRunShort(t *testing.T) {
	if testing.Short() {
		t.Skip("load test skipped in -short mode")
	}
	var out bytes.Buffer
	res, err := Run(context.Background(), Config{Duration: 2 * time.Second, Connections: 4, Keywords: 3000, Dir: t.TempDir()}, &out)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	for _, s := range []Stats{res.Baseline, res.Authed} {
		if s.Requests == 0 || s.Throughput <= 0 {
			t.Errorf("%s: no requests measured: %+v", s.Name, s)
		}
		if s.Status2xx != s.Requests || s.Status429 != 0 {
			t.Errorf("%s: %d 2xx and %d 429 of %d: the default run must measure the success path", s.Name, s.Status2xx, s.Status429, s.Requests)
		}
		if s.Status5xx != 0 || s.Non2xx != 0 || s.Errors != 0 {
			t.Errorf("%s: %d 5xx, %d non-2xx, %d transport errors", s.Name, s.Status5xx, s.Non2xx, s.Errors)
		}
		if s.P50 <= 0 || s.P50 > s.P90 || s.P90 > s.P99 || s.P99 > s.Max {
			t.Errorf("%s: percentiles out of order: %+v", s.Name, s)
		}
	}
	if res.Ratio <= 0 {
		t.Errorf("ratio %v", res.Ratio)
	}
	for _, want := range []string{"keyword table: 3000 synthetic keywords", "req/s", "p50", "p99", "2xx", "429", "5xx", "non-2xx",
		res.Baseline.Name, res.Authed.Name, "throughput ratio authenticated/baseline: "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestRunRateLimited: with a low account rate the authenticated target's
// answers are mostly 429, counted apart from the 2xx, and the 2xx are at
// most what the bucket allowed over the run.
func TestRunRateLimited(t *testing.T) {
	if testing.Short() {
		t.Skip("load test skipped in -short mode")
	}
	var out bytes.Buffer
	start := time.Now()
	res, err := Run(context.Background(), Config{Duration: time.Second, Connections: 2, Keywords: 1000, Dir: t.TempDir(), AccountRate: 2, AccountBurst: 5}, &out)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	a := res.Authed
	// The bucket: 5 at once, then 2 a second over the whole run
	// (warm-up included, bounded by the time since the start).
	allowed := 5 + int(2*time.Since(start).Seconds()) + 1
	if a.Status429 == 0 || a.Status2xx > allowed || a.Status2xx+a.Status429 != a.Requests || a.Status5xx != 0 {
		t.Errorf("authenticated: %d 2xx (at most %d allowed), %d 429, %d 5xx of %d requests", a.Status2xx, allowed, a.Status429, a.Status5xx, a.Requests)
	}
	if !strings.Contains(out.String(), "account rate 2/s, burst 5") {
		t.Errorf("output does not name the account rate:\n%s", out.String())
	}
}

// TestGenerate checks the synthetic table: distinct, labelled rows.
func TestGenerate(t *testing.T) {
	kws, queries := generate(100_000)
	if len(kws) != 100_000 {
		t.Fatalf("%d keywords", len(kws))
	}
	seen := map[string]bool{}
	for _, k := range kws {
		if seen[k.Keyword] {
			t.Fatalf("duplicate %q", k.Keyword)
		}
		seen[k.Keyword] = true
		if k.Source != "loadtest-synthetic" || !k.Estimated || *k.Difficulty < 0 || *k.Difficulty > 100 || *k.Volume < 0 {
			t.Fatalf("bad row %+v", k)
		}
	}
	if len(queries) != 2*len(heads) {
		t.Errorf("%d queries", len(queries))
	}
	if _, err := Run(context.Background(), Config{Duration: 0, Connections: 4}, &bytes.Buffer{}); err == nil {
		t.Error("zero duration accepted")
	}
}

func TestReadResponse(t *testing.T) {
	tests := []struct {
		name      string
		raw       string
		code      int
		close     bool
		wantError bool
	}{
		{"ok", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 3\r\n\r\n{}\n", 200, false, false},
		{"503 envelope", "HTTP/1.1 503 Service Unavailable\r\ncontent-length: 2\r\nRetry-After: 5\r\n\r\n{}", 503, false, false},
		{"connection close", "HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", 400, true, false},
		{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", 0, false, true},
		{"no length", "HTTP/1.1 200 OK\r\n\r\n{}", 0, false, true},
		{"bad length", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", 0, false, true},
		{"short body", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{}", 0, false, true},
		{"bad status line", "HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n", 0, false, true},
		{"not http", "SSH-2.0-OpenSSH\r\n", 0, false, true},
		{"header without colon", "HTTP/1.1 200 OK\r\nbroken\r\n\r\n", 0, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, closeAfter, err := readResponse(bufio.NewReader(strings.NewReader(tc.raw)))
			if (err != nil) != tc.wantError {
				t.Fatalf("err = %v, want error: %v", err, tc.wantError)
			}
			if !tc.wantError && (code != tc.code || closeAfter != tc.close) {
				t.Errorf("got %d close=%v, want %d close=%v", code, closeAfter, tc.code, tc.close)
			}
		})
	}
	// Two answers back to back on one connection.
	br := bufio.NewReader(strings.NewReader("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nabcdHTTP/1.1 429 Too Many Requests\r\nContent-Length: 1\r\n\r\nx"))
	for _, want := range []int{200, 429} {
		if code, _, err := readResponse(br); err != nil || code != want {
			t.Fatalf("got %d, %v; want %d", code, err, want)
		}
	}
}
