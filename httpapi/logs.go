package httpapi

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/seokit/seokit/crawler/compare"
	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/logs"
	"github.com/seokit/seokit/monitor"
	"github.com/seokit/seokit/seo"
	"github.com/seokit/seokit/seo/robotstxt"
)

// Log uploads: POST /v1/projects/{id}/logs streams a log file to the
// server's log spool (Options.LogDir), checking it as it goes (size cap of
// the plan, gzip bombs, binary data, a format that can be told), and
// stores a job of kind "logs" whose ID starts with logJobPrefix. The queue
// runs it through runJob like a site analysis; runLogJob parses the
// spooled file with package logs, joined with the project's latest
// succeeded site analysis, stores the report as the job's result and
// deletes the file.
//
// A log job has no ProjectID of its own (its project is in its request),
// so a project's analysis history, its retention count and its alert
// evaluation never see it; site-analysis lists and reads leave log jobs
// out.

// Kind and ID prefix of log jobs.
const (
	logJobKind   = "logs"
	logJobPrefix = "log_"
)

// DefaultMaxLogBytes caps an upload when the account's plan sets no cap
// (plans.Limits.MaxLogBytes zero, as with DisableAuth).
const DefaultMaxLogBytes = 1 << 30

// minLogUploadRate is the slowest upload of a log, in bytes per second,
// that the server waits for to the plan's size (the API's and the
// dashboard's, through service.LogUpload.Receive): an upload may take
// logUploadBase plus the plan's MaxLogBytes at this rate (Free's 20 MiB
// 80 s more, Pro's 2 GiB 2 h 16 min more), whatever the server's read
// timeout. An account has at most its plan's concurrent jobs in uploads
// being received (startSpool), so a slow upload holds a connection its
// own account pays for.
const minLogUploadRate = 256 << 10

// logUploadBase is the time an upload is given on top of its size at
// minLogUploadRate.
const logUploadBase = time.Minute

// logUploadTime is how long an upload of at most limit bytes may take
// (service.LogUpload.Receive).
func logUploadTime(limit int64) time.Duration {
	return logUploadBase + time.Duration(limit/minLogUploadRate)*time.Second
}

// logSniffBytes is how much of the decompressed log is checked for binary
// data and for its format before the rest is read.
const logSniffBytes = 64 << 10

// logRequest is the stored request of a log job.
type logRequest struct {
	ProjectID  string `json:"projectId"`
	Name       string `json:"name"`
	Format     string `json:"format"`
	LogFormat  string `json:"logFormat,omitempty"`
	StripQuery bool   `json:"stripQuery,omitempty"`
	Bytes      int64  `json:"bytes"`
}

// Logs returns the log files service.
func (s *Server) Logs() service.Logs { return logService{s} }

type logService struct{ s *Server }

// logDir is the spool directory of uploaded logs.
func (s *Server) logDir() string {
	if s.opts.LogDir != "" {
		return s.opts.LogDir
	}
	return filepath.Join(os.TempDir(), "seokit-logs")
}

func (s *Server) logPath(id string) string { return filepath.Join(s.logDir(), id+".log") }

// checkLogFormat validates the format and log format of an upload.
func checkLogFormat(req *service.LogUpload) error {
	if req.Format == "" {
		req.Format = string(logs.FormatAuto)
	}
	switch logs.Format(req.Format) {
	case logs.FormatAuto, logs.FormatCombined, logs.FormatCommon, logs.FormatW3C, logs.FormatJSON:
	case logs.FormatNginx:
		if req.LogFormat == "" {
			return invalid("logFormat", "format nginx needs logFormat, an nginx log_format string")
		}
	default:
		return invalid("format", "format must be auto, combined, common, w3c, json or nginx, not "+strconv.Quote(clip(req.Format)))
	}
	if req.LogFormat != "" {
		if _, err := logs.NewNginxParser(req.LogFormat); err != nil {
			return invalid("logFormat", "logFormat does not compile: "+strings.TrimPrefix(err.Error(), "logs: "))
		}
		if req.Format == string(logs.FormatAuto) {
			req.Format = string(logs.FormatNginx)
		}
	}
	switch {
	case len(req.Name) > 200:
		return invalid("name", "name must be at most 200 bytes")
	case !utf8.ValidString(req.Name):
		return invalid("name", "name is not valid UTF-8")
	case !auth.Displayable(req.Name):
		return invalid("name", "name must not contain control or bidirectional formatting characters")
	}
	if req.Name == "" {
		req.Name = "upload"
	}
	return nil
}

