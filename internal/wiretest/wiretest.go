// Package wiretest records the request lines HTTP clients send, as bytes
// on the wire, before any server parses (and perhaps refuses) them.
package wiretest

import (
	"bytes"
	"net"
	"strings"
	"sync"
)

// Request is one request as sent: the request target of its request line
// and its Host header.
type Request struct {
	Method, Target, Host string
}

// Listener wraps a net.Listener and records the requests read from every
// connection it accepts. Requests must have no body (GET, HEAD).
type Listener struct {
	net.Listener
	mu   sync.Mutex
	reqs []Request
}

// Listen wraps l.
func Listen(l net.Listener) *Listener { return &Listener{Listener: l} }

// Accept accepts a connection whose reads are recorded.
func (l *Listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &conn{Conn: c, l: l}, nil
}

// Requests returns the requests recorded so far, in order of arrival.
func (l *Listener) Requests() []Request {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Request(nil), l.reqs...)
}

// Reset forgets the requests recorded so far.
func (l *Listener) Reset() {
	l.mu.Lock()
	l.reqs = nil
	l.mu.Unlock()
}

type conn struct {
	net.Conn
	l   *Listener
	buf []byte
	cur *Request // the request whose headers are being read
}

func (c *conn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.buf = append(c.buf, p[:n]...)
	for {
		i := bytes.Index(c.buf, []byte("\r\n"))
		if i < 0 {
			break
		}
		line := string(c.buf[:i])
		c.buf = c.buf[i+2:]
		switch {
		case c.cur == nil:
			if line == "" {
				continue
			}
			f := strings.Split(line, " ")
			r := Request{Method: f[0]}
			if len(f) == 3 {
				r.Target = f[1]
			}
			c.cur = &r
		case line == "":
			c.l.mu.Lock()
			c.l.reqs = append(c.l.reqs, *c.cur)
			c.l.mu.Unlock()
			c.cur = nil
		default:
			if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(k, "host") {
				c.cur.Host = strings.TrimSpace(v)
			}
		}
	}
	return n, err
}
