package chromium

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/seokit/seokit/render"
)

// Caps of the reading of the anchors' event listeners. A page can hold any
// number of <a> elements; the reading stops after MaxListenerAnchors of
// them or after ListenerTime, whichever comes first, and the Result says
// which (render.Listeners.Capped). The anchors are read in document order,
// so the ones past a cap are the last ones.
const (
	MaxListenerAnchors = 20000
	ListenerTime       = 1000 // milliseconds
)

// listenParams is the argument of listenScript, marshalled to JSON.
type listenParams struct {
	Attr  string   `json:"attr"`
	Mark  string   `json:"mark"`
	Types []string `json:"types"`
	Cap   int      `json:"cap"`
	MS    int      `json:"ms"`
}

// newListenParams returns the parameters of one rendering's reading, with
// a mark of its own.
func newListenParams() (*listenParams, error) {
	var b [9]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("no random mark: %w", err)
	}
	return &listenParams{Attr: render.ClickAttr, Mark: hex.EncodeToString(b[:]), Types: render.ClickEvents(), Cap: MaxListenerAnchors, MS: ListenerTime}, nil
}

// listenScript reads the event listeners of the document's HTML <a>
// elements without href with the DevTools command line API's
// getEventListeners (the browser's own record of them: addEventListener,
// on* properties and attributes, what a library such as jQuery ends in),
// the same record DOMDebugger.getEventListeners gives one element at a
// time, read here in one pass. Those with a listener of one of p.types get
// the attribute p.attr with the value p.mark; restore puts every touched
// attribute back as it was. Only the element's own listeners count, not
// those of its ancestors (a delegated handler on a container is no sign
// that the anchor is meant as a link).
const listenScript = `(p) => {
  const gel = typeof getEventListeners === "function" ? getEventListeners : null;
  if (!gel) return { counts: null, reason: "the browser gave no event listeners", restore() {} };
  const html = "http://www.w3.org/1999/xhtml";
  const counts = { anchors: 0, checked: 0, clickable: 0, capped: "", elapsedMs: 0 };
  const marked = [];
  const restore = () => {
    for (const [a, v] of marked) {
      try { if (v === null) a.removeAttribute(p.attr); else a.setAttribute(p.attr, v); } catch (e) {}
    }
  };
  try {
    const t0 = performance.now();
    for (const a of d.querySelectorAll("a:not([href])")) {
      if (a.namespaceURI !== html) continue;
      counts.anchors++;
      if (counts.capped) continue;
      if (counts.checked >= p.cap) { counts.capped = "count"; continue; }
      if ((counts.checked & 63) === 63 && performance.now() - t0 > p.ms) { counts.capped = "time"; continue; }
      counts.checked++;
      const ls = gel(a);
      if (ls && p.types.some((t) => ls[t] && ls[t].length > 0)) marked.push([a, a.getAttribute(p.attr)]);
    }
    for (const [a] of marked) a.setAttribute(p.attr, p.mark);
    counts.clickable = marked.length;
    counts.elapsedMs = performance.now() - t0;
  } catch (e) {
    restore();
    return { counts: null, reason: "the listeners could not be read: " + String(e && e.message || e).slice(0, 200), restore() {} };
  }
  return { counts, reason: "", restore };
}`