func (l logService) Upload(ctx context.Context, accountID, projectID string, req service.LogUpload, body io.Reader) (*service.LogJob, error) {
	s := l.s
	p, err := s.getProject(ctx, accountID, projectID, "")
	if err != nil {
		return nil, err
	}
	if err := checkLogFormat(&req); err != nil {
		return nil, err
	}
	plan, err := s.accountPlan(ctx, accountID)
	if err != nil {
		return nil, err
	}
	limit := plan.MaxLogBytes
	if limit <= 0 {
		limit = DefaultMaxLogBytes
	}
	if req.Size > limit {
		return nil, invalid("body", fmt.Sprintf("the log is %d bytes, more than the %d bytes this account's plan allows per upload", req.Size, limit))
	}
	if err := s.charge(ctx, accountID, 1); err != nil {
		return nil, err
	}
	maxJobs := max(plan.ConcurrentSiteJobs, 1)
	release, err := s.startSpool(ctx, accountID, maxJobs)
	if err != nil {
		return nil, err
	}
	defer release()
	if req.Receive != nil {
		req.Receive(logUploadTime(limit))
	}
	id := logJobPrefix + randomID(24)
	if err := os.MkdirAll(s.logDir(), 0o700); err != nil {
		return nil, fmt.Errorf("httpapi: log spool: %w", err)
	}
	path := s.logPath(id)
	n, err := spoolLog(ctx, path, body, limit, &req)
	if err != nil {
		os.Remove(path)
		return nil, err
	}
	now := s.now().UTC()
	lr := logRequest{ProjectID: p.ID, Name: req.Name, Format: req.Format, LogFormat: req.LogFormat, StripQuery: req.StripQuery, Bytes: n}
	raw, _ := json.Marshal(lr)
	j := &store.Job{ID: id, AccountID: accountID, Kind: logJobKind, Status: store.JobQueued, Request: raw, CreatedAt: now, UpdatedAt: now}
	err = s.st.CreateJobWithin(ctx, j, maxJobs)
	var le *store.LimitError
	if errors.As(err, &le) {
		os.Remove(path)
		return nil, jobsLimit(le.Count)
	}
	if err != nil {
		os.Remove(path)
		return nil, err
	}
	if err := s.queue.Enqueue(ctx, j); err != nil {
		s.log.Error("log parse not queued", "job", j.ID, "err", err)
		f := *j
		f.Status, f.Error, f.FinishedAt, f.UpdatedAt = store.JobFailed, "the job could not be queued", now, now
		if uerr := s.st.UpdateJob(context.WithoutCancel(ctx), &f); uerr != nil {
			s.log.Warn("unqueued log job left queued; it is queued at the next start", "job", j.ID, "err", uerr)
		} else {
			os.Remove(path)
		}
		return nil, outage(s.queue, "job queue", fmt.Errorf("httpapi: queue log parse: %w: %w", seo.ErrUnavailable, err))
	}
	v := s.logView(j)
	return &v, nil
}

// jobsLimit is the refusal of an upload when the account has n jobs
// (and uploads being received), its plan's concurrent jobs.
func jobsLimit(n int) error {
	return &service.LimitError{Message: "this account has " + strconv.Itoa(n) +
		" jobs (site analyses and log parses) queued or running or being uploaded, the most its plan allows at once; wait for one to end",
		RetryAfter: 30 * time.Second}
}

// startSpool admits one upload of the account before a byte of it is
// read: the account's uploads being received by this instance and its
// queued or running jobs together stay within maxJobs, its plan's
// concurrent jobs. Without it an account at its cap had each upload
// written to the spool (up to its plan's MaxLogBytes: 2 GiB on Pro) only
// to be refused at the end, and could have any number written at once,
// taking the disk every account's uploads share. The store's
// CreateJobWithin stays the authority across instances. The returned
// function ends the upload's hold.
func (s *Server) startSpool(ctx context.Context, accountID string, maxJobs int) (func(), error) {
	s.mu.Lock()
	n := s.spooling[accountID]
	if n >= maxJobs {
		s.mu.Unlock()
		return nil, jobsLimit(n)
	}
	if s.spooling == nil {
		s.spooling = map[string]int{}
	}
	s.spooling[accountID] = n + 1
	s.mu.Unlock()
	release := func() {
		s.mu.Lock()
		if s.spooling[accountID] <= 1 {
			delete(s.spooling, accountID)
		} else {
			s.spooling[accountID]--
		}
		s.mu.Unlock()
	}
	active, err := s.st.ActiveJobs(ctx, accountID)
	if err != nil {
		release()
		return nil, err
	}
	if active+n >= maxJobs {
		release()
		return nil, jobsLimit(active + n)
	}
	return release, nil
}

