package analyzer

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/seo"
)

// listenerMark is the renderer's mark in the tests.
const listenerMark = "0123456789abcdef01"

// listenersDoc is a rendered DOM as a renderer serialises it: .menu has a
// click listener (marked), .own carries an attribute of the mark's name
// that the page set itself, .bare and .hover none. None has an id, which
// would make it a fragment target.
const listenersDoc = `<!DOCTYPE html><html lang="en"><head><title>Listeners of anchors without href</title></head><body>
<main><h1>Listeners</h1><p>Text of the page.</p>
<a class="menu" ` + render.ClickAttr + `="` + listenerMark + `">Menu</a>
<a class="own" ` + render.ClickAttr + `="page's own">Own</a>
<a class="bare">Bare</a> <a class="hover">Hover</a> <a href="/next">Next</a></main></body></html>`

// TestClickMarks analyses the same document raw and rendered: only the
// rendered analysis reads the renderer's mark, turning .menu into a link
// crawlers cannot follow; the page's own attribute of that name counts for
// nothing, and the mark is gone from the evidence and the page's body.
func TestClickMarks(t *testing.T) {
	raw := analyzeString(t, listenersDoc, "", nil, nil)
	if f := finding(raw, "links.uncrawlable"); f != nil {
		t.Fatalf("raw analysis: %+v, want the anchors without href as placeholders", *f)
	}

	f := &fakeRenderer{html: []byte(listenersDoc), res: render.Result{Listeners: &render.Listeners{Anchors: 4, Checked: 4, Clickable: 1, Mark: listenerMark}}}
	rep := analyzeString(t, listenersDoc, "", nil, &Options{Depth: Complete, Render: render.Always, Renderer: f})
	if rep.Render == nil || !rep.Render.Rendered {
		t.Fatalf("Render = %+v", rep.Render)
	}
	ev := evidence(rep, "links.uncrawlable")
	if len(ev) != 1 || ev[0].Element != `<a class="menu">` || !strings.Contains(ev[0].Detail, "click-type event listener") {
		t.Fatalf("links.uncrawlable evidence %+v, want .menu alone without the mark", ev)
	}
	if l := rep.Render.Listeners; l == nil || l.Clickable != 1 || rep.Render.ListenersReason != "" {
		t.Errorf("RenderReport listeners %+v, reason %q", l, rep.Render.ListenersReason)
	}
	if f.res.HTML != nil || !strings.Contains(string(f.html), listenerMark) {
		t.Error("the renderer's HTML was changed")
	}

	// The page the checks read: no mark in its body or its elements.
	cfg, _ := newConfig(nil)
	res := &render.Result{HTML: []byte(listenersDoc), Listeners: f.res.Listeners}
	p := newPage(renderedResponse(&seo.Response{URL: "https://example.com/page", Status: 200, Header: http.Header{}}, res), cfg)
	takeClickMarks(p, res.Listeners)
	if bytes.Contains(p.Body, []byte(listenerMark)) || bytes.Contains(p.Response.Body, []byte(listenerMark)) || p.Response.BodyBytes != int64(len(p.Body)) {
		t.Errorf("the body keeps the mark: %s", p.Body)
	}
	if !bytes.Contains(p.Body, []byte(`<a class="own" `+render.ClickAttr+`="page&#39;s own">`)) && !bytes.Contains(p.Body, []byte(`page's own`)) {
		t.Errorf("the page's own attribute is gone: %s", p.Body)
	}
	if !bytes.Contains(res.HTML, []byte(listenerMark)) {
		t.Error("the Result's HTML was changed in place")
	}
	var marked []string
	for _, l := range p.Links {
		id, _ := Attr(l.Node, "class")
		if l.ClickListener {
			marked = append(marked, id)
		}
		if v, ok := Attr(l.Node, render.ClickAttr); ok && v == listenerMark {
			t.Errorf(".%s keeps the mark", id)
		}
	}
	if strings.Join(marked, " ") != "menu" {
		t.Errorf("ClickListener on %v, want menu", marked)
	}

	// A renderer that reads no listeners says so.
	rep = analyzeString(t, listenersDoc, "", nil, &Options{Depth: Complete, Render: render.Always, Renderer: &fakeRenderer{html: []byte(listenersDoc)}})
	if rep.Render.Listeners != nil || rep.Render.ListenersReason != "not read by the renderer" || finding(rep, "links.uncrawlable") != nil {
		t.Errorf("without listeners: %+v, %q", rep.Render.Listeners, rep.Render.ListenersReason)
	}
}

func TestStripBytes(t *testing.T) {
	sub := []byte(` m="x"`)
	for _, tc := range []struct{ in, want string }{
		{``, ``},
		{`<a>`, `<a>`},
		{`<a m="x">`, `<a>`},
		{`<a m="x"><a m="x"> m="x"`, `<a><a>`},
		{`<a m="y" m="x">`, `<a m="y">`},
	} {
		in := []byte(tc.in)
		if got := string(stripBytes(in, sub)); got != tc.want {
			t.Errorf("stripBytes(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if string(in) != tc.in {
			t.Errorf("stripBytes changed its input %q to %q", tc.in, in)
		}
	}
}
