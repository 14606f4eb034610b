// seokit report tables: sort, filter and page through rows embedded as
// JSON in #rt-data, rendering one page of rows at a time.
(function () {
  "use strict";
  var rank = { error: 0, warning: 1, notice: 2 };

  function list(v) {
    if (v == null) return [];
    return Array.isArray(v) ? v : [v];
  }

  function text(c, v) {
    if (v == null || (v === "" && c.kind === "num")) return c.nul;
    if (typeof v === "number") return c.digits ? v.toFixed(c.digits) : String(v);
    return String(v);
  }

  function el(tag, cls, txt) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (txt != null) e.textContent = txt;
    return e;
  }

  function cell(c, r) {
    var v = r[c.key];
    var td = el("td", "k-" + c.kind + (c.cls ? " " + c.cls : ""));
    td.setAttribute("data-label", c.label);
    switch (c.kind) {
      case "url":
        td.title = text(c, v);
        if (c.link && v != null) {
          var a = el("a", "", td.title);
          a.setAttribute("href", c.link + encodeURIComponent(td.title));
          td.appendChild(a);
        } else {
          td.textContent = td.title;
        }
        break;
      case "line":
        td.textContent = td.title = text(c, v);
        break;
      case "code":
        td.appendChild(el("code", "", text(c, v)));
        break;
      case "sev":
        td.appendChild(el("span", "rt-badge rt-" + text(c, v), text(c, v)));
        break;
      case "list":
        list(v).forEach(function (s) {
          td.appendChild(el("code", "", s));
          td.appendChild(document.createTextNode(" "));
        });
        break;
      case "urls":
        list(v).forEach(function (s) {
          var u = el("span", "rt-u", s);
          u.title = s;
          td.appendChild(u);
        });
        break;
      default:
        td.textContent = text(c, v);
        if (c.hint && typeof r[c.hint] === "string" && r[c.hint]) td.title = r[c.hint];
    }
    return td;
  }

  function sortValue(c, r) {
    var v = r[c.key];
    if (c.kind === "num") return typeof v === "number" ? v : null;
    if (c.kind === "sev") return v in rank ? rank[v] : 9;
    return list(v).join(" ").toLowerCase();
  }

  function setup(box, rows) {
    var ths = Array.prototype.slice.call(box.querySelectorAll("thead th"));
    var cols = ths.map(function (th) {
      return {
        key: th.getAttribute("data-key"), kind: th.getAttribute("data-kind"),
        hint: th.getAttribute("data-hint"), nul: th.getAttribute("data-null") || "\u2014",
        digits: +(th.getAttribute("data-digits") || 0), cls: th.getAttribute("data-class") || "",
        link: th.getAttribute("data-link") || "",
        label: th.textContent
      };
    });
    var sevKey = box.getAttribute("data-sev-key"), idKey = box.getAttribute("data-id-key");
    var size = +box.getAttribute("data-page-size") || 100;
    if (window.matchMedia && window.matchMedia("(max-width: 700px)").matches) size = Math.min(size, 20);
    var st = { q: "", sev: "", id: "", col: -1, desc: false, page: 0 };
    var view = rows.slice();
    var tbody = box.querySelector("tbody");
    var count = box.querySelector(".rt-count"), nav = box.querySelector(".rt-nav");
    var pageLbl = box.querySelector(".rt-page");
    var prev = box.querySelector(".rt-prev"), next = box.querySelector(".rt-next");
    var hay = function (r) {
      if (r.__h === undefined) {
        var parts = [];
        cols.forEach(function (c) {
          if (c.kind !== "num" && c.kind !== "sev") parts.push(list(r[c.key]).join(" "));
        });
        Object.defineProperty(r, "__h", { value: parts.join("\n").toLowerCase() });
      }
      return r.__h;
    };

    function render() {
      var pages = Math.max(1, Math.ceil(view.length / size));
      st.page = Math.min(st.page, pages - 1);
      var from = st.page * size, to = Math.min(view.length, from + size);
      var frag = document.createDocumentFragment();
      for (var i = from; i < to; i++) {
        var tr = document.createElement("tr");
        for (var j = 0; j < cols.length; j++) tr.appendChild(cell(cols[j], view[i]));
        frag.appendChild(tr);
      }
      tbody.textContent = "";
      tbody.appendChild(frag);
      count.textContent = view.length ? (from + 1) + "\u2013" + to + " of " + view.length +
        (view.length < rows.length ? " (filtered from " + rows.length + ")" : "") : (rows.length ? "No rows match." : "");
      pageLbl.textContent = (st.page + 1) + " / " + pages;
      prev.disabled = st.page === 0;
      next.disabled = st.page >= pages - 1;
      nav.hidden = pages < 2;
    }

    function apply() {
      var q = st.q.toLowerCase();
      view = rows.filter(function (r) {
        if (st.sev && list(r[sevKey]).indexOf(st.sev) < 0) return false;
        if (st.id && list(r[idKey]).indexOf(st.id) < 0) return false;
        return !q || hay(r).indexOf(q) >= 0;
      });
      if (st.col >= 0) {
        var c = cols[st.col], dir = st.desc ? -1 : 1;
        var keyed = view.map(function (r, i) { return { r: r, v: sortValue(c, r), i: i }; });
        keyed.sort(function (a, b) {
          if (a.v === b.v) return a.i - b.i;
          if (a.v === null) return 1;
          if (b.v === null) return -1;
          return (a.v < b.v ? -1 : 1) * dir;
        });
        view = keyed.map(function (k) { return k.r; });
      }
      st.page = 0;
      render();
    }

    ths.forEach(function (th, i) {
      var b = el("button", "rt-sort", th.textContent);
      b.type = "button";
      th.textContent = "";
      th.appendChild(b);
      th.setAttribute("aria-sort", "none");
      b.addEventListener("click", function () {
        st.desc = st.col === i ? !st.desc : cols[i].kind === "num";
        st.col = i;
        ths.forEach(function (h) { h.setAttribute("aria-sort", "none"); });
        th.setAttribute("aria-sort", st.desc ? "descending" : "ascending");
        apply();
      });
    });
    var timer;
    var q = box.querySelector(".rt-q");
    if (q) q.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () { st.q = q.value.trim(); apply(); }, 150);
    });
    var sev = box.querySelector(".rt-sev");
    if (sev) sev.addEventListener("change", function () { st.sev = sev.value; apply(); });
    var id = box.querySelector(".rt-id");
    if (id) id.addEventListener("change", function () { st.id = id.value; apply(); });
    prev.addEventListener("click", function () { st.page--; render(); });
    next.addEventListener("click", function () { st.page++; render(); });
    var controls = box.querySelector(".rt-controls");
    if (controls && controls.children.length) controls.hidden = false;
    render();
  }

  function init() {
    var block = document.getElementById("rt-data");
    if (!block) return;
    var data = JSON.parse(block.textContent);
    var boxes = document.querySelectorAll("div.rt[data-rows]");
    for (var i = 0; i < boxes.length; i++) {
      setup(boxes[i], data[boxes[i].getAttribute("data-rows")] || []);
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
