package httpapi

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/store"
)

// TestEarlyRefusalReachesClient sends, as Python's urllib does, a whole
// 12 MB optimisation body without Expect: 100-continue before reading the
// answer, from an account at its daily limit: the 429 is decided before
// the body is read, and the client must still finish writing and read the
// 429 envelope rather than a connection reset.
func TestEarlyRefusalReachesClient(t *testing.T) {
	a := newTestAPI(t, &Options{Limits: map[store.Plan]int{store.Free: 1}})
	wantStatus(t, a.call("GET", "/v1/analyze/site", a.key, ""), 200) // spends the day's one request

	const size = 12 << 20
	for _, keepAlive := range []bool{true, false} {
		t.Run(fmt.Sprintf("keep-alive=%v", keepAlive), func(t *testing.T) {
			conn, err := net.Dial("tcp", a.ts.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			// A bound for a server that neither reads nor answers, far
			// above what 12 MB over loopback takes.
			conn.SetDeadline(time.Now().Add(time.Minute))
			head := "POST /v1/optimize/content HTTP/1.1\r\nHost: test\r\nX-API-Key: " + a.key +
				"\r\nContent-Type: application/json\r\nContent-Length: " + fmt.Sprint(size) + "\r\n"
			if !keepAlive {
				head += "Connection: close\r\n"
			}
			w := bufio.NewWriterSize(conn, 64<<10)
			io.WriteString(w, head+"\r\n")
			body := `{"content":"` + strings.Repeat("a", size-14) + `"}`
			if len(body) != size {
				t.Fatalf("body of %d bytes, want %d", len(body), size)
			}
			if _, err := io.WriteString(w, body); err != nil {
				t.Fatalf("writing the body: %v (the server cut the connection before reading it)", err)
			}
			if err := w.Flush(); err != nil {
				t.Fatalf("writing the body: %v (the server cut the connection before reading it)", err)
			}
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatalf("reading the answer: %v", err)
			}
			defer resp.Body.Close()
			var env struct {
				Error *Error `json:"error"`
			}
			if resp.StatusCode != http.StatusTooManyRequests || json.NewDecoder(resp.Body).Decode(&env) != nil || env.Error == nil || env.Error.Code != CodeRateLimited {
				t.Fatalf("answer %d %+v, want 429 rate_limited", resp.StatusCode, env.Error)
			}
		})
	}
}
