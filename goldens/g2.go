package goldens

import (
	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"io"

	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
)

// Variant is one optional feature configured but unwired (spec §1 G2): a golden re-run with it
// must write a log byte-identical to the golden's.
type Variant struct {
	Name string
	// Applies reports whether the variant is a no-op for the golden's configuration (e.g. the
	// budget variant does not apply to a golden that sets a budget).
	Applies func(*Golden) bool
	// Config configures the feature.
	Config func(*kernel.Config)
	// Mount, when set, attaches a carrier to the runtime before the first action (for instance a
	// wire ABI carrier serving no client); the Closer is closed after the run.
	Mount func(*kernel.Runtime) (io.Closer, error)
}

// G2Variants lists the optional features checked unwired. A carrier that can be mounted on a
// runtime (the wire ABI carrier with no client) adds its Variant here, with a Mount that serves
// the runtime and no client; a package that cannot be imported here passes
// append(G2Variants(), itsVariant) as CheckOptions.Variants from its own test.
func G2Variants() []Variant {
	always := func(*Golden) bool { return true }
	return []Variant{
		{Name: "budget-unlimited", Applies: func(g *Golden) bool { return g.Driver.Budget == nil },
			Config: func(c *kernel.Config) { c.Budget = kernel.Budget{} }},
		{Name: "timers-idle", Applies: func(g *Golden) bool { return !g.Driver.Timers && !timedSuspend(g) },
			Config: func(c *kernel.Config) { c.Timers = kernel.NewMemoryTimers() }},
		{Name: "snapshots-idle", Applies: func(g *Golden) bool { return !g.Driver.Snapshots },
			Config: func(c *kernel.Config) { c.Snapshots = memory.NewSnapshotStore() }},
		{Name: "wave2-flags-on", Applies: always,
			Config: func(c *kernel.Config) { c.Features = kernel.Features{ContinueAsNew: true, Receive: true, Select: true} }},
		{Name: "trace-observer", Applies: always,
			Config: func(c *kernel.Config) { c.Trace = func(string, kernel.EmitDecision) {} }},
	}
}

// timedSuspend reports whether a script of the golden has a suspend with a timeout, whose wakeAt a
// wired timer store derives (so a timer store is not unwired for it).
func timedSuspend(g *Golden) bool {
	scripts := []*flowscript.Script{g.Script}
	for _, a := range g.Driver.Actions {
		if a.Script != nil {
			scripts = append(scripts, a.Script)
		}
	}
	for _, s := range scripts {
		for _, st := range s.Body {
			if st.Op == "suspend" && st.TimeoutMs > 0 {
				return true
			}
		}
	}
	return false
}
