package goldens

import (
	"strings"

	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/spec"
)

// HookMutant is a registered kernel Hooks mutant (kernel.Mutants) and the configuration that
// switches it on.
type HookMutant struct {
	spec.Mutant
	Config func(*kernel.Config)
}

// HookMutants returns every kernel Hooks mutant the kernel registers: goldens check must fail on
// each, naming the golden and the first divergence.
func HookMutants() []HookMutant {
	var out []HookMutant
	for _, m := range kernel.Mutants() {
		if m.Kind != "kernel-hook" || !strings.HasPrefix(m.ID, "kernel-hook/") {
			continue
		}
		h, ok := kernel.MutantHooks(m.ID)
		if !ok {
			continue
		}
		out = append(out, HookMutant{Mutant: m, Config: func(c *kernel.Config) { c.Hooks = h }})
	}
	return out
}
