package kernelkit

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// Broken is a deliberately broken kernel: the reference kernel behind the carrier with one defect,
// the clauses the defect violates and the kit checks that must reject it. They exist so that
// `certify kernel` proves it can fail (I-WIRE-8); never serve one for any other purpose.
type Broken struct {
	Name     string
	Defect   string
	Clauses  []string
	CaughtBy []string // kit check ids that must reject it
	kernel   kernel.Hooks
	choices  kernel.Choices // another choice where the spec is silent: such a kernel is certified
	rings    func(carrier.Rings) carrier.Rings
	carrier  carrier.Hooks
	tools    func(map[string]carrier.Tool)
	store    func(spi.EventStore) spi.EventStore // what the kernel records, changed on its way to the store
	features kernel.Features                     // the Wave 2 features it serves (a Wave 2 defect needs them on)
	// handler wraps the served handler: a defect of the transport's use, not of a method.
	handler func(http.Handler) http.Handler
}

// BrokenKernels lists the broken kernels: the defect classes certification must reject, every
// variant its own kernel (each driver method, each refusal code, each id-taking syscall).
func BrokenKernels() []Broken {
	out := []Broken{
		{Name: "rerun-served-effect", Defect: "re-runs the effect of a completed step when a driver re-drives after a resume",
			Clauses: []string{"S2.execute.served-not-rerun", "A26.wire.kernel-authoritative"}, CaughtBy: []string{"kernel/syscall/execute-served"},
			kernel: kernel.Hooks{RerunCompletedSteps: true}},
		{Name: "forged-facts-through", Defect: "appends a kernel fact or an envelope field a driver emits, which the kernel refused",
			Clauses: []string{"A26.wire.no-new-facts", "S5.emit.userspace-kernel-refused"}, CaughtBy: []string{"kernel/syscall/emit-kernel-types", "kernel/syscall/emit-envelope-fields"},
			carrier: carrier.Hooks{ForgedFactsThrough: true}},
		{Name: "no-rings", Defect: "runs wire effects without the authorize, egress and validate rings",
			Clauses: []string{"A26.wire.rings-kernel-side", "I-WIRE-28"}, CaughtBy: []string{"kernel/ring/authorize", "kernel/ring/egress", "kernel/ring/validate"},
			rings: func(r carrier.Rings) carrier.Rings { r.Off = true; return r }},
		{Name: "two-drivers", Defect: "hands a second driver a token while the first still drives, so two drivers interleave",
			Clauses: []string{"I-WIRE-3", "A26.wire.kernel-authoritative"}, CaughtBy: []string{"kernel/fencing/execution.attach"},
			carrier: carrier.Hooks{NoFencing: true}},
		{Name: "loses-resume", Defect: "answers a resume with no connected driver as accepted and records nothing",
			Clauses: []string{"I-WIRE-5", "A26.wire.kernel-authoritative"}, CaughtBy: []string{"kernel/driver/resume-without-driver"},
			carrier: carrier.Hooks{DropResumeWithoutDriver: true}},
		{Name: "lying-handshake", Defect: "advertises a hand-made syscall table (every syscall unary) instead of the derived one",
			Clauses: []string{"A26.wire.derived", "A26.wire.partition"}, CaughtBy: []string{"kernel/handshake/partition", "kernel/handshake/methods"},
			carrier: carrier.Hooks{HandshakeLies: true}},
		{Name: "wire-follows-schema", Defect: "states a wire ABI version one minor past the manifest's, bumped for the event-schema changes (1.24.0's folded seq) that changed no wire bytes",
			Clauses: []string{"S4.v1_24.wire-unchanged", "A26.wire.own-version", "I-WIRE-23"}, CaughtBy: []string{"kernel/handshake/versions"},
			carrier: carrier.Hooks{WireFollowsSchema: true}},
		{Name: "no-cancel", Defect: "serves no execution.cancel and leaves it out of its handshake, so a parked execution cannot be cancelled over the wire",
			Clauses: []string{"A26.carrier.methods"}, CaughtBy: []string{"kernel/handshake/methods"},
			carrier: carrier.Hooks{NoCancel: true}},
		{Name: "ignores-execution-budget", Defect: "starts an execution under the kernel's budget instead of the budget execution.start gives it",
			Clauses: []string{"I-WIRE-17"}, CaughtBy: []string{"kernel/driver/start-budget", "kernel/profile/budget"},
			carrier: carrier.Hooks{IgnoreExecutionBudget: true}},
		{Name: "drops-migrated-input", Defect: "migrates an execution with execution.resumeAs but does not record the migrated input it was given",
			Clauses: []string{"I-WIRE-15"}, CaughtBy: []string{"kernel/golden/resumeas-transform"},
			carrier: carrier.Hooks{DropMigratedInput: true}},
		{Name: "parallel-reversed", Defect: "answers a parallel's join with the branch outputs in reverse order",
			Clauses: []string{"I-WIRE-11"}, CaughtBy: []string{"kernel/syscall/parallel", "kernel/golden/parallel-results"},
			kernel: kernel.Hooks{ReverseParallelResults: true}},
		{Name: "deliver-drops-message", Defect: "serves Wave 2 and records a message execution.deliver hands it as null, so the receive is answered with nothing",
			Clauses: []string{"I-WIRE-20"}, CaughtBy: []string{"kernel/wave2/receive-select", "kernel/golden/receive-deliver"},
			carrier: carrier.Hooks{DropDeliveredMessage: true}, features: carrier.Wave2()},

		// 1. fencing on every driver method
		{Name: "accepts-stale-token", Defect: "lets the token of an earlier seat (the one a park ended) drive the execution again",
			Clauses: []string{"I-WIRE-3"}, CaughtBy: []string{"kernel/fencing/syscall.execute", "kernel/fencing/execution.complete"},
			carrier: carrier.Hooks{StaleTokenAccepted: true}},

		// 2. ingress over the wire
		{Name: "resume-kernel-type-through", Defect: "appends a resume naming a kernel event type (STEP_COMPLETED, EXECUTION_COMPLETED, …) to a parked execution's log",
			Clauses: []string{"S5.ingress.kernel-namespace", "A26.wire.no-new-facts"}, CaughtBy: []string{"kernel/ingress/kernel-types"},
			carrier: carrier.Hooks{ResumeKernelTypes: true}},
		{Name: "resumeas-kernel-type-through", Defect: "appends an execution.resumeAs naming a kernel event type to a parked execution's log",
			Clauses: []string{"S5.resumeas.parked-all-rules"}, CaughtBy: []string{"kernel/ingress/resumeas-rules"},
			carrier: carrier.Hooks{ResumeAsKernelTypes: true}},
		{Name: "any-gate-name", Defect: "answers a park with a resume whatever gate the resume names",
			Clauses: []string{"S5.ingress.gate-match"}, CaughtBy: []string{"kernel/ingress/gate-match", "kernel/errors/refused"},
			carrier: carrier.Hooks{AnyGateName: true}},
		{Name: "timer-any-wakeat", Defect: "wakes a timed park with a TIMER_FIRED naming any wakeAt",
			Clauses: []string{"S5.ingress.timer-needs-wakeat"}, CaughtBy: []string{"kernel/ingress/timer-wakeat"},
			carrier: carrier.Hooks{TimerAnyWakeAt: true}},
		{Name: "resume-while-running-recorded", Defect: "records a resume that arrives while a driver runs the execution",
			Clauses: []string{"S5.ingress.not-suspended"}, CaughtBy: []string{"kernel/ingress/not-suspended"},
			carrier: carrier.Hooks{ResumeWhileRunning: true}},

		// 4. reconnect runs nothing twice
		{Name: "reattach-reruns-failed-step", Defect: "forgets, on a reconnect, the answers from the run's first failed step on, so the re-drive runs the failed step again",
			Clauses: []string{"I-WIRE-4"}, CaughtBy: []string{"kernel/reconnect/failed-step"},
			carrier: carrier.Hooks{ReattachForgets: "failed"}},
		{Name: "reattach-reemits", Defect: "forgets, on a reconnect, the answers from the run's first emit on, so the re-drive appends the emit again",
			Clauses: []string{"I-WIRE-4"}, CaughtBy: []string{"kernel/reconnect/emit"},
			carrier: carrier.Hooks{ReattachForgets: "emit"}},

		// 5. read-only replay
		{Name: "replay-overwrites-finished", Defect: "appends the complete of a read-only replay of a finished execution whose output differs from the log's",
			Clauses: []string{"I-WIRE-27"}, CaughtBy: []string{"kernel/replay/finished-complete"},
			carrier: carrier.Hooks{ReplayCompletes: "finished"}},
		{Name: "replay-completes-parked", Defect: "appends the complete of a read-only replay of a parked execution",
			Clauses: []string{"I-WIRE-27"}, CaughtBy: []string{"kernel/replay/parked-complete"},
			carrier: carrier.Hooks{ReplayCompletes: "parked"}},

		// 6. terminal is terminal
		{Name: "resume-reopens-terminal", Defect: "records a resume of a completed, failed or cancelled execution",
			Clauses: []string{"S5.ingress.suspended-only"}, CaughtBy: []string{"kernel/terminal/completed", "kernel/terminal/failed", "kernel/terminal/cancelled"},
			carrier: carrier.Hooks{ResumeReopensTerminal: true}},

		// 7. the streaming form acknowledges incrementally
		{Name: "stream-acks-at-end", Defect: "reads a streaming request's whole body before it appends and acknowledges the first chunk",
			Clauses: []string{"I-WIRE-7"}, CaughtBy: []string{"kernel/stream/incremental"},
			handler: bufferStreams},

		// 8. the conformance profile's state is per execution
		{Name: "counter-shared", Defect: "counts the counter fake's invocations per key across all executions",
			Clauses: []string{"I-WIRE-18"}, CaughtBy: []string{"kernel/profile/counter"},
			tools: func(t map[string]carrier.Tool) {
				c := t[carrier.ToolCounter]
				c.Fn = flowscript.Effects()[carrier.ToolCounter].Fn
				t[carrier.ToolCounter] = c
			}},
		{Name: "budget-leaks", Defect: "gives an execution started without a budget the budget the previous execution.start gave",
			Clauses: []string{"I-WIRE-17"}, CaughtBy: []string{"kernel/profile/budget"},
			carrier: carrier.Hooks{BudgetLeaks: true}},

		// 9. structural refusals
		{Name: "decide-reserved-id", Defect: "records a decide whose id begins __loom_",
			Clauses: []string{"S5.decide.loom-reserved"}, CaughtBy: []string{"kernel/reserved/decide"},
			carrier: carrier.Hooks{ReservedIDs: "decide"}},
		{Name: "emit-reserved-decision-id", Defect: "appends an emitted DECISION_RECORDED whose id begins __loom_",
			Clauses: []string{"S5.decide.loom-reserved"}, CaughtBy: []string{"kernel/reserved/emit-decision"},
			carrier: carrier.Hooks{ReservedIDs: "emit"}},
		{Name: "suspend-reserved-gate", Defect: "answers a suspend on a gate beginning __loom_ or named by a kernel event type with null: it neither refuses nor parks",
			Clauses: []string{"S5.suspend.config", "I-KERNEL-21"}, CaughtBy: []string{"kernel/reserved/suspend-gate"},
			carrier: carrier.Hooks{ReservedIDs: "suspend"}},
		{Name: "human-reserved-id", Defect: "runs a human step whose id begins __loom_ as a plain step: it neither refuses nor parks, and the step consumes no resume entry",
			Clauses: []string{"S5.ingress.human-step-entry", "I-KERNEL-22"}, CaughtBy: []string{"kernel/reserved/human-step"},
			carrier: carrier.Hooks{ReservedIDs: "human"}},

		// 11. what the spec fixes in a golden whose log a choice shapes (no outcome-only comparison)
		{Name: "drops-branch-emits", Defect: "answers an emit, stream or ui of an x.* event made in a top-level parallel branch and appends nothing",
			Clauses: []string{"S3.emit.serve-append"}, CaughtBy: []string{"kernel/golden/emit-in-parallel"},
			carrier: carrier.Hooks{DropBranchEmits: "x."}},
		// Stamping a branch's emit while a branch counts a digest from the count when the parallel
		// began (the reference's I-KERNEL-18) lets one branch's stamped copy answer a sibling's
		// emit of the same content in the run that made both: an emit served in place of a new
		// one outside §3's residual cases. The literal stamp is a legal option only with a count
		// that never does that (stamp-in-branch).
		{Name: "stamp-in-branch-local-count", Defect: "stamps a branch's emit when nothing of the run is in flight but counts a digest's emits per branch, so a sibling's emit of the same content is served in the run that made both and never appended",
			Clauses: []string{"S3.emit.residual", "I-KERNEL-5"}, CaughtBy: []string{"kernel/golden/emit-parallel-resume", "kernel/golden/emit-in-parallel"},
			kernel: kernel.Hooks{StampWhileInFlight: true}},
		{Name: "timeout-recorded-typed", Defect: "records a step that outlived its timeout as a typed failure (STEP_FAILED on channel timeout) while it answers the untyped timeout error",
			Clauses: []string{"S41.typed.untyped-at-least-once"}, CaughtBy: []string{"kernel/golden/timeout-step"},
			store: timeoutsRecordedTyped},
	}
	// 11. the edges docs/wire.md decides (I-WIRE-40 to I-WIRE-52)
	out = append(out,
		Broken{Name: "args-to-kernel", Defect: "hands syscall arguments to the kernel unshaped: a missing task, toolId or choice, an ill-typed task.errors or an empty event type is answered -32026 by its decoder, not -32602",
			Clauses: []string{"I-WIRE-49"}, CaughtBy: []string{"kernel/errors/args-shape"}, carrier: carrier.Hooks{ArgsToKernel: true}},
		Broken{Name: "driver-before-params", Defect: "judges a driver method's token before its arguments' shape, so bad arguments under another token are answered -32002",
			Clauses: []string{"I-WIRE-41"}, CaughtBy: []string{"kernel/errors/precedence"}, carrier: carrier.Hooks{DriverBeforeParams: true}},
		Broken{Name: "field-with-params", Defect: "names the member of a -32602 answer params.<path> in data.field",
			Clauses: []string{"I-WIRE-48"}, CaughtBy: []string{"kernel/errors/field-path", "kernel/errors/args-shape"}, carrier: carrier.Hooks{FieldWithParams: true}},
		Broken{Name: "complete-both", Defect: "takes an execution.complete with both output and error as a failure, dropping the output",
			Clauses: []string{"I-WIRE-44"}, CaughtBy: []string{"kernel/driver/complete-output-and-error"}, carrier: carrier.Hooks{CompleteBoth: true}},
		Broken{Name: "replay-cancel-completes", Defect: "answers the complete of a read-only replay of a cancelled execution with status cancelled, as if it matched the log",
			Clauses: []string{"I-WIRE-42"}, CaughtBy: []string{"kernel/replay/cancelled-complete"}, carrier: carrier.Hooks{ReplayCancelCompletes: true}},
		Broken{Name: "bare-chunk-error", Defect: "answers a stream chunk that is not strict JSON with a bare -32700, no line of its own",
			Clauses: []string{"I-WIRE-51"}, CaughtBy: []string{"kernel/stream/chunk-refused-line"}, carrier: carrier.Hooks{BareChunkError: true}},
		Broken{Name: "busy-scope-as-syscall", Defect: "answers a call at a scope whose branches are open -32026 instead of -32025",
			Clauses: []string{"I-WIRE-52"}, CaughtBy: []string{"kernel/parallel/busy-scope-refused"}, carrier: carrier.Hooks{BusyScopeAsSyscall: true}},
		Broken{Name: "crash-needs-log", Defect: "refuses conformance.crash for an execution that has no log yet (-32003), so a crash cannot be armed before the start",
			Clauses: []string{"I-WIRE-40"}, CaughtBy: []string{"kernel/conformance/crash-before-start"}, carrier: carrier.Hooks{CrashNeedsLog: true}},
		Broken{Name: "code-not-found-as-fenced", Defect: "answers a driver method on an execution that has no log -32002 (fenced) instead of -32003",
			Clauses: []string{"I-WIRE-25"}, CaughtBy: []string{"kernel/errors/not-found-driver", "kernel/errors/not-found"},
			carrier: carrier.Hooks{ErrorCodes: map[int]int{carrier.CodeNotFound: carrier.CodeFenced}}},
	)
	// 12. the classes a kernel written from the docs alone slipped through (issue 36)
	out = append(out, classBrokenKernels()...)
	// 10. another choice where the spec is silent: certified, with the recommendation listed
	out = append(out,
		Broken{Name: "sleep-own-gate", Defect: "parks sleep and sleepUntil on a gate named sleep, woken by TIMER_FIRED for the recorded wakeAt as any timed park is",
			Clauses: []string{"I-KERNEL-7"}, CaughtBy: []string{"kernel/syscall/timer-gate", "kernel/golden/timers-sleep", "kernel/golden/timers-sleep-until"},
			choices: kernel.Choices{SleepGate: "sleep"}},
		Broken{Name: "quota-after-start", Defect: "records admission control's refusal as STEP_STARTED, QUOTA_EXCEEDED, STEP_FAILED (the fact after the start)",
			Clauses: []string{"I-KERNEL-9"}, CaughtBy: []string{"kernel/ring/meter", "kernel/golden/budget-exceeded"},
			choices: kernel.Choices{QuotaAfterStart: true}},
		Broken{Name: "resumed-first", Defect: "appends an accepted resume's EXECUTION_RESUMED before the event it delivers",
			Clauses: []string{"I-KERNEL-50"}, CaughtBy: []string{"kernel/syscall/suspend"},
			choices: kernel.Choices{ResumedFirst: true}},
		Broken{Name: "continued-id-renamed", Defect: "gives the execution continueAsNew starts the id <id>~2 instead of <id>.next",
			Clauses: []string{"I-KERNEL-16"}, CaughtBy: []string{"kernel/golden/continue-as-new"},
			choices: kernel.Choices{ContinuedSuffix: "~2"}, features: carrier.Wave2()},
		Broken{Name: "human-gate-prefixed", Defect: "parks a human step on the gate human:<step id> instead of its step id (condition.stepId still names the step)",
			Clauses: []string{"I-KERNEL-22"}, CaughtBy: []string{"kernel/golden/human-step", "kernel/golden/human-then-gate"},
			choices: kernel.Choices{HumanGatePrefix: "human:"}},
		Broken{Name: "degrade-bare", Defect: "records a degraded typed failure's STEP_FAILED error as {message} alone, without saying why it degraded or naming the channel",
			Clauses: []string{"I-KERNEL-13"}, CaughtBy: []string{"kernel/golden/typed-over-cap", "kernel/golden/typed-undeclared-degrades"},
			choices: kernel.Choices{DegradeBare: true}},
		Broken{Name: "wait-ids-renamed", Defect: "names a receive's or select's waits wait-<k>-<i> instead of w<k>.<i>",
			Clauses: []string{"I-KERNEL-8"}, CaughtBy: []string{"kernel/wave2/receive-select"},
			choices: kernel.Choices{WaitIDPrefix: "wait-"}, features: carrier.Wave2()},
		// The wire drives a parallel's branches one after another, in branch order (I-WIRE-11), so
		// when an emit in a branch is made nothing of the run is in flight, and a count of a
		// digest's emits shared by the branches follows that order, not timing: this kernel is §3
		// read literally — an emit stamped whenever nothing is in flight, the n-th emit of a digest
		// counted over the run — where the reference stamps no emit of a parallel (I-KERNEL-5) and
		// counts a branch's emits from the count when the parallel began (I-KERNEL-18).
		Broken{Name: "stamp-in-branch", Defect: "reads §3 literally inside a parallel: stamps a branch's emit when nothing of the run is in flight and counts a digest's emits over the run in the order the branches are driven (so a later run serves them)",
			Clauses: []string{"I-KERNEL-5", "I-KERNEL-18"}, CaughtBy: []string{"kernel/golden/emit-in-parallel", "kernel/golden/emit-parallel-resume", "kernel/golden/parallel-nested", "kernel/syscall/parallel", "kernel/script/parallel"},
			kernel: kernel.Hooks{StampWhileInFlight: true, SharedParallelEmitCount: true}},
	)
	// 1. every driver method on its own
	for _, m := range DriverMethods() {
		b := Broken{Name: "unfenced-" + m, Defect: "hands " + m + " to the live run whatever token it carries (none, another driver's, a stale one)",
			Clauses: []string{"I-WIRE-3"}, CaughtBy: []string{"kernel/fencing/" + m}, carrier: carrier.Hooks{UnfencedMethod: m}}
		if wave2Method(m) {
			b.features = carrier.Wave2()
		}
		out = append(out, b)
	}
	// 3. each refusal class's code, answered as a neighbouring class's
	for _, k := range []struct {
		name, what string
		from, to   int
		caught     string
	}{
		{"refused-as-not-runnable", "an ingress refusal", carrier.CodeRefused, carrier.CodeNotRunnable, "kernel/errors/refused"},
		{"not-runnable-as-refused", "a call the execution's state does not allow", carrier.CodeNotRunnable, carrier.CodeRefused, "kernel/errors/not-runnable"},
		{"fenced-as-not-runnable", "a fenced driver", carrier.CodeFenced, carrier.CodeNotRunnable, "kernel/errors/fenced"},
		{"params-as-request", "bad params", carrier.CodeInvalidParams, carrier.CodeInvalidRequest, "kernel/errors/params"},
		{"not-found-as-params", "an unknown execution", carrier.CodeNotFound, carrier.CodeInvalidParams, "kernel/errors/not-found"},
		{"exists-as-fenced", "a start of an execution that exists", carrier.CodeAlreadyExists, carrier.CodeFenced, "kernel/driver/start-exists"},
		{"divergence-as-not-runnable", "a replay divergence", carrier.CodeReplayDivergence, carrier.CodeNotRunnable, "kernel/errors/divergence"},
		{"syscall-as-params", "syscall arguments the kernel refuses", carrier.CodeSyscallError, carrier.CodeInvalidParams, "kernel/errors/syscall"},
		{"step-failed-as-typed", "an untyped step failure", carrier.CodeStepFailed, carrier.CodeTypedFailure, "kernel/errors/step-outcomes"},
		{"typed-as-step-failed", "a typed failure", carrier.CodeTypedFailure, carrier.CodeStepFailed, "kernel/errors/step-outcomes"},
		{"quota-as-typed", "a spent budget", carrier.CodeQuotaExceeded, carrier.CodeTypedFailure, "kernel/errors/step-outcomes"},
		{"method-as-params", "an unknown method", carrier.CodeMethodNotFound, carrier.CodeInvalidParams, "kernel/bad-input/frame"},
	} {
		out = append(out, Broken{Name: "code-" + k.name, Defect: fmt.Sprintf("answers %s %d instead of %d", k.what, k.to, k.from),
			Clauses: []string{"I-WIRE-25"}, CaughtBy: []string{k.caught}, carrier: carrier.Hooks{ErrorCodes: map[int]int{k.from: k.to}}})
	}
	out = append(out, Broken{Name: "code-missing-driver-as-fenced", Defect: "answers a driver method without params.driver -32002 (fenced) instead of -32602 (a missing param)",
		Clauses: []string{"I-WIRE-25", "I-WIRE-6"}, CaughtBy: []string{"kernel/errors/params"}, carrier: carrier.Hooks{MissingDriverFenced: true}})
	// 6. each terminal status
	for _, s := range []string{"completed", "failed", "cancelled"} {
		out = append(out, Broken{Name: "cancels-" + s, Defect: "appends EXECUTION_CANCELLED to a " + s + " execution",
			Clauses: []string{"I-KERNEL-23"}, CaughtBy: []string{"kernel/terminal/" + s + "/cancel"}, carrier: carrier.Hooks{CancelTerminal: s}})
	}
	// 9. a park in a parallel branch, per parking syscall: answered with null, neither refused
	// (ours) nor parked (the other legal option)
	for _, p := range branchParks() {
		s := p.name
		b := Broken{Name: "park-in-branch-" + s, Defect: "answers " + s + " inside a parallel branch with null: it neither refuses nor " + strings.TrimSuffix(p.parks, ")"),
			Clauses: []string{p.clause, "I-KERNEL-6"}, CaughtBy: []string{"kernel/structure/park-in-branch/" + s}, carrier: carrier.Hooks{ParkInBranch: s}}
		if wave2Method("syscall." + s) {
			b.features = carrier.Wave2()
		}
		out = append(out, b)
	}
	return out
}

