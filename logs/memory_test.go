package logs

import (
	"context"
	"flag"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

// memLines sizes TestMemoryBound; the default keeps the test quick, and
//
//	go test ./logs -run TestMemoryBound -v -logs.lines=5000000
//
// runs the multi-million-line proof.
var memLines = flag.Int("logs.lines", 300_000, "lines of the generated log of TestMemoryBound")

// liveHeap returns the heap bytes held by live objects as of the last GC.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestMemoryBound streams a generated log of -logs.lines lines, every bot
// line for a URL of its own (the hostile case: distinct URLs without end),
// bots verified against local range files and a DNS server on loopback,
// and samples the live heap every 100,000 lines. The peak must stay under
// EstimateMemory, the tracked URLs at MaxURLs, every verdict count must
// match the generator's known answers (spoofed Googlebot hits are not
// Googlebot's), and the distinct-URL estimates must be within three
// standard errors of the true counts.
func TestMemoryBound(t *testing.T) {
	lines := *memLines
	d := verifyDNS(t)
	opts := &Options{ProgressLines: 100_000,
		Verifier: NewVerifier(&VerifierOptions{Resolver: NewDNSResolver(d.addr), Ranges: DirRanges("testdata/ranges"), LookupTimeout: 10 * time.Second})}
	runtime.GC()
	base := liveHeap()
	var peak uint64
	samples := 0
	opts.Progress = func(Progress) {
		runtime.GC() // live heap of this moment, not of the last cycle
		samples++
		peak = max(peak, liveHeap())
	}
	start := time.Now()
	rep, err := Analyze(context.Background(), []Input{Reader("gen", newGenLog(lines, true))}, opts)
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Requests != int64(lines) {
		t.Fatalf("requests = %d, want %d", rep.Requests, lines)
	}
	used := int64(peak) - int64(base)
	bound := EstimateMemory(opts)
	t.Logf("%d lines in %v (%.0f lines/s); live heap peak %.1f MiB above a %.1f MiB baseline over %d samples; bound %.1f MiB",
		lines, elapsed.Round(time.Millisecond), float64(lines)/elapsed.Seconds(), float64(used)/(1<<20), float64(base)/(1<<20), samples, float64(bound)/(1<<20))
	if samples < lines/100_000 {
		t.Fatalf("only %d heap samples", samples)
	}
	if used > bound {
		t.Fatalf("live heap peak %d bytes above the bound %d", used, bound)
	}
	if rep.URLsTracked != 50_000 || rep.Verification.Lookups != 2 {
		t.Fatalf("URLs tracked = %d, want the cap 50000; DNS verifications %d, want 2 (one per Googlebot address)", rep.URLsTracked, rep.Verification.Lookups)
	}
	// Four of the six generated agents are bots; each bot line has its own
	// URL. Agent 0 is Googlebot from an address its reverse DNS verifies,
	// agent 1 Googlebot from one it does not, agent 2 GPTBot inside
	// OpenAI's ranges, agent 3 ClaudeBot (no published method).
	var per [6]int64
	for i := range lines {
		per[i%len(genAgents)]++
	}
	botLines := per[0] + per[1] + per[2] + per[3]
	want := Totals{Hits: int64(lines), BotHits: botLines, VerifiedHits: per[0] + per[2], SpoofedHits: per[1], UnverifiableHits: per[3]}
	got := rep.Totals
	got.Bytes, got.RobotsFetches = 0, 0
	if got != want {
		t.Fatalf("totals %+v, want %+v", got, want)
	}
	for _, b := range rep.Bots {
		var w [3]int64 // hits, spoofed, distinct URLs
		switch b.Bot.Token {
		case "Googlebot":
			w = [3]int64{per[0], per[1], per[0]}
		case "GPTBot":
			w = [3]int64{per[2], 0, per[2]}
		case "ClaudeBot":
			w = [3]int64{per[3], 0, per[3]}
		default:
			t.Fatalf("unexpected bot %s", b.Bot.Token)
		}
		if b.Hits != w[0] || b.Spoofed != w[1] || relErr(b.DistinctURLs.Value, w[2]) > 3*DistinctError {
			t.Fatalf("%s: hits %d, spoofed %d, distinct URLs ~%d; want %d, %d, %d", b.Bot.Token, b.Hits, b.Spoofed, b.DistinctURLs.Value, w[0], w[1], w[2])
		}
	}
	// Spoofed hits are not tracked: only the other bots' URLs are.
	wantOther := botLines - per[1] - 50_000
	other := rep.OtherURLs.URLs.Value
	if relErr(other, wantOther) > 3*DistinctError || !rep.OtherURLs.URLs.Approximate {
		t.Fatalf("other URLs estimate %d, true %d (allowed error %.2f%%)", other, wantOther, 300*DistinctError)
	}
	t.Logf("other URLs: estimate %d, true %d (%.2f%% off); %d DNS verifications", other, wantOther, 100*float64(other-wantOther)/float64(wantOther), opts.Verifier.Lookups())
	perURL := float64(used) / 50_000
	t.Logf("about %.0f bytes per tracked URL (model: %d)", perURL, memPerURL)
}

func relErr(got, want int64) float64 {
	if want == 0 {
		return float64(got)
	}
	e := float64(got-want) / float64(want)
	if e < 0 {
		return -e
	}
	return e
}
