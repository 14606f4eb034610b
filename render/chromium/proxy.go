package chromium

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seokit/seokit/seo"
)

// maxRefusals caps the refusals a proxy remembers.
const maxRefusals = 256

// dialFunc dials like (*seo.Fetcher).DialContext.
type dialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// proxy is the browser's only way out: an HTTP proxy on 127.0.0.1 that
// tunnels CONNECT requests (https, wss) and forwards plain http requests,
// dialling every connection with the safe fetcher's dialer, so that the
// fetcher's address policy is checked at dial time for each request,
// redirect hop and WebSocket. It counts the bytes received from servers and
// cuts every connection once maxBytes is passed.
type proxy struct {
	dial     dialFunc
	maxBytes atomic.Int64
	ln       net.Listener
	tr       *http.Transport
	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup

	received atomic.Int64

	mu      sync.Mutex
	conns   map[net.Conn]struct{}
	refused map[string]failure // host:port → why its last dial failed
	closed  bool
}

// startProxy listens on a random loopback port. maxBytes <= 0 means no cap.
func startProxy(dial dialFunc, maxBytes int64) (*proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &proxy{
		dial:    dial,
		ln:      ln,
		ctx:     ctx,
		cancel:  cancel,
		conns:   map[net.Conn]struct{}{},
		refused: map[string]failure{},
	}
	p.maxBytes.Store(maxBytes)
	p.tr = &http.Transport{
		Proxy:                  nil,
		DialContext:            p.dialCounted,
		DisableCompression:     true,
		MaxResponseHeaderBytes: 1 << 20,
		ResponseHeaderTimeout:  time.Minute,
		IdleConnTimeout:        30 * time.Second,
	}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// URL is the proxy's address for the browser's proxy settings.
func (p *proxy) URL() string { return "http://" + p.ln.Addr().String() }

// failure is why a dial failed; forbidden when the address policy refused
// it.
type failure struct {
	reason    string
	forbidden bool
}

// failed returns why the last dial of hostport ("host:port") failed, if it
// did.
func (p *proxy) failed(hostport string) (failure, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f, ok := p.refused[strings.ToLower(hostport)]
	return f, ok
}

// refusal returns the reason the address policy refused hostport, if it
// did.
func (p *proxy) refusal(hostport string) (string, bool) {
	f, ok := p.failed(hostport)
	if !ok || !f.forbidden {
		return "", false
	}
	return f.reason, true
}

// record remembers why a dial of hostport failed.
func (p *proxy) record(hostport string, err error) {
	f := failure{reason: err.Error(), forbidden: errors.Is(err, seo.ErrForbiddenAddress)}
	if f.forbidden {
		f.reason = strings.TrimPrefix(f.reason, seo.ErrForbiddenAddress.Error()+": ")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.refused[strings.ToLower(hostport)]; ok || len(p.refused) < maxRefusals {
		p.refused[strings.ToLower(hostport)] = f
	}
}

// over reports that the byte cap is passed.
func (p *proxy) over() bool {
	m := p.maxBytes.Load()
	return m > 0 && p.received.Load() > m
}

// reset starts the count of a new rendering with a cap of maxBytes, and
// forgets the failed dials of the last one. The connections of the browser
// stay open: each new dial is checked as always.
func (p *proxy) reset(maxBytes int64) {
	p.mu.Lock()
	clear(p.refused)
	p.mu.Unlock()
	p.received.Store(0)
	p.maxBytes.Store(maxBytes)
}

// track registers c to be closed by close; false when the proxy is closed.
func (p *proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *proxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

// dialUpstream dials hostport with the guarded dialer and records refusals.
func (p *proxy) dialUpstream(ctx context.Context, hostport string) (net.Conn, error) {
	if p.over() {
		return nil, errBytes
	}
	c, err := p.dial(ctx, "tcp", hostport)
	if err != nil {
		if p.ctx.Err() == nil {
			p.record(hostport, err)
		}
		return nil, err
	}
	return &countConn{Conn: c, p: p}, nil
}

func (p *proxy) dialCounted(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := p.dialUpstream(ctx, addr)
	if err != nil {
		return nil, err
	}
	if !p.track(c) {
		c.Close()
		return nil, net.ErrClosed
	}
	return c, nil
}

var errBytes = errors.New("render: byte budget spent")

// countConn counts the bytes read from a server and fails reads once the
// proxy's byte cap is passed.
type countConn struct {
	net.Conn
	p *proxy
}

func (c *countConn) Read(b []byte) (int, error) {
	if c.p.over() {
		return 0, errBytes
	}
	n, err := c.Conn.Read(b)
	c.p.received.Add(int64(n))
	return n, err
}

func (c *countConn) Close() error {
	c.p.untrack(c)
	return c.Conn.Close()
}

// hopHeaders are removed when a request or response is forwarded.
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// accept serves each connection of the browser on its own goroutine.
func (p *proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		if !p.track(c) {
			c.Close()
			return
		}
		p.wg.Add(1)
		go p.handle(c)
	}
}

// handle serves the requests of one browser connection: a CONNECT request
// becomes a tunnel, plain http requests are forwarded one after another.
func (p *proxy) handle(c net.Conn) {
	defer p.wg.Done()
	defer func() {
		c.Close()
		p.untrack(c)
	}()
	br := bufio.NewReader(c)
	for {
		_ = c.SetReadDeadline(time.Now().Add(proxyIdle))
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		_ = c.SetReadDeadline(time.Time{})
		if req.Method == http.MethodConnect {
			p.tunnel(c, br, req.Host)
			return
		}
		if !p.forward(c, req) {
			return
		}
	}
}

// proxyIdle is how long a browser connection may wait between requests.
const proxyIdle = time.Minute

// forward sends a plain http request on and copies the response back; it
// reports whether the connection can carry another request. A request that
// cannot be forwarded (refused address, failed dial) gets no response: the
// connection is closed and the browser reports a network failure.
func (p *proxy) forward(c net.Conn, req *http.Request) bool {
	if req.URL.Scheme != "http" || req.URL.Host == "" {
		_, _ = io.WriteString(c, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
		return false
	}
	out := req.WithContext(p.ctx)
	out.RequestURI = ""
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	resp, err := p.tr.RoundTrip(out)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	for _, h := range hopHeaders {
		resp.Header.Del(h)
	}
	if err := resp.Write(c); err != nil {
		return false
	}
	return !req.Close && !resp.Close
}

// tunnel dials hostport and copies bytes both ways until either side ends.
func (p *proxy) tunnel(down net.Conn, br *bufio.Reader, hostport string) {
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	up, err := p.dialUpstream(ctx, hostport)
	cancel()
	if err != nil {
		status := "502 Bad Gateway"
		if errors.Is(err, seo.ErrForbiddenAddress) {
			status = "403 Forbidden"
		}
		_, _ = io.WriteString(down, "HTTP/1.1 "+status+"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
		return
	}
	if !p.track(up) {
		up.Close()
		return
	}
	defer up.Close()
	if _, err := io.WriteString(down, "HTTP/1.1 200 Connection Established\r\n\r\n"); err != nil {
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = io.Copy(up, br) // br holds what the browser sent after CONNECT
		if cw, ok := up.(*countConn).Conn.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		}
	}()
	_, _ = io.Copy(down, up)
	down.Close()
	up.Close()
	<-done
}

// close stops the proxy: the listener, every connection and every handler.
func (p *proxy) close() {
	p.mu.Lock()
	p.closed = true
	conns := make([]net.Conn, 0, len(p.conns))
	for c := range p.conns {
		conns = append(conns, c)
	}
	p.mu.Unlock()
	p.cancel()
	_ = p.ln.Close()
	for _, c := range conns {
		c.Close()
	}
	p.tr.CloseIdleConnections()
	p.wg.Wait()
	p.tr.CloseIdleConnections()
}