// countingWriter counts what is written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// spoolLog copies body to path, at most limit bytes, while checking what
// it decompresses to: at most service.LogExpansion times limit, text in
// its first logSniffBytes, and a format that can be told when req asks
// for auto. It returns the bytes stored. Refusals name "body" or
// "format".
func spoolLog(ctx context.Context, path string, body io.Reader, limit int64, req *service.LogUpload) (int64, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return 0, fmt.Errorf("httpapi: log spool: %w", err)
	}
	defer f.Close()
	fw := bufio.NewWriterSize(f, 256<<10)
	cw := &countingWriter{w: fw}
	// The sent bytes go to the file as they are read, whatever reads them.
	in := bufio.NewReaderSize(io.TeeReader(io.LimitReader(body, limit+1), cw), 64<<10)
	var plain io.Reader = in
	magic, _ := in.Peek(2)
	gz := len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b
	if gz {
		zr, err := gzip.NewReader(in)
		if err != nil {
			return 0, invalid("body", "the log starts as gzip but is not a valid gzip stream")
		}
		plain = zr
	}
	over := func() error {
		return invalid("body", fmt.Sprintf("the log is larger than the %d bytes this account's plan allows per upload", limit))
	}
	head := make([]byte, logSniffBytes)
	n, err := readUpTo(plain, head)
	head = head[:n]
	if err != nil && err != io.EOF {
		if cw.n > limit {
			return 0, over()
		}
		return 0, readLogError(err, gz)
	}
	if len(bytes.TrimSpace(head)) == 0 {
		return 0, invalid("body", "the log is empty")
	}
	if binaryData(head) {
		return 0, invalid("body", "the log is not text: its first bytes hold binary data (send a plain or gzip access log)")
	}
	if req.Format == string(logs.FormatAuto) {
		lines := strings.Split(string(head), "\n")
		if len(lines) > 1 && n == logSniffBytes {
			lines = lines[:len(lines)-1] // the last may be cut
		}
		lines = lines[:min(len(lines), 20)]
		if f, _ := logs.Sniff(lines); f == logs.FormatAuto {
			return 0, invalid("format", "the log's format cannot be told from its first lines; give format (combined, common, w3c, json, or nginx with logFormat)")
		}
	}
	// Read the rest, so that every byte sent is stored and a gzip
	// stream is checked whole: a bomb stops at the expansion cap.
	maxPlain := limit * service.LogExpansion
	total := int64(n)
	buf := make([]byte, 256<<10)
	for err == nil {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		var m int
		m, err = plain.Read(buf)
		total += int64(m)
		if cw.n > limit {
			return 0, over()
		}
		if total > maxPlain {
			return 0, invalid("body", fmt.Sprintf("the log decompresses to more than %d bytes (%d times its cap as sent): refused as a gzip bomb", maxPlain, service.LogExpansion))
		}
	}
	if err != io.EOF {
		if cw.n > limit {
			return 0, over()
		}
		return 0, readLogError(err, gz)
	}
	if gz {
		// What follows the gzip stream is read too, so it is counted.
		if _, err := io.Copy(io.Discard, in); err != nil {
			return 0, readLogError(err, false)
		}
	}
	if cw.n > limit {
		return 0, over()
	}
	if err := fw.Flush(); err != nil {
		return 0, fmt.Errorf("httpapi: log spool: %w", err)
	}
	if err := f.Close(); err != nil {
		return 0, fmt.Errorf("httpapi: log spool: %w", err)
	}
	return cw.n, nil
}

// readUpTo reads into buf until it is full or r fails; err is r's error
// (io.EOF at the end), nil when buf was filled.
func readUpTo(r io.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// readLogError is the refusal of an upload that could not be read.
func readLogError(err error, gz bool) error {
	if gz && (errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) || errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(err.Error(), "flate")) {
		return invalid("body", "the log's gzip stream is corrupt or cut short: "+clip(err.Error()))
	}
	var fe *service.FieldError
	if errors.As(err, &fe) {
		return err
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return invalid("body", "the upload ended early")
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return invalid("body", fmt.Sprintf("the upload did not arrive in the time the server waits for it: %d KiB/s at least, for a log of the plan's size",
			minLogUploadRate>>10))
	}
	return invalid("body", "the log could not be read: "+clip(err.Error()))
}

