package fitness

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/loom-kernel/loom-conform/internal/junit"
)

// ReportKind tags a fitness report for `report merge`.
const ReportKind = "fitness"

// Report is a fitness run as written by --json.
type Report struct {
	Kind string `json:"kind"`
	// Shard is "i/n" for a --shard run ("" for a whole run).
	Shard string `json:"shard,omitempty"`
	// Run is the --run expression that selected the gates ("" = every gate), and Registered how
	// many gates the registry holds: a run of fewer says it is a subset (I-CERT-32).
	Run        string         `json:"run,omitempty"`
	Registered int            `json:"registered,omitempty"`
	Results    []Result       `json:"results"`
	Summary    map[string]int `json:"summary"`
	// Failed is true when any gate failed: the run's exit status.
	Failed bool `json:"failed"`
}

// NewReport tallies results.
func NewReport(rs []Result) Report {
	r := Report{Kind: ReportKind, Results: rs, Summary: map[string]int{}}
	for _, x := range rs {
		r.Summary[string(x.Verdict)]++
		if x.Verdict == Fail {
			r.Failed = true
		}
	}
	return r
}

// RenderTable writes gate → verdict → figure → threshold, then the detail of every gate that did
// not pass.
func (r Report) RenderTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "GATE\tVERDICT\tFIGURE\tTHRESHOLD")
	for _, x := range r.Results {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", x.Gate, strings.ToUpper(string(x.Verdict)), dash(x.Figure), x.Threshold)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, x := range r.Results {
		if x.Verdict != Pass && x.Detail != "" {
			fmt.Fprintf(w, "\n%s %s [%s]: %s\n", x.Gate, x.Verdict, strings.Join(x.Clauses, " "), x.Detail)
		}
	}
	_, err := fmt.Fprintf(w, "\n%d pass, %d fail, %d unknown, %d pending%s\n",
		r.Summary[string(Pass)], r.Summary[string(Fail)], r.Summary[string(Unknown)], r.Summary[string(Pending)], r.Subset())
	return err
}

// Subset says, when --run selected some of the gates, that the run is a subset and of what:
// " (3 of 16 gates selected by --run X)"; "" for every gate.
func (r Report) Subset() string {
	if r.Run == "" || r.Registered == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d of %d gates selected by --run %s)", len(r.Results), r.Registered, r.Run)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// RenderJSON writes the report as indented JSON.
func (r Report) RenderJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// RenderJUnit writes one test case per gate: fail is a failure, unknown and pending are skipped
// with their reason.
func (r Report) RenderJUnit(w io.Writer) error {
	s := junit.Suite{Name: "fitness"}
	for _, x := range r.Results {
		c := junit.Case{Name: x.Gate, ClassName: "fitness", Time: fmt.Sprintf("%.2f", x.Seconds), SystemOut: x.Figure}
		msg := &junit.Message{Message: x.Detail, Body: x.Detail}
		switch x.Verdict {
		case Fail:
			c.Failure = msg
		case Unknown, Pending:
			msg.Message = string(x.Verdict) + ": " + x.Detail
			c.Skipped = msg
		}
		s.Add(c)
	}
	return junit.Write(w, junit.Suites{Name: "loom-conform fitness", Suites: []junit.Suite{s}})
}
