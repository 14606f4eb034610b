package chromium

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/render"
)

// Pages that allocate memory without end, each in a way of its own: the
// V8 heap (arrays of a million numbers), ArrayBuffers (outside the V8 heap, each filled so that its pages
// are resident), a WebAssembly memory grown 64 MiB at a time and filled.
// Each allocates from its first script, before the page can settle: 3 GiB
// for the ArrayBuffers and the WebAssembly memory, without end for the V8
// heap.
var memoryBombs = map[string]string{
	"heap": `<!doctype html><title>heap</title><script>
const keep = [];
for (let i = 0; ; i++) keep.push(new Array(1 << 20).fill(i));
</script>`,
	"arraybuffer": `<!doctype html><title>arraybuffer</title><script>
const keep = [];
for (let i = 0; i < 12; i++) { const a = new Uint8Array(256 << 20); a.fill(1); keep.push(a); }
</script>`,
	"wasm": `<!doctype html><title>wasm</title><script>
const mem = new WebAssembly.Memory({initial: 1, maximum: 49152});
for (let pages = 1; pages + 1024 <= 49152; pages += 1024) { mem.grow(1024); new Uint8Array(mem.buffer, pages << 16).fill(1); }
</script>`,
}

// TestMemoryLimit renders each bomb with a small per-rendering limit: each
// ends as render.ErrMemoryLimit within its time budget, and the pool then
// renders an ordinary page.
func TestMemoryLimit(t *testing.T) {
	mux := http.NewServeMux()
	for name, body := range memoryBombs {
		mux.HandleFunc("/"+name, htmlPage(body))
	}
	mux.HandleFunc("/ok", htmlPage(`<!doctype html><title>ok</title><p>fine`))
	srv := serve(t, mux)
	p := newTestPool(t, &Options{Tabs: 2, MaxRenderMemory: 256 << 20, Fetcher: testFetcher(t, srv)})
	for _, name := range []string{"heap", "arraybuffer", "wasm"} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			start := time.Now()
			res, err := p.Render(ctx, &render.Request{URL: srv.URL + "/" + name, Timeout: 20 * time.Second})
			if !errors.Is(err, render.ErrMemoryLimit) {
				t.Fatalf("Render: %v (result %v), want render.ErrMemoryLimit", err, res != nil)
			}
			t.Logf("%s: %v after %s", name, err, time.Since(start).Round(time.Millisecond))
		})
	}
	res := renderOne(t, p, &render.Request{URL: srv.URL + "/ok"})
	if !strings.Contains(string(res.HTML), "fine") {
		t.Fatalf("the page after the bombs: %q", res.HTML)
	}
	t.Logf("stats after the bombs: %+v", p.Stats())
}

// TestTreeCache: between two walks of /proc, the watchdog's list of a
// browser's processes (the processes of the last walk and the zygotes'
// current descendants) is the tree a walk finds, a renderer started since
// the walk included.
func TestTreeCache(t *testing.T) {
	srv := serve(t, htmlPage(`<!doctype html><title>t</title>`))
	p := newTestPool(t, &Options{Tabs: 1, Fetcher: testFetcher(t, srv)})
	pid := p.browserPIDs()[0]
	c := &treeCache{}
	before := c.list(pid) // the walk, before any renderer
	renderOne(t, p, &render.Request{URL: srv.URL + "/"})
	walked := processTree(pid)
	cached := c.list(pid)
	if time.Since(c.walked) >= treeRefresh {
		t.Skip("SKIP: the machine took longer than treeRefresh between the two lists")
	}
	slices.Sort(walked)
	slices.Sort(cached)
	if !slices.Equal(walked, cached) {
		t.Fatalf("cached list %v, a walk of /proc found %v", cached, walked)
	}
	if !slices.ContainsFunc(cached, isRenderer) || slices.ContainsFunc(before, isRenderer) {
		t.Fatalf("the renderer of the rendering is not the new process of the list: before %v, after %v", before, cached)
	}
}
