package kernelkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/loom-kernel/loom-conform/goldens"
	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/kits/explore"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/carrier"
	"github.com/loom-kernel/loom-conform/wire/clients"
)

// ExploreCheck is the id of the kernel kit's differential flow exploration.
const ExploreCheck = "kernel/explore"

// DefaultExplore is how many flow scripts kernel/explore drives when certify is not told
// otherwise (certify --explore): sized so that `certify kernel` against the reference kernel
// stays well within its wall-time budget (docs/performance.md).
const DefaultExplore = 12

// ExploreRule is the interpretation kernel/explore enforces as a whole: every flow script of the
// golden grammar runs over the wire as it runs in process (I-WIRE-80).
const ExploreRule = "I-WIRE-80"

// exploreChecks: kernel/explore, seeded flow scripts (explore_gen.go) driven over the wire and in
// process, compared as runCheck compares a golden's run; the first difference is shrunk to a
// minimal flow script (kits/explore) and reported with the clauses of what differed.
func exploreChecks() []kitCheck {
	var ours []string
	for _, f := range freedoms() {
		ours = append(ours, f.clauses...)
	}
	doc := "seeded random flow scripts of the golden grammar — nested parallels with failing branches, human steps and gates (and refused resumes), timers, budgets over several dimensions, emits and decisions, typed, untyped and degraded failures, crashes and recoveries (conformance extension), resumeAs onto a parked and an ended execution, receive (Wave 2), hostile ids and values, start inputs naming a key twice (the last member's reading, or refused) — driven over the wire and in process: each execution's log, folded state and canonical text are the in-process run's, and getState's sequence, status, suspendedOn and awaitingDriver after every driver action say what its state and log say, up to the choices " +
		strings.Join(ours, ", ") + " (required), and exactly (recommended); every third round, a script of raw wire calls (out-of-order calls at a parallel, re-drives after a park, a human step named as a kernel event type and its resumes, a budget over two dimensions) answered as the reference kernel served in process answers them; the first difference is shrunk to a minimal script"
	return []kitCheck{choiceCheck(ExploreCheck, spec.Must, doc, kkExplore, ExploreClauses(), ours)}
}

