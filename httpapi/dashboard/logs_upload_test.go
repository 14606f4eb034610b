package dashboard_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/dashboard"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
)

// uploadForm is a multipart form of fields (in order) then a file part.
func uploadForm(t *testing.T, fields [][2]string, fileFirst bool, name, body string) (string, *bytes.Buffer) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	file := func() {
		fw, err := mw.CreateFormFile("file", name)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(fw, body)
	}
	if fileFirst {
		file()
	}
	for _, f := range fields {
		mw.WriteField(f[0], f[1])
	}
	if !fileFirst {
		file()
	}
	mw.Close()
	return mw.FormDataContentType(), &b
}

// TestLogUploadForm uploads a log through the project's log page form:
// the file is streamed to the logs service (a log far larger than the
// dashboard's 64 KB form limit goes through and is parsed whole), the
// CSRF token is checked before the file is read (missing, wrong or sent
// after the file: 403 and nothing uploaded), and the service's refusal of
// an empty log is shown with its reason.
func TestLogUploadForm(t *testing.T) {
	t.Parallel()
	late := &lateProjectsAPI{}
	e := newEnv(t, &envOptions{realClock: true, opts: dashboard.Options{Analyses: late, Quota: late, Projects: lateProjects{&late.lateAPI}, Logs: lateLogs{&late.lateAPI}},
		api: func(e *env) http.Handler {
			s, err := httpapi.New(context.Background(), &httpapi.Options{Store: e.st, Auth: e.au, AllowPrivate: true, Logger: slog.New(slog.DiscardHandler),
				LogDir: t.TempDir(), Limits: map[store.Plan]int{store.Free: 10_000}})
			if err != nil {
				t.Fatalf("httpapi.New: %v", err)
			}
			if err := s.Start(context.Background()); err != nil {
				t.Fatalf("Start: %v", err)
			}
			t.Cleanup(func() { s.Close() })
			late.s = s
			return s
		}})
	bg := context.Background()
	name, domain := "Oak workshop", "oak.example"
	p, err := late.s.Projects().Create(bg, e.acct.ID, service.ProjectRequest{Name: &name, Domain: &domain})
	if err != nil {
		t.Fatal(err)
	}
	c := e.client(t)
	e.login(t, c)
	page := e.srv.URL + "/dashboard/projects/" + p.ID + "/logs"
	resp, body := get(t, c, page)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `id="log-upload"`) {
		t.Fatalf("log page: %d, no upload form:\n%s", resp.StatusCode, body)
	}
	csrf := csrfOf(t, body)
	if _, body = get(t, c, e.srv.URL+"/dashboard/projects/"+p.ID); !strings.Contains(body, `href="/dashboard/projects/`+p.ID+`/logs"`) {
		t.Error("the project page does not link to its access logs")
	}

	var log strings.Builder
	for i := 0; log.Len() < 300<<10; i++ {
		fmt.Fprintf(&log, "66.249.64.5 - - [01/Dec/2026:10:%02d:%02d +0000] \"GET /p/%d HTTP/1.1\" 200 512 \"-\" \"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)\"\n", i/60%60, i%60, i)
	}
	lines := strings.Count(log.String(), "\n")
	send := func(ct string, b *bytes.Buffer) (*http.Response, string) {
		t.Helper()
		resp, err := c.Post(page, ct, b)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return resp, string(out)
	}
	uploads := func() int {
		t.Helper()
		l, err := late.s.Logs().List(bg, e.acct.ID, p.ID, service.MaxList)
		if err != nil {
			t.Fatal(err)
		}
		return len(l)
	}
	for _, tc := range []struct {
		name      string
		fields    [][2]string
		fileFirst bool
	}{
		{"no token", [][2]string{{"format", "combined"}}, false},
		{"wrong token", [][2]string{{"csrf_token", "x" + csrf}}, false},
		{"token after the file", [][2]string{{"csrf_token", csrf}}, true},
	} {
		ct, b := uploadForm(t, tc.fields, tc.fileFirst, "access.log", log.String())
		if resp, _ := send(ct, b); resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s: status %d, want 403", tc.name, resp.StatusCode)
		}
	}
	if n := uploads(); n != 0 {
		t.Fatalf("%d uploads after refused forms, want 0", n)
	}
	ct, b := uploadForm(t, [][2]string{{"csrf_token", csrf}}, false, "empty.log", "")
	if resp, body := send(ct, b); resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "body") {
		t.Errorf("empty log: status %d, want 400 naming the body:\n%s", resp.StatusCode, body)
	}

	ct, b = uploadForm(t, [][2]string{{"csrf_token", csrf}, {"format", "combined"}}, false, "access.log", log.String())
	resp, _ = send(ct, b)
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/dashboard/projects/"+p.ID+"/logs/") {
		t.Fatalf("upload: status %d, location %q", resp.StatusCode, loc)
	}
	id := loc[strings.LastIndexByte(loc, '/')+1:]
	deadline := time.Now().Add(60 * time.Second)
	var j *service.LogJob
	for {
		if j, _, err = late.s.Logs().Get(bg, e.acct.ID, p.ID, id); err != nil {
			t.Fatal(err)
		}
		if j.Status != "queued" && j.Status != "running" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the parse did not end: %s", j.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if j.Status != "succeeded" || j.Summary == nil || j.Summary.Lines != int64(lines) || j.Name != "access.log" {
		t.Fatalf("upload %q: %s (%s), summary %+v; want succeeded with %d lines", j.Name, j.Status, j.Error, j.Summary, lines)
	}
	t.Logf("dashboard upload: %d bytes, %d lines parsed", log.Len(), j.Summary.Lines)
}
