package fitness

import (
	"fmt"
	"strings"

	"github.com/loom-kernel/loom-conform/internal/proof"
	"github.com/loom-kernel/loom-conform/spec"
)

// runMutants judges the proof records of a test run: every registered mutant must have been
// rejected by a check in that run, each clause it names by a check linked to that clause (I-COV-4),
// and no record may name a mutant nobody registered.
func runMutants(o Options) Result {
	if o.ProofsDir == "" {
		v := Unknown
		if o.RequireProofs {
			v = Fail
		}
		return Result{Verdict: v, Detail: "no proof records: run make test (it writes test-results/proofs/run-*) or pass --proofs DIR"}
	}
	recs, refused, err := proof.Load(o.ProofsDir, o.Root, o.Mutants)
	if err != nil {
		return Result{Verdict: Fail, Detail: fmt.Sprintf("proof records %s: %v", o.ProofsDir, err)}
	}
	cov := spec.ComputeCoverage(o.Checks)
	cov.Prove(o.Mutants, proof.Kills(recs))
	p := cov.Proof
	p.Refused = refused
	figure := fmt.Sprintf("%d of %d mutants killed; spec MUST proven %.1f%%", p.Killed, p.Mutants, p.SpecMust.Percent())
	var problems []string
	if len(p.Survived) > 0 {
		problems = append(problems, "no recorded kill: "+strings.Join(p.Survived, ", "))
	}
	if len(p.Unknown) > 0 {
		problems = append(problems, "kills of unregistered mutants: "+strings.Join(p.Unknown, ", "))
	}
	if len(refused) > 0 {
		problems = append(problems, fmt.Sprintf("%d proof record(s) refused: %s", len(refused), strings.Join(refused, "; ")))
	}
	if len(p.UnprovenPairs) > 0 {
		problems = append(problems, "(mutant, clause) pairs no kill by a check linked to the clause backs: "+strings.Join(p.UnprovenPairs, ", "))
	}
	if len(problems) > 0 {
		return Result{Verdict: Fail, Figure: figure, Detail: strings.Join(problems, "; ")}
	}
	return Result{Verdict: Pass, Figure: figure}
}
