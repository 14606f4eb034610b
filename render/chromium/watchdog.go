package chromium

import (
	"os"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// watchEvery is how often the memory of a browser's process tree is
// sampled while the browser renders, watchClose how often once the tree or
// one of its renderers is past half its limit (a page can allocate a
// gigabyte in a second). A sample reads one small file per process
// (statm); the proportional set sizes (smaps_rollup, which walks the
// process's mappings) are read only when the resident sizes pass a limit.
const (
	watchEvery = 200 * time.Millisecond
	watchClose = 50 * time.Millisecond
)

// procUse is one process of a browser's tree as a sample saw it.
type procUse struct {
	pid      int
	bytes    int64
	renderer bool
}

// watch samples the memory of b's process tree every watchEvery while b
// renders, until b stops, and keeps the browser in its CPU priority (see
// Options.Nice): processes and threads started later inherit it, the
// repeated call catches those started while it was set.
//
// A renderer process over Options.MaxRenderMemory is killed: its page ends
// as render.ErrMemoryLimit. Over 7/8 of Options.MaxBrowserMemory for the
// whole tree (the rest is the margin for growth between two samples), the
// largest renderers are killed until the rest fits; when the browser's own
// processes alone exceed it, the browser is killed and every page it was
// rendering ends as render.ErrMemoryLimit.
func (p *Pool) watch(b *browser) {
	defer close(b.watched)
	timer := time.NewTimer(watchEvery)
	defer timer.Stop()
	kinds := map[int]bool{} // the renderers seen, read once from their command lines
	tree := &treeCache{}
	var m pssMark
	for {
		select {
		case <-b.ctx.Done():
			return
		case <-timer.C:
		}
		p.mu.Lock()
		busy := b.inUse > 0
		p.mu.Unlock()
		next := watchEvery
		if busy && b.pid > 0 {
			p.renice(b)
			if p.checkMemory(b, kinds, tree.list(b.pid), &m) {
				next = watchClose
			}
		}
		timer.Reset(next)
	}
}

// pssMark is the tree's last PSS reading: its sum, the sum of the
// resident sizes then, and when. The summed resident size counts the
// browser program's shared pages once per process (a renderer's is about
// four times its PSS), so alone it would find a tree of a few tabs near
// its limit at every sample. Until pssEvery has passed, the tree's PSS is
// bounded by the reading plus what the resident sizes grew since: a page
// that allocates grows its resident size as much as its PSS.
type pssMark struct {
	at       time.Time
	pss, rss int64
}

// pssEvery is how long a PSS reading bounds the tree's memory.
const pssEvery = time.Second

// bound is the bound of the tree's memory at now given its resident
// sizes then, rss itself without a reading of the last pssEvery.
func (m *pssMark) bound(rss int64, now time.Time) int64 {
	if m.at.IsZero() || now.Sub(m.at) >= pssEvery {
		return rss
	}
	return min(rss, m.pss+max(rss-m.rss, 0))
}

// checkMemory takes one sample of b's tree and kills what exceeds the
// limits; near reports that the tree or a renderer is past half its
// limit. m keeps the last PSS reading of the tree.
func (p *Pool) checkMemory(b *browser, kinds map[int]bool, pids []int, m *pssMark) (near bool) {
	if len(pids) == 0 {
		return false
	}
	uses := make([]procUse, 0, len(pids))
	var total int64
	live := make(map[int]bool, len(pids))
	for _, pid := range pids {
		rss, ok := statmRSS(pid)
		if !ok {
			continue
		}
		live[pid] = true
		// A process is known as a renderer once its command line says
		// so: one just forked by the zygote still has the zygote's.
		r := kinds[pid]
		if !r && isRenderer(pid) {
			r = true
			kinds[pid] = true
		}
		uses = append(uses, procUse{pid: pid, bytes: rss, renderer: r})
		total += rss
	}
	for pid := range kinds {
		if !live[pid] {
			delete(kinds, pid)
		}
	}
	// Resident sizes count shared pages in every process; they decide
	// only whether the proportional sizes are read.
	// The tree is kept under 7/8 of its limit, so that what a page
	// allocates between two samples stays under the limit itself.
	treeCap := p.opts.MaxBrowserMemory - p.opts.MaxBrowserMemory/8
	rss, now := total, time.Now()
	if b := m.bound(rss, now); b > p.opts.MaxBrowserMemory/2 && b == rss && rss <= treeCap {
		// Past half the limit by resident sizes: the PSS, read at most
		// every pssEvery, tells whether it is.
		m.at, m.pss, m.rss = now, treePSS(uses), rss
	}
	near = m.bound(rss, now) > p.opts.MaxBrowserMemory/2
	for i := range uses {
		u := &uses[i]
		near = near || (u.renderer && u.bytes > p.opts.MaxRenderMemory/2)
		if u.renderer && u.bytes > p.opts.MaxRenderMemory {
			u.bytes = procMemory(u.pid)
			if u.bytes > p.opts.MaxRenderMemory {
				p.killRenderer(b, u.pid)
				total -= u.bytes
				u.bytes = 0
			}
		}
	}
	if m.bound(total, now) <= treeCap {
		return near
	}
	total = 0
	for i := range uses {
		if uses[i].bytes > 0 {
			uses[i].bytes = procMemory(uses[i].pid)
			total += uses[i].bytes
		}
	}
	m.at, m.pss, m.rss = time.Now(), total, rss
	sort.Slice(uses, func(i, j int) bool { return uses[i].bytes > uses[j].bytes })
	for i := range uses {
		if total <= treeCap {
			return true
		}
		if uses[i].renderer && uses[i].bytes > 0 {
			p.killRenderer(b, uses[i].pid)
			total -= uses[i].bytes
		}
	}
	if total > treeCap {
		p.killBrowser(b)
	}
	return true
}

// treePSS is the summed memory (procMemory) of the processes of uses.
func treePSS(uses []procUse) int64 {
	var total int64
	for _, u := range uses {
		total += procMemory(u.pid)
	}
	return total
}

// treeRefresh is how often the watchdog walks the whole of /proc for the
// processes of a browser's tree; between two walks it reads the children of
// the zygotes only, which start the renderers.
const treeRefresh = 2 * time.Second

// treeCache lists the processes of a browser's tree at a sample's cost of
// a few files: a walk of /proc (every process's stat, tens of milliseconds
// on a busy host) every treeRefresh, and in between the processes it found
// plus the current children of its zygotes, read from
// /proc/<pid>/task/<tid>/children.
type treeCache struct {
	walked  time.Time
	others  []int // processes of the last walk that are not zygotes or their descendants
	zygotes []int
}

// list returns the processes of the tree of pid.
func (c *treeCache) list(pid int) []int {
	if time.Since(c.walked) >= treeRefresh || !hasChildrenFiles() {
		all := processTree(pid)
		c.walked = time.Now()
		c.others, c.zygotes = c.others[:0], c.zygotes[:0]
		under := map[int]bool{}
		for _, n := range all {
			if under[parentPID(n)] {
				under[n] = true
				if isZygote(n) {
					c.zygotes = append(c.zygotes, n) // the zygote the other one forked
				}
				continue
			}
			if isZygote(n) {
				c.zygotes = append(c.zygotes, n)
				under[n] = true
				continue
			}
			c.others = append(c.others, n)
		}
		return all
	}
	// The zygotes' children are the renderers and utilities they forked
	// (one zygote forks the other); those have no children of their own
	// (the sandbox does not let a renderer fork), so their threads'
	// children files, a dozen per renderer, are not read.
	out := append([]int(nil), c.others...)
	seen := make(map[int]bool, len(c.zygotes)+16)
	for _, z := range c.zygotes {
		seen[z] = true
		out = append(out, z)
	}
	for _, z := range c.zygotes {
		for _, n := range childrenOf(z) {
			if !seen[n] && len(out) < maxTreeProcs {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out
}

// maxTreeProcs caps the processes a sample lists.
const maxTreeProcs = 4096

// hasChildrenFiles reports whether the kernel has /proc/<pid>/task/<tid>/children.
func hasChildrenFiles() bool {
	_, err := os.Stat("/proc/self/task/" + strconv.Itoa(os.Getpid()) + "/children")
	return err == nil
}

// childrenOf lists the children of pid, from the children files of its
// threads.
func childrenOf(pid int) []int {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(dir + "/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// isZygote reports whether pid is one of Chromium's zygote processes.
func isZygote(pid int) bool { return procType(pid) == "zygote" }

// killRenderer kills the renderer process pid of b: the tab it serves
// reports a crash, which the rendering in it counts as the memory limit.
func (p *Pool) killRenderer(b *browser, pid int) {
	b.memKills.Add(1)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		b.memKills.Add(-1)
		return
	}
	p.mu.Lock()
	p.stats.MemoryKills++
	p.mu.Unlock()
}

// killBrowser kills b's whole process tree (its process group) for the
// memory limit.
func (p *Pool) killBrowser(b *browser) {
	b.memKilled.Store(true)
	if pg, err := syscall.Getpgid(b.pid); err == nil && pg == b.pid {
		_ = syscall.Kill(-b.pid, syscall.SIGKILL)
	} else {
		_ = syscall.Kill(b.pid, syscall.SIGKILL)
	}
	p.mu.Lock()
	p.stats.MemoryKills++
	p.mu.Unlock()
}

// claimKill reports whether a renderer of b was killed for memory and not
// yet accounted for by a rendering, and accounts for one.
func (b *browser) claimKill() bool {
	for {
		n := b.memKills.Load()
		if n <= 0 {
			return false
		}
		if b.memKills.CompareAndSwap(n, n-1) {
			return true
		}
	}
}

// renice puts b's process group at Options.Nice; the browser runs in a
// process group of its own (pgid = its pid), checked first so that the
// server's own group is never changed.
func (p *Pool) renice(b *browser) {
	if p.opts.Nice <= 0 || b.pid <= 0 {
		return
	}
	if pg, err := syscall.Getpgid(b.pid); err != nil || pg != b.pid {
		return
	}
	_ = syscall.Setpriority(syscall.PRIO_PGRP, b.pid, p.opts.Nice)
}

// pageSize is the size of a memory page, for statm.
var pageSize = int64(os.Getpagesize())

// statmRSS is the resident size of pid in bytes, from /proc/pid/statm
// (readable for every process, and cheap).
func statmRSS(pid int) (int64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, false
	}
	n, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0, false
	}
	return n * pageSize, true
}

// procMemory is the memory of pid: its PSS, or its RSS where PSS cannot be
// read (a process that is not dumpable, such as a sandboxed renderer,
// hides its smaps from a server that is not root).
func procMemory(pid int) int64 {
	if pss, ok := procKB(pid, "smaps_rollup", "Pss:"); ok {
		return pss
	}
	if rss, ok := statmRSS(pid); ok {
		return rss
	}
	return 0
}

// isRenderer reports whether pid is a renderer process.
func isRenderer(pid int) bool { return procType(pid) == "renderer" }

// procType is the --type= of a Chromium process's command line, "" for
// the browser process (or when it cannot be read). Processes forked by
// Chromium's zygote rewrite their command line as one string, its
// arguments separated by spaces.
func procType(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return ""
	}
	for _, a := range strings.Fields(strings.ReplaceAll(string(b), "\x00", " ")) {
		if v, ok := strings.CutPrefix(a, "--type="); ok {
			return v
		}
	}
	return ""
}
