package monitor

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/http"
	"net/mail"
	"net/smtp"
	"net/url"
	"strings"
	"time"

	"github.com/seokit/seokit/seo"
)

// Notifier sends an alert somewhere.
type Notifier interface {
	Notify(ctx context.Context, a *Alert) error
}

// Channels of alert rules.
const (
	ChannelWebhook = "webhook"
	ChannelSlack   = "slack"
	ChannelEmail   = "email"
)

// DefaultTimeout bounds one delivery attempt.
const DefaultTimeout = 10 * time.Second

// maxResponseBody is how much of a receiver's answer is read.
const maxResponseBody = 64 << 10

// ErrDelivery wraps the failures of a delivery attempt.
var ErrDelivery = errors.New("monitor: delivery failed")

// safeClient is the client of drivers without one: seo.Fetcher's, which
// refuses loopback and private addresses.
var safeClient = seo.NewFetcher(&seo.FetcherOptions{Timeout: DefaultTimeout}).Client()

// Webhook POSTs the alert as JSON, signed like site-analysis callbacks:
// the SignatureHeader holds Sign(Secret, now, body).
type Webhook struct {
	URL    string
	Secret string
	// Client sends the request; nil means a client that refuses
	// loopback and private addresses (seo.Fetcher's).
	Client *http.Client
	// Now stamps the signature; nil means time.Now.
	Now func() time.Time
}

// Notify sends a.
func (w *Webhook) Notify(ctx context.Context, a *Alert) error {
	body, err := json.Marshal(a)
	if err != nil {
		return err
	}
	return w.Send(ctx, body)
}

// Send makes one attempt to POST body, a JSON document, signed: the
// SignatureHeader holds Sign(Secret, now, body). The attempt is bounded
// by DefaultTimeout; a non-2xx answer is an error wrapping ErrDelivery.
// Alert webhooks and site-analysis callbacks are both sent by it.
func (w *Webhook) Send(ctx context.Context, body []byte) error {
	now := time.Now
	if w.Now != nil {
		now = w.Now
	}
	return post(ctx, w.Client, w.URL, body, map[string]string{SignatureHeader: Sign(w.Secret, now(), body)})
}

// Slack POSTs the alert to a Slack incoming webhook (or a compatible one:
// Mattermost, Rocket.Chat): {"text": fallback, "blocks": [...]}.
type Slack struct {
	URL string
	// Client is as Webhook's.
	Client *http.Client
}

// Notify sends a.
func (s *Slack) Notify(ctx context.Context, a *Alert) error {
	body, err := json.Marshal(SlackMessage(a))
	if err != nil {
		return err
	}
	return post(ctx, s.Client, s.URL, body, nil)
}

// slackText bounds a section's text (Slack's limit is 3000 characters).
const slackText = 2900

// SlackMessage returns the Slack incoming-webhook body of an alert: the
// title as the notification text, a header block, a section listing the
// changes (mrkdwn) and a context block with the links.
func SlackMessage(a *Alert) map[string]any {
	var b strings.Builder
	for _, c := range a.Changes {
		b.WriteString("• " + slackEscape(c.line()) + "\n")
	}
	if a.Omitted > 0 {
		fmt.Fprintf(&b, "• and %d more\n", a.Omitted)
	}
	if a.Note != "" {
		b.WriteString("_" + slackEscape(a.Note) + "_\n")
	}
	text := func(t string) map[string]any { return map[string]any{"type": "mrkdwn", "text": t} }
	blocks := []any{
		map[string]any{"type": "header", "text": map[string]any{"type": "plain_text", "text": seo.ClipTo(a.Title, 150)}},
		map[string]any{"type": "section", "text": text(seo.ClipTo(b.String(), slackText))},
	}
	var links []string
	if a.Links.Dashboard != "" {
		links = append(links, "<"+slackEscape(a.Links.Dashboard)+"|Dashboard>")
	}
	if a.Links.Diff != "" {
		links = append(links, "<"+slackEscape(a.Links.Diff)+"|Diff>")
	}
	if len(links) > 0 {
		blocks = append(blocks, map[string]any{"type": "context", "elements": []any{text(strings.Join(links, " · "))}})
	}
	return map[string]any{"text": slackEscape(a.Title), "blocks": blocks}
}

// slackEscape escapes the characters Slack reads as markup.
func slackEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// post makes one POST of a JSON body, reading at most maxResponseBody of
// the answer; a non-2xx answer is an error.
func post(ctx context.Context, c *http.Client, target string, body []byte, headers map[string]string) error {
	if c == nil {
		c = safeClient
	}
	if err := CheckURL(target); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, DefaultTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%w: %w", ErrDelivery, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", seo.DefaultUserAgent)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrDelivery, err)
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxResponseBody))
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("%w: %s answered %d", ErrDelivery, req.URL.Host, resp.StatusCode)
	}
	return nil
}

// CheckURL checks that a webhook target is an absolute http(s) URL with a
// host and no credentials. Errors are *seo.InputError naming "target".
func CheckURL(target string) error {
	u, err := url.Parse(target)
	switch {
	case err != nil || len(target) > 2048:
		return &seo.InputError{Field: "target", Value: target, Reason: "must be an http or https URL of at most 2048 bytes", Err: seo.ErrInvalidInput}
	case u.Scheme != "http" && u.Scheme != "https":
		return &seo.InputError{Field: "target", Value: target, Reason: "must be an http or https URL", Err: seo.ErrInvalidInput}
	case u.Host == "" || u.Hostname() == "":
		return &seo.InputError{Field: "target", Value: target, Reason: "must name a host", Err: seo.ErrInvalidInput}
	case u.User != nil:
		return &seo.InputError{Field: "target", Value: target, Reason: "must not carry credentials", Err: seo.ErrInvalidInput}
	}
	return nil
}

