package kernel

import (
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spi"
)

// Features are the kernel feature flags (spec §2): each Wave 2 syscall is available only when its
// flag is set. The zero value enables none of them.
type Features struct {
	ContinueAsNew bool
	Receive       bool
	Select        bool
}

// enabled reports whether the feature named as in manifest.Syscall.Feature is on.
func (f Features) enabled(name string) bool {
	switch name {
	case "":
		return true
	case "continueAsNew":
		return f.ContinueAsNew
	case "receive":
		return f.Receive
	case "select":
		return f.Select
	}
	return false
}

// Budget caps resource dimensions (spec §8): dimension ("tokens", "costUsd", "ms", "memBytes",
// "wallMs", "netBytes") to the largest total an execution may meter before admission control
// refuses new effects. A nil Budget caps nothing.
type Budget map[string]float64

// Warning is a loud, non-fatal report of the runtime: a degraded typed failure, a payload with no
// JSON form, a legacy resume entry.
type Warning struct {
	ExecutionID string
	Code        string // "typed-failure-degraded", "emit-unmatchable", "legacy-resume-entry", ...
	Clauses     []string
	Message     string
}

// Config configures a Runtime. Store is required; every other field is optional and New fills the
// defaults in one place (withDefaults). Time, ids and randomness are injected here so the runtime's
// decision logic stays pure and tests are deterministic.
type Config struct {
	// Store is the event log. Required.
	Store spi.EventStore
	// Snapshots, when set, is read at the start of every run (the replay starts from the latest
	// snapshot and folds the tail) and written by Snapshot.
	Snapshots spi.SnapshotStore
	// Timers, when set, makes suspend({on, timeout}) derive a durable wakeAt and schedules every
	// recorded wakeAt; FireDueTimers raises TIMER_FIRED for the due ones (spec §5).
	Timers TimerStore
	// Features enables the Wave 2 syscalls.
	Features Features
	// Effects is the effect boundary: task kinds resolve to an effect by toolId (spec §2).
	Effects map[string]EffectDef
	// Budget caps resource dimensions (spec §8).
	Budget Budget
	// Ingress configures the resume gate (authenticator, resume schemas); see gate.go.
	Ingress IngressOptions
	// Profile is the event-schema profile the runtime folds with; zero = current.
	Profile fold.Profile
	// SnapshotsWrittenBy is the profile of the fold that wrote the snapshots in Snapshots; zero =
	// Profile (the runtime reads its own snapshots as written). An older profile is read through
	// fold.NormalizeSnapshotState, which only a runtime at the current profile can do (I-KERNEL-24).
	SnapshotsWrittenBy fold.Profile

	// Now returns the time in epoch milliseconds. Default: the wall clock.
	Now func() int64
	// NewID returns a fresh envelope or execution id. Default: 16 random bytes in hex.
	NewID func() string
	// RunTimeout bounds one run of a flow (a flow that never returns is abandoned with a
	// *FlowTimeoutError). Default 30s. The caller's context deadline applies as well.
	RunTimeout time.Duration
	// Warn receives loud reports. Default: slog.Default().Warn. It may be called while the run
	// holds its lock: it must not call back into the Runtime.
	Warn func(Warning)
	// Trace, when set, receives every emit-serving decision (spec §3) as it is made. Observing
	// changes nothing in the log. Like Warn it must not call back into the Runtime.
	Trace func(executionID string, d EmitDecision)

	// Hooks deliberately break the runtime; they exist so the property kits can prove they reject
	// a broken kernel. Never set them outside tests.
	Hooks Hooks

	// Choices make another choice where the spec is silent (docs/interpretations.md): a runtime
	// with one set is correct and differs from the reference only there. They exist so that
	// certify can prove it certifies such a kernel; never set them outside tests.
	Choices Choices
}

// Choices are the reference runtime's choices made otherwise, each one a choice interpretation.
type Choices struct {
	SleepGate       string // sleep and sleepUntil park on this gate instead of TIMER_FIRED (I-KERNEL-7)
	QuotaAfterStart bool   // admission's refusal is recorded STEP_STARTED, QUOTA_EXCEEDED, STEP_FAILED (I-KERNEL-9)
	WaitIDPrefix    string // a wait's id is <prefix><k>-<i> instead of w<k>.<i> (I-KERNEL-8)
	ResumedFirst    bool   // an accepted resume appends EXECUTION_RESUMED before the delivered event (I-KERNEL-50)
	ContinuedSuffix string // continueAsNew starts <id><suffix> instead of <id>.next (I-KERNEL-16)
	HumanGatePrefix string // a human step parks on the gate <prefix><step id> instead of its step id (I-KERNEL-22)
	DegradeBare     bool   // a degraded typed failure's STEP_FAILED error is {message} alone, without degraded and channel (I-KERNEL-13)
	HumanKernelGate bool   // a human step whose id is a kernel event type parks on that gate instead of being refused (I-KERNEL-22)
}

