package carrier

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/loom-kernel/loom-conform/goldens"
	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/clients"
)

// KernelCase is what a kernel check runs against: a client of the kernel's wire ABI.
type KernelCase = kits.Case[*Client]

// KernelKit is the conformance kit of a kernel served over the wire ABI (`certify kernel`). It
// assumes the kernel is served with the conformance profile (docs/wire.md): the fake tools, the
// rings and the token budget of ProfileConfig.
func KernelKit() kits.Kit[*Client] {
	type C = kits.Check[*Client]
	return kits.Kit[*Client]{Name: "kernel", Seam: "", Checks: []C{
		{ID: "kernel/handshake", Clauses: []string{"A26.carrier.methods", "A26.wire.projection", "A26.wire.derived", "A26.wire.partition", "A26.wire.own-version", "S4.v1_24.wire-unchanged", "I-WIRE-23"}, Level: spec.Must,
			Doc: "wire.handshake states the wire, kernel ABI and event schema versions, a syscall table from the manifest's, and exactly the methods derived from it", Run: kkHandshake},
		{ID: "kernel/acceptance", Clauses: []string{"A26.acceptance", "A26.carrier.methods", "I-WIRE-2", "I-WIRE-8", "I-WIRE-17"}, Level: spec.Must,
			Doc: "each of the wire's own flow scripts (wire/clients/scripts), driven over the wire (start with a budget of its own, suspend, resume, re-drive, complete, replay), leaves the log and folded state of its in-process run", Run: kkAcceptance},
		{ID: "kernel/goldens", Clauses: []string{"A26.acceptance", "A26.wire.kernel-authoritative", "I-WIRE-10", "I-WIRE-11", "I-WIRE-15", "I-WIRE-16", "I-WIRE-18", "I-WIRE-19", "I-WIRE-20", "I-WIRE-21"}, Level: spec.Must,
			Doc: "every golden flow script the wire can express (WireGoldens: starts, resumes, cancels, resumeAs, budgets, the full execute and decide arguments; the Wave 2 ones — deliver, continueAsNew and drive — when the handshake advertises their features), driven over the wire, leaves the log and folded state of its in-process run; a difference is reported as the first divergence", Run: kkGoldens},
		{ID: "kernel/served-not-rerun", Clauses: []string{"A26.wire.kernel-authoritative", "S2.execute.served-not-rerun"}, Level: spec.Must,
			Doc: "re-driving after a resume and replaying a finished execution serve every completed step from the log: each step starts once", Run: kkServedNotRerun},
		{ID: "kernel/no-forged-facts", Clauses: []string{"A26.wire.no-new-facts", "A26.wire.rings-kernel-side", "S5.emit.userspace-kernel-refused"}, Level: spec.MustNot,
			Doc: "a driver emitting EXECUTION_COMPLETED, STEP_COMPLETED, a DECISION_RECORDED for a kernel id, or an envelope field (a flowEmit stamp) is refused with nothing appended", Run: kkForgedFacts},
		{ID: "kernel/rings", Clauses: []string{"A26.wire.rings-kernel-side", "I-WIRE-9"}, Level: spec.Must,
			Doc: "an unauthorized tool, denied egress, an invalid output and a spent budget are refused kernel-side with EFFECT_DENIED, EGRESS_DENIED, the validation channel and QUOTA_EXCEEDED, and the effect does not complete", Run: kkRings},
		{ID: "kernel/fencing", Clauses: []string{"A26.wire.kernel-authoritative", "I-WIRE-3"}, Level: spec.Must,
			Doc: "a second driver cannot attach to or call into an execution another driver holds; nothing it sends is appended", Run: kkFencing},
		{ID: "kernel/resume-parks-visibly", Clauses: []string{"A26.wire.kernel-authoritative", "I-WIRE-5"}, Level: spec.Must,
			Doc: "a resume with no driver is recorded, getState shows the run awaiting a driver, and a driver attaching later re-drives it to the end", Run: kkResumeParks},
		{ID: "kernel/reconnect", Clauses: []string{"A26.wire.kernel-authoritative", "I-WIRE-4"}, Level: spec.Must,
			Doc: "a driver that reconnects with its token mid-run re-drives from the top, is served what the run already answered, and finishes with each step run once", Run: kkReconnect},
		{ID: "kernel/bad-input", Clauses: []string{"I-WIRE-6", "I-WIRE-1"}, Level: spec.Must,
			Doc: "malformed JSON, a batch, an unknown method, ill-typed params and an unknown execution get their typed errors and append nothing", Run: kkBadInput},
		{ID: "kernel/stream-form", Clauses: []string{"A26.wire.partition", "I-WIRE-7"}, Level: spec.Must,
			Doc: "a channel syscall in its streaming form (NDJSON) appends one event per chunk, acknowledges each, and counts them in its response", Run: kkStream},
	}}
}

