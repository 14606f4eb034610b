//go:build race

package riverjobs_test

const raceEnabled = true
