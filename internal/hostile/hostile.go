package hostile

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// writeBuf is the size of the buffered writer every generator streams
// through.
const writeBuf = 64 << 10

// htmlStart writes the usual head of a generated page.
func htmlStart(w io.Writer, title string) {
	fmt.Fprintf(w, "<!doctype html><html lang=en><head><meta charset=utf-8><title>%s</title>"+
		"<meta name=description content=\"A generated page of a hostile test site, written to exhaust the server that reads it.\">"+
		"</head><body><h1>%s</h1><p>Some words of text so the page has content to analyse.</p>", title, title)
}

func htmlHeader(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
}

// ManyLinks serves, at every path, a page holding n links of the form
// <a href="/l/N">N</a> (about 25 MB for n = 1,000,000).
func ManyLinks(n int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		htmlHeader(w)
		bw := bufio.NewWriterSize(w, writeBuf)
		htmlStart(bw, "A page of "+strconv.Itoa(n)+" links")
		for i := range n {
			fmt.Fprintf(bw, `<a href="/l/%d">%d</a>`, i, i)
			if i%4096 == 0 && r.Context().Err() != nil {
				return
			}
		}
		bw.WriteString("</body></html>")
		bw.Flush()
	})
}

// EscapeTitle serves a page whose title, heading and description hold
// terminal escape sequences (clear screen, set window title, bell) and
// other control bytes.
func EscapeTitle() http.Handler {
	const evil = "Evil \x1b[2J\x1b[H\x1b]0;owned\x07 title\x00\x08\x9b31m"
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		htmlHeader(w)
		fmt.Fprintf(w, "<!doctype html><html lang=en><head><title>%s</title><meta name=description content=\"%s\"></head>"+
			"<body><h1>%s</h1><p>Text with \x1b[31mred\x1b[0m escapes.</p><a href=\"/\x1b[2J\">link</a></body></html>", evil, evil, evil)
	})
}

// Redirect answers every request with a 302 to target.
func Redirect(target string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target, http.StatusFound)
	})
}

// SlowDrip sends a page head and then one small chunk every interval
// until the client goes away or limit has passed, and never ends the
// document before that.
func SlowDrip(interval, limit time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		htmlHeader(w)
		htmlStart(w, "A slow page")
		f, _ := w.(http.Flusher)
		stop := time.NewTimer(limit)
		defer stop.Stop()
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			io.WriteString(w, "<p>drip</p>")
			if f != nil {
				f.Flush()
			}
			select {
			case <-r.Context().Done():
				return
			case <-stop.C:
				return
			case <-tick.C:
			}
		}
	})
}

// GzipBomb serves, with Content-Encoding: gzip, an HTML page of about size
// bytes decompressed and about a thousandth of that on the wire: one gzip
// member of 1 MiB of text, compressed once, repeated (a gzip stream may hold
// many members). The decompressed page never exists in memory.
func GzipBomb(size int64) http.Handler {
	gz := func(b []byte) []byte {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		zw.Write(b)
		zw.Close()
		return buf.Bytes()
	}
	var head bytes.Buffer
	htmlStart(&head, "A gzip bomb")
	head.WriteString("<p>")
	first, chunk, last := gz(head.Bytes()), gz(bytes.Repeat([]byte("A"), 1<<20)), gz([]byte("</p></body></html>"))
	n := int((size + 1<<20 - 1) >> 20)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		htmlHeader(w)
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Length", strconv.Itoa(len(first)+n*len(chunk)+len(last)))
		w.Write(first)
		for range n {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
		w.Write(last)
	})
}

// DeepNesting serves a page of depth nested <div> elements around a
// paragraph, never closed.
func DeepNesting(depth int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		htmlHeader(w)
		bw := bufio.NewWriterSize(w, writeBuf)
		htmlStart(bw, "A deeply nested page")
		for range depth {
			bw.WriteString("<div><span>")
		}
		bw.WriteString("<p>deep</p></body></html>")
		bw.Flush()
	})
}

// HugeHeaders answers a small page with n response headers of about 100
// bytes each.
func HugeHeaders(n int) http.Handler {
	v := strings.Repeat("x", 90)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		for i := range n {
			h.Set("X-Hostile-"+strconv.Itoa(i), v)
		}
		htmlHeader(w)
		htmlStart(w, "A page with huge headers")
		io.WriteString(w, "</body></html>")
	})
}

// HugeRobots serves a site of a few small pages whose robots.txt is about
// size bytes of Disallow lines, streamed.
func HugeRobots(size int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			w.Header().Set("Content-Type", "text/plain")
			bw := bufio.NewWriterSize(w, writeBuf)
			bw.WriteString("User-agent: *\n")
			var n int64
			for i := 0; n < size; i++ {
				k, _ := fmt.Fprintf(bw, "Disallow: /private/%d/\n", i)
				n += int64(k)
				if i%4096 == 0 && r.Context().Err() != nil {
					return
				}
			}
			bw.Flush()
			return
		}
		htmlHeader(w)
		htmlStart(w, "Robots site page "+r.URL.Path)
		for i := range 5 {
			fmt.Fprintf(w, `<a href="/page/%d">page %d</a> `, i, i)
		}
		io.WriteString(w, "</body></html>")
	})
}

// Text is an io.Reader of n bytes of plain English-like sentences that
// need no JSON escaping, for content bodies of a given size.
type Text struct {
	n, off int64
}

// NewText returns a Text of n bytes.
func NewText(n int64) *Text { return &Text{n: n} }

// textPattern is repeated by Text; it holds the keyphrase "oak table".
const textPattern = "The oak table in the hall was made by hand from old wood. " +
	"Buyers ask how a solid table ages, and the answer is slowly and well. " +
	"Our workshop sands each oak table twice before the oil goes on. "

// Read implements io.Reader.
func (t *Text) Read(p []byte) (int, error) {
	if t.off >= t.n {
		return 0, io.EOF
	}
	if rest := t.n - t.off; int64(len(p)) > rest {
		p = p[:rest]
	}
	for i := range p {
		p[i] = textPattern[(t.off+int64(i))%int64(len(textPattern))]
	}
	t.off += int64(len(p))
	return len(p), nil
}
