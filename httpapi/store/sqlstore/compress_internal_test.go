package sqlstore

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/store"
)

func TestPackResult(t *testing.T) {
	report := []byte(`{"domain":"example.com","pages":[` + strings.Repeat(`{"url":"https://example.com/a","title":"A page"},`, 2000) + `{}]}`)
	tests := []struct {
		name string
		in   []byte
	}{
		{"none", nil},
		{"tiny", []byte(`{}`)},
		{"report", report},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			packed, err := packResult(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if len(tt.in) == 0 {
				if packed != nil {
					t.Fatalf("packResult(empty) = %q, want nil", packed)
				}
				return
			}
			if !bytes.HasPrefix(packed, []byte(resultMarker)) {
				t.Fatalf("packed result lacks the marker: %q", packed[:min(20, len(packed))])
			}
			if len(tt.in) > 10_000 && len(packed)*5 > len(tt.in) {
				t.Errorf("packed %d bytes into %d; want at least five to one", len(tt.in), len(packed))
			}
			got, err := unpackResult(packed)
			if err != nil || !bytes.Equal(got, tt.in) {
				t.Fatalf("unpackResult = %d bytes, %v; want the %d bytes packed", len(got), err, len(tt.in))
			}
			r, err := openResult(packed)
			if err != nil {
				t.Fatal(err)
			}
			streamed, err := io.ReadAll(r)
			r.Close()
			if err != nil || !bytes.Equal(streamed, tt.in) {
				t.Fatalf("openResult = %d bytes, %v; want the %d bytes packed", len(streamed), err, len(tt.in))
			}
		})
	}
}

// bomb returns a stored result whose gzip stream inflates to about n MiB
// of zeros from a few kilobytes: one flushed block repeated (its trailer
// is never reached).
func bomb(t *testing.T, n int) []byte {
	t.Helper()
	var block bytes.Buffer
	fw, _ := flate.NewWriter(&block, flate.BestCompression)
	fw.Write(make([]byte, 1<<20))
	fw.Flush()
	var out bytes.Buffer
	out.WriteString(resultMarker)
	// A gzip header (no name, no flags) before the raw deflate blocks.
	out.Write([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255})
	for range n {
		out.Write(block.Bytes())
	}
	return out.Bytes()
}

func TestUnpackCapped(t *testing.T) {
	const max = 4 << 20
	exact, _ := packResult(bytes.Repeat([]byte("a"), max))
	tests := []struct {
		name    string
		stored  []byte
		want    int   // bytes returned
		wantErr error // nil: any error or none as wantAny says
		wantAny bool  // an error of any kind
	}{
		{"old row", []byte(`{"pages":[]}`), 12, nil, false},
		{"exactly the cap", exact, max, nil, false},
		{"zip bomb", bomb(t, 64), 0, errResultTooLarge, true},
		{"corrupt", append([]byte(resultMarker), "not gzip"...), 0, nil, true},
		{"truncated", exact[:len(exact)/2], 0, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := unpackCapped(tt.stored, max)
			if tt.wantAny != (err != nil) || tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("unpackCapped = %d bytes, %v; want error %v (any: %v)", len(got), err, tt.wantErr, tt.wantAny)
			}
			if err == nil && len(got) != tt.want {
				t.Fatalf("unpackCapped = %d bytes, want %d", len(got), tt.want)
			}
		})
	}
	// At the real cap: a bomb whose trailer records more than the cap is
	// refused before anything is decompressed; one whose trailer records
	// less than it inflates to fails at that length, never later.
	if _, err := openResult(bomb(t, store.MaxJobResultBytes>>20+1)); !errors.Is(err, errResultTooLarge) {
		t.Fatalf("open bomb = %v, want %v", err, errResultTooLarge)
	}
	for _, claim := range []uint32{1 << 20, 3<<20 + 7} {
		lying := binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(bomb(t, 64), 0), claim)
		r, err := openResult(lying)
		if err != nil {
			t.Fatal(err)
		}
		n, err := io.Copy(io.Discard, r)
		r.Close()
		if !errors.Is(err, errResultTooLarge) || n != int64(claim) {
			t.Fatalf("streamed bomb claiming %d bytes: %d bytes, %v; want %d bytes then %v", claim, n, err, claim, errResultTooLarge)
		}
		if got, err := unpackCapped(lying, store.MaxJobResultBytes); !errors.Is(err, errResultTooLarge) {
			t.Fatalf("unpackCapped(bomb claiming %d bytes) = %d bytes, %v; want %v", claim, len(got), err, errResultTooLarge)
		}
	}
}

// TestOldResultRows reads results written before compression, and checks
// that new ones are stored compressed.
func TestOldResultRows(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := Open(ctx, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a := &store.Account{Email: "old@example.com", Name: "Old", Plan: store.Free}
	if err := s.CreateAccount(ctx, a); err != nil {
		t.Fatal(err)
	}
	old := []byte(`{"domain":"example.com","pages":[{"url":"https://example.com/"}]}`)
	j := &store.Job{AccountID: a.ID, Kind: "site", Status: store.JobSucceeded}
	if err := s.CreateJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	// As the release before compression wrote it.
	if _, err := s.db.ExecContext(ctx, s.db.Q(`UPDATE jobs SET result = ? WHERE id = ?`), old, j.ID); err != nil {
		t.Fatal(err)
	}
	got, err := s.Job(ctx, a.ID, j.ID)
	if err != nil || !bytes.Equal(got.Result, old) {
		t.Fatalf("Job = %+v, %v; want the old result", got, err)
	}
	_, res, err := s.JobResult(ctx, a.ID, j.ID)
	if err != nil || res == nil {
		t.Fatalf("JobResult: %v, %v", res, err)
	}
	r, _ := res.Open()
	streamed, _ := io.ReadAll(r)
	if !bytes.Equal(streamed, old) {
		t.Fatalf("JobResult streamed %q, want %q", streamed, old)
	}

	// A new result is stored compressed.
	n := &store.Job{AccountID: a.ID, Kind: "site", Status: store.JobSucceeded, Result: bytes.Repeat(old, 100)}
	if err := s.CreateJob(ctx, n); err != nil {
		t.Fatal(err)
	}
	var raw []byte
	if err := s.db.QueryRowContext(ctx, s.db.Q(`SELECT result FROM jobs WHERE id = ?`), n.ID).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(raw, []byte(resultMarker)) || bytes.Contains(raw, []byte("example.com")) || len(raw) > len(n.Result)/5 {
		t.Fatalf("stored result (%d bytes for %d) is not compressed: %q", len(raw), len(n.Result), raw[:min(40, len(raw))])
	}
	if zr, err := gzip.NewReader(bytes.NewReader(raw[len(resultMarker):])); err != nil {
		t.Fatalf("stored result is not gzip after the marker: %v", err)
	} else {
		zr.Close()
	}
}
