// Package racetest tells tests whether the race detector is on.
//
// Under -race a program runs several times slower and holds several times
// more memory, so a test whose size only matters for a time or memory
// bound (a 100,000-page synthetic site, a heap model) runs a smaller case
// there, still able to fail, and .ci/run runs the full size without -race.
package racetest
