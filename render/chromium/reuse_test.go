package chromium

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/seokit/seokit/render"
)

// stateSet leaves state of every kind a page can leave behind: cookies,
// local and session storage, IndexedDB, Cache Storage, window.name and
// history entries. It says "stored" once everything is written.
const stateSet = `<!doctype html><title>set</title><p id="s"></p><script src="/r.js"></script><script>
document.cookie = 'c=v1; path=/';
document.cookie = 'd=v1; path=/; max-age=3600';
localStorage.setItem('k', 'v2');
sessionStorage.setItem('k', 'v3');
window.name = 'v4';
history.pushState({}, '', '/set#pushed');
const idb = new Promise((ok, bad) => {
  const r = indexedDB.open('db', 1);
  r.onupgradeneeded = () => r.result.createObjectStore('s');
  r.onsuccess = () => { const tx = r.result.transaction('s', 'readwrite'); tx.objectStore('s').put('v5', 'k'); tx.oncomplete = ok; tx.onerror = bad; };
  r.onerror = bad;
});
const cache = caches.open('c').then(c => c.put('/cached', new Response('v6')));
Promise.all([idb, cache]).then(() => { document.getElementById('s').textContent = 'stored'; }, (e) => { document.getElementById('s').textContent = 'failed ' + e; });
</script>`

// stateGet reports what it finds of that state.
const stateGet = `<!doctype html><title>get</title><p id="s"></p><script src="/r.js"></script><script>
const out = [];
out.push('cookie=' + document.cookie);
out.push('local=' + localStorage.getItem('k'));
out.push('session=' + sessionStorage.getItem('k'));
out.push('name=' + window.name);
out.push('history=' + history.length);
const idb = indexedDB.databases().then(dbs => 'idb=' + dbs.map(d => d.name).join(','));
const cache = caches.keys().then(keys => 'caches=' + keys.join(','));
Promise.all([idb, cache]).then(more => { document.getElementById('s').textContent = out.concat(more).join(';') + ';'; });
</script>`

// TestFreshStateAcrossReuse renders, in a pool of one tab, a page that
// leaves state of every kind, then a page of the same site that reads it:
// the tab is reused, and the second page finds nothing of the first.
func TestFreshStateAcrossReuse(t *testing.T) {
	var scripts atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/set", htmlPage(stateSet))
	mux.HandleFunc("/get", htmlPage(stateGet))
	mux.HandleFunc("/r.js", func(w http.ResponseWriter, _ *http.Request) {
		scripts.Add(1)
		w.Header().Set("Content-Type", "text/javascript")
		w.Header().Set("Cache-Control", "max-age=3600")
		w.Write([]byte("window.r = 1;"))
	})
	srv := serve(t, mux)
	p := newTestPool(t, &Options{Fetcher: testFetcher(t, srv), Tabs: 1})

	for i := range 2 {
		res := renderOne(t, p, &render.Request{URL: srv.URL + "/set"})
		if !strings.Contains(string(res.HTML), `<p id="s">stored</p>`) {
			t.Fatalf("the state was not stored: %s", res.HTML)
		}
		res = renderOne(t, p, &render.Request{URL: srv.URL + "/get"})
		// history.length counts the blank page that replaced the last
		// page (2; the last page's own entries would make it 4).
		const want = "cookie=;local=null;session=null;name=;history=2;idb=;caches=;"
		if !strings.Contains(string(res.HTML), want) {
			t.Errorf("round %d: state leaked between renderings: %s, want %s", i, res.HTML, want)
		}
		if r := resource(res, "/r.js"); r == nil || r.Outcome != render.OutcomeOK || r.Status != http.StatusOK {
			t.Errorf("round %d: the script of the second page is reported as %+v", i, r)
		}
	}
	if n := scripts.Load(); n != 4 {
		t.Errorf("the script was fetched %d times by 4 renderings (a cache shared between them?)", n)
	}
	if st := p.Stats(); st.Tabs != 1 || st.Renderings != 4 {
		t.Errorf("stats %+v: want 4 renderings in 1 tab", st)
	}
}