// wave2Method reports whether a driver method is a Wave 2 syscall's.
func wave2Method(m string) bool {
	switch m {
	case "syscall.continueAsNew", "syscall.receive", "syscall.select":
		return true
	}
	return false
}

// bufferStreams reads a streaming request's whole body before the carrier sees it: every ack
// then comes after the body ended (the stream-acks-at-end defect).
func bufferStreams(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Header.Get("Content-Type"), carrier.ContentTypeStream) {
			b, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		h.ServeHTTP(w, r)
	})
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

// LookupBroken returns the broken kernel named name.
func LookupBroken(name string) (Broken, bool) {
	for _, b := range BrokenKernels() {
		if b.Name == name {
			return b, true
		}
	}
	return Broken{}, false
}

// NewBroken builds the broken kernel named name over store: the conformance profile
// (deterministic), its Wave 2 features on when the defect needs them (or opts.Features asks),
// with its one defect.
func NewBroken(name string, store spi.EventStore, opts carrier.Options) (http.Handler, error) {
	b, ok := LookupBroken(name)
	if !ok {
		return nil, fmt.Errorf("no broken kernel %q (have %s)", name, strings.Join(BrokenNames(), ", "))
	}
	rings := carrier.ProfileRings()
	if b.rings != nil {
		rings = b.rings(rings)
	}
	if b.features != (kernel.Features{}) {
		opts.Features = b.features
	}
	opts.Hooks = b.carrier
	if b.store != nil {
		store = b.store(store)
	}
	c, _, err := carrier.NewProfileWith(store, true, opts, rings, func(cfg *kernel.Config) {
		cfg.Hooks, cfg.Choices = b.kernel, b.choices
	}, b.tools)
	if err != nil {
		return nil, err
	}
	if b.handler != nil {
		return b.handler(c), nil
	}
	return c, nil
}

// Mutants registers the broken kernels (spec.Mutant, kind "kernel", ids kernel/wire/<name>).
func Mutants() []spec.Mutant {
	var out []spec.Mutant
	for _, b := range BrokenKernels() {
		out = append(out, spec.Mutant{ID: "kernel/wire/" + b.Name, Kind: "kernel", Defect: b.Defect, Clauses: b.Clauses,
			CaughtBy: b.CaughtBy, Where: "kits/kernelkit:TestBrokenKernelsRejected"})
	}
	return out
}