func asCall(err error) (*CallError, bool) {
	var ce *CallError
	ok := errors.As(err, &ce)
	return ce, ok
}

func kkHandshake(ctx context.Context, c *KernelCase) error {
	var hs Handshake
	if err := c.Store.Call(ctx, MethodHandshake, map[string]any{}, &hs); err != nil {
		return c.Failf("wire.handshake", "", err, "a handshake")
	}
	if hs.Wire != manifest.WireAbiVersion || hs.KernelAbi != manifest.KernelAbiVersion || hs.EventSchema != manifest.EventSchemaVersion {
		return c.Failf("wire.handshake", "versions", fmt.Sprintf("wire %s kernelAbi %s eventSchema %s", hs.Wire, hs.KernelAbi, hs.EventSchema),
			fmt.Sprintf("wire %s kernelAbi %s eventSchema %s", manifest.WireAbiVersion, manifest.KernelAbiVersion, manifest.EventSchemaVersion))
	}
	var table []manifest.Syscall
	for _, s := range hs.Syscalls {
		ref, ok := manifest.LookupSyscall(s.Name)
		if !ok {
			return c.Failf("wire.handshake", "syscalls", fmt.Sprintf("syscall %q", s.Name), "only syscalls of the manifest's table")
		}
		if s != ref {
			return c.Diff("wire.handshake", "syscalls."+s.Name, ref, s)
		}
		table = append(table, ref)
	}
	for _, s := range manifest.Syscalls() {
		if s.Feature == "" && !containsSyscall(table, s.Name) {
			return c.Failf("wire.handshake", "syscalls", fmt.Sprintf("no %q", s.Name), "every syscall without a feature flag")
		}
	}
	return c.Diff("wire.handshake", "methods", DeriveMethods(table), hs.Methods)
}

func containsSyscall(t []manifest.Syscall, name string) bool {
	for _, s := range t {
		if s.Name == name {
			return true
		}
	}
	return false
}

// reference runs flow script s with driver d in process on the reference kernel of the
// conformance profile.
func reference(ctx context.Context, execID string, s *flowscript.Script, d *flowscript.Driver) (Run, error) {
	store := memory.NewEventStore()
	cfg := ProfileConfig(store, true, ProfileRings(), kernel.Hooks{})
	cfg.Features = Wave2() // a script lists the features it uses; the others stay unused
	rt, err := kernel.New(cfg)
	if err != nil {
		return Run{}, err
	}
	return RunInProcess(ctx, rt, store, execID, s, d)
}

