package chromium

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/render"
)

// Pages of TestQuietEnd. Each writes "done" last; the fixed windows of the
// test would wait for it.
const (
	// quietBuilt builds its content in its own script, as a client-rendered
	// page does: nothing is left pending.
	quietBuilt = `<!doctype html><title>built</title><div id="app"></div><script>
document.getElementById('app').innerHTML = '<h1>done</h1>';
</script>`
	// quietTimer writes after a timer that fires well after the load.
	quietTimer = `<!doctype html><title>timer</title><p id="s">waiting</p><script>
setTimeout(() => { document.getElementById('s').textContent = 'done'; }, 1500);
</script>`
	// quietChain fetches, waits, fetches with XHR, reads a blob and adds
	// a script that writes.
	quietChain = `<!doctype html><title>chain</title><p id="s">waiting</p><script>
fetch('/data').then((r) => r.text()).then((t) => {
  setTimeout(() => {
    const x = new XMLHttpRequest();
    x.open('GET', '/data');
    x.onload = () => new Blob([x.responseText]).text().then(() => {
      const s = document.createElement('script');
      s.src = '/late.js';
      document.body.appendChild(s);
    });
    x.send();
  }, 200);
});
</script>`
	// quietLater has a timer due long after the windows: it is not waited
	// for, as the windows would not have waited for it.
	quietLater = `<!doctype html><title>later</title><p id="s">done</p><script>
setTimeout(() => { document.getElementById('s').textContent = ['too', 'late'].join(' '); }, 600000);
</script>`
	// quietFrames keeps an animation frame loop running, quietFrame has a
	// frame, quietIDB opens IndexedDB: none is proven quiet.
	quietFrames = `<!doctype html><title>frames</title><p id="s">done</p><script>
const loop = () => requestAnimationFrame(loop); loop();
</script>`
	quietFrame = `<!doctype html><title>frame</title><p id="s">done</p><iframe src="/built"></iframe>`
	quietIDB   = `<!doctype html><title>idb</title><p id="s">done</p><script>indexedDB.open('x');</script>`
	// quietHuge adds more elements than are followed (the test lowers
	// the budget to 1,000).
	quietHuge = `<!doctype html><title>huge</title><p id="s">done</p><div id="d"></div><script>
document.getElementById('d').innerHTML = '<i></i>'.repeat(2000);
</script>`
)

// TestQuietEnd renders pages with fixed windows (Idle and Settle) far
// longer than the pages need: a page proven quiet ends before its windows,
// with everything it wrote; one whose pending work is followed ends once
// the work is done and written; one using what is not followed waits the
// windows out.
func TestQuietEnd(t *testing.T) {
	mux := http.NewServeMux()
	for path, page := range map[string]string{"/built": quietBuilt, "/timer": quietTimer, "/chain": quietChain,
		"/later": quietLater, "/frames": quietFrames, "/frame": quietFrame, "/idb": quietIDB, "/huge": quietHuge} {
		mux.HandleFunc(path, htmlPage(page))
	}
	mux.HandleFunc("/data", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("data")) })
	mux.HandleFunc("/late.js", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		w.Write([]byte("document.getElementById('s').textContent = 'done';"))
	})
	srv := serve(t, mux)
	defer func(b int) { quietBudget = b }(quietBudget)
	quietBudget = 1000
	p := newTestPool(t, &Options{Fetcher: testFetcher(t, srv), Tabs: 2})

	// long are windows a quiet page never waits out: 40 s in all, where
	// the renderings proven quiet take well under a second.
	const long = 20 * time.Second
	short := 300 * time.Millisecond
	for _, c := range []struct {
		path        string
		idle        time.Duration
		early       bool // ends before its windows
		want, never string
	}{
		{"/built", long, true, "<h1>done</h1>", ""},
		{"/timer", long, true, `<p id="s">done</p>`, "waiting"},
		{"/chain", long, true, `<p id="s">done</p>`, "waiting"},
		{"/later", long, true, `<p id="s">done</p>`, "too late"},
		{"/frames", short, false, `<p id="s">done</p>`, ""},
		{"/frame", short, false, `<p id="s">done</p>`, ""},
		{"/idb", short, false, `<p id="s">done</p>`, ""},
		{"/huge", short, false, `<p id="s">done</p>`, ""},
	} {
		t.Run(strings.TrimPrefix(c.path, "/"), func(t *testing.T) {
			res := renderOne(t, p, &render.Request{URL: srv.URL + c.path, Idle: c.idle, Settle: c.idle, Timeout: 3 * long})
			html := string(res.HTML)
			if res.TimedOut || !strings.Contains(html, c.want) || (c.never != "" && strings.Contains(html, c.never)) {
				t.Fatalf("timed out %v, HTML %s: want %s", res.TimedOut, html, c.want)
			}
			windows := (2 * c.idle).Milliseconds()
			t.Logf("%s: rendered in %d ms, fixed windows %d ms", c.path, res.ElapsedMs, windows)
			if c.early && res.ElapsedMs >= windows {
				t.Errorf("took %d ms: a quiet page waited out its windows of %d ms", res.ElapsedMs, windows)
			}
			if !c.early && res.ElapsedMs < windows {
				t.Errorf("took %d ms: a page not proven quiet ended before its windows of %d ms", res.ElapsedMs, windows)
			}
			if res.Vitals == nil || res.Vitals.FCP == nil {
				t.Errorf("vitals %+v (%s): want a first contentful paint", res.Vitals, res.VitalsReason)
			}
		})
	}
}