// binaryData reports whether b holds a NUL byte or more than 1% control
// characters other than tab, CR and LF: not a text log.
func binaryData(b []byte) bool {
	ctl := 0
	for _, c := range b {
		switch {
		case c == 0:
			return true
		case c < 0x20 && c != '\t' && c != '\n' && c != '\r', c == 0x7f:
			ctl++
		}
	}
	return ctl*100 > len(b)
}

// logJob reads the account's log job of the project; another kind of job,
// or another project's upload, is not found.
func (s *Server) logJob(ctx context.Context, accountID, projectID, id string) (*store.Job, service.Result, *logRequest, error) {
	nf := &service.NotFoundError{Message: "no log upload " + strconv.Quote(clip(id)) + " in project " + strconv.Quote(clip(projectID))}
	if !strings.HasPrefix(id, logJobPrefix) {
		return nil, nil, nil, nf
	}
	var (
		j   *store.Job
		res service.Result
		err error
	)
	if jr, ok := s.st.(store.JobResults); ok {
		var sr store.StoredResult
		j, sr, err = jr.JobResult(ctx, accountID, id)
		if sr != nil {
			res = sr
		}
	} else {
		j, err = s.st.Job(ctx, accountID, id)
		if err == nil && len(j.Result) > 0 {
			res = bytesResult(j.Result)
		}
	}
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, nil, nf
	}
	if err != nil {
		return nil, nil, nil, err
	}
	var lr logRequest
	if j.Kind != logJobKind || json.Unmarshal(j.Request, &lr) != nil || lr.ProjectID != projectID {
		return nil, nil, nil, nf
	}
	if j.Status != store.JobSucceeded {
		res = nil
	}
	return j, res, &lr, nil
}

// logView is the API's view of a log job.
func (s *Server) logView(j *store.Job) service.LogJob {
	var lr logRequest
	json.Unmarshal(j.Request, &lr)
	v := service.LogJob{ID: j.ID, ProjectID: lr.ProjectID, Status: string(j.Status), Name: lr.Name, Format: lr.Format,
		LogFormat: lr.LogFormat, StripQuery: lr.StripQuery, Bytes: lr.Bytes, CreatedAt: j.CreatedAt.UTC(),
		Error: j.Error,
		Links: service.JobLinks{Self: s.opts.BasePath + "/v1/projects/" + lr.ProjectID + "/logs/" + j.ID}}
	if !j.StartedAt.IsZero() {
		v.StartedAt = j.StartedAt.UTC()
	}
	if !j.FinishedAt.IsZero() {
		v.FinishedAt = j.FinishedAt.UTC()
	}
	if len(j.Progress) > 0 {
		var p service.LogProgress
		if json.Unmarshal(j.Progress, &p) == nil {
			v.Progress = &p
		}
	}
	if len(j.Summary) > 0 {
		var sum service.LogSummary
		if json.Unmarshal(j.Summary, &sum) == nil {
			v.Summary, v.CrawlJob = &sum, sum.CrawlJob
		}
	}
	return v
}

func (l logService) Get(ctx context.Context, accountID, projectID, id string) (*service.LogJob, service.Result, error) {
	if _, err := l.s.getProject(ctx, accountID, projectID, ""); err != nil {
		return nil, nil, err
	}
	j, res, _, err := l.s.logJob(ctx, accountID, projectID, id)
	if err != nil {
		return nil, nil, err
	}
	v := l.s.logView(j)
	if res != nil && res.Size() > l.s.resultCap() {
		return nil, nil, fmt.Errorf("log job %s: %w (its row records %d bytes, cap %d)", id, errResultOverCap, res.Size(), l.s.resultCap())
	}
	return &v, res, nil
}

func (l logService) List(ctx context.Context, accountID, projectID string, limit int) ([]service.LogJob, error) {
	if limit < 1 || limit > service.MaxList {
		return nil, invalid("limit", "limit must be an integer from 1 to "+strconv.Itoa(service.MaxList))
	}
	if _, err := l.s.getProject(ctx, accountID, projectID, ""); err != nil {
		return nil, err
	}
	js, err := l.s.st.Jobs(ctx, accountID, service.MaxLogScan)
	if err != nil {
		return nil, err
	}
	out := []service.LogJob{}
	for i := range js {
		if js[i].Kind != logJobKind {
			continue
		}
		v := l.s.logView(&js[i])
		if v.ProjectID != projectID {
			continue
		}
		out = append(out, v)
		if len(out) == limit {
			break
		}
	}
	return out, nil
}

