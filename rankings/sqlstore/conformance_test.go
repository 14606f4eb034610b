package sqlstore_test

import (
	"path/filepath"
	"testing"

	"github.com/seokit/seokit/rankings/sqlstore"
	"github.com/seokit/seokit/reports/reportstest"
)

var _ reportstest.ScannerStore = (*sqlstore.Store)(nil)

func TestPositionScannerConformanceSQLiteMemory(t *testing.T) {
	reportstest.RunPositionScanner(t, func(t *testing.T) reportstest.ScannerStore { return open(t, ":memory:") })
}

func TestPositionScannerConformanceSQLiteFile(t *testing.T) {
	reportstest.RunPositionScanner(t, func(t *testing.T) reportstest.ScannerStore { return open(t, filepath.Join(t.TempDir(), "r.db")) })
}

// With one series as the threshold, every scan reads by ranges of series
// ids on several connections.
func TestPositionScannerConformanceParallel(t *testing.T) {
	t.Cleanup(sqlstore.SetParallelSeries(1))
	reportstest.RunPositionScanner(t, func(t *testing.T) reportstest.ScannerStore { return open(t, filepath.Join(t.TempDir(), "r.db")) })
}

func TestPositionScannerConformancePostgres(t *testing.T) {
	migrated.DSN(t) // skips, saying why, when no server can start
	reportstest.RunPositionScanner(t, func(t *testing.T) reportstest.ScannerStore { return open(t, migrated.DSN(t)) })
}
