package fitness

import (
	"fmt"
	"io"
	"strings"
)

// WriteDoc writes docs/fitness.md: every gate with its guarantee, clauses, what it runs, threshold
// and where it is enforced. The file is generated (`make docs`); a test fails when it is stale.
func WriteDoc(w io.Writer, gates []Gate) error {
	var b strings.Builder
	b.WriteString("# Fitness gates\n\n")
	b.WriteString("<!-- Generated from fitness.Gates() by `make docs`; do not edit. -->\n\n")
	b.WriteString("The continuous checks of spec §10, each with the guarantee it protects, what it runs, its threshold and\n")
	b.WriteString("where CI enforces it. `loom-conform fitness` runs them (`--list` prints this table, `--run REGEX` a subset);\n")
	b.WriteString("`make fitness` runs every gate and fails on any failed one.\n\n")
	b.WriteString("Verdicts: **pass**; **fail** (the run exits 1); **unknown** — the gate could not be judged (a ratio within\n")
	b.WriteString("the noise its own A/A rounds measured after every bounded re-measurement, or tests skipped for a missing\n")
	b.WriteString("service outside CI), never counted as a pass; **pending** — the gate's runner is not built yet, listed so it is\n")
	b.WriteString("never mistaken for a passing one.\n\n")
	b.WriteString("Ratio gates measure A (baseline) and B interleaved in one process, ≥ 15 rounds, each round A, B and A\n")
	b.WriteString("again in a rotated order. The figure is the median B/A; the noise is the larger of |median A/A − 1| and half\n")
	b.WriteString("the interquartile range of A/A. A gate passes only when the median is beyond its limit's safe side by more\n")
	b.WriteString("than the noise, fails only when it is beyond the other side by more than the noise, and otherwise measures\n")
	b.WriteString("again (3 attempts) before it says unknown: noise alone never fails a gate.\n\n")
	b.WriteString("| gate | guarantee | runs | threshold | clauses | status |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, g := range gates {
		status := "active"
		if g.Pending != "" {
			status = "pending: " + g.Pending
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", g.ID, g.Guarantee, runs(g), g.Threshold,
			strings.Join(g.Clauses, ", "), status)
	}
	b.WriteString("\nEvery gate is enforced in CI: `.ci/run` runs `make test` and then `make fitness`, and the fitness job of\n")
	b.WriteString("`.github/workflows/ci.yml` runs the same and uploads the fitness JSON report as an artifact.\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func runs(g Gate) string {
	switch g.Kind {
	case KindChecks:
		if len(g.Checks) == 0 {
			return "checks (to be named)"
		}
		return "checks " + "`" + strings.Join(g.Checks, "`, `") + "`"
	case KindBench:
		return fmt.Sprintf("bench `%s` (`%s` in `%s`, metric `%s`)", g.Bench.ID, g.Bench.Name, g.Bench.Package, g.Bench.Metric)
	case KindRatio:
		return fmt.Sprintf("ratio workload `%s`", g.Ratio.Workload)
	case KindCoverage:
		return "clause × check coverage against `fitness/coverage-ledger.json`"
	case KindMutants:
		return "the mutant registry against the proof records of `make test` (`test-results/proofs`)"
	}
	return string(g.Kind)
}
