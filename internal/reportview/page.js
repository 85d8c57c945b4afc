(function () {
  "use strict";
  // The filters: shown only when scripts run (the table is complete without them).
  var form = document.getElementById("filters");
  var table = document.getElementById("checks-table");
  if (form && table) {
    form.hidden = false;
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    var shown = document.getElementById("shown");
    var apply = function () {
      var f = {};
      ["verdict", "group", "level", "requirement"].forEach(function (k) { f[k] = form.elements[k] ? form.elements[k].value : ""; });
      var clause = (form.elements.clause.value || "").trim().toLowerCase();
      var text = (form.elements.q.value || "").trim().toLowerCase();
      var n = 0;
      rows.forEach(function (r) {
        var d = r.dataset;
        var ok = (!f.verdict || (f.verdict === "not-pass" ? d.verdict !== "pass" && d.verdict !== "skip" : d.verdict === f.verdict)) &&
          (!f.group || d.group === f.group) && (!f.level || d.level === f.level) &&
          (!f.requirement || d.requirement === f.requirement) &&
          (!clause || d.clauses.toLowerCase().indexOf(clause) >= 0) &&
          (!text || r.textContent.toLowerCase().indexOf(text) >= 0);
        r.hidden = !ok;
        if (ok) { n++; }
      });
      shown.textContent = "showing " + n + " of " + rows.length;
    };
    form.addEventListener("input", apply);
    form.addEventListener("change", apply);
    form.addEventListener("submit", function (e) { e.preventDefault(); apply(); });
    form.addEventListener("reset", function () { setTimeout(apply, 0); });
    apply();
  }
  // A copy button beside every reproduce command.
  Array.prototype.forEach.call(document.querySelectorAll(".repro code"), function (code) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = "copy";
    b.textContent = "copy";
    b.setAttribute("aria-label", "copy the reproduce command");
    b.addEventListener("click", function () {
      var text = code.textContent;
      var done = function () { b.textContent = "copied"; setTimeout(function () { b.textContent = "copy"; }, 1500); };
      var fallback = function () {
        var r = document.createRange();
        r.selectNodeContents(code);
        var s = window.getSelection();
        s.removeAllRanges();
        s.addRange(r);
        try { document.execCommand("copy"); done(); } catch (e) { b.textContent = "select and copy"; }
      };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(text).then(done, fallback);
      } else {
        fallback();
      }
    });
    code.parentNode.appendChild(b);
  });
  // Printing shows every folded section.
  window.addEventListener("beforeprint", function () {
    Array.prototype.forEach.call(document.querySelectorAll("details"), function (d) { d.open = true; });
  });
})();
