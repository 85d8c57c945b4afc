package carrier

import (
	"github.com/loom-kernel/loom-conform/spec"
)

// Broken is a carrier with one defect (Hooks) and the check meant to reject it.
type Broken struct {
	Name     string
	Defect   string
	Clauses  []string
	CaughtBy string
	carrier  Hooks
}

// BrokenMounts lists the broken carriers whose defect shows only in process: mounted with no
// client, they change what an in-process run appends. They are caught by the G2 check that re-runs
// the golden corpus with the carrier mounted, not by the kernel kit (the broken kernels a wire
// client meets are kits/kernelkit's).
func BrokenMounts() []Broken {
	return []Broken{
		{Name: "adopts-flows-at-mount", Defect: "re-registers the runtime's flows under the carrier's code identity when mounted, so an in-process start records the carrier's codeHash",
			Clauses: []string{"A26.wire.unwired-identical", "S1.G2.unwired-byte-identical"}, CaughtBy: "wire/goldens-unwired",
			carrier: Hooks{AdoptsFlows: true}},
	}
}

// Mutants registers the broken mounts (spec.Mutant, kind "kernel", ids kernel/wire/<name>).
func Mutants() []spec.Mutant {
	var out []spec.Mutant
	for _, b := range BrokenMounts() {
		out = append(out, spec.Mutant{ID: "kernel/wire/" + b.Name, Kind: "kernel", Defect: b.Defect, Clauses: b.Clauses,
			CaughtBy: []string{b.CaughtBy}, Where: "wire/carrier:TestUnwiredMutantRejected"})
	}
	return out
}
