//go:build race

package httpapi

// raceEnabled is true when the tests run with the race detector, which
// changes the allocation the admission tests measure.
const raceEnabled = true
