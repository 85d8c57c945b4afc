package certify

import (
	"html/template"
	"io"
	"sort"
	"strings"

	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/spec"
)

// clauseRow is one line of the clause × verdict matrix.
type clauseRow struct {
	ID      string
	Level   string
	Summary string
	Counts  map[kits.Verdict]int
	Checks  []string
}

type htmlData struct {
	R        *Report
	Headline string
	Counts   string
	Verdicts []kits.Verdict
	Clauses  []clauseRow
	Failures []CheckResult
}

var pageTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"join":      strings.Join,
	"lower":     func(v kits.Verdict) string { return string(v) },
	"seamWords": SeamWords,
}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>loom certify — {{.R.Target}}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}
th{background:#f4f4f4}.pass{background:#e3f6e3}.fail{background:#fbe0e0}.skip{background:#f1f1f1}.unknown{background:#fff3cd}
.verdict{font-size:1.4em;font-weight:bold}.ok{color:#1a7f37}.no{color:#cf222e}pre{background:#f6f8fa;padding:.6em;overflow:auto;white-space:pre-wrap}
td.n{text-align:right}
</style></head><body>
<h1>loom {{if eq (join .R.Kinds " ") "kernel"}}kernel{{else}}store{{end}} certification</h1>
<p class="verdict {{if .R.Certified}}ok{{else}}no{{end}}" data-verdict="{{.R.Verdict}}">{{.Headline}}</p>
<table>
<tr><th>target</th><td>{{.R.Target}}</td></tr>
{{with .R.Handshake}}<tr><th>implementation</th><td>{{.Implementation.Name}} {{.Implementation.Version}} (bridge protocol {{.Protocol}})</td></tr>{{end}}
{{with .R.Kernel}}<tr><th>implementation</th><td>{{.Implementation.Name}} {{.Implementation.Version}} (wire {{.Wire}}, kernel ABI {{.KernelAbi}}, event schema {{.EventSchema}})</td></tr>{{end}}
{{if .R.Target.ImageID}}<tr><th>image</th><td>{{.R.Target.ImageID}} {{join .R.Target.RepoDigests " "}}</td></tr>{{end}}
<tr><th>harness</th><td>{{.R.Tool.Name}} {{.R.Tool.Version}}; kernel ABI {{index .R.Spec "kernelAbi"}}, event schema {{index .R.Spec "eventSchema"}}</td></tr>
<tr><th>run</th><td>started {{.R.Started.Format "2006-01-02 15:04:05 UTC"}}, seed {{.R.Options.Seed}}{{if .R.Options.Run}}, --run {{.R.Options.Run}}{{end}}{{if .R.Options.Faults}}, with faults{{end}}</td></tr>
</table>
<h2>Seams</h2>
<table><tr><th>seam</th><th>SPI</th><th>current</th><th>verdict</th></tr>
{{range .R.Seams}}<tr class="{{if eq .Verdict "certified"}}pass{{else if .Served}}fail{{else}}skip{{end}}"><td>{{.Seam}}</td><td>{{.SpiVersion}}</td><td>{{.Current}}</td><td>{{seamWords .}}</td></tr>
{{end}}</table>
<h2>Summary</h2>
<p>{{.Counts}}</p>
{{with .R.TargetError}}<p class="no">target failed: {{.}}</p>{{end}}
{{range .R.Problems}}<p class="no">{{.}}</p>{{end}}
<h2>Clauses × verdicts</h2>
<table><tr><th>clause</th><th>level</th><th>summary</th>{{range .Verdicts}}<th>{{.}}</th>{{end}}<th>checks</th></tr>
{{range $row := .Clauses}}<tr><td>{{$row.ID}}</td><td>{{$row.Level}}</td><td>{{$row.Summary}}</td>{{range $.Verdicts}}<td class="n {{if index $row.Counts .}}{{lower .}}{{end}}">{{index $row.Counts .}}</td>{{end}}<td>{{join $row.Checks ", "}}</td></tr>
{{end}}</table>
<h2>Failures</h2>
{{if not .Failures}}<p>None.</p>{{end}}
{{range .Failures}}<h3 id="{{.ID}}">{{.Verdict}} {{.ID}}</h3>
<p>[{{join .Clauses " "}}] {{.Level}}{{if .Why}} — {{.Why}}{{end}}{{with .Expected}} — expected failure: {{.Reason}}{{end}}</p>
<pre>{{.Message}}</pre>
<p>reproduce: <code>{{.Repro}}</code></p>
{{end}}
<h2>All checks</h2>
<table><tr><th>kit</th><th>check</th><th>level</th><th>verdict</th><th>ms</th></tr>
{{range .R.Checks}}<tr class="{{lower .Verdict}}"><td>{{.Kit}}</td><td>{{.ID}}</td><td>{{.Level}}</td><td>{{.Verdict}}</td><td class="n">{{printf "%.0f" .DurationMs}}</td></tr>
{{end}}</table>
{{if .R.Logs}}<h2>Target logs</h2><pre>{{.R.Logs}}</pre>{{end}}
</body></html>
`))

// WriteHTML writes one self-contained page: summary, the clause × verdict matrix, every failure
// with its diff, every check, and the target's logs. Everything is escaped by html/template.
func WriteHTML(w io.Writer, r *Report) error {
	d := htmlData{R: r, Headline: Headline(r), Counts: CountsLine(r), Verdicts: []kits.Verdict{kits.Pass, kits.Fail, kits.Skip, kits.Unknown}}
	rows := map[string]*clauseRow{}
	for _, c := range r.Checks {
		if c.Verdict == kits.Fail || c.Verdict == kits.Unknown || c.Blocking {
			d.Failures = append(d.Failures, c)
		}
		for _, id := range c.Clauses {
			row := rows[id]
			if row == nil {
				row = &clauseRow{ID: id, Counts: map[kits.Verdict]int{}}
				if cl, ok := spec.Lookup(id); ok {
					row.Level, row.Summary = string(cl.Level), cl.Summary
				}
				rows[id] = row
			}
			row.Counts[c.Verdict]++
			row.Checks = append(row.Checks, c.ID)
		}
	}
	for _, row := range rows {
		d.Clauses = append(d.Clauses, *row)
	}
	sort.Slice(d.Clauses, func(i, j int) bool { return d.Clauses[i].ID < d.Clauses[j].ID })
	return pageTemplate.Execute(w, d)
}
