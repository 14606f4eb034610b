//go:build !race

package analyzer

// raceEnabled is true in -race builds, whose memory use is several times
// the normal one.
const raceEnabled = false
