package monitor_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/internal/smtptest"
	"github.com/seokit/seokit/monitor"
	"github.com/seokit/seokit/seo"
)

// loopback is a client allowed to reach the test receivers.
var loopback = seo.NewFetcher(&seo.FetcherOptions{AllowPrivate: true}).Client()

type receiver struct {
	mu     sync.Mutex
	bodies [][]byte
	sigs   []string
	status int
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.bodies = append(rc.bodies, b)
	rc.sigs = append(rc.sigs, r.Header.Get(monitor.SignatureHeader))
	if rc.status != 0 {
		w.WriteHeader(rc.status)
	}
}

func sample(t *testing.T) *monitor.Alert {
	old, new := crawls(t0)
	in := input(t, old, new)
	in.Links.Dashboard = "https://app.example/#/projects/prj_1/diff/job_2?against=job_1"
	a := monitor.Evaluate(rule(t, "top_page_changed", ""), in)
	a.Rule, a.Project = "alr_1", "prj_1"
	return a
}

func TestWebhook(t *testing.T) {
	t.Parallel()
	rc := &receiver{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	a := sample(t)
	w := &monitor.Webhook{URL: srv.URL + "/hook", Secret: "whsec_x", Client: loopback}
	if err := w.Notify(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	if len(rc.bodies) != 1 {
		t.Fatalf("%d requests", len(rc.bodies))
	}
	if err := monitor.Verify("whsec_x", rc.sigs[0], rc.bodies[0], time.Now(), time.Minute); err != nil {
		t.Errorf("signature: %v", err)
	}
	if err := monitor.Verify("whsec_y", rc.sigs[0], rc.bodies[0], time.Now(), time.Minute); !errors.Is(err, monitor.ErrBadSignature) {
		t.Errorf("wrong secret: %v", err)
	}
	var got monitor.Alert
	if err := json.Unmarshal(rc.bodies[0], &got); err != nil || got.Fingerprint != a.Fingerprint || len(got.Changes) != 2 || got.Links.Diff == "" {
		t.Errorf("body %s (%v)", rc.bodies[0], err)
	}

	// A failing receiver is an error wrapping ErrDelivery.
	rc.status = http.StatusServiceUnavailable
	if err := w.Notify(context.Background(), a); !errors.Is(err, monitor.ErrDelivery) || !strings.Contains(err.Error(), "503") {
		t.Errorf("503: %v", err)
	}
	// Without a client, loopback targets are refused.
	w.Client = nil
	if err := w.Notify(context.Background(), a); err == nil || len(rc.bodies) != 2 {
		t.Errorf("loopback without a client: %v, %d requests", err, len(rc.bodies))
	}
}

func TestSlack(t *testing.T) {
	t.Parallel()
	rc := &receiver{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	a := sample(t)
	a.Changes[0].Subject = "https://example.com/<!channel>&x"
	if err := (&monitor.Slack{URL: srv.URL, Client: loopback}).Notify(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	var msg struct {
		Text   string `json:"text"`
		Blocks []struct {
			Type string `json:"type"`
			Text *struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"text"`
			Elements []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"elements"`
		} `json:"blocks"`
	}
	if err := json.Unmarshal(rc.bodies[0], &msg); err != nil {
		t.Fatal(err)
	}
	if msg.Text != a.Title || len(msg.Blocks) != 3 {
		t.Fatalf("message %s", rc.bodies[0])
	}
	if b := msg.Blocks[0]; b.Type != "header" || b.Text.Type != "plain_text" {
		t.Errorf("header %+v", b)
	}
	sec := msg.Blocks[1]
	if sec.Type != "section" || sec.Text.Type != "mrkdwn" || !strings.Contains(sec.Text.Text, "&lt;!channel&gt;&amp;x") || !strings.Contains(sec.Text.Text, "turned noindex") {
		t.Errorf("section %+v", sec)
	}
	if c := msg.Blocks[2]; c.Type != "context" || !strings.Contains(c.Elements[0].Text, "|Diff>") {
		t.Errorf("context %+v", c)
	}
}

func TestEmail(t *testing.T) {
	t.Parallel()
	s := smtptest.Start(t)
	a := sample(t)
	e := &monitor.Email{To: "seo@example.com", SMTP: monitor.SMTPOptions{Addr: s.Addr(), From: "alerts@seokit.test"}}
	if err := e.Notify(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	ms, err := s.Messages()
	if err != nil || len(ms) != 1 {
		t.Fatalf("%d messages (%v)", len(ms), err)
	}
	m := ms[0]
	subj, _ := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
	if subj != "[seokit] "+a.Title || m.Header.Get("To") != "seo@example.com" {
		t.Errorf("headers %v", m.Header)
	}
	_, params, err := mime.ParseMediaType(m.Header.Get("Content-Type"))
	if err != nil {
		t.Fatal(err)
	}
	mr := multipart.NewReader(m.Body, params["boundary"])
	parts := map[string]string{}
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(p) // multipart decodes quoted-printable
		ct, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		parts[ct] = string(b)
	}
	if !strings.Contains(parts["text/plain"], "https://example.com/top: turned noindex") || !strings.Contains(parts["text/plain"], "Diff: "+a.Links.Diff) {
		t.Errorf("text part %q", parts["text/plain"])
	}
	if !strings.Contains(parts["text/html"], "<b>https://example.com/top</b>: turned noindex") || !strings.Contains(parts["text/html"], `href="https://app.example/#/projects/prj_1/diff/job_2?against=job_1"`) {
		t.Errorf("html part %q", parts["text/html"])
	}
	if err := (&monitor.Email{To: "a@b.c\r\nBcc: x@y.z", SMTP: e.SMTP}).Notify(context.Background(), a); err == nil {
		t.Error("header injection accepted")
	}
}

func TestCheckTargets(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"ftp://x.example/", "https://", "https://u:p@x.example/", "not a url", "javascript:alert(1)"} {
		if monitor.CheckURL(u) == nil {
			t.Errorf("CheckURL(%q) accepted", u)
		}
	}
	if err := monitor.CheckURL("https://hooks.slack.com/services/T/B/X"); err != nil {
		t.Error(err)
	}
	for _, a := range []string{"x", "Name <a@b.example>", "a@b.example, c@d.example", ""} {
		if monitor.CheckAddress(a) == nil {
			t.Errorf("CheckAddress(%q) accepted", a)
		}
	}
	if err := monitor.CheckAddress("seo@example.com"); err != nil {
		t.Error(err)
	}
}