// Normalize drops what a kernel may choose freely (envelope ids, timestamps) from a run, so runs
// of different kernels compare: the log as [{eventType, sequence, workflowId, payload, metadata}]
// and the state with startedAt/updatedAt cleared.
func Normalize(r Run) (log []map[string]any, state map[string]any, err error) {
	for _, e := range r.Log {
		var p, m any
		_ = json.Unmarshal(e.Payload, &p)
		if len(e.Metadata) > 0 {
			_ = json.Unmarshal(e.Metadata, &m)
		}
		log = append(log, map[string]any{"eventType": e.EventType, "sequence": e.Sequence, "workflowId": e.WorkflowID, "payload": p, "metadata": m})
	}
	if err := json.Unmarshal([]byte(r.State), &state); err != nil {
		return nil, nil, fmt.Errorf("state is not JSON: %v", err)
	}
	state["startedAt"], state["updatedAt"] = nil, nil
	return log, state, nil
}

func kkAcceptance(ctx context.Context, c *KernelCase) error {
	cases, err := clients.Scripts()
	if err != nil {
		return c.Unknown("%v", err)
	}
	return driveCases(ctx, c, "accept-", cases)
}

// driveCases drives each case over the wire and compares its log and folded state with the
// in-process reference run of the same script: the first divergence (goldens.DiffRuns, envelope
// ids and timestamps masked; the state's startedAt/updatedAt cleared) fails the check.
func driveCases(ctx context.Context, c *KernelCase, prefix string, cases []clients.Case) error {
	for _, k := range cases {
		id := c.ExecID(prefix + k.Name)
		want, err := reference(ctx, id, k.Script, k.Driver)
		if err != nil {
			return c.Unknown("reference run of %s: %v", k.Name, err)
		}
		got, err := DriveWire(ctx, c.Store, id, k.Script, k.Driver)
		if err != nil {
			return c.Failf("drive", k.Name, err, "the flow script driven to its end and replayed")
		}
		if len(got.Driven) != len(want.Driven) {
			return c.Failf("drive", k.Name, fmt.Sprintf("%d executions driven", 1+len(got.Driven)), fmt.Sprintf("%d", 1+len(want.Driven)))
		}
		for i, w := range append([]Run{want}, want.Driven...) {
			g := append([]Run{got}, got.Driven...)[i]
			if err := diffRun(c, k.Name, w, g); err != nil {
				return err
			}
		}
	}
	return nil
}

// diffRun compares one execution of a wire run with the in-process one: the first divergence
// fails the check.
func diffRun(c *KernelCase, name string, want, got Run) error {
	ws, err := normState(want.State)
	if err != nil {
		return c.Unknown("reference run of %s: %v", name, err)
	}
	gs, err := normState(got.State)
	if err != nil {
		return c.Failf("execution.getState", name, err, "a folded state")
	}
	if d := goldens.DiffRuns(want.Log, got.Log, ws, gs, goldens.DiffOptions{}); d != nil {
		return c.Failf("drive", name+" "+got.ExecutionID, "first divergence from the in-process run: "+d.String(), "the in-process run's log and folded state")
	}
	return nil
}

// Advertised keeps the cases whose Wave 2 features the handshake advertises (a syscall of the
// feature in its table): a kernel need not have them, and one that has them is held to them
// (I-WIRE-21).
func Advertised(cases []clients.Case, hs Handshake) []clients.Case {
	on := map[string]bool{}
	for _, s := range hs.Syscalls {
		on[s.Feature] = true
	}
	var out []clients.Case
	for _, k := range cases {
		if !slices.ContainsFunc(clients.Features(k.Script, k.Driver), func(f string) bool { return !on[f] }) {
			out = append(out, k)
		}
	}
	return out
}

// normState clears what a kernel's clock chooses (startedAt, updatedAt) from a canonical state.
func normState(s string) ([]byte, error) {
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, fmt.Errorf("state is not JSON: %v", err)
	}
	m["startedAt"], m["updatedAt"] = nil, nil
	return json.Marshal(m)
}

// WireGoldens splits the golden corpus (built into the binary) into the scripts the wire can
// drive and, for the others, why not (clients.Inexpressible), keyed by golden name.
func WireGoldens() (drivable []clients.Case, not map[string]string, err error) {
	all, err := clients.LoadFS(goldens.CorpusScripts(), "corpus")
	if err != nil {
		return nil, nil, err
	}
	not = map[string]string{}
	for _, k := range all {
		if why := clients.Inexpressible(k.Script, k.Driver); why != "" {
			not[k.Name] = why
			continue
		}
		drivable = append(drivable, k)
	}
	return drivable, not, nil
}

