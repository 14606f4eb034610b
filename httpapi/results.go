package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
)

// resultSlack is how much larger than the report cap its crawls run with
// (crawler.Options.MaxReportBytes) a stored report may be: the crawler
// fits its report by estimated sizes.
const resultSlack = 4

// errResultOverCap is the cause of a stored report larger than resultCap:
// a corrupt or hostile row, never one the server wrote.
var errResultOverCap = errors.New("httpapi: the stored report is larger than the server's report cap")

// resultCap is the largest report JSON the server stores and serves:
// resultSlack times the report cap of its crawls (CrawlerOptions'
// MaxReportBytes, crawler.DefaultMaxReportBytes by default), at most
// store.MaxJobResultBytes. A run whose report is larger fails instead of
// storing it, and a stored row that claims more is refused before it is
// decompressed.
func (s *Server) resultCap() int {
	max := int64(crawler.DefaultMaxReportBytes)
	if o := s.opts.CrawlerOptions; o != nil && o.MaxReportBytes > 0 {
		max = o.MaxReportBytes
	}
	return int(min(resultSlack*max, store.MaxJobResultBytes))
}

// getJob serves GET /v1/analyze/site/{id}, the report written by
// writeWithResult; the service checked its recorded length against
// resultCap.
func (s *Server) getJob(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := r.PathValue("id")
	view, res, err := s.Analyses().Get(ctx, principal(ctx).AccountID, id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if res == nil {
		writeJSON(w, http.StatusOK, view)
		return
	}
	s.writeWithResult(w, r, id, view, res)
}

// writeWithResult answers view, a JSON object without its "result", with
// the stored report res of job id as its "result": the report is copied
// from its stored row (compressed, with store.JobResults) into the answer
// without being decoded or held whole. The caller checked its recorded
// length against resultCap before anything is decompressed.
func (s *Server) writeWithResult(w http.ResponseWriter, r *http.Request, id string, view any, res service.Result) {
	ctx := r.Context()
	size := res.Size()
	rc, err := res.Open()
	if err != nil {
		s.fail(w, r, fmt.Errorf("job %s: open stored report: %w", id, err))
		return
	}
	defer rc.Close()
	head, err := json.Marshal(view)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	const key = `,"result":`
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(head)-1+len(key)+size+2))
	w.WriteHeader(http.StatusOK)
	w.Write(head[:len(head)-1]) // without its closing brace
	w.Write([]byte(key))
	n, err := io.Copy(w, io.LimitReader(rc, int64(size)))
	if err == nil && n == int64(size) {
		// The stream must end at the length its row records.
		var one [1]byte
		if m, rerr := rc.Read(one[:]); m > 0 {
			err = errResultOverCap
		} else if !errors.Is(rerr, io.EOF) {
			err = rerr
		}
	}
	if err != nil || n != int64(size) {
		// The status is sent: cut the connection so the client sees a
		// broken answer, never a short report passed off as whole.
		s.log.ErrorContext(ctx, "stored report could not be served", "request_id", requestID(ctx), "job", id, "bytes", n, "want", size, "err", err)
		panic(http.ErrAbortHandler)
	}
	w.Write([]byte("}\n"))
}
