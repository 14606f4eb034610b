package pgtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Server is a private PostgreSQL server of one test, which the test may
// stop and start again (fault tests). Unlike the shared server of DSN it
// commits synchronously (synchronous_commit on), so a transaction that
// returned is not lost by a stop; fsync stays off, which only matters if
// the machine itself crashes.
type Server struct {
	bin    string
	data   string // data directory
	log    string // server log file
	port   int
	asUser []string

	mu      sync.Mutex
	running bool
}

// Start starts a private server on 127.0.0.1 with a database named
// "seokit" and returns it; it is stopped and its files removed when the
// test ends. When no server can be started the test is skipped, or fails
// when RequireEnv is set.
func Start(t testing.TB) *Server {
	t.Helper()
	s, err := newPrivate()
	if err != nil {
		Unavailable(t, "PostgreSQL", err)
	}
	t.Cleanup(s.remove)
	if err := s.Start(); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	if out, err := s.psql("CREATE DATABASE seokit"); err != nil {
		t.Fatalf("pgtest: create database: %v: %s", err, out)
	}
	return s
}

// DSN is the connection string of the server's "seokit" database. It
// stays the same across Stop and Start.
func (s *Server) DSN() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/seokit?sslmode=disable", s.port)
}

// Stop shuts the server down in "fast" mode: open sessions are
// terminated at once (their clients see connection errors), committed
// data stays. Stopping a stopped server does nothing.
func (s *Server) Stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.running {
		return nil
	}
	if out, err := s.run(60*time.Second, "pg_ctl", "-D", s.data, "-m", "fast", "-w", "-t", "30", "stop"); err != nil {
		return fmt.Errorf("pg_ctl stop: %v: %s", err, lastLine(out))
	}
	s.running = false
	return nil
}

// Start starts the server again on the same port and data; it returns
// once the server accepts connections. Starting a running server does
// nothing.
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running {
		return nil
	}
	opts := fmt.Sprintf("-h 127.0.0.1 -p %d -k %s -c fsync=off -c full_page_writes=off -c max_connections=100", s.port, filepath.Dir(s.data))
	if out, err := s.run(90*time.Second, "pg_ctl", "-D", s.data, "-o", opts, "-l", s.log, "-w", "-t", "60", "start"); err != nil {
		log, _ := os.ReadFile(s.log)
		return fmt.Errorf("pg_ctl start: %v: %s %s", err, lastLine(out), lastLine(log))
	}
	s.running = true
	return nil
}

// newPrivate runs initdb in a fresh folder and picks a port.
func newPrivate() (*Server, error) {
	bin, err := findBin()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "seokit-pgp-")
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin, data: filepath.Join(dir, "data"), log: filepath.Join(dir, "log")}
	if os.Geteuid() == 0 {
		// PostgreSQL refuses to run as root.
		if _, err := exec.LookPath("runuser"); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("running as root and runuser is missing")
		}
		u := "postgres"
		if exec.Command("id", u).Run() != nil {
			u = "nobody"
		}
		if out, err := exec.Command("chown", "-R", u, dir).CombinedOutput(); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("chown: %v: %s", err, out)
		}
		os.Chmod(dir, 0o700)
		s.asUser = []string{"runuser", "-u", u, "--"}
	}
	if out, err := s.run(120*time.Second, "initdb", "-D", s.data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync"); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %v: %s", err, lastLine(out))
	}
	if s.port, err = freePort(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s.reapWhenParentExits()
	return s, nil
}

// run runs one of the server's programs, as the server's user, in its
// folder, within timeout.
func (s *Server) run(timeout time.Duration, name string, args ...string) ([]byte, error) {
	argv := append(append([]string{}, s.asUser...), append([]string{filepath.Join(s.bin, name)}, args...)...)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = filepath.Dir(s.data)
	return cmd.CombinedOutput()
}

func (s *Server) psql(sql string) ([]byte, error) {
	return s.run(30*time.Second, "psql", "-h", "127.0.0.1", "-p", fmt.Sprint(s.port), "-U", "postgres", "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-c", sql)
}

// remove stops the server at once and deletes its files.
func (s *Server) remove() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running {
		s.run(60*time.Second, "pg_ctl", "-D", s.data, "-m", "immediate", "-w", "stop")
		s.running = false
	}
	os.RemoveAll(filepath.Dir(s.data))
}

// reapWhenParentExits stops the server if the test binary dies without
// running its cleanups.
func (s *Server) reapWhenParentExits() {
	(&server{dir: s.data, bin: s.bin, asUser: s.asUser}).reapWhenParentExits()
}