func kkGoldens(ctx context.Context, c *KernelCase) error {
	all, _, err := WireGoldens()
	if err != nil {
		return c.Unknown("the golden corpus: %v", err)
	}
	var hs Handshake
	if err := c.Store.Call(ctx, MethodHandshake, map[string]any{}, &hs); err != nil {
		return c.Failf("wire.handshake", "", err, "a handshake")
	}
	cases := Advertised(all, hs)
	if len(cases) == 0 {
		return c.Unknown("no golden flow script is drivable over the wire")
	}
	return driveCases(ctx, c, "golden-", cases)
}

func stepStarts(log []spi.Envelope) map[string]int {
	n := map[string]int{}
	for _, e := range log {
		if e.EventType == manifest.StepStarted {
			var p struct {
				StepID string `json:"stepId"`
			}
			_ = json.Unmarshal(e.Payload, &p)
			n[p.StepID]++
		}
	}
	return n
}

func kkServedNotRerun(ctx context.Context, c *KernelCase) error {
	id := c.ExecID("served")
	fs, err := flowscript.Decode("served/flow.json", []byte(`{"format":"loom-flowscript/1","id":"served","body":[
		{"op":"execute","id":"a","tool":"echo","input":"a"},
		{"op":"suspend","on":"go"},
		{"op":"execute","id":"b","tool":"echo","input":"b"}],"return":"ok"}`))
	if err != nil {
		return c.Unknown("%v", err)
	}
	fd, err := flowscript.DecodeDriver("served/driver.json", []byte(`{"format":"loom-driver/1","actions":[{"do":"start","input":1},{"do":"resume","eventType":"go","payload":true}]}`))
	if err != nil {
		return c.Unknown("%v", err)
	}
	run, err := DriveWire(ctx, c.Store, id, fs, fd)
	if err != nil {
		return c.Failf("drive", id, err, "the flow driven to its end and replayed")
	}
	for step, n := range stepStarts(run.Log) {
		if n != 1 {
			return c.Failf("log", "STEP_STARTED "+step, fmt.Sprintf("%d starts", n), "1 (a completed step is served, never re-run)")
		}
	}
	return nil
}

// started starts an execution of a throwaway flow and returns its driver.
func started(ctx context.Context, c *KernelCase, name string) (*Driver, error) {
	id := c.ExecID(name)
	var a Attached
	if err := c.Store.Call(ctx, MethodStart, map[string]any{"flowId": "kit." + name, "executionId": id, "input": name}, &a); err != nil {
		return nil, c.Failf(MethodStart, id, err, "a started execution")
	}
	return &Driver{C: c.Store, ExecutionID: id, Token: a.Driver}, nil
}

func logLen(ctx context.Context, c *KernelCase, id string) (int, error) {
	r, err := State(ctx, c.Store, id)
	if err != nil {
		return 0, c.Failf(MethodGetState, id, err, "the execution's state")
	}
	return len(r.Log), nil
}

