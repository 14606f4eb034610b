package httpapi

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/seokit/seokit/httpapi/auth"
)

// MaxCallAPIBytes caps the answer CallAPI collects; a larger one fails.
const MaxCallAPIBytes = 32 << 20

// CallAPI answers a request to the /v1 API in this process as the account
// would be answered, for the dashboard: method and target ("/v1/projects",
// "/v1/analyze/site/{id}/diff?against=...") name a route of the API and
// body is its JSON body (nil for none). The route's own handler runs, so
// every rule, cap and error of the API applies; authentication and the
// per-request count against the daily limit do not (the caller has
// signed the account in, and counts the actions that spend resources with
// CountAction). It returns the status, the Content-Type and the body of the
// answer (the error envelope for 4xx and 5xx); err is set only when no
// route matches or the answer is larger than MaxCallAPIBytes.
func (s *Server) CallAPI(ctx context.Context, accountID, method, target string, body []byte) (status int, contentType string, resp []byte, err error) {
	if !strings.HasPrefix(target, "/v1/") || accountID == "" {
		return 0, "", nil, errors.New("httpapi: CallAPI: bad target or account")
	}
	r, err := http.NewRequestWithContext(ctx, method, target, bytes.NewReader(body))
	if err != nil {
		return 0, "", nil, err
	}
	if body != nil {
		r.Header.Set("Content-Type", "application/json")
	}
	mux := http.NewServeMux()
	for _, rt := range s.routeTable() {
		mux.HandleFunc(rt.pattern, rt.h)
	}
	if _, pattern := mux.Handler(r); pattern == "" {
		return 0, "", nil, errors.New("httpapi: CallAPI: no route for " + method + " " + target)
	}
	p := &auth.Principal{AccountID: accountID, Permissions: []string{auth.ScopeRead, auth.ScopeWrite}}
	w := &callRecorder{h: http.Header{}, status: http.StatusOK}
	mux.ServeHTTP(w, r.WithContext(context.WithValue(ctx, keyPrincipal, p)))
	if w.over {
		return 0, "", nil, errors.New("httpapi: CallAPI: answer larger than " + strconv.Itoa(MaxCallAPIBytes) + " bytes")
	}
	return w.status, w.h.Get("Content-Type"), w.buf.Bytes(), nil
}

// callRecorder collects the answer of CallAPI.
type callRecorder struct {
	h      http.Header
	status int
	wrote  bool
	over   bool
	buf    bytes.Buffer
}

func (c *callRecorder) Header() http.Header { return c.h }

func (c *callRecorder) WriteHeader(status int) {
	if !c.wrote {
		c.status, c.wrote = status, true
	}
}

func (c *callRecorder) Write(b []byte) (int, error) {
	c.WriteHeader(http.StatusOK)
	if c.buf.Len()+len(b) > MaxCallAPIBytes {
		c.over = true
		return 0, errors.New("httpapi: answer too large")
	}
	return c.buf.Write(b)
}