// maxLogReportBytes caps a log report decoded whole: reports are bounded
// by the analysis's caps (TopURLs, MaxDays...) to a few MB; a stored one
// recorded as larger is refused before it is read.
const maxLogReportBytes = 64 << 20

// Memory a read of a stored log report reserves, in bytes per byte of
// stored report JSON, while the decoded report is in use: the stored bytes
// as read and the report's strings, maps and slices (logReportDecodeFactor,
// a list page: Logs.Page), and with the report's HTML written into a page
// buffer (logReportHTMLFactor, Logs.Report, which the dashboard's report
// page calls). TestLogReportAdmission measures what each allocates for a
// report whose lists are full to the parse's caps (276,573 bytes): 4.95
// and 9.65 bytes per report byte; it fails when one allocates more than
// its factor.
const (
	logReportDecodeFactor = 6
	logReportHTMLFactor   = 12
)

// readLogReport decodes the stored report res of a log upload of
// accountID, and returns the func the caller calls once done with the
// report. The decode is admitted as a report read (KindReport), as the
// decodes of whole site reports are: one at a time per account (a second
// is 429 at once) and factor times the stored size reserved from the
// memory budget until done. Without it one account's requests could decode
// any number of its largest reports at once, outside the budget every
// account's work shares.
func (s *Server) readLogReport(ctx context.Context, accountID, id string, res service.Result, factor int64) (*logs.Report, func(), error) {
	size := res.Size()
	if size > maxLogReportBytes {
		return nil, nil, fmt.Errorf("log job %s: %w (its row records %d bytes, cap %d)", id, errResultOverCap, size, maxLogReportBytes)
	}
	done, err := s.adm.acquireSlot(ctx, KindReport, accountID, int64(size)*factor, false)
	if err != nil {
		return nil, nil, err
	}
	rep, err := decodeLogReport(res)
	if err != nil {
		done()
		return nil, nil, fmt.Errorf("log job %s: stored report: %w", id, err)
	}
	return rep, done, nil
}

// decodeLogReport decodes the stored report res. It reads the report into
// one buffer of its stored size: a json.Decoder grows its buffer by
// doubling, copying the report each time.
func decodeLogReport(res service.Result) (*logs.Report, error) {
	rc, err := res.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b := make([]byte, res.Size())
	if _, err := io.ReadFull(rc, b); err != nil {
		return nil, err
	}
	var rep logs.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, err
	}
	return &rep, nil
}

func (l logService) Report(ctx context.Context, accountID, projectID, id string) (*service.LogJob, *logs.Report, func(), error) {
	return l.report(ctx, accountID, projectID, id, logReportHTMLFactor)
}

// report is Report reserving factor times the stored report's size.
func (l logService) report(ctx context.Context, accountID, projectID, id string, factor int64) (*service.LogJob, *logs.Report, func(), error) {
	v, res, err := l.Get(ctx, accountID, projectID, id)
	if err != nil {
		return nil, nil, nil, err
	}
	if res == nil {
		return v, nil, func() {}, nil
	}
	rep, done, err := l.s.readLogReport(ctx, accountID, id, res, factor)
	if err != nil {
		return nil, nil, nil, err
	}
	return v, rep, done, nil
}

func (l logService) Page(ctx context.Context, accountID, projectID, id, list string, offset, limit int) (*service.LogPage, error) {
	known := false
	for _, n := range service.LogLists {
		known = known || n == list
	}
	if !known {
		return nil, invalid("list", "list must be one of "+strings.Join(service.LogLists, ", "))
	}
	if offset < 0 {
		return nil, invalid("offset", "offset must not be negative")
	}
	if limit < 1 || limit > service.MaxList {
		return nil, invalid("limit", "limit must be an integer from 1 to "+strconv.Itoa(service.MaxList))
	}
	_, rep, done, err := l.report(ctx, accountID, projectID, id, logReportDecodeFactor)
	if err != nil {
		return nil, err
	}
	defer done()
	if rep == nil {
		return nil, &service.ConflictError{Message: "log upload " + id + " has no report: its parse has not succeeded"}
	}
	return logPage(rep, list, offset, limit), nil
}