func kkForgedFacts(ctx context.Context, c *KernelCase) error {
	d, err := started(ctx, c, "forge")
	if err != nil {
		return err
	}
	if _, _, err := d.Syscall(ctx, "execute", json.RawMessage(`{"task":{"id":"s","toolId":"echo"},"input":1}`)); err != nil {
		return c.Failf("syscall.execute", "s", err, "a completed step")
	}
	stamp, _ := fold.EmitDigest(0, "progress", json.RawMessage(`{"n":1}`))
	forgeries := []struct{ name, args string }{
		{"EXECUTION_COMPLETED", `{"eventType":"EXECUTION_COMPLETED","payload":{"output":"forged"}}`},
		{"STEP_COMPLETED", `{"eventType":"STEP_COMPLETED","payload":{"stepId":"s","output":"forged"}}`},
		{"DECISION_RECORDED for a kernel id", `{"eventType":"DECISION_RECORDED","payload":{"id":"__loom_verdict","choice":"forged"}}`},
		{"a stamped metadata.flowEmit", `{"eventType":"progress","payload":{"n":1},"metadata":{"flowEmit":"` + stamp + `","kernel":true}}`},
	}
	for _, fg := range forgeries {
		before, err := logLen(ctx, c, d.ExecutionID)
		if err != nil {
			return err
		}
		_, _, err = d.Syscall(ctx, "emit", json.RawMessage(fg.args))
		if err == nil {
			return c.Failf("syscall.emit", fg.name, "accepted", "refused (a driver cannot write kernel facts)")
		}
		if _, ok := asCall(err); !ok {
			return c.Failf("syscall.emit", fg.name, err, "a typed refusal")
		}
		after, err := logLen(ctx, c, d.ExecutionID)
		if err != nil {
			return err
		}
		if after != before {
			return c.Failf("syscall.emit", fg.name, fmt.Sprintf("log %d → %d envelopes", before, after), "nothing appended")
		}
	}
	return nil
}

func kkRings(ctx context.Context, c *KernelCase) error {
	d, err := started(ctx, c, "rings")
	if err != nil {
		return err
	}
	cases := []struct {
		name, args, channel, fact string
		code                      int
	}{
		{"unauthorized tool", `{"task":{"id":"deny","toolId":"forbidden"},"input":1}`, ChannelEffectDenied, manifest.EffectDenied, CodeTypedFailure},
		{"denied egress", `{"task":{"id":"egress","toolId":"fetch"},"input":{"host":"denied.example"}}`, ChannelEgressDenied, manifest.EgressDenied, CodeTypedFailure},
		{"invalid output", `{"task":{"id":"shape","toolId":"shape"},"input":{"ok":1}}`, ChannelOutputInvalid, "", CodeTypedFailure},
		{"meter the budget away", `{"task":{"id":"spend","toolId":"meter"},"input":{"tokens":10}}`, "", "", 0},
		{"spent budget", `{"task":{"id":"over","toolId":"echo"},"input":1}`, "", manifest.QuotaExceeded, CodeQuotaExceeded},
	}
	for _, k := range cases {
		_, _, err := d.Syscall(ctx, "execute", json.RawMessage(k.args))
		if k.code == 0 {
			if err != nil {
				return c.Failf("syscall.execute", k.name, err, "success")
			}
			continue
		}
		ce, ok := asCall(err)
		if !ok || ce.RPC.Code != k.code {
			return c.Failf("syscall.execute", k.name, err, fmt.Sprintf("error %d", k.code))
		}
		if k.channel != "" {
			var dd struct {
				Channel string `json:"channel"`
			}
			_ = json.Unmarshal(ce.RPC.Data, &dd)
			if dd.Channel != k.channel {
				return c.Failf("syscall.execute", k.name, "channel "+dd.Channel, "channel "+k.channel)
			}
		}
	}
	run, err := State(ctx, c.Store, d.ExecutionID)
	if err != nil {
		return c.Failf(MethodGetState, d.ExecutionID, err, "the execution's state")
	}
	seen := map[string]bool{}
	for _, e := range run.Log {
		seen[e.EventType] = true
		if e.EventType == manifest.StepCompleted {
			var p struct {
				StepID string `json:"stepId"`
			}
			_ = json.Unmarshal(e.Payload, &p)
			if p.StepID != "spend" {
				return c.Failf("log", "STEP_COMPLETED "+p.StepID, "the refused effect completed", "no completion for a refused effect")
			}
		}
	}
	for _, fact := range []string{manifest.EffectDenied, manifest.EgressDenied, manifest.QuotaExceeded} {
		if !seen[fact] {
			return c.Failf("log", fact, "absent", fact+" recorded by the ring")
		}
	}
	return nil
}

