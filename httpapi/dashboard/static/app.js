// seokit dashboard: progressive enhancements only. Every page works
// without this script.
(function () {
  "use strict";

  // Copy buttons: data-copy names the input whose value is copied.
  document.addEventListener("click", function (e) {
    var b = e.target.closest("button.copy");
    if (!b) return;
    var input = document.getElementById(b.getAttribute("data-copy"));
    if (!input) return;
    input.select();
    var done = function () {
      b.textContent = "Copied";
      setTimeout(function () { b.textContent = "Copy"; }, 2000);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(input.value).then(done, function () {
        document.execCommand("copy");
        done();
      });
    } else {
      document.execCommand("copy");
      done();
    }
  });

  // Confirmations for destructive forms.
  document.addEventListener("submit", function (e) {
    var f = e.target;
    if (f.classList.contains("confirm") && !window.confirm(f.getAttribute("data-confirm"))) {
      e.preventDefault();
    }
  });

  // Options that need another field's choice (data-needs-render names a
  // rendering select): off and disabled while it says "none". The server
  // refuses the combination anyway.
  document.addEventListener("DOMContentLoaded", function () {
    var boxes = document.querySelectorAll("input[data-needs-render]");
    Array.prototype.forEach.call(boxes, function (box) {
      var sel = document.getElementById(box.getAttribute("data-needs-render"));
      if (!sel) return;
      var sync = function () {
        box.disabled = sel.value === "none";
        if (box.disabled) box.checked = false;
      };
      sel.addEventListener("change", sync);
      sync();
    });
  });

  // Live progress of a running analysis.
  document.addEventListener("DOMContentLoaded", function () {
    var box = document.getElementById("progress");
    if (!box || box.getAttribute("data-done") === "true") return;
    var url = box.getAttribute("data-progress-url");
    var set = function (id, v) {
      var el = document.getElementById(id);
      if (el) el.textContent = v;
    };
    var tick = function () {
      fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (r) { return r.ok ? r.json() : Promise.reject(r.status); })
        .then(function (p) {
          set("job-status", p.status);
          set("pages-done", p.pagesDone);
          set("pages-queued", p.queued);
          set("pages-errors", p.errors);
          set("current", p.current || "");
          var ext = document.getElementById("external");
          if (ext && p.external) {
            ext.hidden = false;
            set("job-phase", p.phase === "checking_external" ? "Checking external links: " : "");
            set("ext-done", p.external.done);
            set("ext-total", p.external.total);
          }
          var bar = document.getElementById("job-progress");
          if (bar && p.pagesDone + p.queued > 0) {
            bar.max = p.pagesDone + p.queued;
            bar.value = p.pagesDone;
          }
          if (p.done) {
            window.location.reload();
          } else {
            setTimeout(tick, 1000);
          }
        })
        .catch(function () { setTimeout(tick, 3000); });
    };
    setTimeout(tick, 500);
  });
})();