// CheckAddress checks an e-mail target: one bare address
// (name@example.com). Errors are *seo.InputError naming "target".
func CheckAddress(addr string) error {
	a, err := mail.ParseAddress(addr)
	if err != nil || a.Address != addr || len(addr) > 254 || strings.ContainsAny(addr, "\r\n") {
		return &seo.InputError{Field: "target", Value: addr, Reason: "must be one e-mail address (name@example.com)", Err: seo.ErrInvalidInput}
	}
	return nil
}

// SMTPOptions configure the mail server e-mail alerts are sent through.
type SMTPOptions struct {
	// Addr is the server's host:port.
	Addr string
	// From is the sender's address.
	From string
	// Username and Password, when Username is set, authenticate with
	// PLAIN (which net/smtp allows only over TLS or to localhost).
	Username string
	Password string
	// TLS connects with TLS from the start (SMTPS, port 465). Without it
	// the connection is upgraded with STARTTLS when the server offers it.
	TLS bool
	// Timeout bounds one delivery; zero means DefaultTimeout.
	Timeout time.Duration
	// TLSConfig, when set, is used for TLS and STARTTLS (tests).
	TLSConfig *tls.Config
}

// Email sends the alert as a multipart (text/plain and text/html) e-mail.
type Email struct {
	To   string
	SMTP SMTPOptions
}

// Notify sends a.
func (e *Email) Notify(ctx context.Context, a *Alert) error {
	if err := CheckAddress(e.To); err != nil {
		return err
	}
	msg, err := Message(e.SMTP.From, e.To, a)
	if err != nil {
		return err
	}
	if err := sendMail(ctx, &e.SMTP, e.To, msg); err != nil {
		return fmt.Errorf("%w: smtp: %w", ErrDelivery, err)
	}
	return nil
}

func sendMail(ctx context.Context, o *SMTPOptions, to string, msg []byte) error {
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(o.Timeout, DefaultTimeout))
	defer cancel()
	host, _, err := net.SplitHostPort(o.Addr)
	if err != nil {
		return err
	}
	tc := o.TLSConfig
	if tc == nil {
		tc = &tls.Config{ServerName: host}
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", o.Addr)
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	if o.TLS {
		conn = tls.Client(conn, tc)
	}
	c, err := smtp.NewClient(conn, host)
	if err != nil {
		conn.Close()
		return err
	}
	defer c.Close()
	if ok, _ := c.Extension("STARTTLS"); ok && !o.TLS {
		if err := c.StartTLS(tc); err != nil {
			return err
		}
	}
	if o.Username != "" {
		if err := c.Auth(smtp.PlainAuth("", o.Username, o.Password, host)); err != nil {
			return err
		}
	}
	if err := c.Mail(o.From); err != nil {
		return err
	}
	if err := c.Rcpt(to); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(msg); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}

var mailHTML = template.Must(template.New("mail").Parse(`<!doctype html>
<html><body style="font-family:sans-serif">
<h2>{{.Title}}</h2>
<ul>{{range .Changes}}<li><b>{{.Subject}}</b>: {{.What}}{{if or .Old .New}} ({{.Old}} &rarr; {{.New}}){{end}}{{range .Examples}}<br><small>{{.}}</small>{{end}}</li>{{end}}
{{if .Omitted}}<li>and {{.Omitted}} more</li>{{end}}</ul>
{{if .Note}}<p><i>{{.Note}}</i></p>{{end}}
<p>{{if .Links.Dashboard}}<a href="{{.Links.Dashboard}}">Dashboard</a> {{end}}{{if .Links.Diff}}<a href="{{.Links.Diff}}">Diff</a>{{end}}</p>
</body></html>
`))

// Message returns the RFC 5322 message of an alert: subject "[seokit]
// <title>", a text/plain part (Alert.Text) and a text/html part, both
// quoted-printable.
func Message(from, to string, a *Alert) ([]byte, error) {
	var html bytes.Buffer
	if err := mailHTML.Execute(&html, a); err != nil {
		return nil, err
	}
	var rnd [12]byte
	rand.Read(rnd[:])
	boundary := "seokit-" + hex.EncodeToString(rnd[:])
	var b bytes.Buffer
	hdr := func(k, v string) { fmt.Fprintf(&b, "%s: %s\r\n", k, v) }
	hdr("From", from)
	hdr("To", to)
	hdr("Subject", mime.QEncoding.Encode("utf-8", "[seokit] "+oneLine(a.Title)))
	hdr("Date", cmp.Or(a.CreatedAt, time.Now()).Format(time.RFC1123Z))
	hdr("Message-ID", "<"+hex.EncodeToString(rnd[:])+"."+a.Fingerprint+"@seokit>")
	hdr("MIME-Version", "1.0")
	hdr("Content-Type", `multipart/alternative; boundary="`+boundary+`"`)
	b.WriteString("\r\n")
	for _, p := range []struct{ ctype, body string }{{"text/plain", a.Text()}, {"text/html", html.String()}} {
		fmt.Fprintf(&b, "--%s\r\nContent-Type: %s; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n", boundary, p.ctype)
		q := quotedprintable.NewWriter(&b)
		q.Write([]byte(strings.ReplaceAll(p.body, "\n", "\r\n")))
		q.Close()
		b.WriteString("\r\n")
	}
	fmt.Fprintf(&b, "--%s--\r\n", boundary)
	return b.Bytes(), nil
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
