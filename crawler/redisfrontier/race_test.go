//go:build race

package redisfrontier_test

const raceEnabled = true
