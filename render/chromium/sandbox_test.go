package chromium

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/seokit/seokit/render"
)

// rendererProcs lists the renderer processes of p's browsers.
func rendererProcs(p *Pool) []int {
	var out []int
	for _, pid := range p.browserPIDs() {
		if isRenderer(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// procUID is the real user id of pid.
func procUID(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Uid:"); ok {
			n, _ := strconv.Atoi(strings.Fields(v)[0])
			return n
		}
	}
	t.Fatalf("no Uid in /proc/%d/status", pid)
	return -1
}

// TestSandbox renders with the pool's default (the sandbox kept: as the
// server's user, or as nobody when the server is root) and with NoSandbox,
// and checks from /proc where the renderers run: in a user namespace of
// their own under the sandbox, with the server's user and namespace
// without it; and at the pool's CPU priority.
func TestSandbox(t *testing.T) {
	srv := serve(t, htmlPage(`<!doctype html><title>s</title><p>sandboxed?`))
	for _, tc := range []struct {
		name      string
		noSandbox bool
	}{{"default", false}, {"NoSandbox", true}} {
		t.Run(tc.name, func(t *testing.T) {
			p := newTestPool(t, &Options{Tabs: 1, NoSandbox: tc.noSandbox, Fetcher: testFetcher(t, srv)})
			want := SandboxOn
			switch {
			case tc.noSandbox:
				want = SandboxOff
			case os.Geteuid() == 0:
				want = SandboxNobody
			}
			if p.Sandbox() != want {
				t.Fatalf("Sandbox() = %q, want %q", p.Sandbox(), want)
			}
			res := renderOne(t, p, &render.Request{URL: srv.URL + "/"})
			if !strings.Contains(string(res.HTML), "sandboxed?") {
				t.Fatalf("HTML %q", res.HTML)
			}
			procs := rendererProcs(p)
			if len(procs) == 0 {
				t.Fatal("no renderer process found under the browser")
			}
			for _, pid := range procs {
				uid := procUID(t, pid)
				ns := sandboxed(pid)
				prio, err := syscall.Getpriority(syscall.PRIO_PROCESS, pid)
				if err != nil {
					t.Fatal(err)
				}
				// The raw getpriority system call returns 20 - nice.
				nice := 20 - prio
				t.Logf("%s: renderer %d runs as uid %d, in a user namespace of its own: %v, nice %d", p.Sandbox(), pid, uid, ns, nice)
				if ns == tc.noSandbox {
					t.Errorf("renderer %d: own user namespace %v with NoSandbox %v", pid, ns, tc.noSandbox)
				}
				if want == SandboxNobody && uid != sandboxUID {
					t.Errorf("renderer %d runs as uid %d, want %d", pid, uid, sandboxUID)
				}
				if want != SandboxNobody && uid != os.Getuid() {
					t.Errorf("renderer %d runs as uid %d, want the server's %d", pid, uid, os.Getuid())
				}
				if nice != DefaultNice {
					t.Errorf("renderer %d at nice %d, want %d", pid, nice, DefaultNice)
				}
			}
		})
	}
}
