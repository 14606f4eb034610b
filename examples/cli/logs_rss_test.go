package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/seokit/seokit/internal/racetest"
	"github.com/seokit/seokit/logs"
)

// pipeAgents are the clients of the piped log: verified and spoofed
// Googlebot, GPTBot in its ranges, ClaudeBot (unverifiable) and browsers.
var pipeAgents = []struct{ ip, ua string }{
	{"66.249.64.5", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"},
	{"203.0.113.9", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"},
	{"20.15.240.70", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)"},
	{"198.51.100.9", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)"},
	{"192.0.2.10", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"},
	{"192.0.2.11", "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1"},
}

// TestLogsPipePeakRSS streams SEOKIT_LOGS_PIPE_GB gigabytes of a generated
// combined log (every line a URL of its own: the hostile case for the
// URL table) through a pipe into the built `cli logs -format json -`, never
// storing it, and prints the lines per second and the process's peak
// resident set (getrusage of the child), which must stay under 300 MB.
// Without the variable it pipes a quarter of a gigabyte (about 1.4 million
// lines, past the URL table's cap 28 times over) in seconds, and under the
// race detector, which slows the writer here (the child is built without
// it), 64 MiB (350,000 lines); SEOKIT_LOGS_PIPE_GB=10 is the ten-gigabyte
// run. -short skips it.
func TestLogsPipePeakRSS(t *testing.T) {
	gb := 0.25
	if racetest.Enabled {
		gb = 1.0 / 16
	}
	if s := os.Getenv("SEOKIT_LOGS_PIPE_GB"); s != "" {
		var err error
		if gb, err = strconv.ParseFloat(s, 64); err != nil || gb <= 0 {
			t.Fatalf("SEOKIT_LOGS_PIPE_GB=%q: want a positive number of gigabytes", s)
		}
	} else if testing.Short() {
		t.Skipf("-short: builds the command line and pipes %.2f GB through it", gb)
	}
	bin := filepath.Join(t.TempDir(), "cli")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "logs", "-format", "json", "-quiet", "-ranges", "testdata/logs/ranges", "-dns", "127.0.0.1:9", "-")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	want := int64(gb * (1 << 30))
	var sent, lines int64
	werr := make(chan error, 1)
	go func() {
		w := bufio.NewWriterSize(stdin, 1<<20)
		t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
		var b []byte
		for sent < want {
			a := pipeAgents[lines%int64(len(pipeAgents))]
			b = append(b[:0], a.ip...)
			b = append(b, " - - ["...)
			b = t0.Add(time.Duration(lines/100)*time.Second).AppendFormat(b, "02/Jan/2006:15:04:05 -0700")
			b = append(b, "] \"GET /item/"...)
			b = strconv.AppendInt(b, lines, 10)
			b = append(b, " HTTP/1.1\" 200 "...)
			b = strconv.AppendInt(b, 1000+lines%5000, 10)
			b = append(b, " \"-\" \""...)
			b = append(b, a.ua...)
			b = append(b, "\"\n"...)
			if _, err := w.Write(b); err != nil {
				werr <- err
				return
			}
			sent += int64(len(b))
			lines++
		}
		werr <- errors.Join(w.Flush(), stdin.Close())
	}()
	var rep logs.Report
	derr := json.NewDecoder(stdout).Decode(&rep)
	io.Copy(io.Discard, stdout)
	if err := <-werr; err != nil {
		t.Fatalf("writing the log: %v", err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("cli logs: %v", err)
	}
	elapsed := time.Since(start)
	if derr != nil {
		t.Fatalf("report: %v", derr)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		t.Fatal("no rusage")
	}
	peak := ru.Maxrss << 10 // KiB on Linux
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	if rep.Lines != lines || rep.Requests != lines {
		t.Errorf("report counts %d lines, %d requests; %d were sent", rep.Lines, rep.Requests, lines)
	}
	t.Logf("cli logs: %.2f GB (%d lines) piped in %v: %.0f lines/s, %.1f MB/s; CPU %v (%.0f lines per CPU second); peak RSS %.1f MB; %d URLs tracked, %d hits on other URLs",
		float64(sent)/1e9, lines, elapsed.Round(time.Millisecond), float64(lines)/elapsed.Seconds(), float64(sent)/1e6/elapsed.Seconds(),
		cpu.Round(time.Millisecond), float64(lines)/cpu.Seconds(), float64(peak)/1e6, rep.URLsTracked, rep.OtherURLs.Hits)
	if peak > 300e6 {
		t.Errorf("peak RSS %.1f MB, over 300 MB", float64(peak)/1e6)
	}
}
