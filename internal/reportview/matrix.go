package reportview

import (
	"github.com/loom-kernel/loom-conform/internal/safetext"

	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/loom-kernel/loom-conform/spec"
)

// Matrix puts several implementations' reports of one kind side by side: one column per
// implementation, one row per check, rows grouped by the first clause their check enforces.
type Matrix struct {
	Kind    string        `json:"kind"`
	Columns []Column      `json:"implementations"`
	Groups  []ClauseGroup `json:"clauses"`
}

// Column is one implementation: its run's verdict and how many required and recommended checks it
// met.
type Column struct {
	Name     string `json:"name"`
	Verdict  string `json:"verdict"`
	Tone     Tone   `json:"tone"`
	Headline string `json:"headline"`
	// Report links to the implementation's own HTML report (the page beside its JSON report),
	// relative to the matrix page; "" when there is none.
	Report string `json:"report,omitempty"`
	RequirementTally
}

// ClauseGroup is the rows of one clause.
type ClauseGroup struct {
	Clause  string `json:"clause"`
	Summary string `json:"summary,omitempty"`
	Rows    []Row  `json:"checks"`
}

// Row is one check across the implementations; Cells are in Columns order.
type Row struct {
	ID          string           `json:"id"`
	Clauses     []string         `json:"clauses"`
	Level       string           `json:"level,omitempty"`
	Requirement spec.Requirement `json:"requirement"`
	Cells       []Cell           `json:"cells"`
}

// Cell is one implementation's verdict on one check ("" when its run did not include the check).
type Cell struct {
	Verdict  string `json:"verdict,omitempty"`
	Message  string `json:"message,omitempty"`
	Expected string `json:"expectedFailure,omitempty"`
	// Repro is the command that re-runs the check against this implementation.
	Repro string `json:"repro,omitempty"`
}

// Differs reports whether the implementations do not all have the same verdict on the row.
func (r Row) Differs() bool {
	for _, c := range r.Cells[1:] {
		if c.Verdict != r.Cells[0].Verdict {
			return true
		}
	}
	return false
}

// NotAllPass reports whether some implementation did not pass (or did not run) the row's check.
func (r Row) NotAllPass() bool {
	for _, c := range r.Cells {
		if c.Verdict != Pass {
			return true
		}
	}
	return false
}

// BuildMatrix joins pages of one kind. Columns keep the pages' order; a name two pages share is
// told apart by its position ("memory (2)").
func BuildMatrix(pages []Page) (Matrix, error) {
	if len(pages) == 0 {
		return Matrix{}, fmt.Errorf("no report to put side by side")
	}
	m := Matrix{Kind: pages[0].Kind}
	seen := map[string]int{}
	type rowAt struct {
		row   *Row
		group string
	}
	rows := map[string]*rowAt{}
	var order []string
	for i, p := range pages {
		if p.Kind != m.Kind {
			return Matrix{}, fmt.Errorf("report %d is a %q report, the first is %q: a matrix holds reports of one kind", i+1, p.Kind, m.Kind)
		}
		name := safetext.Line(p.Name) // an implementation names itself: shown, never obeyed
		if name == "" {
			name = safetext.Line(p.Subject)
		}
		if seen[name]++; seen[name] > 1 {
			name = fmt.Sprintf("%s (%d)", name, seen[name])
		}
		m.Columns = append(m.Columns, Column{Name: name, Verdict: p.Verdict, Tone: p.Tone, Headline: p.Headline, RequirementTally: p.Requirements()})
		for _, it := range p.Items {
			ra := rows[it.ID]
			if ra == nil {
				group := "(no clause)"
				if len(it.Clauses) > 0 {
					group = it.Clauses[0]
				}
				ra = &rowAt{row: &Row{ID: it.ID, Clauses: it.Clauses, Level: it.Level, Requirement: it.requirement(), Cells: make([]Cell, len(pages))}, group: group}
				rows[it.ID] = ra
				order = append(order, it.ID)
			}
			msg := it.Message
			if len(it.Failed) > 0 {
				msg = strings.Join(it.Failed, "\n") + "\n" + msg
			}
			ra.row.Cells[i] = Cell{Verdict: it.Verdict, Message: msg, Expected: it.Expected, Repro: it.Repro}
		}
	}
	groups := map[string]*ClauseGroup{}
	for _, id := range order {
		ra := rows[id]
		g := groups[ra.group]
		if g == nil {
			g = &ClauseGroup{Clause: ra.group}
			if c, ok := spec.Lookup(ra.group); ok {
				g.Summary = c.Summary
			}
			groups[ra.group] = g
		}
		g.Rows = append(g.Rows, *ra.row)
	}
	for _, g := range groups {
		sort.Slice(g.Rows, func(i, j int) bool { return g.Rows[i].ID < g.Rows[j].ID })
		m.Groups = append(m.Groups, *g)
	}
	sort.Slice(m.Groups, func(i, j int) bool { return naturalLess(m.Groups[i].Clause, m.Groups[j].Clause) })
	return m, nil
}

// naturalLess orders clause ids with their numbers as numbers: I-BRIDGE-2 before I-BRIDGE-10.
func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if len(na) != len(nb) {
				return len(na) < len(nb)
			}
			if na != nb {
				return na < nb
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func digitRun(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// WriteMatrixJSON writes m as indented JSON.
func WriteMatrixJSON(w io.Writer, m Matrix) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(m)
}

// WriteMatrixMarkdown writes m as Markdown for a README: the implementations' verdicts, then one
// table row per check grouped by clause (only the rows where some implementation did not pass, when
// onlyNotPassing).
func WriteMatrixMarkdown(w io.Writer, m Matrix, onlyNotPassing bool) error {
	var b strings.Builder
	cell := func(s string) string { return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s) }
	b.WriteString("| implementation | verdict | required checks passed | recommendations met |\n| --- | --- | --- | --- |\n")
	for _, c := range m.Columns {
		fmt.Fprintf(&b, "| %s | %s | %d/%d | %d/%d |\n", cell(c.Name), cell(c.Verdict), c.RequiredPass, c.RequiredRun, c.RecommendedPass, c.RecommendedRun)
	}
	b.WriteString("\n| clause | check |")
	for _, c := range m.Columns {
		b.WriteString(" " + cell(c.Name) + " |")
	}
	b.WriteString("\n| --- | --- |" + strings.Repeat(" --- |", len(m.Columns)) + "\n")
	shown, total := 0, 0
	for _, g := range m.Groups {
		for _, r := range g.Rows {
			total++
			if onlyNotPassing && !r.NotAllPass() {
				continue
			}
			shown++
			fmt.Fprintf(&b, "| %s | `%s` |", g.Clause, r.ID)
			for _, c := range r.Cells {
				v := c.Verdict
				switch {
				case v == "":
					v = "—"
				case v == Fail && c.Expected != "":
					v = "fail (ledger)"
				case v == Fail || v == Unknown:
					v = "**" + v + "**"
				}
				b.WriteString(" " + v + " |")
			}
			b.WriteString("\n")
		}
	}
	if onlyNotPassing {
		fmt.Fprintf(&b, "\n%d of %d checks shown: every implementation passed the others.\n", shown, total)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Link is where a cell's check is in its implementation's HTML report: the page's account of the
// failure (a fail or an unknown), else its row of the checks table ("" when the column has no
// report page).
func (m Matrix) Link(col int, id, verdict string) string {
	r := m.Columns[col].Report
	switch {
	case r == "" || !strings.HasSuffix(r, ".html"):
		return r
	case verdict == Fail || verdict == Unknown:
		return r + "#check-" + id
	}
	return r + "#row-" + id
}