// logPage cuts one list of rep.
func logPage(rep *logs.Report, list string, offset, limit int) *service.LogPage {
	pg := &service.LogPage{List: list, Offset: offset, Limit: limit}
	var items any
	cut := func(n int) (int, int) {
		pg.Total = n
		lo := min(offset, n)
		return lo, min(lo+limit, n)
	}
	joinList := func(f func(j *logs.Join) *logs.URLList) {
		if rep.Join == nil {
			pg.Reason = "no crawl was joined: the project had no succeeded site analysis when the log was parsed"
			items = []logs.JoinURL{}
			return
		}
		ul := f(rep.Join)
		pg.Count, pg.Hits = &ul.URLs, &ul.Hits
		lo, hi := cut(len(ul.Sample))
		items = ul.Sample[lo:hi]
	}
	switch list {
	case "bots":
		lo, hi := cut(len(rep.Bots))
		items = rep.Bots[lo:hi]
	case "urls":
		lo, hi := cut(len(rep.URLs))
		items = rep.URLs[lo:hi]
	case "directories":
		lo, hi := cut(len(rep.Directories))
		items = rep.Directories[lo:hi]
	case "days":
		lo, hi := cut(len(rep.Days))
		items = rep.Days[lo:hi]
	case "malformed":
		lo, hi := cut(len(rep.MalformedSample))
		items = rep.MalformedSample[lo:hi]
		c := rep.Malformed
		pg.Count = &c
	case "orphans":
		joinList(func(j *logs.Join) *logs.URLList { return &j.Orphans })
	case "neverFetched":
		joinList(func(j *logs.Join) *logs.URLList { return &j.NeverFetched })
	case "nonIndexable":
		joinList(func(j *logs.Join) *logs.URLList { return &j.NonIndexable })
	case "redirecting":
		joinList(func(j *logs.Join) *logs.URLList { return &j.Redirecting })
	case "clientErrors":
		joinList(func(j *logs.Join) *logs.URLList { return &j.ClientErrors })
	case "serverErrors":
		joinList(func(j *logs.Join) *logs.URLList { return &j.ServerErrors })
	case "parameters":
		joinList(func(j *logs.Join) *logs.URLList { return &j.Parameters })
	case "disallowed":
		switch {
		case rep.Join == nil:
			pg.Reason = "no crawl was joined: the project had no succeeded site analysis when the log was parsed"
			items = []logs.Disallowed{}
		default:
			pg.Reason = rep.Join.DisallowedReason
			lo, hi := cut(len(rep.Join.Disallowed))
			items = rep.Join.Disallowed[lo:hi]
		}
	}
	pg.Items, _ = json.Marshal(items)
	if string(pg.Items) == "null" {
		pg.Items = json.RawMessage("[]")
	}
	return pg
}

