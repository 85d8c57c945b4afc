package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/loom-kernel/loom-conform/catalog"
	"github.com/loom-kernel/loom-conform/internal/cliverb"
	"github.com/loom-kernel/loom-conform/internal/proof"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/spf13/cobra"
)

func newSpecCmd() *cobra.Command {
	var coverage, asJSON, interpretations, strict bool
	var proofs string
	cmd := &cobra.Command{
		Use:   "spec [CLAUSE...] [--coverage [--proofs DIR] [--strict]] [--json] [--interpretations]",
		Short: "List the specification's normative clauses, or their coverage by checks",
		Long: `List every normative clause of the kernel specification and ADR 0026 (id, section, level,
source, tier, paraphrase). Interpretations — our decisions where the spec is silent — are clauses
with source "interpretation", each with a tier (docs/interpretations.md): "protocol" (this harness's own
bridge, wire, vector or report protocol: required), "consequence" (follows from the spec or ADR
words it quotes: required) or "choice" (the spec is silent and we recommend: recommended, never
blocking a certificate except under --strict). Spec and ADR clauses show "-": their source
makes them required. --json adds each interpretation's note and, for a consequence, the quoted
words ("rests"), and for a choice its legal options, ours first ("options").

With clause ids (spec I-FOLD-7 S4.fold.proto-rejected) it prints those clauses whole: the line
above, and for an interpretation why it was decided, the words a consequence rests on, a choice's
legal options — the behaviours the spec leaves open, ours marked: a check holds a target to one
of them (required) and to ours (recommended) — and where docs/interpretations.md has its full
text. An unknown id is bad input (exit 2), naming the nearest ids.

--coverage prints the clause × check matrix: for each clause the checks (tests, properties,
kit checks, vectors) that enforce it ("linked"), then linked/unlinked counts per level, per
tier and per requirement (required, recommended).
A clause is "proven" when a registered mutant (a deliberately broken store, fold, kernel hook,
gate, emit checker or bridge) that violates it was rejected, in a recorded test run, by a check
linked to it. Proof records are written by the test suite when LOOM_CONFORM_PROOFS names a
directory (make test does this); --proofs DIR (default: $LOOM_CONFORM_PROOFS) reads them and
adds the proven column and tallies by level, source (spec, adr, interpretation), form (RFC 2119
keyword, declarative sentence, our decision), tier and requirement, the proven share of
spec-sourced MUST clauses and of those carrying the RFC 2119 keyword, the unproven ones with
why, and the proven clauses resting on a single mutant's kills. Without records the report says
"proven: not measured".
A record counts only when it comes from this tree's build (the tests stamp each record with a hash
of the module's code and data), names a check among those its mutant is registered to be caught
by, and carries that check's own failure as evidence (it begins with the check id); the others
are listed as refused.
--strict (with --proofs) exits 1 when a record was refused, when a registered mutant has no recorded kill, when a killed
mutant has a clause no kill by a check linked to that clause backs, or when fewer than 90 % of
spec-sourced MUST clauses are proven.
--interpretations prints docs/interpretations.md (generated from the registry).`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			if err := needs(cmd, map[string]string{"strict": "coverage", "proofs": "coverage"}); err != nil {
				return err
			}
			switch {
			case len(args) > 0 && (coverage || interpretations):
				return cliverb.BadInput("spec: clause ids print those clauses; --coverage and --interpretations print every clause (give one or the other)")
			case len(args) > 0:
				return runClauses(out, args, asJSON)
			case interpretations:
				return spec.RenderInterpretations(out)
			case coverage:
				return runCoverage(out, proofs, asJSON, strict)
			case asJSON:
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(spec.Clauses())
			}
			for _, c := range spec.Clauses() {
				if _, err := fmt.Fprintf(out, "%-48s %-9s %-8s %-14s %-11s %s\n", c.ID, c.Section, c.Level, c.Source, c.TierName(), c.Summary); err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&coverage, "coverage", false, "print the clause × check coverage matrix")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().StringVar(&proofs, "proofs", os.Getenv(proof.Env), "directory of proof records written by a test run with "+proof.Env+" set")
	cmd.Flags().BoolVar(&strict, "strict", false, "with --proofs: exit 1 when a registered mutant has no recorded kill, a (mutant, clause) pair has no kill by a check linked to the clause, or spec MUST proven is below 90 %")
	cmd.Flags().BoolVar(&interpretations, "interpretations", false, "print the interpretations document (Markdown)")
	return cmd
}

// runCoverage prints the linked coverage and, with proof records, the proven coverage.
func runCoverage(out io.Writer, proofs string, asJSON, strict bool) error {
	cov := spec.ComputeCoverage(catalog.Checks())
	if proofs != "" {
		recs, refused, err := proof.Load(proofs, ".", catalog.Mutants())
		if err != nil {
			return cliverb.BadInput("--proofs %s: %v", proofs, err)
		}
		cov.Prove(catalog.Mutants(), proof.Kills(recs))
		cov.Proof.Refused = refused
	} else if strict {
		return cliverb.BadInput("--strict needs proof records: pass --proofs DIR or set %s", proof.Env)
	}
	if asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(cov); err != nil {
			return err
		}
	} else {
		if err := cov.Render(out); err != nil {
			return err
		}
		fmt.Fprintln(out)
		if err := cov.RenderProof(out); err != nil {
			return err
		}
	}
	if strict && cov.Proof != nil {
		switch p := cov.Proof; {
		case len(p.Refused) > 0:
			return cliverb.Verdict("%d proof record(s) refused (another build, a check the mutant is not caught by, or evidence that is not the check's failure): %v", len(p.Refused), p.Refused)
		case len(p.Survived) > 0:
			return cliverb.Verdict("%d registered mutant(s) have no recorded kill: %v", len(p.Survived), p.Survived)
		case len(p.UnprovenPairs) > 0:
			return cliverb.Verdict("%d (mutant, clause) pair(s) were not killed by a check linked to the clause: %v", len(p.UnprovenPairs), p.UnprovenPairs)
		case p.SpecMust.Percent() < 90:
			return cliverb.Verdict("spec-sourced MUST proven %.1f %% (%d of %d), want at least 90 %%", p.SpecMust.Percent(), p.SpecMust.Proven, p.SpecMust.Clauses)
		}
	}
	return nil
}
