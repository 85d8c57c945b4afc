package fitness_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/fitness"
	"github.com/loom-kernel/loom-conform/internal/proof"
)

// ciFiles is what CI runs: the workflow, the local CI script and the Makefile it calls.
type ciFiles struct{ workflow, script, makefile string }

var (
	runsFitnessVerb = regexp.MustCompile(`(?m)^[^#\n]*(go|\$\(GO\)) run \./cmd/loom-conform-full fitness\b`)
	runsMakeFitness = regexp.MustCompile(`(?m)^\s*make fitness\s*$`)
)

// notGatedInCI reports what keeps the fitness gates from being gated in CI (spec §10: enumerated
// with their enforcement location and gated in CI): a workflow, CI script or make target that never
// runs the fitness verb, or a gate whose enforcement location names neither CI entry point.
func notGatedInCI(gates []fitness.Gate, f ciFiles) []string {
	var out []string
	if !runsFitnessVerb.MatchString(f.workflow) {
		out = append(out, ".github/workflows/ci.yml runs no `loom-conform fitness`")
	}
	if !runsMakeFitness.MatchString(f.script) {
		out = append(out, ".ci/run runs no `make fitness`")
	}
	if i := strings.Index(f.makefile, "\nfitness:"); i < 0 || !runsFitnessVerb.MatchString(f.makefile[i:min(len(f.makefile), i+400)]) {
		out = append(out, "the Makefile's fitness target runs no `loom-conform fitness`")
	}
	for _, g := range gates {
		if !strings.HasPrefix(g.Enforced, "CI: ") || !strings.Contains(g.Enforced, ".ci/run") || !strings.Contains(g.Enforced, "ci.yml") {
			out = append(out, "gate "+g.ID+": enforcement location "+`"`+g.Enforced+`"`+" names no CI entry point (.ci/run and ci.yml)")
		}
	}
	return out
}

// brokenCI are fitness registries and CI set-ups with one defect each (registered in
// fitness.Mutants).
var brokenCI = map[string]func([]fitness.Gate, ciFiles) ([]fitness.Gate, ciFiles){
	// A workflow whose fitness job no longer runs the gates.
	"fitness/ci/workflow-skips-gates": func(g []fitness.Gate, f ciFiles) ([]fitness.Gate, ciFiles) {
		f.workflow = runsFitnessVerb.ReplaceAllString(f.workflow, "echo skipped")
		return g, f
	},
	// A gate listed without the place that enforces it.
	"fitness/registry/enforcement-unnamed": func(g []fitness.Gate, f ciFiles) ([]fitness.Gate, ciFiles) {
		g = slices.Clone(g)
		g[len(g)/2].Enforced = ""
		return g, f
	},
}

// Reference: spec §10 — the fitness functions are enumerated with their enforcement location and
// gated in CI: every gate names where CI runs it, and the workflow, the CI script and the make
// target run the fitness verb. Each broken set-up is caught.
func TestGatesGatedInCI(t *testing.T) {
	read := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	files := ciFiles{read("../.github/workflows/ci.yml"), read("../.ci/run"), read("../Makefile")}
	gates := fitness.Gates()
	for _, p := range notGatedInCI(gates, files) {
		t.Errorf("fitness/gated-in-ci [S10.fitness.gated]: %s", p)
	}
	var built []string
	for id := range brokenCI {
		built = append(built, id)
	}
	for _, m := range proof.Registered(t, fitness.Mutants(), "fitness:TestGatesGatedInCI", built) {
		problems := notGatedInCI(brokenCI[m.ID](gates, files))
		if len(problems) == 0 {
			t.Errorf("fitness/gated-in-ci %v: %s = gated in CI, want it refused", m.Clauses, m.ID)
			continue
		}
		proof.Rejected(t, m.ID, "fitness/gated-in-ci", "fitness/gated-in-ci [S10.fitness.gated]: "+problems[0])
	}
}