func kkFencing(ctx context.Context, c *KernelCase) error {
	d, err := started(ctx, c, "fence")
	if err != nil {
		return err
	}
	before, err := logLen(ctx, c, d.ExecutionID)
	if err != nil {
		return err
	}
	var a Attached
	err = c.Store.Call(ctx, MethodAttach, map[string]any{"executionId": d.ExecutionID}, &a)
	if ce, ok := asCall(err); !ok || ce.RPC.Code != CodeFenced {
		return c.Failf(MethodAttach, "a second driver", show(err, a.Driver), fmt.Sprintf("error %d (fenced)", CodeFenced))
	}
	intruder := &Driver{C: c.Store, ExecutionID: d.ExecutionID, Token: "not-the-driver"}
	_, _, err = intruder.Syscall(ctx, "execute", json.RawMessage(`{"task":{"id":"x","toolId":"echo"},"input":1}`))
	if ce, ok := asCall(err); !ok || ce.RPC.Code != CodeFenced {
		return c.Failf("syscall.execute", "another driver's token", show(err, ""), fmt.Sprintf("error %d (fenced)", CodeFenced))
	}
	after, err := logLen(ctx, c, d.ExecutionID)
	if err != nil {
		return err
	}
	if after != before {
		return c.Failf("log", d.ExecutionID, fmt.Sprintf("%d → %d envelopes", before, after), "nothing appended for a fenced driver")
	}
	if _, _, err := d.Syscall(ctx, "execute", json.RawMessage(`{"task":{"id":"y","toolId":"echo"},"input":1}`)); err != nil {
		return c.Failf("syscall.execute", "the holder after the refusals", err, "success")
	}
	return nil
}

func show(err error, token string) string {
	if err != nil {
		return err.Error()
	}
	if token != "" {
		return "attached with a driver token"
	}
	return "accepted"
}

func kkResumeParks(ctx context.Context, c *KernelCase) error {
	d, err := started(ctx, c, "park")
	if err != nil {
		return err
	}
	if _, _, err := d.Syscall(ctx, "execute", json.RawMessage(`{"task":{"id":"a","toolId":"echo"},"input":1}`)); err != nil {
		return c.Failf("syscall.execute", "a", err, "success")
	}
	if _, parked, err := d.Syscall(ctx, "suspend", json.RawMessage(`{"on":"approve"}`)); err != nil || !parked {
		return c.Failf("syscall.suspend", "approve", show(err, ""), "parked")
	}
	var r Attached
	if err := c.Store.Call(ctx, MethodResume, map[string]any{"executionId": d.ExecutionID, "eventType": "approve", "payload": map[string]any{"ok": true}}, &r); err != nil {
		return c.Failf(MethodResume, "no driver", err, "accepted")
	}
	var st stateResult
	if err := c.Store.Call(ctx, MethodGetState, map[string]any{"executionId": d.ExecutionID}, &st); err != nil {
		return c.Failf(MethodGetState, d.ExecutionID, err, "the state")
	}
	if st.Status != fold.StatusRunning || !st.AwaitingDriver || st.Driver != "none" {
		return c.Failf(MethodGetState, "after a resume with no driver", fmt.Sprintf("status %s driver %s awaitingDriver %v", st.Status, st.Driver, st.AwaitingDriver),
			"status running driver none awaitingDriver true")
	}
	if !strings.Contains(st.Canonical, `"_resumePayloads":[{"ok":true}]`) {
		return c.Failf(MethodGetState, "variables._resumePayloads", st.Canonical, `the recorded answer [{"ok":true}]`)
	}
	var a Attached
	if err := c.Store.Call(ctx, MethodAttach, map[string]any{"executionId": d.ExecutionID}, &a); err != nil {
		return c.Failf(MethodAttach, "the parked run", err, "a driver token")
	}
	d.Token = a.Driver
	if _, _, err := d.Syscall(ctx, "execute", json.RawMessage(`{"task":{"id":"a","toolId":"echo"},"input":1}`)); err != nil {
		return c.Failf("syscall.execute", "a (re-driven)", err, "served")
	}
	v, parked, err := d.Syscall(ctx, "suspend", json.RawMessage(`{"on":"approve"}`))
	if err != nil || parked || !spi.SameJSON(v, json.RawMessage(`{"ok":true}`)) {
		return c.Failf("syscall.suspend", "approve (re-driven)", fmt.Sprintf("value %s parked %v err %v", v, parked, err), `the recorded answer {"ok":true}`)
	}
	var done Attached
	if err := c.Store.Call(ctx, MethodComplete, map[string]any{"executionId": d.ExecutionID, "driver": d.Token, "output": "done"}, &done); err != nil || done.Status != fold.StatusCompleted {
		return c.Failf(MethodComplete, d.ExecutionID, show(err, ""), "completed")
	}
	return nil
}