// Hooks are mutants: each one, when set, disables one rule of spec §3.
type Hooks struct {
	// StampWhileInFlight stamps emits even while effects are executing or inside parallel branches
	// (breaks S3.emit.stamp-nothing-in-flight).
	StampWhileInFlight bool
	// ServeIgnoringLiveWork skips an emit whenever the log holds more stamped copies, ignoring live
	// work in the segment (breaks S3.emit.serve-skip / S3.emit.serve-append).
	ServeIgnoringLiveWork bool
	// StampAfterUnserved stamps emits after an outcome a re-run does not serve
	// (breaks S3.emit.stamp-nothing-unserved).
	StampAfterUnserved bool
	// RerunCompletedSteps re-invokes the effect of a completed step on replay (breaks
	// S2.execute.served-not-rerun).
	RerunCompletedSteps bool
	// NeverStamp appends every emit unstamped (breaks S3.emit.once and S3.emit.legacy-log: every
	// re-run appends the emits again).
	NeverStamp bool
	// LossySnapshot saves snapshots without _resumePayloads (breaks S3.snapshot.equivalence).
	LossySnapshot bool
	// BudgetPresentWrites makes a present but empty Budget record a RESOURCE_METERED before every
	// live step (breaks S1.G2.unwired-byte-identical).
	BudgetPresentWrites bool
	// SharedParallelEmitCount makes the branches of a parallel advance one shared per-digest emit
	// count, so which branch's emit is served depends on which ran first (breaks
	// S3.emit.never-timing; I-KERNEL-18).
	SharedParallelEmitCount bool
	// NormalizeOwnSnapshots reads the runtime's own snapshots through fold.NormalizeSnapshotState
	// as if an older fold wrote them, which upgrades them to the current profile (breaks
	// S3.snapshot.equivalence at any other profile; I-KERNEL-24).
	NormalizeOwnSnapshots bool
	// CompactedFoldsTailOnly makes the gate read a compacted log without its snapshot: the
	// remaining envelopes are folded as if they were the whole log (breaks I-LIFECYCLE-10).
	CompactedFoldsTailOnly bool
	// DropCodeHash omits EXECUTION_STARTED codeHash (breaks S4.v1_23.started-fields).
	DropCodeHash bool
	// ReverseParallelResults returns a parallel's branch results in reverse order (breaks S1.P2.replay-identical).
	ReverseParallelResults bool
	// DropDecisionContext records DECISION_RECORDED without its context (breaks S1.P9.decision-logged).
	DropDecisionContext bool
	// ForgetResumesOnResumeAs re-runs a resumeAs without the recorded _resumePayloads (breaks S5.replay.gates-in-order).
	ForgetResumesOnResumeAs bool
	// EmitSegmentSkew digests flow emits one segment ahead (breaks S3.emit.segment).
	EmitSegmentSkew bool
	// RetrySameAttempt records a re-run of a failed step with its previous attempt number (breaks S4.replay.byte-identical-unaffected).
	RetrySameAttempt bool
	// The hooks below break one rule each of §4.1, §8 and §2 (see mutants.go for the clauses).
	RerunTypedFailures   bool // a recorded typed failure is not substituted on replay: the step runs again
	ServeUntypedFailures bool // a recorded untyped failure is served on replay instead of re-executed
	EffectErrorMapWins   bool // the effect's error map is used even when the step declares its own
	TypedCap32K          bool // typed payloads are capped at 32 KiB instead of 16 KiB
	TypedSkipSchema      bool // a typed payload is recorded without its channel's schema check
	DegradeQuietly       bool // a degraded typed failure is recorded without a warning
	TypedRecordedUntyped bool // a typed failure is recorded without its channel and payload
	MeterZeroFill        bool // RESOURCE_METERED carries 0 for every dimension not measured
	MeterNotLogged       bool // Meter counts usage in memory but appends no RESOURCE_METERED
	AdmissionIgnored     bool // a spent budget never refuses a live effect
	NegotiateRecomputed  bool // negotiateBudget recomputes its grant on every run instead of logging it
	WakeAtNotLogged      bool // a timed park's wakeAt goes to the TimerStore only, not into the log
	WakeAtRelative       bool // a derived wakeAt is the timeout alone, not now + timeout
	SleepRelative        bool // sleep records its duration alone as the wakeAt, relative to nothing
	ParallelLastFailure  bool // a failed parallel names its last failing branch, not its first
	ServeDegradedTyped   bool // a degraded typed failure is served on replay as the typed failure it degraded from
	TimersNotScheduled   bool // a timed park schedules nothing in the TimerStore
	CorrelationDropped   bool // suspend records no correlationKey
	CorrelationRequired  bool // suspend without a correlationKey is refused
	HumanNoCondition     bool // a human step parks without condition.stepId
	HumanKeepsEntry      bool // a completed human step does not consume its entry on replay
	RunWritesKind        bool // run records kind "agent" instead of being a plain alias of execute
	ResolveByKind        bool // an effect is looked up by the task's kind instead of its toolId
	StampRegardless      bool // an appended emit is stamped even when it does not exceed the logged count
	StampKernelFacts     bool // kernel facts emitted by the flow are stamped like any emit
	StampUnmatchable     bool // an emit whose payload has no JSON form is stamped
	StampWrongDigest     bool // the flowEmit stamp is not the emit's digest
	DigestIgnoresSegment bool // the emit digest is computed as if every emit were in segment 0
	DecisionsRecomputed  bool // a recorded decision is decided again instead of served from the log
	Wave2Unflagged       bool // continueAsNew, receive and select work without their feature flags
	AdvertiseAll         bool // Syscalls advertises every syscall of the table, flags or not
	NoFence              bool // a driver takes no fence, so a zombie worker's late appends are not fenced off
	RecoverRefused       bool // only the worker that started an execution may drive it: Recover is refused
	SnapshotInLog        bool // Snapshot also appends a SNAPSHOT_TAKEN event to the log
	DecisionServesEntry  bool // a replayed decision serves its whole entry (choice, context, policy, seq), not the choice
	MeterDimensionNames  bool // RESOURCE_METERED names the tokens dimension "tokenCount"
	Sha256FlowHash       bool // new starts record a sha256: flowHash without the sha256FlowHash feature
	MigratedDropped      bool // a resumeAs moves the execution without recording EXECUTION_MIGRATED
	LegacyEntriesSkipped bool // _resumePayloads entries that answered no suspend point are skipped on replay
	ResumeAsRunsSource   bool // resumeAs records the migration but re-runs the source flow
	AuthorizerSkipsAs    bool // the execution authorizer is not consulted on a resumeAs
	ResourcesRunOnly     bool // EffectContext.Resources shows only this run's metering, not the execution's totals
	RouteByCorrelation   bool // a resume goes to the first execution (by id) parked on the same gate with the addressed one's correlationKey
	GateOptIn            bool // with no authenticator wired the ingress gate is skipped: the event and EXECUTION_RESUMED are appended as sent
	VerdictWithoutFact   bool // an in-doubt verdict is honoured without the kernel's EFFECT_INDOUBT beside it
	// DecisionSeqInPayload, at profile 1.24.0 and later, writes the folded seq into the
	// DECISION_RECORDED payload as well (breaks S4.v1_24.wire-unchanged: 1.24.0 changed no event
	// bytes; seq is taken from the envelope).
	DecisionSeqInPayload bool
	// UnwiredWork, when set, runs before every live step of a runtime with a budget or a timer
	// store configured: work an unwired option must never cost (breaks S10.g2.behavioural-and-ratio;
	// the fitness G2 ratio gate must catch it).
	UnwiredWork func()
}

