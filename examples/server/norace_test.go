//go:build !race

package main

// raceBuild reports whether the tests run under the race detector, whose
// memory overhead makes RSS figures meaningless.
const raceBuild = false
