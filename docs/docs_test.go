// Package docs_test runs the commands of the README and of docs/*.md, so
// the guides cannot drift from the programs they describe.
//
// A fenced block whose info string is "sh test" is run by TestDocsCommands
// with bash (-e -u -o pipefail), in a fresh directory, against a loopback
// site and a started examples/server (-allow-private, its own SQLite files
// in that directory). Before a block runs:
//
//   - assignments of SITE, KEY and API at the start of a line are left out:
//     the test sets them (the loopback site's host:port, the API key the
//     server printed, the server's /v1 address);
//   - a line that ends in "&" (a server started in the background, such as
//     the README's python3 -m http.server) is left out: the test's site
//     stands in for it;
//   - "go run ./examples/cli" and "go run ./examples/server" become the
//     binaries the test built once;
//   - curl fails on an HTTP error status (--fail-with-body).
//
// Other blocks are examples that need the internet, credentials or a
// cluster; the test counts them and prints how many ran and how many not.
package docs_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// block is one fenced code block of a Markdown file.
type block struct {
	file string
	line int // of the opening fence
	info string
	body string
}

// blocks returns the fenced blocks of the README and of docs/*.md.
func blocks(t *testing.T) []block {
	t.Helper()
	files, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{"../README.md"}, files...)
	var out []block
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cur *block
		var body strings.Builder
		for i, l := range strings.Split(string(b), "\n") {
			switch {
			case cur == nil && strings.HasPrefix(l, "```"):
				cur = &block{file: f, line: i + 1, info: strings.TrimSpace(strings.TrimPrefix(l, "```"))}
				body.Reset()
			case cur != nil && strings.TrimSpace(l) == "```":
				cur.body = body.String()
				out = append(out, *cur)
				cur = nil
			case cur != nil:
				body.WriteString(l + "\n")
			}
		}
		if cur != nil {
			t.Errorf("%s:%d: code block not closed", f, cur.line)
		}
	}
	return out
}

var (
	provided   = regexp.MustCompile(`^(SITE|KEY|API)=`)
	background = regexp.MustCompile(`&\s*(#.*)?$`)
)

// script is a runnable block as the test runs it.
func script(body string) string {
	var b strings.Builder
	b.WriteString("curl() { command curl --fail-with-body \"$@\"; }\n")
	for _, l := range strings.Split(body, "\n") {
		if provided.MatchString(l) || background.MatchString(l) && !strings.HasSuffix(strings.TrimSpace(l), "&&") {
			continue
		}
		l = strings.ReplaceAll(l, "go run ./examples/cli", `"$SEOKIT_DOCS_CLI"`)
		l = strings.ReplaceAll(l, "go run ./examples/server", `"$SEOKIT_DOCS_SERVER"`)
		b.WriteString(l + "\n")
	}
	return b.String()
}

// need skips the test without a tool the runnable blocks use, or fails it
// under SEOKIT_REQUIRE_SERVERS=1.
func need(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("SEOKIT_REQUIRE_SERVERS") == "1" {
				t.Fatalf("%s not found; the docs test runs the guides' commands with it", tool)
			}
			t.Skipf("%s not found; the docs test runs the guides' commands with it", tool)
		}
	}
}

// build builds a command of the module into dir and returns its path.
func build(t *testing.T, dir, pkg string) string {
	t.Helper()
	out := filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = ".."
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	return out
}

