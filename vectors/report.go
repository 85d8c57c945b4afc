package vectors

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/loom-kernel/loom-conform/internal/junit"
)

// Render writes the human summary of a run: a table of verdicts per kind, then every vector that
// did not pass with its message (a recommendation not met says so, with its failing assertion),
// then the ledger problems and the verdict.
func (r Report) Render(w io.Writer) error {
	type row struct{ pass, fail, unknown, expected int }
	rows := map[Kind]*row{}
	for _, k := range Kinds() {
		rows[k] = &row{}
	}
	for _, x := range r.Results {
		rw := rows[x.Kind]
		if rw == nil {
			rw = &row{}
			rows[x.Kind] = rw
		}
		switch {
		case x.Verdict == Pass:
			rw.pass++
		case x.Verdict == Fail && x.Expected != "":
			rw.expected++
		case x.Verdict == Fail:
			rw.fail++
		default:
			rw.unknown++
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "kind\tpass\tfail\tunknown\texpected-fail")
	for _, k := range Kinds() {
		rw := rows[k]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\n", k, rw.pass, rw.fail, rw.unknown, rw.expected)
	}
	c := r.Counts()
	fmt.Fprintf(tw, "total\t%d\t%d\t%d\t%d\n", c.Pass, c.Fail, c.Unknown, c.ExpectedFail)
	if err := tw.Flush(); err != nil {
		return err
	}
	notAsked := 0
	for _, x := range r.Results {
		if x.NotAsked {
			notAsked++
		}
		if x.Verdict == Pass || x.Expected != "" || x.NotAsked {
			continue
		}
		tag := string(x.Verdict)
		if x.NotMet() {
			tag += " (recommended)"
		}
		fmt.Fprintf(w, "\n%s %s (%s)\n%s\n", tag, x.ID, x.File, x.Message)
		if lines := x.FailedLines(); len(lines) > 0 {
			fmt.Fprintf(w, "failed assertion: %s\n", strings.Join(lines, "; "))
		}
	}
	if r.Unresponsive != "" {
		fmt.Fprintf(w, "\nunresponsive fold: %s; %d vector(s) not asked (unknown)\n", r.Unresponsive, notAsked)
	}
	if r.nothingJudged() {
		fmt.Fprintf(w, "\nnothing was judged: no vector passed or failed, so the run fails (I-CERT-7)\n")
	}
	for _, e := range r.LedgerErrors {
		fmt.Fprintf(w, "\nledger: %s\n", e)
	}
	verdict := "PASS"
	if !r.OK() {
		verdict = "FAIL"
	}
	if r.Meta.Shard != "" {
		verdict += " (shard " + r.Meta.Shard + " only: not the verdict of the run; merge every shard's --report with report merge)"
	}
	_, err := fmt.Fprintf(w, "\n%s: %s in %s%s\n", verdict, r.selected(), r.Elapsed.Round(time.Millisecond), r.notMetLine())
	return err
}

// selected counts the vectors run, as a subset when --profile or --run left some out (I-CERT-32).
func (r Report) selected() string {
	if r.Excluded == 0 {
		return fmt.Sprintf("%d vector(s)", len(r.Results))
	}
	return fmt.Sprintf("%d of %d vector(s), selected by --profile or --run", len(r.Results), len(r.Results)+r.Excluded)
}

// notMetLine says how many recommendations the fold does not meet, and whether they block.
func (r Report) notMetLine() string {
	n := r.Counts().NotMet
	switch {
	case n == 0:
		return ""
	case r.Meta.Strict:
		return fmt.Sprintf(" — %d recommendation(s) not met, held by --strict", n)
	}
	return fmt.Sprintf(" — %d recommendation(s) not met (only choices fail; --strict holds the fold to them)", n)
}

// WriteJSON writes the machine-readable report (--report FILE).
func (r Report) WriteJSON(w io.Writer) error {
	out := r.toJSON()
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// WriteJUnit writes the run as JUnit XML (--junit FILE): one suite per kind, one case per vector.
// An unknown verdict is an error, a listed failure is skipped with the ledger's reason, and a
// ledger problem is a failed case of its own.
func (r Report) WriteJUnit(w io.Writer) error {
	var out junit.Suites
	idx := map[Kind]int{}
	for _, x := range r.Results {
		i, ok := idx[x.Kind]
		if !ok {
			i = len(out.Suites)
			idx[x.Kind] = i
			out.Suites = append(out.Suites, junit.Suite{Name: "vectors/" + string(x.Kind)})
		}
		s := &out.Suites[i]
		jc := junit.Case{Name: x.ID, ClassName: "vectors." + string(x.Kind), File: x.File, Time: secs(x.Duration)}
		switch {
		case x.Verdict == Pass:
		case x.Verdict == Fail && x.Expected != "":
			jc.Skipped = &junit.Message{Message: "expected failure: " + x.Expected}
		case x.Verdict == Fail && !r.Blocks(x):
			jc.Skipped = &junit.Message{Message: "recommendation not met (not blocking): " + firstLine(x.Message)}
			jc.SystemOut = strings.Join(append(x.FailedLines(), x.Message), "\n")
		case x.Verdict == Fail:
			jc.Failure = &junit.Message{Message: firstLine(x.Message), Body: strings.Join(append(x.FailedLines(), x.Message), "\n")}
		default:
			jc.Error = &junit.Message{Message: firstLine(x.Message), Body: x.Message}
		}
		s.Add(jc)
	}
	if r.Unresponsive != "" || r.nothingJudged() {
		s := junit.Suite{Name: "vectors/run"}
		if r.Unresponsive != "" {
			s.Add(junit.Case{Name: "fold-responsive", ClassName: "vectors.run", Time: "0",
				Error: &junit.Message{Message: "unresponsive fold: " + r.Unresponsive}})
		}
		if r.nothingJudged() {
			s.Add(junit.Case{Name: "judged-something", ClassName: "vectors.run", Time: "0",
				Failure: &junit.Message{Message: "nothing was judged: no vector passed or failed (I-CERT-7)"}})
		}
		out.Suites = append(out.Suites, s)
	}
	if len(r.LedgerErrors) > 0 {
		s := junit.Suite{Name: "vectors/ledger"}
		for i, e := range r.LedgerErrors {
			s.Add(junit.Case{Name: fmt.Sprintf("ledger-%d", i), ClassName: "vectors.ledger", Time: "0",
				Failure: &junit.Message{Message: e}})
		}
		out.Suites = append(out.Suites, s)
	}
	for i := range out.Suites {
		var d time.Duration
		for _, x := range r.Results {
			if "vectors/"+string(x.Kind) == out.Suites[i].Name {
				d += x.Duration
			}
		}
		out.Suites[i].Time = secs(d)
	}
	return junit.Write(w, out)
}

func secs(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }
