// The claims index's filters: document, verdict, chapter, kind and text. The page lists every
// claim without this script; with it, the form appears and its state lives in the address's
// fragment (#doc=singh&verdict=FAIL&chapter=6), so a filtered view can be linked to.
"use strict";
(function () {
  var form = document.getElementById("filters");
  var table = document.getElementById("claims");
  if (!form || !table) { return; }
  var rows = Array.prototype.slice.call(table.tBodies[0].rows);
  var texts = rows.map(function (r) {
    return Array.prototype.map.call(r.cells, function (c) { return c.textContent; }).join(" ").toLowerCase();
  });
  var count = document.getElementById("count");
  var fields = ["doc", "verdict", "chapter", "kind", "q"];
  function control(name) { return form.elements[name]; }
  function fromHash() {
    var params = new URLSearchParams(location.hash.replace(/^#/, ""));
    fields.forEach(function (f) {
      var c = control(f);
      var v = params.get(f) || "";
      if (c.tagName === "SELECT" && v && !Array.prototype.some.call(c.options, function (o) { return o.value === v; })) {
        v = "";
      }
      c.value = v;
    });
  }
  function toHash() {
    var params = new URLSearchParams();
    fields.forEach(function (f) { if (control(f).value) { params.set(f, control(f).value); } });
    var hash = params.toString();
    var url = location.href.replace(/#.*$/, "") + (hash ? "#" + hash : "");
    try { history.replaceState(null, "", url); } catch (e) { /* some file:// contexts refuse */ }
  }
  function apply() {
    var want = {};
    fields.forEach(function (f) { want[f] = control(f).value; });
    var words = want.q.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = 0;
    rows.forEach(function (r, i) {
      var d = r.dataset;
      var ok = (!want.doc || d.doc === want.doc) &&
        (!want.verdict || d.verdict === want.verdict) &&
        (!want.chapter || d.chapter === want.chapter) &&
        (!want.kind || d.kind === want.kind) &&
        words.every(function (w) { return texts[i].indexOf(w) !== -1; });
      r.hidden = !ok;
      if (ok) { shown += 1; }
    });
    count.textContent = shown + " of " + rows.length + " claims.";
  }
  form.hidden = false;
  fromHash();
  apply();
  form.addEventListener("input", function () { apply(); toHash(); });
  form.addEventListener("change", function () { apply(); toHash(); });
  form.addEventListener("reset", function () { setTimeout(function () { apply(); toHash(); }, 0); });
  form.addEventListener("submit", function (e) { e.preventDefault(); });
  window.addEventListener("hashchange", function () { fromHash(); apply(); });
})();
