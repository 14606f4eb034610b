//go:build race

package racetest

// Enabled is true when the tests run with the race detector.
const Enabled = true
