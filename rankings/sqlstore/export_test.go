package sqlstore

// SetParallelSeries sets the series count from which ScanPositions reads
// in parallel, and returns a function restoring it.
func SetParallelSeries(n int) func() {
	old := parallelSeries
	parallelSeries = n
	return func() { parallelSeries = old }
}
