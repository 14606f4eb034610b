package chromium

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/render"
)

const spa = `<!doctype html><html><head><title>shell</title></head><body><div id=app></div>
<script>
document.title = 'Rendered title';
const a = document.createElement('a'); a.href = '/about'; a.textContent = 'About';
document.getElementById('app').appendChild(a);
const s = document.createElement('script'); s.type = 'application/ld+json';
s.textContent = JSON.stringify({"@context":"https://schema.org","@type":"Organization","name":"Acme"});
document.head.appendChild(s);
</script></body></html>`

func TestSmoke(t *testing.T) {
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(spa))
	}))
	p := newTestPool(t, &Options{Fetcher: testFetcher(t, srv)})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := p.Render(ctx, &render.Request{URL: srv.URL + "/"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("status %d final %s elapsed %d timedout %v res %+v", res.Status, res.FinalURL, res.ElapsedMs, res.TimedOut, res.Resources)
	if !strings.Contains(string(res.HTML), "Rendered title") {
		t.Fatalf("html: %s", res.HTML)
	}
}
