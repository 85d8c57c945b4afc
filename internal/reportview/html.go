package reportview

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"
	"sync"

	"github.com/loom-kernel/loom-conform/spec"
)

//go:embed page.css
var pageCSS string

//go:embed page.js
var pageJS string

// csp keeps the page self-contained: nothing is fetched, inline style and script only (the
// witness drawings are srcdoc frames that inherit it).
const csp = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; frame-src 'self' about:; base-uri 'none'; form-action 'none'"

// line is one line of a message, classed "del" or "add" inside its (-want +got) diff.
type line struct{ Class, Text string }

// messageLines splits a failure message into lines and marks the removed and added lines of its
// diff.
func messageLines(msg string) []line {
	var out []line
	inDiff := false
	for _, l := range strings.Split(strings.TrimRight(msg, "\n"), "\n") {
		c := ""
		switch {
		case strings.HasPrefix(l, "(-want +got)"):
			inDiff = true
		case inDiff && strings.HasPrefix(l, "-"):
			c = "del"
		case inDiff && strings.HasPrefix(l, "+"):
			c = "add"
		}
		out = append(out, line{c, l})
	}
	return out
}

type pageData struct {
	Page
	CSS         template.CSS
	JS          template.JS
	CSP         string
	Findings    []finding
	Attention   int
	Coverage    []ClauseRow
	Slowest     []Item
	Groups      []string
	Levels      []string
	VerdictOpts []string
}

var funcs = template.FuncMap{
	"join":    strings.Join,
	"id":      breakable,
	"lines":   messageLines,
	"ms":      func(f float64) string { return fmt.Sprintf("%.0f", f) },
	"checkA":  func(id string) string { return "check-" + id },
	"rowA":    func(id string) string { return "row-" + id },
	"clauseA": func(id string) string { return "clause-" + id },
	"req":     func(it Item) string { return string(it.requirement()) },
	"attn":    func(it Item) int { return it.attention() },
	"label": func(it Item) string {
		switch it.attention() {
		case 1, 2:
			return "blocks"
		case 3:
			return "no verdict"
		case 4:
			if it.requirement() == spec.Recommended {
				return "a recommendation not met: does not block"
			}
			return "does not block"
		case 5:
			return "excused by the ledger"
		}
		return ""
	},
	"plural": func(n int, one, many string) string {
		if n == 1 {
			return one
		}
		return many
	},
}

