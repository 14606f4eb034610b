package optimizer

import "context"

// cancelEvery is how many steps of a long loop run between two looks at
// the context: a few microseconds of work.
const cancelEvery = 1024

// canceler lets the long loops of one request stop soon after its context
// is done. It is not safe for concurrent use.
type canceler struct {
	ctx context.Context
	n   int
	err error // ctx's error, once seen
}

// done counts one step and reports whether the request must stop; it
// looks at the context every cancelEvery steps, and keeps reporting true
// once the context is done.
func (c *canceler) done() bool {
	if c.err != nil {
		return true
	}
	if c.n++; c.n >= cancelEvery {
		c.n = 0
		return c.check()
	}
	return false
}

// check looks at the context now (between the steps of a request, which
// may be few but long) and reports whether the request must stop.
func (c *canceler) check() bool {
	if c.err == nil {
		c.err = c.ctx.Err()
	}
	return c.err != nil
}