// runLogJob is the work of a log job: it parses the spooled log and
// stores the report. wctx is the worker's context.
func (s *Server) runLogJob(wctx context.Context, accountID, id string) error {
	ctx, cancelStore := s.storeCtx(wctx)
	defer cancelStore()
	var j *store.Job
	if err := s.retry(ctx, "load job", func(ctx context.Context) (err error) {
		j, err = s.st.Job(ctx, accountID, id)
		return err
	}); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			os.Remove(s.logPath(id))
			return nil
		}
		return interrupted(id, err)
	}
	if j.Status.Done() {
		os.Remove(s.logPath(id))
		return nil
	}
	fail := func(msg string) error {
		j.Status, j.Error = store.JobFailed, msg
		return s.finishLogJob(ctx, j)
	}
	var lr logRequest
	if err := json.Unmarshal(j.Request, &lr); err != nil {
		return fail("the stored request cannot be read")
	}
	jctx, cancel := context.WithCancelCause(wctx)
	stopServer := context.AfterFunc(s.ctx, func() { cancel(context.Canceled) })
	s.mu.Lock()
	s.running[j.ID] = cancel
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.running, j.ID)
		s.mu.Unlock()
		stopServer()
		cancel(nil)
	}()
	now := s.now().UTC()
	if j.StartedAt.IsZero() {
		j.StartedAt = now
	}
	j.Status, j.UpdatedAt, j.Error = store.JobRunning, now, ""
	err := s.retry(ctx, "start job", func(ctx context.Context) error { return s.st.UpdateJob(ctx, j) })
	switch {
	case errors.Is(err, store.ErrConflict):
		os.Remove(s.logPath(id))
		return nil // canceled before it started
	case err != nil:
		return interrupted(j.ID, err)
	}
	path := s.logPath(j.ID)
	if _, err := os.Stat(path); err != nil {
		return fail("the uploaded log is not in this server's log spool (Options.LogDir); upload it again")
	}
	opts := &logs.Options{Format: logs.Format(lr.Format), LogFormat: lr.LogFormat, StripQuery: lr.StripQuery,
		Verifier: s.opts.LogVerifier, ProgressLines: 200_000, HashAddress: s.logAddressHasher(lr.ProjectID)}
	crawlJob := ""
	if src, jobID := s.latestCrawl(jctx, accountID, lr.ProjectID); src != nil {
		opts.Crawl, crawlJob = src, jobID
		opts.Robots = s.crawlRobots(jctx, src)
	}
	lastProgress := time.Time{}
	opts.Progress = func(p logs.Progress) {
		t := s.now()
		if t.Sub(lastProgress) < 2*time.Second && !p.Done {
			return
		}
		lastProgress = t
		j.Progress, _ = json.Marshal(service.LogProgress{Lines: p.Lines, BytesRead: p.InputRead, UpdatedAt: t.UTC()})
		j.UpdatedAt = t.UTC()
		if err := s.st.UpdateJob(ctx, j); errors.Is(err, store.ErrConflict) {
			cancel(errCanceledByUser)
		}
	}
	rep, err := logs.Analyze(jctx, []logs.Input{logs.File(path)}, opts)
	if jctx.Err() != nil {
		if errors.Is(context.Cause(jctx), errCanceledByUser) {
			os.Remove(path)
			return nil // the cancel stored the final state
		}
		if wctx.Err() != nil && errors.Is(wctx.Err(), context.DeadlineExceeded) {
			return fail("the log parse ran out of time")
		}
		return interrupted(j.ID, context.Cause(jctx)) // the server stops: run again
	}
	if err != nil {
		var ie *seo.InputError
		if errors.As(err, &ie) {
			return fail("the stored request is no longer valid: " + ie.Error())
		}
		return fail("the log could not be parsed: " + err.Error())
	}
	if len(rep.Inputs) == 1 {
		rep.Inputs[0].Name = lr.Name // never the spool's path
		if e := rep.Inputs[0].Error; e != "" {
			rep.Inputs[0].Error = strings.ReplaceAll(e, path, lr.Name)
		}
	}
	for i := range rep.MalformedSample {
		rep.MalformedSample[i].Input = lr.Name
	}
	res, err := json.Marshal(rep)
	if err != nil {
		return fail("the report could not be encoded")
	}
	if len(res) > store.MaxJobResultBytes {
		return fail("the report is larger than the server stores")
	}
	sum := service.LogSummary{Lines: rep.Lines, Requests: rep.Requests, Malformed: rep.Malformed, BotHits: rep.Totals.BotHits,
		VerifiedHits: rep.Totals.VerifiedHits, SpoofedHits: rep.Totals.SpoofedHits, Findings: len(rep.Findings), First: rep.First, Last: rep.Last,
		CrawlJob: crawlJob}
	j.Summary, _ = json.Marshal(sum)
	j.Result, j.Status = res, store.JobSucceeded
	if rep.Status != "complete" {
		j.Status, j.Error = store.JobFailed, "the log could not be read to its end: "+rep.Reason
	} else if err := s.logAlerts(ctx, j, lr.ProjectID, rep); err != nil && ctx.Err() == nil {
		// As with site analyses, the rules are evaluated before the final
		// state is stored; one that cannot be is logged, not retried.
		s.log.Warn("log alert rules not evaluated", "job", j.ID, "project", lr.ProjectID, "err", err)
	}
	err = s.finishLogJob(ctx, j)
	if err == nil {
		os.Remove(path)
	}
	return err
}

// logAlerts evaluates the project's bot_5xx_rising and bot_disallowed
// rules over a parsed log and stores a delivery per rule that fires.
func (s *Server) logAlerts(ctx context.Context, j *store.Job, projectID string, rep *logs.Report) error {
	rules, err := s.st.AlertRules(ctx, j.AccountID, projectID)
	if err != nil || len(rules) == 0 {
		return err
	}
	p, err := s.st.Project(ctx, j.AccountID, projectID)
	if err != nil {
		return err
	}
	links := s.alertLinks(projectID, "", "")
	links.Analysis = strings.TrimSuffix(s.opts.PublicURL, "/") + s.opts.BasePath + "/v1/projects/" + url.PathEscape(projectID) + "/logs/" + url.PathEscape(j.ID)
	in := &monitor.Input{Domain: p.Domain, Logs: rep, Links: links, Now: s.now()}
	for i := range rules {
		if k := monitor.Kind(rules[i].Kind); k != monitor.KindBotErrorsRising && k != monitor.KindBotDisallowed {
			continue
		}
		rule, err := monitor.ParseRule(rules[i].Kind, rules[i].Params)
		if err != nil {
			s.log.Warn("alert rule not valid", "rule", rules[i].ID, "err", err)
			continue
		}
		if err := s.raiseAlert(ctx, &rules[i], j.ID, monitor.Evaluate(rule, in)); err != nil {
			return err
		}
	}
	return nil
}

