package reportview

import (
	"html/template"
	"io"
	"sync"
)

var matrixTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("matrix").Funcs(funcs).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{.CSP}}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>loom conformance matrix — {{len .M.Columns}} implementations</title>
<style>{{.CSS}}
.matrix td,.matrix th{text-align:center}.matrix td.id,.matrix th.id{text-align:left}
.matrix tr.group th{background:#fff;text-align:left;font-weight:600;border-bottom:2px solid var(--line);position:static}
.matrix details summary{cursor:pointer}.matrix details pre{text-align:left;max-width:44em;max-height:24em}
.matrix details .repro,.matrix details .open{text-align:left;max-width:44em}
.matrix tbody.summary td{font-weight:600}
</style>
</head><body>
<header><h1>loom conformance matrix — {{.M.Kind}}</h1>
<p class="counts">{{len .M.Columns}} implementations side by side: one row per check, grouped by the clause it enforces first; a failure opens to its message, its diff, the command that reproduces it and its place in that implementation's report. Shown first: the checks some implementation does not pass.</p></header>
<nav aria-label="sections"><a href="#summary">Summary</a><a href="#matrix">Checks</a></nav>
<main>
<section id="matrix" aria-labelledby="matrix-h"><h2 id="matrix-h">Checks by clause</h2>
<form id="filters" class="filters" hidden role="search" aria-label="filter the checks">
<label><span>rows</span><select name="rows"><option value="not-all-pass" selected>where some implementation does not pass</option><option value="differ">where the implementations differ</option><option value="">every check</option></select></label>
<label>text<input name="q" type="search" placeholder="check id or clause" size="22"></label>
<span id="shown" class="shown" aria-live="polite"></span>
</form>
<table class="matrix" id="checks-table">
<thead><tr><th scope="col" class="id">check</th>{{range .M.Columns}}<th scope="col">{{if .Report}}<a href="{{.Report}}" title="its report">{{.Name}}</a>{{else}}{{.Name}}{{end}}</th>{{end}}</tr></thead>
<tbody class="summary" id="summary"><tr><th scope="row" class="id">verdict</th>{{range .M.Columns}}<td><span class="v tone-{{.Tone}}" title="{{.Headline}}">{{.Verdict}}</span></td>{{end}}</tr>
<tr><th scope="row" class="id">required checks passed</th>{{range .M.Columns}}<td>{{.RequiredPass}}/{{.RequiredRun}}</td>{{end}}</tr>
<tr><th scope="row" class="id">recommendations met</th>{{range .M.Columns}}<td>{{.RecommendedPass}}/{{.RecommendedRun}}</td>{{end}}</tr></tbody>
{{range .M.Groups}}<tbody class="rows"><tr class="group"><th colspan="{{$.Span}}" id="{{clauseA .Clause}}">{{.Clause}}{{with .Summary}} — {{.}}{{end}}</th></tr>
{{range .Rows}}{{$row := .}}<tr data-differs="{{.Differs}}" data-notallpass="{{.NotAllPass}}"><td class="id">{{id .ID}} <small>{{with .Level}}{{.}} · {{end}}{{.Requirement}}</small></td>
{{range $i, $c := .Cells}}<td>{{if not .Verdict}}<span class="v v-skip" title="not in this run">—</span>{{else if and (ne .Verdict "pass") (or .Message .Repro)}}<details><summary><span class="v v-{{.Verdict}}">{{.Verdict}}</span>{{with .Expected}} <small>ledger</small>{{end}}</summary>{{with .Message}}<pre class="msg">{{range lines .}}{{if .Class}}<span class="{{.Class}}">{{.Text}}</span>{{else}}{{.Text}}{{end}}
{{end}}</pre>{{end}}{{with .Repro}}<p class="repro"><span>reproduce:</span> <code>{{.}}</code></p>{{end}}{{with $.M.Link $i $row.ID $c.Verdict}}<p class="open"><a href="{{.}}">in its report</a></p>{{end}}</details>{{else}}<span class="v v-{{.Verdict}}">{{.Verdict}}</span>{{end}}</td>{{end}}</tr>
{{end}}</tbody>{{end}}
</table></section>
</main>
<footer><p>Written by loom-conform report matrix. One self-contained file: it loads nothing from the network; the filter needs JavaScript.</p></footer>
<script>{{.JS}}</script>
</body></html>
`))
})

// matrixJS filters the matrix's rows (the summary rows always show).
const matrixJS = `(function () {
  "use strict";
  var form = document.getElementById("filters");
  if (!form) { return; }
  form.hidden = false;
  var rows = Array.prototype.slice.call(document.querySelectorAll("tbody.rows tr[data-differs]"));
  var shown = document.getElementById("shown");
  var apply = function () {
    var mode = form.elements.rows.value, q = (form.elements.q.value || "").trim().toLowerCase(), n = 0;
    rows.forEach(function (r) {
      var ok = (!mode || (mode === "differ" ? r.dataset.differs === "true" : r.dataset.notallpass === "true")) &&
        (!q || (r.textContent + " " + r.parentNode.querySelector("tr.group").textContent).toLowerCase().indexOf(q) >= 0);
      r.hidden = !ok;
      if (ok) { n++; }
    });
    Array.prototype.forEach.call(document.querySelectorAll("tbody.rows"), function (b) {
      b.hidden = !b.querySelector("tr[data-differs]:not([hidden])");
    });
    shown.textContent = "showing " + n + " of " + rows.length + " checks";
  };
  form.addEventListener("input", apply);
  form.addEventListener("change", apply);
  form.addEventListener("submit", function (e) { e.preventDefault(); apply(); });
  apply();
})();`

// WriteMatrixHTML writes m as one self-contained page: a summary row per implementation (verdict,
// required checks passed, recommendations met, a link to its report), then every check grouped by
// clause, a failure opening to its message and diff, its reproduce command and its place in the
// implementation's report. With scripts the checks every implementation passed are hidden at
// first (a filter shows them); without, every check shows.
func WriteMatrixHTML(w io.Writer, m Matrix) error {
	return matrixTmpl().Execute(w, struct {
		M    Matrix
		CSS  template.CSS
		JS   template.JS
		CSP  string
		Span int
	}{m, template.CSS(pageCSS), template.JS(matrixJS), csp, len(m.Columns) + 1})
}
