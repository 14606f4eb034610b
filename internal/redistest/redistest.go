// Package redistest starts throwaway Redis servers for tests.
//
// Each server is a redis-server process (Debian's redis-server package, or
// the binary named by SEOKIT_REDIS_SERVER) listening on 127.0.0.1 on a free
// port, with persistence off, stopped when the test ends.
//
// When no server can be started the test is skipped with a message saying
// why, unless SEOKIT_REQUIRE_SERVERS is set (as .ci/run does), in which case
// it fails.
package redistest

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/internal/pgtest"
)

// Server is one running redis-server.
type Server struct {
	bin  string
	port int

	mu  sync.Mutex
	cmd *exec.Cmd
}

// Start starts a fresh Redis server for t and stops it when t ends.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := findBin()
	if err != nil {
		pgtest.Unavailable(t, "Redis", err)
	}
	port, err := freePort()
	if err != nil {
		t.Fatalf("redistest: %v", err)
	}
	s := &Server{bin: bin, port: port}
	if err := s.start(); err != nil {
		pgtest.Unavailable(t, "Redis", err)
	}
	t.Cleanup(s.Stop)
	return s
}

// Addr is the server's host:port.
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// URL is the server's address as a redis:// URL.
func (s *Server) URL() string { return "redis://" + s.Addr() + "/0" }

// Stop kills the server at once (like a crash); its data is lost. Calling
// Stop on a stopped server does nothing.
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

// Restart starts a stopped server again on the same port, empty.
func (s *Server) Restart() error {
	s.Stop()
	return s.start()
}

func (s *Server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	cmd := exec.Command(s.bin,
		"--bind", "127.0.0.1", "--port", strconv.Itoa(s.port),
		"--save", "", "--appendonly", "no", "--protected-mode", "yes",
		"--daemonize", "no", "--loglevel", "warning")
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", s.bin, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if ping(s.Addr()) == nil {
			s.cmd = cmd
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()
	return errors.New("redis-server did not answer PING within 10s")
}

// ping speaks just enough RESP to see the server answer.
func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+PONG") {
		return fmt.Errorf("unexpected answer %q", line)
	}
	return nil
}

func findBin() (string, error) {
	if b := os.Getenv("SEOKIT_REDIS_SERVER"); b != "" {
		return b, nil
	}
	for _, b := range []string{"redis-server", "/usr/bin/redis-server", "/usr/local/bin/redis-server"} {
		if p, err := exec.LookPath(b); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no redis-server in SEOKIT_REDIS_SERVER or PATH")
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
