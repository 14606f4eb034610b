// Package smtptest starts throwaway SMTP servers for tests.
//
// Each server is a real aiosmtpd process (Debian's python3-aiosmtpd, run
// as `python3 -m aiosmtpd -n -l 127.0.0.1:PORT -c
// aiosmtpd.handlers.Mailbox MAILDIR`) listening on 127.0.0.1 on a free port,
// storing every message it accepts in a maildir that the test reads with
// Messages. It is stopped when the test ends.
//
// When no server can be started the test is skipped with a message saying
// why, unless SEOKIT_REQUIRE_SERVERS is set (as .ci/run does), in which case
// it fails. SEOKIT_PYTHON names the Python interpreter (default
// /usr/bin/python3, then python3 on PATH).
package smtptest

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"net/mail"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/internal/pgtest"
)

// Server is one running aiosmtpd.
type Server struct {
	port    int
	maildir string

	mu  sync.Mutex
	cmd *exec.Cmd
}

// Start starts a fresh SMTP server for t and stops it when t ends.
func Start(t testing.TB) *Server {
	t.Helper()
	py, err := findPython()
	if err != nil {
		pgtest.Unavailable(t, "aiosmtpd (python3-aiosmtpd)", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("smtptest: %v", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	s := &Server{port: port, maildir: filepath.Join(t.TempDir(), "maildir")}
	for _, d := range []string{"new", "cur", "tmp"} {
		if err := os.MkdirAll(filepath.Join(s.maildir, d), 0o700); err != nil {
			t.Fatalf("smtptest: %v", err)
		}
	}
	cmd := exec.Command(py, "-m", "aiosmtpd", "-n", "-l", s.Addr(), "-c", "aiosmtpd.handlers.Mailbox", s.maildir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		pgtest.Unavailable(t, "aiosmtpd (python3-aiosmtpd)", err)
	}
	s.cmd = cmd
	t.Cleanup(s.Stop)
	deadline := time.Now().Add(20 * time.Second)
	for {
		err := greet(s.Addr())
		if err == nil {
			return s
		}
		if time.Now().After(deadline) {
			s.Stop()
			pgtest.Unavailable(t, "aiosmtpd (python3-aiosmtpd)", fmt.Errorf("no SMTP greeting within 20s: %v; stderr: %s", err, stderr.String()))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Addr is the server's host:port.
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// Stop stops the server; calling it again does nothing.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Kill()
	s.cmd.Wait()
	s.cmd = nil
}

// Messages returns the messages delivered so far, oldest first (by file
// name, which starts with the delivery time).
func (s *Server) Messages() ([]*mail.Message, error) {
	var names []string
	for _, d := range []string{"new", "cur"} {
		es, err := os.ReadDir(filepath.Join(s.maildir, d))
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			names = append(names, filepath.Join(d, e.Name()))
		}
	}
	slices.SortFunc(names, func(a, b string) int { return strings.Compare(filepath.Base(a), filepath.Base(b)) })
	var out []*mail.Message
	for _, n := range names {
		f, err := os.Open(filepath.Join(s.maildir, n))
		if err != nil {
			return nil, err
		}
		m, err := mail.ReadMessage(bufio.NewReader(f))
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		body, err := readAll(m)
		f.Close()
		if err != nil {
			return nil, err
		}
		m.Body = strings.NewReader(body)
		out = append(out, m)
	}
	return out, nil
}

func readAll(m *mail.Message) (string, error) {
	var b strings.Builder
	_, err := bufio.NewReader(m.Body).WriteTo(&b)
	return b.String(), err
}

// greet reads the server's 220 greeting.
func greet(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "220") {
		return fmt.Errorf("unexpected greeting %q", line)
	}
	c.Write([]byte("QUIT\r\n"))
	return nil
}

func findPython() (string, error) {
	cands := []string{os.Getenv("SEOKIT_PYTHON"), "/usr/bin/python3", "python3"}
	for _, p := range cands {
		if p == "" {
			continue
		}
		bin, err := exec.LookPath(p)
		if err != nil {
			continue
		}
		if exec.Command(bin, "-c", "import aiosmtpd").Run() == nil {
			return bin, nil
		}
	}
	return "", errors.New("no python3 with the aiosmtpd module (Debian package python3-aiosmtpd)")
}
