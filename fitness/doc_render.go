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
	b.WriteString("Verdicts: **pass**; **fail** (the run exits 1); **unknown** — the gate could not be judged (a ratio still\n")
	b.WriteString("undecided after its bounded extension, or tests skipped for a missing service outside CI), never counted as a\n")
	b.WriteString("pass; **pending** — the gate's runner is not built yet, listed so it is never mistaken for a passing one.\n\n")
	b.WriteString("Ratio gates (I-PERF-1..4) measure A (baseline), B and a control A' (A again) in one process: each round runs\n")
	b.WriteString("the three twice in mirrored positions (e.g. A B A' A' B A), rotated from round to round, in batches of about\n")
	b.WriteString("4 ms of process CPU time, with one scheduler P, no collection inside a round (unless the pair's sides allocate very differently, I-PERF-4)\n")
	b.WriteString("and the workload reset between rounds. The figure is the Hodges–Lehmann estimate of the per-round B/A (B against A and A' together) with its\n")
	b.WriteString("95 % interval, widened on both sides by the A'/A bias of the same run (how far the A'/A interval lies off 1).\n")
	b.WriteString("A gate passes only when the widened interval lies wholly on the allowed side of its limit, fails only when it\n")
	b.WriteString("lies wholly beyond it, and otherwise measures 21 more rounds, up to 210, before it says unknown (at once while\n")
	b.WriteString("the A'/A interval is wider than ±10 %): noise makes a measurement longer, not a verdict. `make g2-proof` shows\n")
	b.WriteString("the G2 gate failing a kernel whose unwired path does 10 % more work, and passing the unmodified kernel, in\n")
	b.WriteString("≥ 19 of 20 runs each.\n\n")
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
