package reportview

import (
	"sort"
	"strings"

	"github.com/loom-kernel/loom-conform/internal/doclinks"
	"github.com/loom-kernel/loom-conform/spec"
)

// Tone is how a verdict reads at a glance.
type Tone string

const (
	Good    Tone = "good"    // a certificate, every gate passed
	Warn    Tone = "warn"    // a qualified verdict: waivers, held to an older version, partial
	Bad     Tone = "bad"     // not certified, a failure, the target failed
	Neutral Tone = "neutral" // nothing judged yet
)

// Page is one report as its reader sees it.
type Page struct {
	// Title names the kind of run ("loom store certification"); Subject what was judged (the
	// target, the fold, the corpus).
	Title, Subject string
	// Name is the implementation judged, as a column of the matrix names it (the bridge's
	// implementation and version, the fold's command); Subject when empty.
	Name string
	// Kind is the report's "kind" ("certify", "certify kernel", "vectors", "goldens", "fitness"):
	// the matrix puts only reports of one kind side by side.
	Kind string
	// Verdict is the run's verdict as its JSON report spells it; Tone how it reads; Headline the
	// verdict in words; Counts one line of tallies.
	Verdict  string
	Tone     Tone
	Headline string
	Counts   string
	// Facts are short name/value pairs shown under the headline (target, harness, seed, options).
	Facts []Fact
	// Problems are run-level reasons for the verdict that belong to no check.
	Problems []string
	// Items are the checks (vectors, goldens, gates) in run order.
	Items []Item
	// Tables are extra tables shown after the checks (the seams of a certification).
	Tables []Table
	// Logs is the target's output, shown last.
	Logs string
	// Tool is the harness's name and version, for the footer.
	Tool string
	// Version is the version of the harness that wrote the page: its clause links point into the
	// docs of that version (DocsBase).
	Version string
	// DocsBase is where docs/ is for clause links (DocsBase(Version) when empty).
	DocsBase string
}

// Fact is one name/value pair.
type Fact struct{ Name, Value string }

// Table is a small extra table.
type Table struct {
	Title string
	Head  []string
	Rows  [][]string
}

// Verdicts of items, as the reports spell them.
const (
	Pass    = "pass"
	Fail    = "fail"
	Skip    = "skip"
	Unknown = "unknown"
	Pending = "pending"
)

// Item is one check, vector, golden or gate.
type Item struct {
	ID string
	// Group is the seam's kit, the vector kind or the gate family: the table's second column.
	Group   string
	Verdict string
	// Level is the RFC 2119 level ("" when the item has none); Requirement "required" or
	// "recommended" (derived from the clauses when the report does not say).
	Level       string
	Requirement spec.Requirement
	Clauses     []string
	// Message is the failure in the project's grammar, diff included.
	Message string
	// Repro is the one-line command that re-runs the item.
	Repro string
	// Expected is the ledger's reason when the ledger lists this item.
	Expected string
	// Blocking says the item keeps the run from its best verdict; Why says why.
	Blocking bool
	Why      string
	// DurationMs is how long the item took.
	DurationMs float64
	// Failed names the failing assertions of a failure, one line each, with the clauses each
	// enforces and how it binds (a tier per assertion).
	Failed []string
	// WitnessDrawing is porcupine's drawing of a linearizability witness (a self-contained HTML
	// document, kits.Witness), when the check found one; the witness's text is in Message.
	WitnessDrawing string
	// Rerun, when the harness ran the item again, says why and what its first run ended in: the
	// item is listed for attention whatever its verdict.
	Rerun string
}

// requirement is it.Requirement, or, when the report did not say, what its level and clauses make
// it (spec.CheckRequirement; an item without a level by its clauses alone).
func (it Item) requirement() spec.Requirement {
	switch {
	case it.Requirement != "":
		return it.Requirement
	case it.Level != "":
		return spec.CheckRequirement(spec.Level(it.Level), it.Clauses)
	}
	return spec.RequirementOf(it.Clauses)
}

// attention ranks an item for the failures-first list; 0 = not listed.
func (it Item) attention() int {
	switch {
	case it.Blocking && it.Verdict == Fail:
		return 1
	case it.Blocking:
		return 2
	case it.Verdict == Unknown:
		return 3
	case it.Verdict == Fail && it.Expected == "":
		return 4 // a recommendation not met, or a failure of a level that does not block
	case it.Verdict == Fail:
		return 5 // excused by the ledger
	case it.Rerun != "":
		return 6 // a verdict reached on a second run
	}
	return 0
}