func kkReconnect(ctx context.Context, c *KernelCase) error {
	d, err := started(ctx, c, "reconnect")
	if err != nil {
		return err
	}
	calls := []string{`{"task":{"id":"a","toolId":"echo"},"input":"a"}`, `{"task":{"id":"b","toolId":"echo"},"input":"b"}`}
	for _, a := range calls {
		if _, _, err := d.Syscall(ctx, "execute", json.RawMessage(a)); err != nil {
			return c.Failf("syscall.execute", a, err, "success")
		}
	}
	var a Attached
	if err := c.Store.Call(ctx, MethodAttach, map[string]any{"executionId": d.ExecutionID, "driver": d.Token}, &a); err != nil {
		return c.Failf(MethodAttach, "reconnect with the token", err, "re-attached")
	}
	d.Token = a.Driver
	for _, x := range append(calls, `{"task":{"id":"c","toolId":"echo"},"input":"c"}`) {
		if _, _, err := d.Syscall(ctx, "execute", json.RawMessage(x)); err != nil {
			return c.Failf("syscall.execute", x+" (re-driven)", err, "served or run")
		}
	}
	var done Attached
	if err := c.Store.Call(ctx, MethodComplete, map[string]any{"executionId": d.ExecutionID, "driver": d.Token, "output": 3}, &done); err != nil || done.Status != fold.StatusCompleted {
		return c.Failf(MethodComplete, d.ExecutionID, show(err, ""), "completed")
	}
	run, err := State(ctx, c.Store, d.ExecutionID)
	if err != nil {
		return c.Failf(MethodGetState, d.ExecutionID, err, "the state")
	}
	if n := stepStarts(run.Log); n["a"] != 1 || n["b"] != 1 || n["c"] != 1 {
		return c.Failf("log", "STEP_STARTED per step", fmt.Sprint(n), "each of a, b, c once")
	}
	return nil
}

