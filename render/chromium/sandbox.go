package chromium

import (
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// sandboxUID and sandboxGID are the user and group ("nobody") a browser
// runs as when the server runs as root and Options.NoSandbox is not set:
// Chromium refuses its sandbox to root, and a renderer exploit in a hostile
// page would otherwise run with the server's rights.
const (
	sandboxUID = 65534
	sandboxGID = 65534
)

// Sandbox modes, as Pool.Sandbox reports them.
const (
	// SandboxOn: the renderers run in Chromium's sandbox (namespaces and
	// seccomp), the browser as the server's user.
	SandboxOn = "on"
	// SandboxNobody: the server runs as root; the browser runs as user
	// nobody (65534) with its sandbox on.
	SandboxNobody = "on, as user nobody"
	// SandboxOff: Options.NoSandbox; the renderers run without sandbox,
	// with the browser's user's rights (root when the server is).
	SandboxOff = "off"
)

// sandboxMode is the mode of the options.
func sandboxMode(o *Options) string {
	switch {
	case o.NoSandbox:
		return SandboxOff
	case os.Geteuid() == 0:
		return SandboxNobody
	}
	return SandboxOn
}

// Sandbox reports how the pool's browsers are sandboxed: SandboxOn,
// SandboxNobody or SandboxOff.
func (p *Pool) Sandbox() string { return p.sandbox }

// prepareCmd is the browser command's process setup: a process group of
// its own (its CPU priority is set per group, and a browser killed for
// memory is killed with its children), killed when the thread that started
// it ends (chromedp's default, which a custom setup replaces), and, as
// root with the sandbox on, the user nobody with a home and profile it
// owns.
func prepareCmd(mode, home string) func(*exec.Cmd) {
	return func(cmd *exec.Cmd) {
		if cmd.SysProcAttr == nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{}
		}
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
		cmd.SysProcAttr.Setpgid = true
		if mode != SandboxNobody {
			return
		}
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: sandboxUID, Gid: sandboxGID, Groups: []uint32{}}
		// chromedp adds --no-sandbox whenever the server is root.
		cmd.Args = slices.DeleteFunc(cmd.Args, func(a string) bool { return a == "--no-sandbox" })
		cmd.Env = append(cmd.Env, "HOME="+home, "XDG_CONFIG_HOME="+home, "XDG_CACHE_HOME="+home)
	}
}

// profileDir creates the profile directory of a browser run as nobody.
func profileDir() (string, error) {
	dir, err := os.MkdirTemp("", "seokit-chromium-")
	if err != nil {
		return "", err
	}
	if err := os.Chown(dir, sandboxUID, sandboxGID); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// sandboxed reports whether pid runs in a user namespace other than the
// server's (Chromium's namespace sandbox).
func sandboxed(pid int) bool {
	own, err1 := os.Readlink("/proc/self/ns/user")
	its, err2 := os.Readlink("/proc/" + strconv.Itoa(pid) + "/ns/user")
	return err1 == nil && err2 == nil && own != its && strings.HasPrefix(its, "user:")
}
