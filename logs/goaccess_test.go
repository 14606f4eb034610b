package logs

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

var withGoAccess = flag.Bool("logs.goaccess", false, "run TestThroughputAgainstGoAccess (needs Debian's goaccess)")

// TestThroughputAgainstGoAccess writes a generated combined log of
// -logs.lines lines to disk, parses it with GoAccess (Debian's goaccess,
// a C log analyser, JSON output) and with Analyze (bots classified and
// verified against local range files and a DNS server on loopback), and
// prints the lines per second of each, by wall and by CPU time, and the
// ratios. It fails only when a side fails; the figures are the result.
//
//	go test ./logs -run TestThroughputAgainstGoAccess -v -logs.goaccess -logs.lines=5000000
func TestThroughputAgainstGoAccess(t *testing.T) {
	if !*withGoAccess {
		t.Skip("-logs.goaccess not given")
	}
	bin, err := exec.LookPath("goaccess")
	if err != nil {
		// Asked for by name: a missing goaccess is a failure, not a skip.
		t.Fatalf("-logs.goaccess given, but goaccess is not installed (apt-get install goaccess): %v", err)
	}
	version, err := goaccessVersion(bin)
	if err != nil {
		t.Fatal(err)
	}
	lines := *memLines
	path := filepath.Join(t.TempDir(), "access.log")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	g := newGenLog(lines, false)
	buf := make([]byte, 0, 1<<20)
	for g.i < g.n {
		buf = g.appendLine(buf[:0], g.i)
		g.i++
		for g.i < g.n && len(buf) < 1<<20-1024 {
			buf = g.appendLine(buf, g.i)
			g.i++
		}
		if _, err := f.Write(buf); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)

	// Warm the page cache so that neither side pays for the disk.
	if _, err := os.ReadFile(path); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, path, "--log-format=COMBINED", "--no-global-config", "-o", filepath.Join(t.TempDir(), "out.json"))
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("goaccess: %v\n%s", err, out)
	}
	gaWall := time.Since(start)
	gaCPU := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()

	d := verifyDNS(t)
	opts := &Options{Verifier: NewVerifier(&VerifierOptions{Resolver: NewDNSResolver(d.addr), Ranges: DirRanges("testdata/ranges"), LookupTimeout: 10 * time.Second})}
	cpu0 := cpuTime()
	start = time.Now()
	rep, err := Analyze(context.Background(), []Input{File(path)}, opts)
	skWall := time.Since(start)
	skCPU := cpuTime() - cpu0
	if err != nil || rep.Requests != int64(lines) || rep.Totals.SpoofedHits == 0 {
		t.Fatalf("seokit: %v, %d requests, totals %+v", err, rep.Requests, rep.Totals)
	}
	rate := func(d time.Duration) float64 { return float64(lines) / d.Seconds() }
	t.Logf("%d lines, %.1f MB", lines, float64(fi.Size())/1e6)
	t.Logf("goaccess %s: %.0f lines/s wall (%v), %.0f lines/CPU-s (%v)", version, rate(gaWall), gaWall.Round(time.Millisecond), rate(gaCPU), gaCPU.Round(time.Millisecond))
	t.Logf("seokit (classified, verified): %.0f lines/s wall (%v), %.0f lines/CPU-s (%v)", rate(skWall), skWall.Round(time.Millisecond), rate(skCPU), skCPU.Round(time.Millisecond))
	t.Logf("seokit / goaccess: %.2f by wall time, %.2f by CPU time", gaWall.Seconds()/skWall.Seconds(), gaCPU.Seconds()/skCPU.Seconds())
}

// goaccessVersionRE finds the version in the first line of
// `goaccess --version` ("GoAccess - 1.7.").
var goaccessVersionRE = regexp.MustCompile(`GoAccess - ([0-9][0-9A-Za-z.-]*[0-9A-Za-z])`)

// goaccessVersion returns the version the goaccess binary at bin reports.
func goaccessVersion(bin string) (string, error) {
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w\n%s", bin, err, out)
	}
	m := goaccessVersionRE.FindSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("%s --version: no version in %q", bin, out)
	}
	return string(m[1]), nil
}
