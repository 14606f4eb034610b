//go:build race

package optimizer

// raceEnabled is true when the tests run with the race detector, which
// makes the 10 MiB memory test too slow and its heap figures meaningless.
const raceEnabled = true
