package sqlstore_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
	"github.com/seokit/seokit/httpapi/store/storetest"
	"github.com/seokit/seokit/internal/pgtest"
	"github.com/seokit/seokit/seo"
)

func open(t testing.TB, dsn string, opts *sqlstore.Options) *sqlstore.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := sqlstore.Open(ctx, dsn, opts)
	if err != nil {
		t.Fatalf("Open(%q): %v", dsn, err)
	}
	return s
}

// migrated is a PostgreSQL database at the current schema, copied for
// each test that needs a migrated store rather than migrations.
var migrated = pgtest.NewTemplate("sqlstore", func(ctx context.Context, dsn string) error {
	s, err := sqlstore.Open(ctx, dsn, nil)
	if err != nil {
		return err
	}
	return s.Close()
})

func TestSQLiteMemory(t *testing.T) {
	t.Parallel() // a database of its own
	storetest.Run(t, func(t *testing.T) store.Store { return open(t, ":memory:", nil) })
}

// TestSQLiteFile runs the suite on SQLite files, its caps raced through
// three stores on one file, as three processes sharing it would.
func TestSQLiteFile(t *testing.T) {
	t.Parallel() // a database of its own
	storetest.RunShared(t, func(t *testing.T) store.Store {
		return open(t, filepath.Join(t.TempDir(), "api.db"), nil)
	}, func(t *testing.T) []store.Store {
		path := filepath.Join(t.TempDir(), "api.db")
		return []store.Store{open(t, path, nil), open(t, path, nil), open(t, path, nil)}
	})
}

func TestSQLiteRestart(t *testing.T) {
	t.Parallel() // a database of its own
	storetest.Restart(t, func(t *testing.T) (store.Store, func() store.Store) {
		path := filepath.Join(t.TempDir(), "api.db")
		s := open(t, path, nil)
		return s, func() store.Store {
			if err := s.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			return open(t, path, nil)
		}
	})
}

// TestPostgres runs the suite on PostgreSQL, its caps raced through three
// stores on one database, as three server instances would.
func TestPostgres(t *testing.T) {
	t.Parallel() // a database of its own
	storetest.RunShared(t, func(t *testing.T) store.Store { return open(t, migrated.DSN(t), nil) },
		func(t *testing.T) []store.Store {
			dsn := migrated.DSN(t)
			return []store.Store{open(t, dsn, nil), open(t, dsn, nil), open(t, dsn, nil)}
		})
}

func TestPostgresRestart(t *testing.T) {
	t.Parallel() // a database of its own
	storetest.Restart(t, func(t *testing.T) (store.Store, func() store.Store) {
		dsn := migrated.DSN(t)
		s := open(t, dsn, nil)
		return s, func() store.Store {
			if err := s.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			return open(t, dsn, nil)
		}
	})
}

func TestMemoryStoresAreSeparate(t *testing.T) {
	ctx := context.Background()
	a, b := open(t, "", nil), open(t, ":memory:", nil)
	defer a.Close()
	defer b.Close()
	if err := a.CreateAccount(ctx, &store.Account{Email: "x@example.com"}); err != nil {
		t.Fatal(err)
	}
	if n, err := b.CountAccounts(ctx); err != nil || n != 0 {
		t.Errorf("second in-memory store sees %d accounts (%v); want its own empty database", n, err)
	}
}

// TestPostgresConcurrentMigrations opens one fresh database from three
// goroutines at once: all succeed and the schema is applied once.
func TestPostgresConcurrentMigrations(t *testing.T) {
	dsn := pgtest.DSN(t)
	var wg sync.WaitGroup
	stores := make([]*sqlstore.Store, 3)
	errs := make([]error, 3)
	for i := range stores {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			stores[i], errs[i] = sqlstore.Open(ctx, dsn, nil)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Open #%d: %v", i, err)
		}
		defer stores[i].Close()
	}
	var n, max int
	if err := stores[0].DB().QueryRow(`SELECT COUNT(*), MAX(version) FROM schema_migrations`).Scan(&n, &max); err != nil {
		t.Fatal(err)
	}
	if n != sqlstore.SchemaVersion() || max != sqlstore.SchemaVersion() {
		t.Errorf("schema_migrations has %d rows up to %d; want %d, each once", n, max, sqlstore.SchemaVersion())
	}
	// Every instance works on the shared schema.
	ctx := context.Background()
	if err := stores[1].CreateAccount(ctx, &store.Account{ID: "acct_shared", Email: "s@example.com"}); err != nil {
		t.Fatal(err)
	}
	if _, err := stores[2].Account(ctx, "acct_shared"); err != nil {
		t.Errorf("instance 3 does not see instance 2's account: %v", err)
	}
}

func TestOpenMigratesOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "api.db")
	for range 3 {
		s := open(t, path, nil)
		var n int
		if err := s.DB().QueryRow(`SELECT COUNT(*) FROM schema_migrations`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != sqlstore.SchemaVersion() {
			t.Errorf("schema_migrations has %d rows, want %d", n, sqlstore.SchemaVersion())
		}
		s.Close()
	}
}

func TestOpenBadInput(t *testing.T) {
	tests := []struct {
		name  string
		dsn   string
		opts  *sqlstore.Options
		field string
	}{
		{"bad synchronous", ":memory:", &sqlstore.Options{Synchronous: "SOMETIMES"}, "synchronous"},
		{"bad postgres url", "postgres://%zz", nil, "dsn"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := sqlstore.Open(context.Background(), tt.dsn, tt.opts)
			ie, ok := seo.AsInputError(err)
			if !ok || ie.Field != tt.field {
				t.Errorf("Open: err = %v, want an InputError on %q", err, tt.field)
			}
		})
	}
}

// TestSQLiteLocked holds an exclusive lock on the file from a second
// connection: Take fails with ErrUnavailable within a bounded time and
// works again, counter intact, once the lock is released.
func TestSQLiteLocked(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "api.db")
	s := open(t, path, &sqlstore.Options{BusyTimeout: 300 * time.Millisecond})
	defer s.Close()
	a := &store.Account{Email: "lock@example.com"}
	if err := s.CreateAccount(ctx, a); err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	for range 5 {
		if _, ok, err := s.Take(ctx, a.ID, day, 100); err != nil || !ok {
			t.Fatalf("Take: %v %v", ok, err)
		}
	}

	other, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	other.SetMaxOpenConns(1)
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN EXCLUSIVE`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, `UPDATE daily_usage SET n = n WHERE account_id = 'none'`); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	_, _, err = s.Take(ctx, a.ID, day, 100)
	took := time.Since(start)
	if !errors.Is(err, store.ErrUnavailable) || !sqlstore.IsUnavailable(err) {
		t.Fatalf("Take while locked: err = %v, want ErrUnavailable", err)
	}
	if took > 10*time.Second { // busy_timeout is 300 ms; generous for a loaded machine
		t.Errorf("Take while locked took %v, want under 10s", took)
	}
	t.Logf("locked Take failed after %v: %v", took, err)
	if err := s.CreateJob(ctx, &store.Job{AccountID: a.ID, Kind: "site"}); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("CreateJob while locked: err = %v, want ErrUnavailable", err)
	}

	if _, err := conn.ExecContext(ctx, `ROLLBACK`); err != nil {
		t.Fatal(err)
	}
	n, ok, err := s.Take(ctx, a.ID, day, 100)
	if err != nil || !ok || n != 6 {
		t.Errorf("Take after unlock = %d, %v, %v; want 6, true (counter intact, refused call not counted)", n, ok, err)
	}
	jobs, err := s.Jobs(ctx, a.ID, 10)
	if err != nil || len(jobs) != 0 {
		t.Errorf("Jobs after the failed create = %d, %v; want none half-written", len(jobs), err)
	}
}

// TestSQLiteFileHasNoPlaintext greps the database file and its WAL, what
// a stolen disk would show, for an API key.
func TestSQLiteFileHasNoPlaintext(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "api.db")
	s := open(t, path, nil)
	const key = "seo_live_Hx3Nq8Wp2Lr5Tz9Vb1Ym4Kc7Jd0Fg6Se_9fLq2w"
	a := &store.Account{Email: "disk@example.com"}
	if err := s.CreateAccount(ctx, a); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(key))
	if err := s.CreateKey(ctx, &store.APIKey{AccountID: a.ID, Prefix: key[:13], Hash: sum[:]}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	var all []byte
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	if !bytes.Contains(all, []byte(key[:13])) || !bytes.Contains(all, sum[:]) {
		t.Fatalf("the files do not hold the key's prefix and hash; the grep below would prove nothing")
	}
	if bytes.Contains(all, []byte(key)) || bytes.Contains(all, []byte(key[13:])) {
		t.Errorf("the database files contain the plaintext key")
	}
}

// TestPostgresClosedPort points a store at a port nobody listens on.
func TestPostgresClosedPort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	_, err = sqlstore.Open(ctx, "postgres://postgres@"+addr+"/x?sslmode=disable", nil)
	if !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("Open on a closed port: err = %v, want ErrUnavailable", err)
	}
	if d := time.Since(start); d > 6*time.Second {
		t.Errorf("Open on a closed port took %v", d)
	}
}

// proxy forwards TCP connections to a target; Stop drops the listener and
// every connection (the database "stops"), Start listens again on the
// same address (it "comes back").
type proxy struct {
	target, addr string
	mu           sync.Mutex
	l            net.Listener // nil while stopped
	conns        map[net.Conn]bool
	wg           sync.WaitGroup // the accept loop and the copies; Stop waits for them
}

func (p *proxy) Start(t *testing.T) {
	t.Helper()
	if p.addr == "" {
		p.addr = "127.0.0.1:0"
	}
	var l net.Listener
	var err error
	for range 50 { // the port may linger a moment after Stop
		if l, err = net.Listen("tcp", p.addr); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("proxy listen: %v", err)
	}
	p.mu.Lock()
	p.l, p.addr = l, l.Addr().String()
	if p.conns == nil {
		p.conns = map[net.Conn]bool{}
	}
	p.mu.Unlock()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			if p.l != l { // stopped meanwhile
				p.mu.Unlock()
				c.Close()
				u.Close()
				return
			}
			p.conns[c], p.conns[u] = true, true
			p.wg.Add(2)
			p.mu.Unlock()
			go func() { defer p.wg.Done(); io.Copy(u, c); u.Close() }()
			go func() { defer p.wg.Done(); io.Copy(c, u); c.Close() }()
		}
	}()
}

// Stop closes the listener and every connection, and waits for the
// proxy's goroutines. Stopping a stopped proxy does nothing.
func (p *proxy) Stop() {
	p.mu.Lock()
	if p.l != nil {
		p.l.Close()
		p.l = nil
	}
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
	p.mu.Unlock()
	p.wg.Wait()
}

// TestPostgresStopped cuts the connection to PostgreSQL mid-load: calls
// fail with ErrUnavailable (none hangs), nothing is lost, and the store
// recovers when the database is reachable again.
func TestPostgresStopped(t *testing.T) {
	dsn := migrated.DSN(t)
	// postgres://postgres@127.0.0.1:PORT/DB?sslmode=disable -> via proxy
	host := dsn[len("postgres://postgres@"):]
	slash := bytes.IndexByte([]byte(host), '/')
	p := &proxy{target: host[:slash]}
	p.Start(t)
	defer p.Stop()
	viaProxy := "postgres://postgres@" + p.addr + host[slash:]
	s := open(t, viaProxy, &sqlstore.Options{ConnectTimeout: time.Second})
	defer s.Close()
	ctx := context.Background()
	a := &store.Account{Email: "pg@example.com"}
	if err := s.CreateAccount(ctx, a); err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	for range 5 {
		if _, ok, err := s.Take(ctx, a.ID, day, 100); err != nil || !ok {
			t.Fatalf("Take: %v %v", ok, err)
		}
	}
	j := &store.Job{AccountID: a.ID, Kind: "site"}
	if err := s.CreateJob(ctx, j); err != nil {
		t.Fatal(err)
	}

	p.Stop()
	for _, tc := range []struct {
		name string
		call func(ctx context.Context) error
	}{
		{"Ping", s.Ping},
		{"Take", func(ctx context.Context) error { _, _, err := s.Take(ctx, a.ID, day, 100); return err }},
		{"Job", func(ctx context.Context) error { _, err := s.Job(ctx, a.ID, j.ID); return err }},
	} {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		start := time.Now()
		err := tc.call(ctx)
		cancel()
		if !errors.Is(err, store.ErrUnavailable) {
			t.Errorf("%s while stopped: err = %v, want ErrUnavailable", tc.name, err)
		}
		if d := time.Since(start); d > 4*time.Second {
			t.Errorf("%s while stopped took %v", tc.name, d)
		}
	}

	p.Start(t)
	var n int
	var ok bool
	var err error
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if n, ok, err = s.Take(ctx, a.ID, day, 100); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil || !ok || n != 6 {
		t.Errorf("Take after the database returned = %d, %v, %v; want 6, true", n, ok, err)
	}
	if got, err := s.Job(ctx, a.ID, j.ID); err != nil || got.Status != store.JobQueued {
		t.Errorf("job after the database returned = %+v, %v", got, err)
	}
}

func BenchmarkTakeSQLiteFile(b *testing.B) {
	s := open(b, filepath.Join(b.TempDir(), "api.db"), nil)
	defer s.Close()
	benchTake(b, s)
}

func BenchmarkTakePostgres(b *testing.B) {
	s := open(b, migrated.DSN(b), nil)
	defer s.Close()
	benchTake(b, s)
}

func benchTake(b *testing.B, s *sqlstore.Store) {
	ctx := context.Background()
	a := &store.Account{Email: "bench@example.com"}
	if err := s.CreateAccount(ctx, a); err != nil {
		b.Fatal(err)
	}
	day := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, _, err := s.Take(ctx, a.ID, day, 1<<30); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func BenchmarkTokenRevokedSQLiteFile(b *testing.B) {
	s := open(b, filepath.Join(b.TempDir(), "api.db"), nil)
	defer s.Close()
	ctx := context.Background()
	exp := time.Now().Add(time.Hour)
	for i := range 1000 {
		if err := s.RevokeToken(ctx, "jti-"+string(rune('a'+i%26))+time.Duration(i).String(), exp); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.TokenRevoked(ctx, "jti-unknown"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestForeignKeys: records of an account that does not exist are refused
// with ErrNotFound and nothing is stored.
func TestForeignKeys(t *testing.T) {
	ctx := context.Background()
	s := open(t, ":memory:", nil)
	defer s.Close()
	sum := sha256.Sum256([]byte("k"))
	if err := s.CreateKey(ctx, &store.APIKey{AccountID: "acct_ghost", Hash: sum[:]}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("CreateKey for a missing account: err = %v, want ErrNotFound", err)
	}
	if err := s.CreateJob(ctx, &store.Job{AccountID: "acct_ghost", Kind: "site"}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("CreateJob for a missing account: err = %v, want ErrNotFound", err)
	}
	if _, err := s.KeyByHash(ctx, sum[:]); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a refused key was stored: %v", err)
	}
}

// TestScreenshotsDeletedWithJob deletes a job row and checks its
// screenshots went with it (ON DELETE CASCADE).
func TestScreenshotsDeletedWithJob(t *testing.T) {
	ctx := context.Background()
	s := open(t, ":memory:", nil)
	defer s.Close()
	a := &store.Account{Email: "cascade@example.com", Name: "c", Plan: store.Free}
	if err := s.CreateAccount(ctx, a); err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
	j := &store.Job{AccountID: a.ID, Kind: "site"}
	if err := s.CreateJob(ctx, j); err != nil {
		t.Fatalf("CreateJob: %v", err)
	}
	if err := s.PutScreenshot(ctx, j.ID, "https://example.com/", []byte("png")); err != nil {
		t.Fatalf("PutScreenshot: %v", err)
	}
	if _, err := s.DB().ExecContext(ctx, `DELETE FROM jobs WHERE id = ?`, j.ID); err != nil {
		t.Fatalf("delete job: %v", err)
	}
	var n int
	if err := s.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM screenshots`).Scan(&n); err != nil || n != 0 {
		t.Errorf("screenshots left after deleting their job: %d, %v; want 0", n, err)
	}
}
