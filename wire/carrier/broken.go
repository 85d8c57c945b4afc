package carrier

import (
	"fmt"
	"sort"

	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

// Broken is a deliberately broken kernel behind the same carrier: one defect each, and the kit
// check meant to reject it. They exist so `certify kernel` proves it can fail (I-WIRE-8); never
// serve one for any other purpose.
type Broken struct {
	Name     string
	Defect   string
	Clauses  []string
	CaughtBy string // the KernelKit check id that must reject it
	hooks    kernel.Hooks
	rings    func(Rings) Rings
	carrier  Hooks
	features kernel.Features // the Wave 2 features it serves (a Wave 2 defect needs them on)
}

// BrokenKernels lists the broken kernels, by name.
func BrokenKernels() []Broken {
	return []Broken{
		{Name: "rerun-served-effect", Defect: "re-runs the effect of a completed step when a driver re-drives after a resume",
			Clauses: []string{"A26.wire.kernel-authoritative", "S2.execute.served-not-rerun"}, CaughtBy: "kernel/served-not-rerun",
			hooks: kernel.Hooks{RerunCompletedSteps: true}},
		{Name: "forged-facts-through", Defect: "appends a kernel fact or an envelope field a driver emits, which the kernel refused",
			Clauses: []string{"A26.wire.no-new-facts", "A26.wire.rings-kernel-side", "S5.emit.userspace-kernel-refused"}, CaughtBy: "kernel/no-forged-facts",
			carrier: Hooks{ForgedFactsThrough: true}},
		{Name: "no-rings", Defect: "runs wire effects without the authorize, egress and validate rings",
			Clauses: []string{"A26.wire.rings-kernel-side"}, CaughtBy: "kernel/rings",
			rings: func(r Rings) Rings { r.Off = true; return r }},
		{Name: "two-drivers", Defect: "hands a second driver a token while the first still drives, so two drivers interleave",
			Clauses: []string{"I-WIRE-3"}, CaughtBy: "kernel/fencing",
			carrier: Hooks{NoFencing: true}},
		{Name: "loses-resume", Defect: "answers a resume with no connected driver as accepted and records nothing",
			Clauses: []string{"A26.wire.kernel-authoritative", "I-WIRE-5"}, CaughtBy: "kernel/resume-parks-visibly",
			carrier: Hooks{DropResumeWithoutDriver: true}},
		{Name: "lying-handshake", Defect: "advertises a hand-made syscall table (every syscall unary) instead of the derived one",
			Clauses: []string{"A26.wire.derived", "A26.wire.partition", "A26.wire.projection"}, CaughtBy: "kernel/handshake",
			carrier: Hooks{HandshakeLies: true}},
		{Name: "wire-follows-schema", Defect: "states a wire ABI version one minor past the manifest's, bumped for the event-schema changes (1.24.0's folded seq) that changed no wire bytes",
			Clauses: []string{"S4.v1_24.wire-unchanged", "A26.wire.own-version", "I-WIRE-23"}, CaughtBy: "kernel/handshake",
			carrier: Hooks{WireFollowsSchema: true}},
		{Name: "no-cancel", Defect: "serves no execution.cancel and leaves it out of its handshake, so a parked execution cannot be cancelled over the wire",
			Clauses: []string{"A26.carrier.methods"}, CaughtBy: "kernel/handshake",
			carrier: Hooks{NoCancel: true}},
		{Name: "ignores-execution-budget", Defect: "starts an execution under the kernel's budget instead of the budget execution.start gives it",
			Clauses: []string{"I-WIRE-17", "A26.acceptance"}, CaughtBy: "kernel/acceptance",
			carrier: Hooks{IgnoreExecutionBudget: true}},
		{Name: "drops-migrated-input", Defect: "migrates an execution with execution.resumeAs but does not record the migrated input it was given",
			Clauses: []string{"I-WIRE-15", "A26.acceptance"}, CaughtBy: "kernel/goldens",
			carrier: Hooks{DropMigratedInput: true}},
		{Name: "parallel-reversed", Defect: "answers a parallel's join with the branch outputs in reverse order",
			Clauses: []string{"I-WIRE-11", "A26.acceptance"}, CaughtBy: "kernel/goldens",
			hooks: kernel.Hooks{ReverseParallelResults: true}},
		{Name: "deliver-drops-message", Defect: "serves Wave 2 and records a message execution.deliver hands it as null, so the receive is answered with nothing",
			Clauses: []string{"I-WIRE-20", "A26.acceptance"}, CaughtBy: "kernel/goldens",
			carrier: Hooks{DropDeliveredMessage: true}, features: Wave2()},
	}
}

// BrokenMounts lists the broken carriers whose defect shows only in process: mounted with no
// client, they change what an in-process run appends. They are caught by the G2 check that re-runs
// the golden corpus with the carrier mounted, not by the kernel kit.
func BrokenMounts() []Broken {
	return []Broken{
		{Name: "adopts-flows-at-mount", Defect: "re-registers the runtime's flows under the carrier's code identity when mounted, so an in-process start records the carrier's codeHash",
			Clauses: []string{"A26.wire.unwired-identical", "S1.G2.unwired-byte-identical"}, CaughtBy: "wire/goldens-unwired",
			carrier: Hooks{AdoptsFlows: true}},
	}
}

// BrokenNames lists the broken kernels' names, sorted.
func BrokenNames() []string {
	var out []string
	for _, b := range BrokenKernels() {
		out = append(out, b.Name)
	}
	sort.Strings(out)
	return out
}

// NewBroken builds the broken kernel named name over store (conformance profile, deterministic).
func NewBroken(name string, store spi.EventStore, opts Options) (*Carrier, error) {
	for _, b := range BrokenKernels() {
		if b.Name != name {
			continue
		}
		rings := ProfileRings()
		if b.rings != nil {
			rings = b.rings(rings)
		}
		cfg := ProfileConfig(store, true, rings, b.hooks)
		cfg.Features = b.features
		rt, err := kernel.New(cfg)
		if err != nil {
			return nil, err
		}
		opts.Hooks = b.carrier
		if opts.Tools == nil {
			opts.Tools = ToolIDs(ProfileTools())
		}
		return New(rt, store, opts)
	}
	return nil, fmt.Errorf("no broken kernel %q (have %v)", name, BrokenNames())
}

// Mutants registers the broken kernels and broken mounts (spec.Mutant, kind "kernel", ids kernel/wire/<name>).
func Mutants() []spec.Mutant {
	var out []spec.Mutant
	add := func(bs []Broken, where string) {
		for _, b := range bs {
			out = append(out, spec.Mutant{ID: "kernel/wire/" + b.Name, Kind: "kernel", Defect: b.Defect, Clauses: b.Clauses,
				CaughtBy: []string{b.CaughtBy}, Where: "wire/carrier:" + where})
		}
	}
	add(BrokenKernels(), "TestBrokenKernelsRejected")
	add(BrokenMounts(), "TestUnwiredMutantRejected")
	return out
}
