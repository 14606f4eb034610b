package smtptest_test

import (
	"io"
	"net/smtp"
	"strings"
	"testing"

	"github.com/seokit/seokit/internal/smtptest"
)

func TestStart(t *testing.T) {
	s := smtptest.Start(t)
	msg := "From: a@example.com\r\nTo: b@example.com\r\nSubject: hello\r\n\r\nbody text\r\n"
	if err := smtp.SendMail(s.Addr(), nil, "a@example.com", []string{"b@example.com"}, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	ms, err := s.Messages()
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 {
		t.Fatalf("%d messages, want 1", len(ms))
	}
	body, _ := io.ReadAll(ms[0].Body)
	if ms[0].Header.Get("Subject") != "hello" || !strings.Contains(string(body), "body text") {
		t.Errorf("message %v %q", ms[0].Header, body)
	}
}