// ExploreClauses are the clauses a required difference found by kernel/explore may cite.
func ExploreClauses() []string {
	out := []string{ExploreRule, "A26.acceptance", "I-WIRE-10"}
	add := func(cs []string) {
		for _, c := range cs {
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	for _, cs := range exploreOpClauses {
		add(cs)
	}
	for _, cs := range exploreEventClauses {
		add(cs)
	}
	for _, cs := range exploreWireClauses {
		add(cs)
	}
	add(exploreStateClauses)
	add(exploreStateMembers)
	slices.Sort(out[3:])
	return out
}

// exploreOpClauses are the clauses of what a statement's answer, or a driver action's record,
// enforces: cited when the envelope that differs is one it wrote.
var exploreOpClauses = map[string][]string{
	"execute":       {"S2.execute.served-not-rerun", "S41.typed.untyped-at-least-once"},
	"typed":         {"S41.typed.record", "S41.typed.degrade-loudly", "S41.typed.cap-16k"},
	"human":         {"S5.ingress.human-step-entry", "S5.human.condition-stepid"},
	"meter":         {"S8.resources.metered-per-effect", "S8.budget.quota-exceeded", "I-WIRE-17"},
	"decide":        {"S4.v1_18.decision-context-policy", "A26.wire.kernel-authoritative"},
	"parallel":      {"I-WIRE-11", "S4.v1_23.parallel-scopes"},
	"suspend":       {"S5.suspend.config", "S5.ingress.gate-match"},
	"sleep":         {"S5.timer.durable-wakeat", "S5.timer.derive-wakeat"},
	"sleepUntil":    {"S5.timer.durable-wakeat", "S5.timer.time-in-log"},
	"receive":       {"I-WIRE-20", "S4.v1_23.message-consumed"},
	"emit":          {"S3.emit.serve-append", "S3.emit.once"},
	"resumeAs":      {"I-WIRE-15", "S5.resumeas.transform-recorded", "I-WIRE-29"},
	"recover":       {"S5.ingress.recovered-running-only", "I-WIRE-24"},
	"resume":        {"S5.ingress.gate-match", "S5.ingress.refusal-appends-nothing"},
	"fireTimers":    {"S5.ingress.timer-needs-wakeat", "S5.timer.durable-wakeat"},
	"start":         {"I-WIRE-2", "I-WIRE-62"},
	"deliver":       {"I-WIRE-20"},
	"crash":         {"I-WIRE-24"},
	"continueAsNew": {"I-WIRE-43"},
}

// exploreEventClauses are the clauses of an envelope no statement of the case names.
var exploreEventClauses = map[string][]string{
	manifest.ExecutionCompleted: {"A26.wire.kernel-authoritative"},
	manifest.ExecutionFailed:    {"A26.wire.kernel-authoritative"},
	manifest.ExecutionResumed:   {"S5.ingress.gate-match", "S5.ingress.one-entry-per-suspend"},
	manifest.TimerFired:         {"S5.ingress.timer-needs-wakeat"},
	manifest.ExecutionMigrated:  {"I-WIRE-15", "S5.resumeas.transform-recorded"},
	manifest.ExecutionRecovered: {"S5.ingress.recovered-running-only", "I-WIRE-24"},
	manifest.MessageConsumed:    {"I-WIRE-20"},
}

// exploreStateClauses are the clauses of a folded state or canonical text that differs.
var exploreStateClauses = []string{"S2.state.shape", "A26.wire.kernel-authoritative"}

func kkExplore(ctx context.Context, c *Case) error {
	hs, err := handshake(ctx, c)
	if err != nil {
		return err
	}
	ext := serves(hs, carrier.MethodConformanceCrash) && serves(hs, carrier.MethodConformanceClock)
	wave2 := slices.ContainsFunc(hs.Syscalls, func(s manifest.Syscall) bool { return s.Name == "receive" })
	x := &explorer{c: c, hs: hs}
	defer x.close()
	err = x.rounds(ctx, func(round int) explore.Script {
		if wireRound(round) {
			return exploreWireGen(c.Seed, round)
		}
		return exploreGen(c.Seed, round, ext, wave2)
	})
	if err == nil && x.judged == 0 {
		return c.Unknown("no generated flow script could be run by the in-process reference (%d tried): nothing was compared", x.invalid)
	}
	return err
}

// explorer replays kernel exploration scripts against the kernel (a fresh execution each) and the
// reference kernel in process.
type explorer struct {
	c               *Case
	hs              carrier.Handshake
	judged, invalid int
	// shrinking: a replay the kernel leaves unanswered ends shrinking (errNoAnswer) with the
	// smallest script found so far, rather than spending the call limit on every candidate.
	shrinking bool
	// ref is the reference kernel served in process for wire scripts, started on first use.
	ref *refServer
}

// close stops what the explorer started.
func (x *explorer) close() {
	if x.ref != nil {
		x.ref.close()
	}
}

// exploreShrinkBudget bounds the replays shrinking one finding makes.
const exploreShrinkBudget = 80

// errNoAnswer ends shrinking: a candidate script left a call unanswered.
var errNoAnswer = errors.New("the kernel left a call of a shrinking candidate unanswered")

// rounds runs c.Explore scripts made by gen (as kits.ExploreRounds does, with a shrinking that
// stops at a call the kernel leaves unanswered): the first required difference, shrunk, is the
// check's failure; a recommended one is reported when no required one is found.
func (x *explorer) rounds(ctx context.Context, gen func(round int) explore.Script) error {
	c := x.c
	if s := c.Replaying(); s != nil {
		// one given script (a findings file), as it is: the same difference, or none any more
		c.Progress(0, 1)
		m, err := x.replay(ctx, *s)
		if err != nil || m == nil {
			c.Progress(1, 1)
			return err
		}
		return kits.Explored(c, explore.Finding{Script: *s, Mismatch: *m})
	}
	var recommended *explore.Finding
	for round := range c.Explore {
		c.Progress(round, c.Explore)
		s := gen(round)
		m, err := x.replay(ctx, s)
		if err != nil {
			return err
		}
		if m == nil || recommended != nil && spec.RequirementOf(m.Clauses) == spec.Recommended {
			continue
		}
		// Shrinking may spend at most half of the time the check has left: the verdict is the
		// difference already found, and a candidate the kernel leaves unanswered must not turn it
		// into an unknown; how far the script shrinks is all a slow kernel costs.
		sctx, cancel := ctx, context.CancelFunc(func() {})
		if dl, ok := ctx.Deadline(); ok {
			sctx, cancel = context.WithDeadline(ctx, time.Now().Add(time.Until(dl)/2))
		}
		x.shrinking = true
		small, sm, tried, err := explore.Shrink(sctx, s, m, x.replay, exploreShrinkBudget)
		x.shrinking = false
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		_ = err // errNoAnswer or the shrinking's time: the smallest script so far stands
		f := explore.Finding{Script: small, Mismatch: *sm, Tried: tried}
		if spec.RequirementOf(sm.Clauses) == spec.Required {
			return kits.Explored(c, f)
		}
		recommended = &f
	}
	c.Progress(c.Explore, c.Explore)
	if recommended != nil {
		return kits.Explored(c, *recommended)
	}
	return nil
}

// noAnswer reports whether err is a call the kernel never answered (the client's limit passed).
func noAnswer(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// ExploreCase turns a kernel exploration script back into the flow script and driver it stands
// for (an error when its steps do not make one: a shrinking step may cut what another needs).
func ExploreCase(s explore.Script) (clients.Case, error) {
	var body []json.RawMessage
	var acts []json.RawMessage
	driver := map[string]any{"format": flowscript.DriverFormat}
	timers, receive := false, false
	for i, st := range s.Steps {
		switch {
		case strings.HasPrefix(st.Op, xFlow):
			var b []json.RawMessage
			if err := json.Unmarshal(st.Args, &b); err != nil {
				return clients.Case{}, fmt.Errorf("steps[%d] %s: %v", i, st.Op, err)
			}
			body = append(body, b...)
			timers = timers || st.Op == xFlow+"sleep" || st.Op == xFlow+"sleepUntil"
			receive = receive || st.Op == xFlow+"receive"
		case strings.HasPrefix(st.Op, xDriver):
			acts = append(acts, st.Args)
		case st.Op == xBudget:
			driver["budget"] = st.Args
		default:
			return clients.Case{}, fmt.Errorf("steps[%d]: unknown op %q", i, st.Op)
		}
	}
	if err := crashAnchored(body, acts); err != nil {
		return clients.Case{}, err
	}
	if timers {
		driver["timers"] = true
	}
	driver["actions"] = acts
	flow := map[string]any{"format": flowscript.Format, "id": "explore", "body": body}
	if receive {
		flow["features"] = []string{"receive"}
	}
	fb, _ := json.Marshal(flow)
	db, _ := json.Marshal(driver)
	sc, err := flowscript.Decode("explore flow", fb)
	if err != nil {
		return clients.Case{}, err
	}
	dr, err := flowscript.DecodeDriver("explore driver", db)
	if err != nil {
		return clients.Case{}, err
	}
	return clients.Case{Name: fmt.Sprintf("explore-seed%d-round%d", s.Seed, s.Round), Script: sc, Driver: dr}, nil
}

// crashAnchored requires of a script with a crash what the generator gives it: the crash before
// the start lands on the first statement's step (a plain step, its STEP_COMPLETED), and the start
// is followed by the recovery. A shrinking candidate that cuts one of them would move the crash
// onto an envelope no golden crashes at (a parallel's, the run's end), which the wire's crash and
// the in-process one do not place alike: it is no case, not a difference.
func crashAnchored(body, acts []json.RawMessage) error {
	var dos []string
	for _, a := range acts {
		var x struct {
			Do string `json:"do"`
		}
		_ = json.Unmarshal(a, &x)
		dos = append(dos, x.Do)
	}
	i := slices.Index(dos, "crash")
	if i < 0 {
		return nil
	}
	var first flowscript.Stmt
	if len(body) > 0 {
		_ = json.Unmarshal(body[0], &first)
	}
	switch {
	case first.Op != "execute" || first.Bind != "" || first.Tool != "counter" && first.Tool != "echo":
		return errors.New("a crash whose first statement is not its plain step")
	case i+2 >= len(dos) || dos[i+1] != "start" || dos[i+2] != "recover":
		return errors.New("a crash not followed by the start and the recovery")
	}
	return nil
}

// replay drives s over the wire and in process and returns the first difference (nil when the
// runs agree, or when s is no case the reference runs: nothing to compare).
func (x *explorer) replay(ctx context.Context, s explore.Script) (*explore.Mismatch, error) {
	if len(s.Steps) > 0 && strings.HasPrefix(s.Steps[0].Op, xWire) {
		return x.replayWire(ctx, s)
	}
	c := x.c
	k, err := ExploreCase(s)
	if err != nil || clients.InexpressibleWithExtension(k.Script, k.Driver) != "" {
		x.invalid++
		return nil, nil
	}
	ext := clients.Extension(k.Script, k.Driver)
	for _, m := range ext {
		if !serves(x.hs, m) {
			x.invalid++
			return nil, nil
		}
	}
	clock := slices.Contains(ext, carrier.MethodConformanceClock)
	// a start input naming a key twice: compared with the run of its last-key reading (I-WIRE-62)
	ref, dupKey := lastKeyCase(k)
	var (
		id        string
		want, got carrier.Run
		probe     *stateProbe
	)
	for {
		id = c.ExecID("explore")
		want, err = reference(ctx, id, ref, clock)
		if err != nil || ctx.Err() != nil {
			x.invalid++
			return nil, ctx.Err()
		}
		probe = &stateProbe{c: c.Store, id: id}
		for _, a := range k.Driver.Actions {
			probe.acts = append(probe.acts, a.Do)
		}
		got, err = carrier.DriveWireWith(ctx, c.Store, id, k.Script, k.Driver, carrier.DriveOptions{Crashes: want.Crashes, Clock: clock, Observe: probe.observe})
		if err == nil || !dupKey || !startRefused(err) {
			break
		}
		// refusing a repeated key is I-NET-50's other legal option: the rest of the script is
		// still compared, driven with the reading's input on a fresh execution
		k, dupKey = ref, false
	}
	x.judged++
	at := fmt.Sprintf("seed %d round %d, execution %s", s.Seed, s.Round, id)
	last := len(s.Steps) - 1
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil && x.shrinking && noAnswer(err) {
		return nil, errNoAnswer
	}
	if err != nil {
		return &explore.Mismatch{Step: last, Op: "drive", Args: at, Got: err.Error(), Want: "the flow script driven to its end, as in process",
			Clauses: withRule(driveClauses(err))}, nil
	}
	if len(got.Driven) != len(want.Driven) {
		return &explore.Mismatch{Step: last, Op: "drive", Args: at, Got: fmt.Sprintf("%d executions", 1+len(got.Driven)),
			Want: fmt.Sprintf("%d", 1+len(want.Driven)), Clauses: withRule([]string{"I-WIRE-43"})}, nil
	}
	aligned := got
	ours := touchedFreedoms(k)
	if len(ours) > 0 {
		aligned = cloneRun(got)
		alignChoices(k, &want, &aligned)
		if slices.Contains(ours, "I-KERNEL-18") {
			alignDecisionSeqs(&want, &aligned)
		}
	}
	wants, gots, aligns := append([]carrier.Run{want}, want.Driven...), append([]carrier.Run{got}, got.Driven...), append([]carrier.Run{aligned}, aligned.Driven...)
	for i := range wants {
		if m := canonicalMismatch(gots[i]); m != nil {
			m.Step, m.Args = last, at
			return m, nil
		}
		if m := runMismatch(k, wants[i], aligns[i], withRule); m != nil {
			m.Step, m.Args = last, at+" (compared up to the choices "+strings.Join(ours, ", ")+")"
			return m, nil
		}
	}
	_ = probe.observe(ctx, -1)
	if probe.first != nil {
		m := probe.first
		m.Step, m.Args = last, at+", "+m.Args
		return m, nil
	}
	for i := range wants {
		if m := runMismatch(k, wants[i], gots[i], func([]string) []string { return ours }); m != nil {
			m.Step, m.Args = last, at+" (compared exactly: the reference kernel's form of the choices)"
			return m, nil
		}
	}
	return nil, nil
}

// withRule puts the exploration's rule first among a difference's clauses.
func withRule(cs []string) []string { return append([]string{ExploreRule}, cs...) }

// canonicalMismatch holds a run's canonical text to the canonical JSON of its own value (DESIGN
// §3.3, docs/vectors.md): the bytes are the contract.
func canonicalMismatch(r carrier.Run) *explore.Mismatch {
	canon, err := fold.CanonicalJSON([]byte(r.State))
	if err == nil && string(canon) == r.State {
		return nil
	}
	got := r.State
	if len(got) > 300 {
		got = got[:300] + "…"
	}
	want := "its canonical JSON"
	if err != nil {
		want += " (it is not JSON: " + err.Error() + ")"
	} else {
		want += ": " + string(canon[:min(len(canon), 300)])
	}
	return &explore.Mismatch{Op: "canonical", Got: got, Want: want, Clauses: withRule(exploreStateClauses)}
}

// runMismatch compares one execution's run with the in-process one as diffRun does; clauses
// turns the clauses of what differed into the ones the mismatch cites (nil: no difference).
func runMismatch(k clients.Case, want, got carrier.Run, clauses func([]string) []string) *explore.Mismatch {
	ws, err := normState(want.State)
	if err != nil {
		return nil
	}
	gs, err := normState(got.State)
	if err != nil {
		return &explore.Mismatch{Op: "state", Got: err.Error(), Want: "a folded state", Clauses: clauses(exploreStateClauses)}
	}
	d := goldens.DiffRuns(normLog(want.Log), normLog(got.Log), ws, gs, goldens.DiffOptions{})
	if d == nil {
		return nil
	}
	cs, by := exploreStateClauses, ""
	if d.Where == "log" {
		env := pick(want.Log, got.Log, d.Index)
		cs, by = envelopeClauses(k, env), " (written for "+producedBy(k, env)+")"
	}
	return &explore.Mismatch{Op: d.Where, Got: "first divergence from the in-process run" + by + ": " + d.String(),
		Want: "the in-process run's log and folded state", Diff: d.Diff, Clauses: clauses(cs)}
}

// envelopeClauses are the clauses of what wrote e: the statement whose answer it records (an
// x.answer.<bind> emit records the bound statement's answer), the statement whose step, decision
// or gate it names, or the kernel event it is.
func envelopeClauses(k clients.Case, e spi.Envelope) []string {
	if b, ok := strings.CutPrefix(e.EventType, "x.answer."); ok {
		if _, st, found := findStmt("body", k.Script.Body, func(st flowscript.Stmt) bool { return st.Bind == b }); found {
			return stmtClauses(st)
		}
	}
	if cs, ok := exploreEventClauses[e.EventType]; ok {
		return cs
	}
	by := producedBy(k, e)
	for _, do := range []string{"resumeAs", "recover", "deliver", "fireTimers", "resume", "start"} {
		if strings.Contains(by, "] "+do) || strings.HasSuffix(by, " "+do) {
			return exploreOpClauses[do]
		}
	}
	var p struct {
		StepID string `json:"stepId"`
		ID     string `json:"id"`
		On     string `json:"on"`
	}
	_ = json.Unmarshal(e.Payload, &p)
	if _, st, ok := findStmt("body", k.Script.Body, func(st flowscript.Stmt) bool {
		return p.StepID != "" && st.ID == p.StepID || p.ID != "" && st.Op == "decide" && st.ID == p.ID || p.On != "" && (st.On == p.On || st.ID == p.On)
	}); ok {
		return stmtClauses(st)
	}
	if strings.HasPrefix(e.EventType, "x.") {
		return exploreOpClauses["emit"]
	}
	return []string{"A26.wire.kernel-authoritative"}
}

// stmtClauses are the clauses of a statement's answer and record.
func stmtClauses(st flowscript.Stmt) []string {
	switch {
	case st.Op == "execute" && st.Kind == "human":
		return exploreOpClauses["human"]
	case st.Op == "execute" && strings.HasPrefix(st.Tool, "fail-") && st.Tool != "fail-untyped" && st.Tool != "fail-until":
		return exploreOpClauses["typed"]
	case st.Op == "execute" && st.Tool == "meter":
		return exploreOpClauses["meter"]
	}
	if cs, ok := exploreOpClauses[st.Op]; ok {
		return cs
	}
	return exploreOpClauses["execute"]
}

// driveClauses are the clauses of a call the kernel answered otherwise than in process: the
// syscall or method the error names.
func driveClauses(err error) []string {
	msg := err.Error()
	for _, op := range []string{"parallel", "execute", "run", "decide", "suspend", "sleepUntil", "sleep", "emit", "receive", "continueAsNew"} {
		if strings.Contains(msg, "syscall."+op) {
			return exploreOpClauses[op]
		}
	}
	for _, m := range []struct{ method, op string }{{carrier.MethodResumeAs, "resumeAs"}, {carrier.MethodResume, "resume"},
		{carrier.MethodAttach, "recover"}, {carrier.MethodStart, "start"}, {carrier.MethodDeliver, "deliver"}, {"conformance.", "crash"}} {
		if strings.Contains(msg, m.method) {
			return exploreOpClauses[m.op]
		}
	}
	return []string{"I-WIRE-10"}
}
