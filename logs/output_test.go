package logs

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestOutputsDefuseLogText checks that text from a hostile log line can
// neither drive a terminal through WriteText nor run as a spreadsheet
// formula through WriteCSV.
func TestOutputsDefuseLogText(t *testing.T) {
	line := "192.0.2.1 - - [01/Nov/2026:08:00:00 +0000] \"GET =HYPERLINK(\\\"x\\\")\x1b[2J\u202e HTTP/1.1\" 200 1 \"-\" \"Googlebot/2.1\"\n"
	rep, err := Analyze(context.Background(), []Input{Reader("evil", strings.NewReader(line))}, nil)
	if err != nil || rep.Requests != 1 {
		t.Fatalf("requests %d, err %v", rep.Requests, err)
	}
	var text, csv bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(text.String(), "\x1b\u202e") || !strings.Contains(text.String(), `\x1b[2J\u202e`) {
		t.Errorf("text output keeps control characters:\n%q", text.String())
	}
	if err := rep.WriteCSV(&csv); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(csv.String(), "\n\"'=HYPERLINK(") {
		t.Errorf("CSV does not defuse the formula:\n%s", csv.String())
	}
}