// finishLogJob stores a log job's final state.
func (s *Server) finishLogJob(ctx context.Context, j *store.Job) error {
	now := s.now().UTC()
	j.FinishedAt, j.UpdatedAt = now, now
	err := s.retry(ctx, "finish job", func(ctx context.Context) error { return s.st.UpdateJob(ctx, j) })
	if errors.Is(err, store.ErrConflict) {
		return nil // canceled meanwhile
	}
	if err != nil {
		return interrupted(j.ID, err)
	}
	if j.Status != store.JobSucceeded {
		os.Remove(s.logPath(j.ID))
	}
	s.pruneHistory(ctx, j)
	return nil
}

// latestCrawl returns the report of the project's latest succeeded site
// analysis as a join source, and its job ID; nil when there is none.
func (s *Server) latestCrawl(ctx context.Context, accountID, projectID string) (compare.Source, string) {
	js, err := s.st.ProjectJobs(ctx, accountID, projectID, 50)
	if err != nil {
		return nil, ""
	}
	for i := range js {
		if js[i].Status != store.JobSucceeded || js[i].Kind == logJobKind {
			continue
		}
		id := js[i].ID
		if jr, ok := s.st.(store.JobResults); ok {
			_, sr, err := jr.JobResult(ctx, accountID, id)
			if err != nil || sr == nil {
				return nil, ""
			}
			return compare.Reader(id, sr.Open), id
		}
		j, err := s.st.Job(ctx, accountID, id)
		if err != nil || len(j.Result) == 0 {
			return nil, ""
		}
		return compare.JSON(j.Result), id
	}
	return nil, ""
}

// crawlRobots fetches the robots.txt the crawl read, for "robots.txt
// says, the bot did"; nil when the crawl read none or it cannot be
// fetched now.
func (s *Server) crawlRobots(ctx context.Context, src compare.Source) *robotstxt.Robots {
	rep, err := src.Report(ctx)
	if err != nil || rep == nil || rep.Robots.URL == "" {
		return nil
	}
	resp, err := s.fetcher.Fetch(ctx, &seo.Request{URL: rep.Robots.URL, MaxBodyBytes: robotstxt.MaxSize, UserAgent: crawlerUserAgent(s)})
	if err != nil {
		return nil
	}
	return robotstxt.FromStatus(resp.Status, resp.Body)
}

// crawlerUserAgent is the user agent of the server's crawls.
func crawlerUserAgent(s *Server) string {
	if co := s.opts.CrawlerOptions; co != nil && co.UserAgent != "" {
		return co.UserAgent
	}
	return seo.DefaultUserAgent
}

// logAddressKey is the project's key for hashing client addresses: derived
// from the server's secret and the project ID, so the same address hashes
// the same in every report of the project and differently in another
// project's.
func (s *Server) logAddressKey(projectID string) []byte {
	k, err := hkdf.Key(sha256.New, s.cbSecret, []byte(projectID), "seokit log addresses v1", 32)
	if err != nil {
		panic(err) // 32 bytes of SHA-256 HKDF never fail
	}
	return k
}

// logAddressHasher returns the project's hash of the client addresses a
// report keeps (those of spoofed bot hits: clients that are not the bot
// they claim). Requests naming no bot never have their address kept by
// the analysis at all.
func (s *Server) logAddressHasher(projectID string) func(netip.Addr) string {
	key := s.logAddressKey(projectID)
	return func(ip netip.Addr) string { return hashAddress(key, ip.Unmap().String()) }
}

// hashAddress returns "hmac:" and 16 hex digits of the HMAC-SHA256 of the
// address in its canonical form.
func hashAddress(key []byte, ip string) string {
	if a, err := netip.ParseAddr(ip); err == nil {
		ip = a.Unmap().String()
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(ip))
	return "hmac:" + hex.EncodeToString(m.Sum(nil)[:8])
}