func kkBadInput(ctx context.Context, c *KernelCase) error {
	d, err := started(ctx, c, "bad")
	if err != nil {
		return err
	}
	before, err := logLen(ctx, c, d.ExecutionID)
	if err != nil {
		return err
	}
	bodies := []struct {
		name, body string
		code       int
	}{
		{"not JSON", `{"jsonrpc":"2.0",`, CodeParseError},
		{"a batch", `[{"jsonrpc":"2.0","id":1,"method":"wire.handshake"}]`, CodeInvalidRequest},
		{"no jsonrpc member", `{"id":1,"method":"wire.handshake"}`, CodeInvalidRequest},
		{"an unknown method", `{"jsonrpc":"2.0","id":1,"method":"syscall.teleport","params":{}}`, CodeMethodNotFound},
		{"a wrong param type", `{"jsonrpc":"2.0","id":1,"method":"execution.getState","params":{"executionId":7}}`, CodeInvalidParams},
		{"an unknown param", `{"jsonrpc":"2.0","id":1,"method":"execution.start","params":{"flowId":"f","bogus":1}}`, CodeInvalidParams},
		{"an unknown execution", `{"jsonrpc":"2.0","id":1,"method":"execution.getState","params":{"executionId":"` + c.ExecID("nobody") + `"}}`, CodeNotFound},
		{"a syscall arg the syscall does not take", `{"jsonrpc":"2.0","id":1,"method":"syscall.execute","params":{"executionId":"` + d.ExecutionID + `","driver":"` + d.Token + `","args":{"task":{"id":"z","toolId":"echo"},"sequence":9}}}`, CodeInvalidParams},
		{"a syscall for an execution the caller does not drive", `{"jsonrpc":"2.0","id":1,"method":"syscall.execute","params":{"executionId":"` + d.ExecutionID + `","args":{"task":{"id":"z","toolId":"echo"}}}}`, CodeFenced},
	}
	for _, b := range bodies {
		resp, err := c.Store.Post(ctx, "application/json", []byte(b.body))
		if err != nil {
			return c.Failf("POST", b.name, err, fmt.Sprintf("a JSON-RPC error %d", b.code))
		}
		var r Response
		if json.Unmarshal(resp, &r) != nil || r.Error == nil || r.Error.Code != b.code {
			return c.Failf("POST", b.name, string(resp), fmt.Sprintf("a JSON-RPC error %d", b.code))
		}
	}
	after, err := logLen(ctx, c, d.ExecutionID)
	if err != nil {
		return err
	}
	if after != before {
		return c.Failf("log", d.ExecutionID, fmt.Sprintf("%d → %d envelopes", before, after), "nothing appended for bad input")
	}
	return nil
}

func kkStream(ctx context.Context, c *KernelCase) error {
	d, err := started(ctx, c, "stream")
	if err != nil {
		return err
	}
	before, err := logLen(ctx, c, d.ExecutionID)
	if err != nil {
		return err
	}
	req, _ := json.Marshal(Request{JSONRPC: "2.0", ID: json.RawMessage(`1`), Method: "syscall.stream",
		Params: mustJSON(map[string]any{"executionId": d.ExecutionID, "driver": d.Token, "args": map[string]any{"eventType": "token"}})})
	body := string(req) + "\n\"hel\"\n\"lo\"\n{\"done\":true}\n"
	resp, err := c.Store.Post(ctx, ContentTypeStream, []byte(body))
	if err != nil {
		return c.Failf("POST syscall.stream", "3 chunks", err, "acks and a response")
	}
	sc := bufio.NewScanner(bytes.NewReader(resp))
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) != 4 {
		return c.Failf("POST syscall.stream", "3 chunks", fmt.Sprintf("%d lines: %q", len(lines), lines), "3 ack lines and the response")
	}
	for i := 0; i < 3; i++ {
		var a Ack
		if json.Unmarshal([]byte(lines[i]), &a) != nil || a.Chunk != i || a.Error != nil {
			return c.Failf("POST syscall.stream", fmt.Sprintf("ack %d", i), lines[i], fmt.Sprintf(`{"chunk":%d}`, i))
		}
	}
	var r Response
	if json.Unmarshal([]byte(lines[3]), &r) != nil || r.Error != nil || !spi.SameJSON(r.Result, json.RawMessage(`{"chunks":3}`)) {
		return c.Failf("POST syscall.stream", "response", lines[3], `result {"chunks":3}`)
	}
	run, err := State(ctx, c.Store, d.ExecutionID)
	if err != nil {
		return c.Failf(MethodGetState, d.ExecutionID, err, "the state")
	}
	var got []string
	for _, e := range run.Log[before:] {
		got = append(got, e.EventType+" "+string(e.Payload))
	}
	return c.Diff("log", "after the stream", []string{`token "hel"`, `token "lo"`, `token {"done":true}`}, got)
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
