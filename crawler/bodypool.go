package crawler

import (
	"sync"

	"github.com/seokit/seokit/seo"
)

// Page bodies are the crawl's largest allocation after the parse: a buffer
// of the page's size, garbage once the page is analysed. The crawl fetches
// each page into a pooled buffer (seo.Request.Buffer) and returns it to
// the pool when the page is recorded, which is safe when nothing outlives
// the analysis with a reference to the body: the analyzer keeps none (its
// report copies what it quotes), but a caller's own checks and a rendering
// might, so those crawls fetch into new buffers (crawl.reuseBodies).

// maxPooledBody is the largest buffer kept for reuse; a larger page's
// buffer is left to the collector.
const maxPooledBody = 1 << 20

// pageBuffers holds *[]byte buffers pages are fetched into.
var pageBuffers = sync.Pool{New: func() any { return new([]byte) }}

// reuseBodies reports whether the crawl may fetch pages into pooled
// buffers: no check of the caller's and no rendering sees the body.
func (cr *crawl) reuseBodies() bool {
	return (cr.o.Analyzer == nil || len(cr.o.Analyzer.Checks) == 0) && !rendering(&cr.ana)
}

// pageBuffer returns a pooled buffer to fetch a page into, nil when the
// crawl does not reuse bodies.
func (cr *crawl) pageBuffer() *[]byte {
	if !cr.reuseBodies() {
		return nil
	}
	return pageBuffers.Get().(*[]byte)
}

// bytesOf returns the buffer bp holds, nil for nil.
func bytesOf(bp *[]byte) []byte {
	if bp == nil {
		return nil
	}
	return *bp
}

// recycleBody returns bp to the pool once the page fetched into it is done
// with, keeping the response's body as the buffer when it was read into a
// larger one (a page that did not fit).
func recycleBody(bp *[]byte, resp *seo.Response) {
	if bp == nil {
		return
	}
	if resp != nil && cap(resp.Body) > cap(*bp) && cap(resp.Body) <= maxPooledBody {
		*bp = resp.Body[:0]
	}
	if cap(*bp) > maxPooledBody {
		return
	}
	pageBuffers.Put(bp)
}
