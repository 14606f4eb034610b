// Package proctest measures the process for benchmarks and tests: its CPU
// time, which a busy machine does not inflate as it inflates wall time, and
// the peak of its live heap over a piece of work. The analyzer's and the
// crawler's benchmarks share it, so each figure is measured one way.
package proctest