// docsSite is the loopback site the blocks analyse: two pages that link to
// each other, a sitemap and robots.txt.
func docsSite() http.Handler {
	page := func(title, link, text string) string {
		return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>` + title +
			`</title><meta name="description" content="` + text + `"></head><body><h1>` + title +
			`</h1><p>` + strings.Repeat(text+" ", 40) + `</p><a href="` + link + `">more</a></body></html>`
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/", "/index.html":
			fmt.Fprint(w, page("Green tea from our garden", "/about.html", "Green tea and matcha, picked and steamed by hand."))
		case "/about.html":
			fmt.Fprint(w, page("About us", "/", "A family tea garden since 1950."))
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
		default:
			http.NotFound(w, r)
		}
	})
}

// server is examples/server running in dir.
type server struct {
	api, key string
	cmd      *exec.Cmd
	out      bytes.Buffer
	mu       sync.Mutex
	done     chan struct{}
}

var (
	keyLine    = regexp.MustCompile(`API key: (\S+)`)
	listenLine = regexp.MustCompile(`Listening on (http://\S+)`)
)

// startServer runs the server binary in dir and waits until it listens.
func startServer(t *testing.T, bin, dir string) *server {
	t.Helper()
	s := &server{done: make(chan struct{})}
	s.cmd = exec.Command(bin, "-addr", "127.0.0.1:0", "-allow-private")
	s.cmd.Dir = dir
	s.cmd.Env = append(os.Environ(), "SEOKIT_ADDR=", "SEOKIT_DB=", "SEOKIT_DATA_DB=", "DATAFORSEO_LOGIN=",
		"DATAFORSEO_PASSWORD=", "SERPAPI_KEY=", "GOOGLE_CSE_KEY=", "GOOGLE_CSE_CX=")
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s.cmd.Stderr = s.cmd.Stdout
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan struct{})
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			l := sc.Text()
			s.mu.Lock()
			s.out.WriteString(l + "\n")
			if m := keyLine.FindStringSubmatch(l); m != nil {
				s.key = m[1]
			}
			if m := listenLine.FindStringSubmatch(l); m != nil && s.api == "" {
				s.api = m[1] + "/v1"
				close(ready)
			}
			s.mu.Unlock()
		}
		s.cmd.Wait()
	}()
	t.Cleanup(func() {
		s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(30 * time.Second):
			s.cmd.Process.Kill()
			<-s.done
		}
	})
	select {
	case <-ready:
	case <-s.done:
		t.Fatalf("server exited:\n%s", s.output())
	case <-time.After(60 * time.Second):
		t.Fatalf("server did not start:\n%s", s.output())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.key == "" {
		t.Fatalf("server printed no API key:\n%s", s.out.String())
	}
	return s
}

func (s *server) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.String()
}

// TestDocsCommands runs every "sh test" block of the README and docs/*.md
// (see the package comment) and fails on the first command of a block that
// fails, printing the block's place, its output and the server's log.
func TestDocsCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server and the command line")
	}
	need(t, "bash", "curl", "jq", "go")
	all := blocks(t)
	var run []block
	notRun := 0
	for _, b := range all {
		switch {
		case b.info == "sh test":
			run = append(run, b)
		case b.info == "sh":
			notRun++
		}
	}
	if len(run) == 0 {
		t.Fatal(`no "sh test" block in the README or docs/`)
	}
	bin := t.TempDir()
	cli := build(t, bin, "./examples/cli")
	srv := build(t, bin, "./examples/server")
	work := t.TempDir()
	site := httptest.NewServer(docsSite())
	defer site.Close()
	s := startServer(t, srv, work)

	// The server and the command line name the one data file they share.
	data := filepath.Join(work, "seokit-data.db")
	if !strings.Contains(s.output(), "Keyword and ranking data: "+data) {
		t.Errorf("the server does not name its data file %s:\n%s", data, tail(s.output(), 10))
	}
	var outputs strings.Builder
	commands := 0
	for _, b := range run {
		name := fmt.Sprintf("%s:%d", filepath.Base(b.file), b.line)
		ok := t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", script(b.body))
			cmd.Dir = work
			cmd.Env = append(os.Environ(),
				"SITE="+strings.TrimPrefix(site.URL, "http://"), "KEY="+s.key, "API="+s.api,
				"SEOKIT_DOCS_CLI="+cli, "SEOKIT_DOCS_SERVER="+srv)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n--- output:\n%s\n--- script:\n%s\n--- server:\n%s", name, err, out, script(b.body), tail(s.output(), 40))
			}
			outputs.Write(out)
			t.Logf("%s: %s", name, tail(string(out), 6))
		})
		for _, l := range strings.Split(b.body, "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") && !provided.MatchString(l) && !background.MatchString(l) {
				commands++
			}
		}
		if !ok {
			break
		}
	}
	if strings.Contains(outputs.String(), "data file: ") && !strings.Contains(outputs.String(), "data file: "+data+" ") {
		t.Errorf("the command line names another data file than the server's %s", data)
	}
	t.Logf("docs: %d runnable blocks (%d command lines) run; %d other sh blocks not run", len(run), commands, notRun)
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for i, l := range lines {
		if len(l) > 200 {
			lines[i] = l[:200] + " ..."
		}
	}
	return strings.Join(lines, "\n")
}