// Attention is every item the reader must see, worst first: blocking failures, other blocking
// items, unknowns, failures that do not block (recommendations not met), then ledger-excused ones;
// run order within each rank.
func (p Page) Attention() []Item {
	var out []Item
	for _, it := range p.Items {
		if it.attention() > 0 {
			out = append(out, it)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].attention() < out[j].attention() })
	return out
}

// tally counts the items per verdict.
func (p Page) tally() map[string]int {
	m := map[string]int{}
	for _, it := range p.Items {
		m[it.Verdict]++
	}
	return m
}

// RequirementTally says how many required and recommended items ran (not skipped) and passed.
type RequirementTally struct {
	RequiredRun, RequiredPass, RecommendedRun, RecommendedPass int
}

// Requirements tallies the items by requirement.
func (p Page) Requirements() RequirementTally {
	var t RequirementTally
	for _, it := range p.Items {
		if it.Verdict == Skip || it.Verdict == Pending {
			continue
		}
		if it.requirement() == spec.Recommended {
			t.RecommendedRun++
			if it.Verdict == Pass {
				t.RecommendedPass++
			}
			continue
		}
		t.RequiredRun++
		if it.Verdict == Pass {
			t.RequiredPass++
		}
	}
	return t
}

// Slowest returns the n items that took longest, slowest first.
func (p Page) Slowest(n int) []Item {
	out := append([]Item(nil), p.Items...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].DurationMs > out[j].DurationMs })
	if len(out) > n {
		out = out[:n]
	}
	for len(out) > 0 && out[len(out)-1].DurationMs <= 0 {
		out = out[:len(out)-1]
	}
	return out
}

// ClauseRow is one clause of the coverage: its registry entry, how its items fared, and where
// its full text is.
type ClauseRow struct {
	ID      string
	Known   bool
	Level   string
	Source  string
	Tier    string
	Section string
	Summary string
	Note    string
	Rests   string
	// Options, on a choice, are the behaviours the spec leaves open, ours first
	// (spec.Clause.Options).
	Options []string
	Counts  map[string]int
	Items   []string
	// Doc is the link to the clause's text in the published docs ("" when there is none: spec
	// and ADR clauses are paraphrased in the registry, whose text is on this page).
	Doc string
}

// Coverage is every clause the items enforce, in id order.
func (p Page) Coverage() []ClauseRow {
	rows := map[string]*ClauseRow{}
	for _, it := range p.Items {
		for _, id := range it.Clauses {
			r := rows[id]
			if r == nil {
				r = &ClauseRow{ID: id, Counts: map[string]int{}}
				if c, ok := spec.Lookup(id); ok {
					r.Known, r.Level, r.Source, r.Tier, r.Section = true, string(c.Level), string(c.Source), string(c.Tier), c.Section
					r.Summary, r.Note, r.Rests, r.Options = c.Summary, c.Note, c.Rests, c.Options
					if c.Source == spec.SourceInterpretation {
						r.Doc = p.docsBase() + "interpretations.md#" + InterpretationAnchor(c)
					}
				}
				rows[id] = r
			}
			r.Counts[it.Verdict]++
			r.Items = append(r.Items, it.ID)
		}
	}
	out := make([]ClauseRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func (p Page) docsBase() string {
	if p.DocsBase != "" {
		return p.DocsBase
	}
	return DocsBase(p.Version)
}

// InterpretationAnchor is the anchor of an interpretation's heading in docs/interpretations.md
// ("## I-X-1 — summary", spec.RenderInterpretations), as GitHub and the link checker derive it.
func InterpretationAnchor(c spec.Clause) string {
	return doclinks.Slug(c.ID + " — " + c.Summary)
}

// groups lists the distinct groups in order of first appearance.
func (p Page) groups() []string {
	var out []string
	seen := map[string]bool{}
	for _, it := range p.Items {
		if it.Group != "" && !seen[it.Group] {
			seen[it.Group] = true
			out = append(out, it.Group)
		}
	}
	return out
}

func (p Page) levels() []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range spec.Levels() {
		for _, it := range p.Items {
			if it.Level == string(l) && !seen[it.Level] {
				seen[it.Level] = true
				out = append(out, it.Level)
			}
		}
	}
	return out
}

func (p Page) verdicts() []string {
	var out []string
	t := p.tally()
	for _, v := range []string{Fail, Unknown, Pending, Skip, Pass} {
		if t[v] > 0 {
			out = append(out, v)
		}
	}
	return out
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
