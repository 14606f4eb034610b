//go:build race

package mcpserver_test

// raceEnabled is true when the tests run with the race detector, which
// changes the CPU time and allocation the overhead test measures.
const raceEnabled = true
