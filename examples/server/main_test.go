package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var listenRE = regexp.MustCompile(`Listening on (http://\S+)`)

// start runs the server until the returned stop is called, and returns its
// output once it listens and its base URL.
func start(t *testing.T, dir string) (out string, base string, stop func()) {
	t.Helper()
	for _, v := range []string{"DATAFORSEO_LOGIN", "DATAFORSEO_PASSWORD", "SERPAPI_KEY", "GOOGLE_CSE_KEY", "GOOGLE_CSE_CX", "SEOKIT_ADDR", "SEOKIT_DB", "SEOKIT_DATA_DB", "SEOKIT_TLS_CERT", "SEOKIT_TLS_KEY", "SEOKIT_TRUSTED_PROXIES", "SEOKIT_FREE_LIMIT", "SEOKIT_PRO_LIMIT"} {
		t.Setenv(v, "") // no provider is ever called from a test
	}
	ctx, cancel := context.WithCancel(context.Background())
	stdout, stderr := &syncBuffer{}, &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-db", filepath.Join(dir, "api.db"), "-data-db", filepath.Join(dir, "data.db")}, stdout, stderr)
	}()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if m := listenRE.FindStringSubmatch(stdout.String()); m != nil {
			base = m[1]
			break
		}
		select {
		case err := <-done:
			cancel()
			t.Fatalf("server exited: %v\n%s", err, stderr)
		default:
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("server did not start:\n%s\n%s", stdout, stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return stdout.String(), base, func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("run: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("server did not shut down")
		}
	}
}

var keyRE = regexp.MustCompile(`(?m)^API key: (\S+)$`)

func TestServerFirstStartAndRestart(t *testing.T) {
	dir := t.TempDir()
	out, base, stop := start(t, dir)
	m := keyRE.FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "Client ID: ") || !strings.Contains(out, "Client secret: ") {
		stop()
		t.Fatalf("first start printed no credentials:\n%s", out)
	}
	key := m[1]
	suggest := func(base string) *http.Response {
		req, _ := http.NewRequest("GET", base+"/v1/keywords/suggest?query=oak+tables&locale=en-US", nil)
		req.Header.Set("X-API-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := suggest(base)
	var body struct {
		Suggestions []json.RawMessage `json:"suggestions"`
	}
	err := json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if resp.StatusCode != 200 || err != nil || body.Suggestions == nil {
		t.Errorf("suggest: status %d, err %v, body %+v", resp.StatusCode, err, body)
	}
	if resp.Header.Get("X-RateLimit-Limit") != "1000" || resp.Header.Get("X-RateLimit-Remaining") != "999" {
		t.Errorf("rate-limit headers %v", resp.Header)
	}
	stop()

	out, base, stop = start(t, dir)
	defer stop()
	if strings.Contains(out, "API key:") {
		t.Errorf("restart printed a key again:\n%s", out)
	}
	resp = suggest(base)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("X-RateLimit-Remaining") != "998" {
		t.Errorf("after restart: status %d, remaining %s", resp.StatusCode, resp.Header.Get("X-RateLimit-Remaining"))
	}
}

func TestServerRefusesPlainHTTPOnPublicAddress(t *testing.T) {
	dir := t.TempDir()
	err := run(context.Background(), []string{"-addr", "0.0.0.0:0", "-db", filepath.Join(dir, "a.db"), "-data-db", filepath.Join(dir, "d.db")}, &syncBuffer{}, &syncBuffer{})
	if err == nil || !strings.Contains(err.Error(), "refusing plain HTTP") {
		t.Errorf("err %v", err)
	}
}

func TestServerFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"cert without key", []string{"-tls-cert", "c.pem"}},
		{"negative limit", []string{"-free-limit", "-1"}},
		{"extra argument", []string{"serve"}},
		{"bad proxy", []string{"-trusted-proxy", "nope", "-addr", "0.0.0.0:0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := run(context.Background(), tc.args, &syncBuffer{}, &syncBuffer{}); err == nil {
				t.Error("accepted")
			}
		})
	}
}
