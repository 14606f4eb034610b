package proctest

import (
	"runtime"
	"strings"
)

// Goroutines returns the stacks of the process's running goroutines by
// their header ("goroutine 12"), so that a test can tell the goroutines it
// left from those running before it.
func Goroutines() map[string]string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	out := map[string]string{}
	for _, g := range strings.Split(string(buf), "\n\n") {
		head, _, _ := strings.Cut(g, " [")
		out[head] = g
	}
	return out
}
