package pgtest

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"
)

// Template is a database on the shared server that setup prepares once
// per test binary (a store's migrations, typically); DSN gives each test a
// fresh copy of it. PostgreSQL copies a database in a fraction of the time
// the migrations take, so a package whose tests each open a migrated store
// pays for the migrations once instead of once per test.
//
// A test about the migrations themselves (an empty database, concurrent
// first starts) uses the package's DSN instead.
type Template struct {
	name  string
	setup func(ctx context.Context, dsn string) error

	once sync.Once
	db   string // the template database, once built
	err  error
}

// NewTemplate declares a template named name (letters, digits and
// underscores) that setup builds, on the first DSN call, from an empty
// database whose connection string it is given. setup must close every
// connection it opened before it returns.
func NewTemplate(name string, setup func(ctx context.Context, dsn string) error) *Template {
	return &Template{name: name, setup: setup}
}

// DSN starts the shared server if needed, builds the template on first
// use and returns the connection string of a new database copied from
// it, dropped when the test ends. A template whose setup failed fails
// every test that asks for it.
func (tp *Template) DSN(t testing.TB) string {
	t.Helper()
	s, err := start()
	if err != nil {
		Unavailable(t, "PostgreSQL", err)
	}
	tp.once.Do(func() { tp.db, tp.err = tp.build(s) })
	if tp.err != nil {
		t.Fatalf("pgtest: template %s: %v", tp.name, tp.err)
	}
	return s.newDatabase(t, tp.db)
}

// build creates the template database, runs setup on it and closes it to
// connections: PostgreSQL copies a database only while nobody is
// connected to it.
func (tp *Template) build(s *server) (string, error) {
	for _, r := range tp.name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return "", fmt.Errorf("name %q: want lower-case letters, digits and underscores", tp.name)
		}
	}
	db := fmt.Sprintf("tpl%d_%s", os.Getpid(), tp.name)
	if err := s.exec("CREATE DATABASE " + db); err != nil {
		return "", fmt.Errorf("create: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := tp.setup(ctx, s.dsn(db)); err != nil {
		return "", fmt.Errorf("setup: %w", err)
	}
	// A session the setup left behind (a pool closing in the background)
	// would make every copy fail.
	for _, q := range []string{
		"ALTER DATABASE " + db + " ALLOW_CONNECTIONS false",
		"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + db + "'",
	} {
		if err := s.exec(q); err != nil {
			return "", fmt.Errorf("close to connections: %w", err)
		}
	}
	return db, nil
}
