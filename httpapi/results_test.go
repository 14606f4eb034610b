package httpapi

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
	"github.com/seokit/seokit/seo"
)

// bombRow returns a stored result row (sqlstore's format: its marker and
// a gzip stream) that inflates to mib MiB of zeros from about a kilobyte
// per MiB, its gzip trailer recording claim bytes.
func bombRow(mib int, claim uint32) []byte {
	var block bytes.Buffer
	fw, _ := flate.NewWriter(&block, flate.BestCompression)
	fw.Write(make([]byte, 1<<20))
	fw.Flush()
	var out bytes.Buffer
	out.WriteString("\x00seokit-gzip\x00")
	out.Write([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255})
	for range mib {
		out.Write(block.Bytes())
	}
	return binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(out.Bytes(), 0), claim)
}

// TestStoredResultBomb serves a job whose stored row is a gzip bomb that
// inflates to 1 GiB: whether its trailer admits it (refused before any
// decompression) or lies (the copy stops at the length it records), the
// heap allocated while serving it stays far below what it inflates to, and
// the client never gets a short report as a whole one.
func TestStoredResultBomb(t *testing.T) {
	a := newTestAPI(t, nil)
	db := a.st.(*sqlstore.Store).DB()
	rep := &crawler.SiteReport{Domain: "example.com", StartURL: "https://example.com/"}
	rep.StatusCodes, rep.Findings, rep.SiteFindings, rep.LinkFindings, rep.Pages = map[int]int{}, []crawler.FindingGroup{}, []seo.Finding{}, []seo.Finding{}, []crawler.PageSummary{}
	rep.Crawl.DepthHistogram = []int{}
	rep.Graph.OrphanCheck = crawler.OrphanCheckNoSitemap
	id := a.storeSiteJob(a.acct.ID, "example.com", store.JobSucceeded, rep, time.Now().UTC())

	// The row as written is served whole.
	var j struct {
		Result crawler.SiteReport `json:"result"`
	}
	resp := a.call("GET", "/v1/analyze/site/"+id, a.key, "")
	wantStatus(t, resp, 200)
	readJSON(t, resp, &j)
	if j.Result.Domain != "example.com" {
		t.Fatalf("result %+v, want the stored report", j.Result)
	}

	const inflated = 1024 // MiB
	cap := a.srv.resultCap()
	for _, tc := range []struct {
		name  string
		claim uint32
	}{
		{"trailer admits more than the cap", uint32(cap) + 1},
		{"trailer claims 256 KiB", 256 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			row := bombRow(inflated, tc.claim)
			if _, err := db.ExecContext(context.Background(), `UPDATE jobs SET result = ? WHERE id = ?`, row, id); err != nil {
				t.Fatal(err)
			}
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			resp, err := a.send(a.req("GET", "/v1/analyze/site/"+id, a.key, ""))
			var body []byte
			if err == nil {
				body, err = io.ReadAll(resp.Body)
				resp.Body.Close()
			}
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("row of %d bytes inflating to %d MiB, trailer %d bytes: allocated %.1f MiB while serving it (cap %d MiB)",
				len(row), inflated, tc.claim, float64(alloc)/(1<<20), cap>>20)
			if alloc > 32<<20 {
				t.Errorf("serving the bomb allocated %d bytes, want under 32 MiB", alloc)
			}
			switch {
			case tc.claim > uint32(cap):
				if err != nil || resp.StatusCode != 500 {
					t.Fatalf("GET = %v, %v; want 500 internal", resp, err)
				}
				var env struct {
					Error *Error `json:"error"`
				}
				if json.Unmarshal(body, &env) != nil || env.Error == nil || env.Error.Code != CodeInternal {
					t.Errorf("body %.200s, want the internal error envelope", body)
				}
			default:
				// The status was sent before the stream turned out
				// longer than its row records: the answer is cut.
				if err == nil {
					t.Fatalf("GET = %d with %d bytes, want a broken answer", resp.StatusCode, len(body))
				}
			}
		})
	}
}