// pageTmpl is parsed on first use: parsing it at package initialisation cost every command of the
// binary, also those that write no HTML.
var pageTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Funcs(funcs).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{.CSP}}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="loom-verdict" content="{{.Verdict}}">
<title>{{.Title}} — {{.Headline}}</title>
<style>{{.CSS}}</style>
</head><body>
<header>
<h1>{{.Title}}{{with .Subject}} — {{.}}{{end}}</h1>
<div class="verdict tone-{{.Tone}}" role="status" data-verdict="{{.Verdict}}">
<p class="headline">{{.Headline}}</p>
{{with .Counts}}<p class="counts">{{.}}</p>{{end}}
</div>
{{with .Facts}}<dl class="facts">{{range .}}<div><dt>{{.Name}}</dt><dd>{{.Value}}</dd></div>{{end}}</dl>{{end}}
</header>
<nav aria-label="sections"><a href="#attention">Failures and unknowns ({{.Attention}})</a><a href="#checks">All {{len .Items}} checks</a>{{if .Slowest}}<a href="#slowest">Slowest</a>{{end}}{{range $i, $t := .Tables}}<a href="#table-{{$i}}">{{$t.Title}}</a>{{end}}<a href="#coverage">Clause coverage</a></nav>
<main>
{{range .Problems}}<p class="problem">{{.}}</p>{{end}}
<section id="attention" aria-labelledby="attention-h">
<h2 id="attention-h">Failures and unknowns</h2>
{{if not .Attention}}<p>Nothing failed and every check has a verdict.</p>{{end}}
{{range .Findings}}{{with .Cause}}<details class="cause"{{if not .Excused}} open{{end}}><summary>{{len .Items}} checks fail with one difference: <code>{{.Evidence}}</code></summary>
{{range .Items}}{{template "finding" .}}{{end}}</details>
{{else}}{{template "finding" .Item}}{{end}}{{end}}
</section>
<section id="checks" aria-labelledby="checks-h">
<h2 id="checks-h">All checks</h2>
<form id="filters" class="filters" hidden role="search" aria-label="filter the checks">
<label>verdict<select name="verdict"><option value="">any</option><option value="not-pass">not pass</option>{{range .VerdictOpts}}<option>{{.}}</option>{{end}}</select></label>
{{if .Groups}}<label>group<select name="group"><option value="">any</option>{{range .Groups}}<option>{{.}}</option>{{end}}</select></label>{{end}}
{{if .Levels}}<label>level<select name="level"><option value="">any</option>{{range .Levels}}<option>{{.}}</option>{{end}}</select></label>{{end}}
<label>requirement<select name="requirement"><option value="">any</option><option>required</option><option>recommended</option></select></label>
<label>clause<input name="clause" type="search" placeholder="S7.es or I-STORE-3" size="16"></label>
<label>text<input name="q" type="search" placeholder="search every column" size="22"></label>
<button type="reset">clear</button>
<span id="shown" class="shown" aria-live="polite"></span>
</form>
<table id="checks-table"><thead><tr><th scope="col">verdict</th><th scope="col">check</th><th scope="col">group</th>{{if .Levels}}<th scope="col">level</th>{{end}}<th scope="col">requirement</th><th scope="col">clauses</th><th scope="col">ms</th></tr></thead>
<tbody>{{$levels := .Levels}}{{range .Items}}<tr id="{{rowA .ID}}" data-verdict="{{.Verdict}}" data-group="{{.Group}}" data-level="{{.Level}}" data-requirement="{{req .}}" data-clauses="{{join .Clauses " "}}">
<td><span class="v v-{{.Verdict}}">{{.Verdict}}</span></td><td class="id">{{if attn .}}<a href="#{{checkA .ID}}">{{id .ID}}</a>{{else}}{{id .ID}}{{end}}{{with .Expected}} <small>(ledger: {{.}})</small>{{end}}{{if .Rerun}} <small>(re-run)</small>{{end}}</td><td>{{.Group}}</td>{{if $levels}}<td>{{.Level}}</td>{{end}}<td class="req-{{req .}}">{{req .}}</td>
<td>{{range .Clauses}}<a class="clause" href="#{{clauseA .}}">{{.}}</a>{{end}}</td><td class="n">{{ms .DurationMs}}</td></tr>
{{end}}</tbody></table>
</section>
{{if .Slowest}}<section id="slowest" aria-labelledby="slowest-h"><h2 id="slowest-h">Slowest checks</h2>
<table><thead><tr><th scope="col">check</th><th scope="col">verdict</th><th scope="col">ms</th></tr></thead><tbody>
{{range .Slowest}}<tr><td class="id"><a href="#{{rowA .ID}}">{{id .ID}}</a></td><td><span class="v v-{{.Verdict}}">{{.Verdict}}</span></td><td class="n">{{ms .DurationMs}}</td></tr>{{end}}
</tbody></table></section>{{end}}
{{range $i, $t := .Tables}}<section id="table-{{$i}}" aria-labelledby="table-{{$i}}-h"><h2 id="table-{{$i}}-h">{{$t.Title}}</h2>
<table><thead><tr>{{range $t.Head}}<th scope="col">{{.}}</th>{{end}}</tr></thead><tbody>
{{range $t.Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>{{end}}</tbody></table></section>
{{end}}
{{if .Logs}}<section id="logs" aria-labelledby="logs-h"><h2 id="logs-h">Target logs</h2><pre class="msg">{{.Logs}}</pre></section>{{end}}
<section id="coverage" aria-labelledby="coverage-h">
<h2 id="coverage-h">Clause coverage</h2>
<p class="note">Every clause the checks above enforce: spec and ADR clauses are paraphrased from the registry (<code>loom-conform spec</code>); an interpretation is a decision this project made where the spec is silent, with its tier and its full text in docs/interpretations.md.</p>
<table><thead><tr><th scope="col">clause</th><th scope="col">level</th><th scope="col">source</th><th scope="col">what it says</th><th scope="col">pass</th><th scope="col">fail</th><th scope="col">other</th><th scope="col">checks</th></tr></thead><tbody>
{{range .Coverage}}<tr id="{{clauseA .ID}}"><td class="id">{{.ID}}</td><td>{{.Level}}</td><td>{{.Source}}{{with .Tier}} ({{.}}){{end}}{{with .Section}}, {{.}}{{end}}</td>
<td>{{if .Known}}{{.Summary}}{{else}}<em>not in this harness's registry</em>{{end}}{{with .Rests}}<br><small>rests on {{.}}</small>{{end}}{{if .Note}}<details><summary>why</summary><p class="note">{{.Note}}</p>{{with .Options}}<p class="note">Legal options — a check holds a target to one of them (required) and to ours (recommended):</p><ol class="options">{{range $i, $o := .}}<li>{{$o}}{{if not $i}} <em>(ours)</em>{{end}}</li>{{end}}</ol>{{end}}</details>{{end}}{{with .Doc}} <a href="{{.}}">full text</a>{{end}}</td>
<td class="n">{{index .Counts "pass"}}</td><td class="n">{{index .Counts "fail"}}</td><td class="n">{{$o := 0}}{{range $k, $v := .Counts}}{{if and (ne $k "pass") (ne $k "fail")}}{{$o = $v}}{{end}}{{end}}{{$o}}</td>
<td class="id">{{range $i, $x := .Items}}{{if $i}}, {{end}}<a href="#{{rowA $x}}">{{id $x}}</a>{{end}}</td></tr>
{{end}}</tbody></table>
</section>
</main>
<footer><p>Written by {{.Tool}}. One self-contained file: it loads nothing from the network; the filters and copy buttons need JavaScript, everything else reads without it.</p></footer>
<script>{{.JS}}</script>
</body></html>
{{define "finding"}}<article class="finding a-{{attn .}}" id="{{checkA .ID}}" aria-labelledby="{{checkA .ID}}-h">
{{if eq (attn .) 5}}<details><summary><h3 id="{{checkA .ID}}-h"><span class="v v-waived">{{.Verdict}} · excused</span> {{id .ID}}</h3></summary>
{{template "findingBody" .}}</details>{{else}}<h3 id="{{checkA .ID}}-h"><span class="v v-{{.Verdict}}">{{.Verdict}}</span> {{id .ID}}</h3>
{{template "findingBody" .}}{{end}}
</article>{{end}}
{{define "findingBody"}}<p class="meta">{{range .Clauses}}<a class="clause" href="#{{clauseA .}}">{{.}}</a>{{end}} {{with .Level}}{{.}} · {{end}}<span class="req-{{req .}}">{{req .}}</span> · {{label .}}{{with .Why}} — {{.}}{{end}}{{with .Expected}} — ledger: {{.}}{{end}}</p>
{{range .Failed}}<p class="assert">{{.}}</p>{{end}}
{{with .Rerun}}<p class="assert rerun">re-run: {{.}}</p>{{end}}
{{with .Message}}<pre class="msg">{{range lines .}}{{if .Class}}<span class="{{.Class}}">{{.Text}}</span>{{else}}{{.Text}}{{end}}
{{end}}</pre>{{end}}
{{with .WitnessDrawing}}<details class="witness" id="{{checkA $.ID}}-witness"><summary>porcupine's drawing of the witness (the smallest history no order explains)</summary>
<iframe class="drawing" title="porcupine's drawing of the linearizability witness" sandbox="allow-scripts" srcdoc="{{.}}"></iframe></details>{{end}}
{{with .Repro}}<p class="repro"><span>reproduce:</span> <code>{{.}}</code></p>{{end}}{{end}}
`))
})

// WriteHTML writes p as one self-contained, accessible, printable page: the verdict, the items
// that need attention (grouped by a shared cause), a filterable table of every item, the slowest
// items, p's extra tables, and the clause coverage with every clause linked to its text.
func WriteHTML(w io.Writer, p Page) error {
	p = p.visible()
	attention := p.Attention()
	d := pageData{Page: p, CSS: template.CSS(pageCSS), JS: template.JS(pageJS), CSP: csp, Findings: findings(attention),
		Attention: len(attention), Coverage: p.Coverage(), Slowest: p.Slowest(5), Groups: p.groups(), Levels: p.levels(),
		VerdictOpts: p.verdicts()}
	if d.Tool == "" {
		d.Tool = "loom-conform"
	}
	return pageTmpl().Execute(w, d)
}

// finding is one entry of the failures-first list: a cause with its items, or one item.
type finding struct {
	Cause *Cause
	Item  Item
}

// findings places each cause where its worst item stands in attention order.
func findings(attention []Item) []finding {
	causes, rest := Causes(attention)
	first := map[string]*Cause{}
	member := map[string]bool{}
	for i := range causes {
		first[causes[i].Items[0].ID] = &causes[i]
		for _, it := range causes[i].Items {
			member[it.ID] = true
		}
	}
	var out []finding
	r := 0
	for _, it := range attention {
		switch {
		case first[it.ID] != nil:
			out = append(out, finding{Cause: first[it.ID]})
		case !member[it.ID] && r < len(rest):
			out = append(out, finding{Item: rest[r]})
			r++
		}
	}
	return out
}

// breakable is a check id that a narrow column breaks only after a "/" or a "-", never inside a
// word: <wbr> after each "/", and the CSS keeps words whole.
func breakable(id string) template.HTML {
	parts := strings.Split(id, "/")
	for i, p := range parts {
		parts[i] = template.HTMLEscapeString(p)
	}
	return template.HTML(strings.Join(parts, "/<wbr>"))
}
