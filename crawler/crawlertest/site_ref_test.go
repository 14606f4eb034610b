package crawlertest

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// refArticle is the article generator as it was before pages were built
// from precomputed pieces, kept to hold the new one to the same bytes.
func (s *Site) refArticle(w http.ResponseWriter, r *http.Request) {
	i, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/a/"))
	if err != nil || i < 0 || i >= s.opts.Articles+s.opts.Orphans || strconv.Itoa(i) != strings.TrimPrefix(r.URL.Path, "/a/") {
		http.NotFound(w, r)
		return
	}
	k := i % s.opts.Categories
	title := fmt.Sprintf("Article %d: notes on topic %d of the generated site", i, i%97)
	b := new(bytes.Buffer)
	s.refHead(b, title, fmt.Sprintf("Article %d of category %d, a generated page about topic %d with enough text to be analysed.", i, k, i%97))
	b.WriteString("<main><h1>" + title + "</h1>")
	body := b.Len() // sizes count the main content only
	fmt.Fprintf(b, `<p class="crumbs"><a href="/">Home</a> › <a href="/c/%d">Category %d</a></p>`, k, k)
	// Pick paragraphs by a per-article generator, so pages differ.
	x := uint64(i)*2654435761 + 1
	size, related := s.opts.PageBytes, 5
	if s.opts.MaxPageBytes > size {
		size += int(mix(x) % uint64(s.opts.MaxPageBytes-size+1))
	}
	if s.opts.MaxRelated > related {
		related += int(mix(x+1) % uint64(s.opts.MaxRelated-related+1))
	}
	for b.Len()-body < size-1500 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b.WriteString("<p>")
		b.WriteString(s.paras[x%uint64(len(s.paras))])
		b.WriteString("</p>\n")
	}
	b.WriteString(`<aside><h2>Related articles</h2><ul>`)
	if i < s.opts.Articles {
		for r, d := range refRelatedSteps(related) {
			j := (i + d) % s.opts.Articles
			if r >= 5 {
				fmt.Fprintf(b, `<li><a href="/a/%d" title="Related %d">Article %d, %s</a></li>`, j, r, j, s.paras[j%len(s.paras)][:40])
				continue
			}
			fmt.Fprintf(b, `<li><a href="/a/%d">Article %d</a></li>`, j, j)
		}
	}
	b.WriteString(`</ul></aside><img src="/img/a.png" alt="An illustration" width="640" height="360">`)
	b.WriteString("</main></body></html>")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(b.Bytes())
}

func (s *Site) refNav(b *bytes.Buffer) {
	b.WriteString(`<header><nav><ul><li><a href="/">Home</a></li>`)
	for k := range s.opts.Categories {
		fmt.Fprintf(b, `<li><a href="/c/%d">Category %d</a></li>`, k, k)
	}
	b.WriteString(`<li><a href="/about">About</a></li></ul></nav></header>`)
}

func (s *Site) refHead(b *bytes.Buffer, title, desc string) {
	fmt.Fprintf(b, `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>%s</title>`+
		`<meta name="description" content="%s"><meta name="viewport" content="width=device-width, initial-scale=1">`+
		`<link rel="stylesheet" href="/static/site.css"><link rel="icon" href="/favicon.ico"></head><body>`, title, desc)
	s.refNav(b)
}

func refRelatedSteps(n int) []int {
	steps := []int{1, 7, 31, 127, 997}
	for k := 5; k < n; k++ {
		steps = append(steps, 1009+k*7919)
	}
	return steps[:n]
}

// TestArticleMatchesReference serves a sample of articles (and the pages
// sharing the head) of sites of several shapes with the generator and with
// the reference one, and wants the same status, type and bytes.
func TestArticleMatchesReference(t *testing.T) {
	for _, o := range []SiteOptions{
		{},
		{Articles: 5000, Categories: 20, PerPage: 50, PageBytes: 20_000, MaxPageBytes: 120_000, MaxRelated: 125},
		{Articles: 300, Categories: 7, PageBytes: 3000, MaxRelated: 9, Orphans: 4},
		{Articles: 40, Categories: 1, PageBytes: 1, MaxPageBytes: 500_000},
	} {
		s := NewSite(o)
		n := s.opts.Articles + s.opts.Orphans
		paths := []string{"/a/-1", "/a/x", "/a/01", "/a/" + strconv.Itoa(n), "/a/" + strconv.Itoa(n-1)}
		for k := 0; k < n; k += max(1, n/97) {
			paths = append(paths, "/a/"+strconv.Itoa(k))
		}
		for _, p := range paths {
			got, want := httptest.NewRecorder(), httptest.NewRecorder()
			r := httptest.NewRequest(http.MethodGet, p, nil)
			s.article(got, r)
			s.refArticle(want, r)
			if got.Code != want.Code || got.Header().Get("Content-Type") != want.Header().Get("Content-Type") || !bytes.Equal(got.Body.Bytes(), want.Body.Bytes()) {
				t.Fatalf("%+v %s: got %d %q, %d bytes; want %d %q, %d bytes", o, p,
					got.Code, got.Header().Get("Content-Type"), got.Body.Len(), want.Code, want.Header().Get("Content-Type"), want.Body.Len())
			}
		}
		var got, want bytes.Buffer
		s.head(&got, "T & t", "D")
		s.refHead(&want, "T & t", "D")
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("%+v: head %q, want %q", o, got.String(), want.String())
		}
		s.Close()
	}
}