func (c Config) withDefaults() Config {
	if c.Now == nil {
		c.Now = func() int64 { return time.Now().UnixMilli() }
	}
	if c.NewID == nil {
		c.NewID = randomID
	}
	if c.RunTimeout <= 0 {
		c.RunTimeout = 30 * time.Second
	}
	if c.Warn == nil {
		c.Warn = func(w Warning) {
			slog.Default().Warn(w.Message, "execution", w.ExecutionID, "code", w.Code, "clauses", w.Clauses)
		}
	}
	if c.Profile == (fold.Profile{}) {
		c.Profile = fold.Current()
	}
	if c.SnapshotsWrittenBy == (fold.Profile{}) {
		c.SnapshotsWrittenBy = c.Profile
	}
	return c
}

func randomID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("kernel: crypto/rand failed: " + err.Error())
	}
	return hex.EncodeToString(b[:])
}

// SequentialIDs returns an id source that yields prefix-1, prefix-2, ... — deterministic ids for
// tests and golden logs.
func SequentialIDs(prefix string) func() string {
	var mu sync.Mutex
	var n int64
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return prefix + "-" + strconv.FormatInt(n, 10)
	}
}

// FixedClock returns a clock that starts at start and advances step milliseconds per reading.
func FixedClock(start, step int64) func() int64 {
	var mu sync.Mutex
	t := start - step
	return func() int64 {
		mu.Lock()
		defer mu.Unlock()
		t += step
		return t
	}
}

// Syscalls returns the syscalls this runtime offers: manifest.AvailableSyscalls under its feature
// flags, the list a wire handshake advertises (spec §2).
func (rt *Runtime) Syscalls() []manifest.Syscall {
	if rt.cfg.Hooks.AdvertiseAll {
		return manifest.AvailableSyscalls(func(string) bool { return true })
	}
	return manifest.AvailableSyscalls(rt.cfg.Features.enabled)
}
