package httpapi

import (
	"mime"
	"net/http"
	"strconv"

	"github.com/seokit/seokit/httpapi/service"
)

// uploadLog serves POST /v1/projects/{id}/logs: the body is the log file
// (plain or gzip), streamed to the spool; the query names it and its
// format.
func (s *Server) uploadLog(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		switch {
		case err != nil:
			s.fail(w, r, invalid("Content-Type", "Content-Type does not parse"))
			return
		case mt == "application/json" || mt == "multipart/form-data" || mt == "application/x-www-form-urlencoded":
			s.fail(w, r, invalid("Content-Type", "send the log file itself as the body (text/plain, application/gzip or application/octet-stream), not "+strconv.Quote(clip(mt))))
			return
		}
	}
	req := service.LogUpload{Name: q.Get("name"), Format: q.Get("format"), LogFormat: q.Get("logFormat"), Size: r.ContentLength}
	if v := q.Get("stripQuery"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			s.fail(w, r, invalid("stripQuery", "stripQuery must be true or false"))
			return
		}
		req.StripQuery = b
	}
	req.Receive = service.ReceiveFor(w)
	v, err := s.Logs().Upload(ctx, principal(ctx).AccountID, r.PathValue("id"), req, r.Body)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Location", v.Links.Self)
	writeJSON(w, http.StatusAccepted, v)
}

// listLogs serves GET /v1/projects/{id}/logs.
func (s *Server) listLogs(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	limit, ok := s.queryLimit(w, r, 20)
	if !ok {
		return
	}
	out, err := s.Logs().List(ctx, principal(ctx).AccountID, r.PathValue("id"), limit)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, service.LogJobList{Logs: out})
}

// getLog serves GET /v1/projects/{id}/logs/{lid}: the upload and, once
// parsed, its report.
func (s *Server) getLog(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	v, res, err := s.Logs().Get(ctx, principal(ctx).AccountID, r.PathValue("id"), r.PathValue("lid"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if res == nil {
		writeJSON(w, http.StatusOK, v)
		return
	}
	// The report is copied into the answer, not read whole first: Get
	// checked its recorded length against resultCap.
	s.writeWithResult(w, r, v.ID, v, res)
}

// logList serves GET /v1/projects/{id}/logs/{lid}/lists/{list}: one page
// of a list of the report.
func (s *Server) logList(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	limit, ok := s.queryLimit(w, r, 50)
	if !ok {
		return
	}
	offset := 0
	if v := r.URL.Query().Get("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			s.fail(w, r, invalid("offset", "offset must be a non-negative integer"))
			return
		}
		offset = n
	}
	pg, err := s.Logs().Page(ctx, principal(ctx).AccountID, r.PathValue("id"), r.PathValue("lid"), r.PathValue("list"), offset, limit)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, pg)
}

// queryLimit reads the limit query parameter (1 to service.MaxList), def
// when absent; a bad one is answered 400.
func (s *Server) queryLimit(w http.ResponseWriter, r *http.Request, def int) (int, bool) {
	v := r.URL.Query().Get("limit")
	if v == "" {
		return def, true
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > service.MaxList {
		s.fail(w, r, invalid("limit", "limit must be an integer from 1 to "+strconv.Itoa(service.MaxList)))
		return 0, false
	}
	return n, true
}
