// seokit lab Web Vitals. Installed with Page.addScriptToEvaluateOnNewDocument,
// so it runs in every new document before the page's own scripts (and
// regardless of the page's Content-Security-Policy). It registers buffered
// PerformanceObservers and defines window.__seokitVitals, a function that
// returns the figures as a JSON string. Go (vitals.go) checks and caps what
// it returns.
(function () {
  'use strict';
  if (window !== window.top) return; // only the top document is measured
  if (Object.prototype.hasOwnProperty.call(window, '__seokitVitals')) return;

  var MAX_SHIFTS = 5;         // largest shifts kept
  var MAX_SOURCES = 5;        // elements kept per shift
  var MAX_LONG_TASKS = 2000;  // long tasks kept for TBT
  var MAX_DESC = 100;         // characters of an element description

  var stringify = JSON.stringify;
  var perf = window.performance;
  var PO = window.PerformanceObserver;

  var supported = { lcp: false, cls: false, longtask: false };
  var lcp = null;        // {t, el}
  var cls = 0;           // max session window value
  var sessionValue = 0;  // current session window
  var sessionFirst = 0;  // start time of its first shift
  var sessionLast = 0;   // start time of its last shift
  var shifts = [];       // the largest shifts: {v, els}
  var longTasks = [];    // [start, duration]

  function clip(s, n) {
    s = String(s);
    return s.length > n ? s.slice(0, n) : s;
  }

  // describe names an element as tag#id.class.class (selector-like).
  function describe(node) {
    try {
      if (!node) return '';
      if (node.nodeType !== 1) node = node.parentElement;
      if (!node || !node.tagName) return '';
      var d = node.tagName.toLowerCase();
      var id = node.getAttribute('id');
      if (id) d += '#' + clip(id, 40);
      var cls = node.getAttribute('class');
      if (cls) {
        var parts = cls.split(/\s+/).filter(Boolean).slice(0, 3);
        for (var i = 0; i < parts.length; i++) d += '.' + clip(parts[i], 30);
      }
      return clip(d, MAX_DESC);
    } catch (e) {
      return '';
    }
  }

  // observers are the PerformanceObservers with their handlers: read()
  // first takes the entries queued but not yet delivered to them, so that
  // the figures do not depend on when the browser delivers them.
  var observers = [];

  function feed(fn, es) {
    for (var i = 0; i < es.length; i++) {
      try { fn(es[i]); } catch (e) { /* keep observing */ }
    }
  }

  function observe(type, fn) {
    if (!PO) return false;
    try {
      var po = new PO(function (list) { feed(fn, list.getEntries()); });
      po.observe({ type: type, buffered: true });
      observers.push([po, fn]);
      return true;
    } catch (e) {
      return false;
    }
  }

  supported.lcp = observe('largest-contentful-paint', function (e) {
    lcp = { t: e.startTime, el: describe(e.element) };
  });

  // CLS as web.dev defines it (https://web.dev/articles/cls): shifts
  // without recent input grouped in session windows (a gap under 1 s, a
  // window under 5 s); CLS is the largest window. Chromium flags the shifts
  // of the first 500 ms with hadRecentInput because of the viewport
  // emulation, not of any input (seokit sends none); as Lighthouse does
  // (core/computed/metrics/cumulative-layout-shift.js), such shifts count
  // until the first unflagged one.
  var respectInput = false;
  supported.cls = observe('layout-shift', function (e) {
    if (e.hadRecentInput) {
      if (respectInput || e.startTime > 500) return;
    } else {
      respectInput = true;
    }
    if (sessionValue > 0 && e.startTime - sessionLast < 1000 && e.startTime - sessionFirst < 5000) {
      sessionValue += e.value;
    } else {
      sessionValue = e.value;
      sessionFirst = e.startTime;
    }
    sessionLast = e.startTime;
    if (sessionValue > cls) cls = sessionValue;

    if (shifts.length === MAX_SHIFTS && e.value <= shifts[MAX_SHIFTS - 1].v) return;
    var els = [];
    var srcs = e.sources || [];
    for (var i = 0; i < srcs.length && els.length < MAX_SOURCES; i++) {
      var d = describe(srcs[i].node);
      if (d) els.push(d);
    }
    shifts.push({ v: e.value, els: els });
    shifts.sort(function (a, b) { return b.v - a.v; });
    if (shifts.length > MAX_SHIFTS) shifts.length = MAX_SHIFTS;
  });

  supported.longtask = observe('longtask', function (e) {
    if (longTasks.length < MAX_LONG_TASKS) longTasks.push([e.startTime, e.duration]);
  });

  function num(v) {
    return typeof v === 'number' && isFinite(v) && v >= 0 ? v : null;
  }

  function read() {
    for (var o = 0; o < observers.length; o++) {
      try { feed(observers[o][1], observers[o][0].takeRecords()); } catch (e) { /* keep the delivered entries */ }
    }
    var out = {
      contentType: clip(document.contentType || '', 100),
      lcp: null, lcpElement: '', cls: null, shifts: [], tbt: null, fcp: null, ttfb: null,
      domElements: document.getElementsByTagName('*').length
    };
    try {
      var paints = perf.getEntriesByType('paint');
      for (var i = 0; i < paints.length; i++) {
        if (paints[i].name === 'first-contentful-paint') out.fcp = num(paints[i].startTime);
      }
      var nav = perf.getEntriesByType('navigation')[0];
      if (nav && nav.responseStart > 0) {
        out.ttfb = num(nav.responseStart - (nav.activationStart || 0));
      }
    } catch (e) { /* leave nulls */ }
    if (supported.lcp && lcp) {
      out.lcp = num(lcp.t);
      out.lcpElement = lcp.el;
    }
    if (supported.cls) {
      out.cls = num(cls);
      for (var j = 0; j < shifts.length; j++) {
        out.shifts.push({ value: shifts[j].v, elements: shifts[j].els });
      }
    }
    // TBT as Lighthouse computes it (https://web.dev/articles/tbt): each
    // long task's time after FCP beyond 50 ms, up to now (the end of the
    // rendering); a task that straddles FCP counts from FCP.
    if (supported.longtask && out.fcp !== null) {
      var tbt = 0;
      for (var k = 0; k < longTasks.length; k++) {
        var start = longTasks[k][0], end = start + longTasks[k][1];
        if (end <= out.fcp) continue;
        var d = end - Math.max(start, out.fcp);
        if (d > 50) tbt += d - 50;
      }
      out.tbt = tbt;
    }
    return stringify(out);
  }

  try {
    Object.defineProperty(window, '__seokitVitals', { value: read, writable: false, configurable: false, enumerable: false });
  } catch (e) { /* the page cannot have defined it first: this runs before it */ }
})();
