package mcpserver

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seokit/seokit/httpapi/auth"
)

// Defaults of the session caps (Options.MaxSessionsPerAccount and
// MaxSessions).
const (
	// DefaultMaxSessionsPerAccount lets an account run a few clients at
	// once, each with its session, and reconnect a few times before the
	// sessions of clients gone without a DELETE close after SessionTimeout.
	DefaultMaxSessionsPerAccount = 10
	// DefaultMaxSessions bounds every account's sessions together. Each
	// holds goroutines and buffers of the SDK's, and its standalone GET
	// stream a connection, so that many accounts together cannot take the
	// server's file descriptors and memory.
	DefaultMaxSessions = 1000
)

// SessionTimeout is how long a session lives without a request of its
// client: the SDK closes it then, its client gone without a DELETE.
const SessionTimeout = 30 * time.Minute

// sessionRetry is the Retry-After of a refused session: sessions end when
// their clients DELETE them or after SessionTimeout idle, not in seconds.
const sessionRetry = time.Minute

// sessionGate counts the open HTTP sessions, per account and in all, so
// that the next one past a cap is refused before the SDK creates it.
type sessionGate struct {
	perAccount int // 0: not limited per account
	total      int

	mu      sync.Mutex
	open    int
	account map[string]int
}

func newSessionGate(perAccount, total int) *sessionGate {
	switch {
	case perAccount == 0:
		perAccount = DefaultMaxSessionsPerAccount
	case perAccount < 0:
		perAccount = 0
	}
	if total <= 0 {
		total = DefaultMaxSessions
	}
	return &sessionGate{perAccount: perAccount, total: total, account: map[string]int{}}
}

// take counts a session of account about to be created, and returns the
// func that ends the count (once), or the refusal's status and message:
// 429 when the account holds its cap (limit, or the gate's per-account
// cap when limit is zero or less), 503 when the server does.
func (g *sessionGate) take(account string, limit int) (release func(), status int, msg string) {
	if limit <= 0 {
		limit = g.perAccount
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if n := g.account[account]; limit > 0 && n >= limit {
		return nil, http.StatusTooManyRequests, "this account already has " + strconv.Itoa(n) + " MCP sessions open, its limit: end one (DELETE /mcp with its Mcp-Session-Id) or wait for an idle one to close after " +
			strconv.Itoa(int(SessionTimeout/time.Minute)) + " minutes"
	}
	if g.open >= g.total {
		return nil, http.StatusServiceUnavailable, "the server has as many MCP sessions open as it admits (" + strconv.Itoa(g.total) + "); retry later"
	}
	g.open++
	g.account[account]++
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			defer g.mu.Unlock()
			g.open--
			if g.account[account]--; g.account[account] <= 0 {
				delete(g.account, account)
			}
		})
	}, 0, ""
}

// serveNew serves r, a POST without a session ID, which has the SDK create
// a session, as a session of p's account: refused past the caps, else
// counted until the session the SDK created ends (a DELETE, SessionTimeout
// idle, Close), or at once when none was (a request that did not
// initialize).
func (s *Server) serveNew(w http.ResponseWriter, r *http.Request, p *auth.Principal, h http.Handler) {
	limit := 0
	if s.opts.SessionsOf != nil {
		var err error
		if limit, err = s.opts.SessionsOf(r.Context(), p); err != nil {
			te := s.toolError(err)
			if te.RetryAfter > 0 {
				w.Header().Set("Retry-After", strconv.Itoa(te.RetryAfter))
			}
			http.Error(w, te.Message, te.Status)
			return
		}
	}
	release, status, msg := s.sessions.take(p.AccountID, limit)
	if release == nil {
		w.Header().Set("Retry-After", strconv.Itoa(int(sessionRetry/time.Second)))
		http.Error(w, msg, status)
		return
	}
	h.ServeHTTP(w, r)
	if ss := s.session(w.Header().Get("Mcp-Session-Id")); ss != nil {
		go func() {
			ss.Wait()
			release()
		}()
		return
	}
	release()
}

// session returns the open session id, nil when there is none.
func (s *Server) session(id string) *mcp.ServerSession {
	if id == "" {
		return nil
	}
	for ss := range s.mcp.Sessions() {
		if ss.ID() == id {
			return ss
		}
	}
	return nil
}

// Close ends every session: their counts are released and their clients'
// next requests answered 404, as for sessions past SessionTimeout.
func (s *Server) Close() {
	for ss := range s.mcp.Sessions() {
		ss.Close()
	}
}
