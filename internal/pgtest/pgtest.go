// Package pgtest starts a throwaway PostgreSQL server for tests.
//
// The server comes from the machine's PostgreSQL binaries (Debian's
// postgresql package puts them in /usr/lib/postgresql/N/bin; PATH and
// SEOKIT_PG_BIN are searched too). It listens on 127.0.0.1 only, keeps its
// data in a temporary folder and stops when the test binary's last user
// releases it.
//
// When no server can be started the test is skipped with a message saying
// why, unless SEOKIT_REQUIRE_SERVERS is set (as .ci/run does), in which case
// it fails.
package pgtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// RequireEnv names the variable that turns a missing server into a failure.
const RequireEnv = "SEOKIT_REQUIRE_SERVERS"

var (
	mu      sync.Mutex
	srv     *server
	srvErr  error
	dbCount int
)

type server struct {
	dir    string   // data directory
	bin    string   // folder of the PostgreSQL binaries
	port   int      // TCP port on 127.0.0.1
	asUser []string // runuser prefix when the tests run as root
}

// DSN starts the shared server if needed, creates a fresh empty database for
// this test and returns its connection string (a postgres:// URL). The
// database is dropped when the test ends.
func DSN(t testing.TB) string {
	t.Helper()
	s, err := start()
	if err != nil {
		Unavailable(t, "PostgreSQL", err)
	}
	return s.newDatabase(t, "")
}

// newDatabase creates a database for t, a copy of the database template
// when it is not empty, dropped when t ends, and returns its connection
// string.
func (s *server) newDatabase(t testing.TB, template string) string {
	t.Helper()
	mu.Lock()
	dbCount++
	name := fmt.Sprintf("t%d_%d", os.Getpid(), dbCount)
	mu.Unlock()
	create := "CREATE DATABASE " + name
	if template != "" {
		create += " TEMPLATE " + template
	}
	if err := s.exec(create); err != nil {
		t.Fatalf("pgtest: %s: %v", create, err)
	}
	t.Cleanup(func() { s.exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)") })
	return s.dsn(name)
}

// dsn is the connection string of the database name on the shared server.
func (s *server) dsn(name string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.port, name)
}

// exec runs one statement on the server's "postgres" database over a
// connection of its own (CREATE and DROP DATABASE cannot run in a
// transaction, and a connection is far cheaper than a psql process).
func (s *server) exec(sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.dsn("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	_, err = conn.Exec(ctx, sql)
	return err
}

// Unavailable skips t, or fails it when RequireEnv is set, because the named
// server could not be started.
func Unavailable(t testing.TB, what string, err error) {
	t.Helper()
	if os.Getenv(RequireEnv) != "" {
		t.Fatalf("%s is required (%s is set) but unavailable: %v", what, RequireEnv, err)
	}
	t.Skipf("SKIP: %s not available (%v); install it or set %s=1 to make this a failure", what, err, RequireEnv)
}

func start() (*server, error) {
	mu.Lock()
	defer mu.Unlock()
	if srv != nil || srvErr != nil {
		return srv, srvErr
	}
	srv, srvErr = launch()
	return srv, srvErr
}

func findBin() (string, error) {
	var dirs []string
	if d := os.Getenv("SEOKIT_PG_BIN"); d != "" {
		dirs = append(dirs, d)
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Sort(sort.Reverse(sort.StringSlice(matches)))
	dirs = append(dirs, matches...)
	if p, err := exec.LookPath("initdb"); err == nil {
		dirs = append(dirs, filepath.Dir(p))
	}
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			if _, err := os.Stat(filepath.Join(d, "postgres")); err == nil {
				return d, nil
			}
		}
	}
	return "", fmt.Errorf("no initdb/postgres binaries in SEOKIT_PG_BIN, /usr/lib/postgresql/*/bin or PATH")
}

func launch() (*server, error) {
	bin, err := findBin()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "seokit-pg-")
	if err != nil {
		return nil, err
	}
	// PostgreSQL refuses to run as root; run it as a normal user then.
	var asUser []string
	if os.Geteuid() == 0 {
		if _, err := exec.LookPath("runuser"); err != nil {
			return nil, fmt.Errorf("running as root and runuser is missing")
		}
		u := "postgres"
		if exec.Command("id", u).Run() != nil {
			u = "nobody"
		}
		if out, err := exec.Command("chown", "-R", u, dir).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("chown: %v: %s", err, out)
		}
		os.Chmod(dir, 0o700)
		asUser = []string{"runuser", "-u", u, "--"}
	}
	run := func(name string, args ...string) ([]byte, error) {
		argv := append(append([]string{}, asUser...), append([]string{filepath.Join(bin, name)}, args...)...)
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = dir
		return cmd.CombinedOutput()
	}
	data := filepath.Join(dir, "data")
	if out, err := run("initdb", "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync"); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %v: %s", err, lastLine(out))
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	opts := fmt.Sprintf("-h 127.0.0.1 -p %d -k %s -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200", port, dir)
	if out, err := run("pg_ctl", "-D", data, "-o", opts, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pg_ctl start: %v: %s %s", err, lastLine(out), lastLine(log))
	}
	s := &server{dir: data, bin: bin, port: port, asUser: asUser}
	go s.reapWhenParentExits()
	return s, nil
}

// reapWhenParentExits makes sure the server does not outlive the test
// binary: a watcher process stops it once this process is gone.
func (s *server) reapWhenParentExits() {
	script := fmt.Sprintf("while kill -0 %d 2>/dev/null; do sleep 1; done; %s %s -D %s -m immediate stop >/dev/null 2>&1; rm -rf %s",
		os.Getpid(), strings.Join(s.asUser, " "), filepath.Join(s.bin, "pg_ctl"), s.dir, filepath.Dir(s.dir))
	cmd := exec.Command("sh", "-c", script)
	cmd.Start()
	go cmd.Wait()
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func lastLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}
