package kernelkit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/loom-kernel/loom-conform/goldens"
	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/carrier"
	"github.com/loom-kernel/loom-conform/wire/clients"
)

// reference runs case k in process as execution execID on a fresh reference kernel of the
// conformance profile (Wave 2 on: a script lists the features it uses; the conformance extension
// wired: its crashes and held clock), the run a wire drive of the same script is compared with.
func reference(ctx context.Context, execID string, k clients.Case, clock bool) (carrier.Run, error) {
	cfg := carrier.ProfileConfig(memory.NewEventStore(), true, carrier.ProfileRings(), kernel.Hooks{})
	cfg.Features = carrier.Wave2()
	var opts carrier.Options
	carrier.WithConformance(&cfg, &opts)
	rt, err := kernel.New(cfg)
	if err != nil {
		return carrier.Run{}, err
	}
	return carrier.RunInProcessWith(ctx, rt, cfg.Store, opts.Conformance, clock, execID, k.Script, k.Driver)
}

// comparison is what a drive of a case holds each execution to in the in-process run of the same
// script.
type comparison int

const (
	// wholeRun compares the log and the folded state as values (envelope ids and timestamps, and
	// the state's startedAt and updatedAt, masked): everything the reference kernel writes,
	// its choices included.
	wholeRun comparison = iota
	// upToChoices is wholeRun after the kernel's run is aligned with the reference's form of every
	// freedom the case touches (freedoms.go): a kernel that makes another of those choices passes.
	upToChoices
	// outcomeOnly compares how each execution ends — its status and the flow's _input, _output
	// and _error — and not the log, so a kernel that records the same run in another form the
	// spec allows (a choice, docs/interpretations.md) passes.
	outcomeOnly
)

// driveCase drives case k over the wire and holds every execution it ran (and each one its drive
// actions drove) to the in-process run of the same script, as cmp says. It skips, naming why, a
// case whose Wave 2 features or conformance methods the kernel's handshake does not list.
func driveCase(ctx context.Context, c *Case, k clients.Case, cmp comparison) (carrier.Run, error) {
	hs, err := handshake(ctx, c)
	if err != nil {
		return carrier.Run{}, err
	}
	var missing []string
	for _, f := range clients.Features(k.Script, k.Driver) {
		if !slices.ContainsFunc(hs.Syscalls, func(s manifest.Syscall) bool { return s.Feature == f }) {
			missing = append(missing, "feature "+f)
		}
	}
	ext := clients.Extension(k.Script, k.Driver)
	for _, m := range ext {
		if !serves(hs, m) {
			missing = append(missing, m)
		}
	}
	if len(missing) > 0 {
		return carrier.Run{}, c.Skip("%s needs %s, which the kernel's handshake does not advertise (docs/wire.md: optional)", k.Name, strings.Join(missing, ", "))
	}
	clock := slices.Contains(ext, carrier.MethodConformanceClock)
	id := c.ExecID(k.Name)
	want, err := reference(ctx, id, k, clock)
	if err != nil {
		return carrier.Run{}, c.Unknown("the in-process reference run of %s: %v", k.Name, err)
	}
	got, err := carrier.DriveWireWith(ctx, c.Store, id, k.Script, k.Driver, carrier.DriveOptions{Crashes: want.Crashes, Clock: clock})
	if err != nil {
		return got, c.Failf("drive", k.Name, err, "the flow script driven to its end (and, finished, replayed read-only)")
	}
	if len(got.Driven) != len(want.Driven) {
		return got, c.Failf("drive", k.Name, fmt.Sprintf("%d executions driven", 1+len(got.Driven)), fmt.Sprintf("%d", 1+len(want.Driven)))
	}
	diff := diffRun
	switch cmp {
	case upToChoices:
		if touched := touchedFreedoms(k); len(touched) > 0 {
			alignChoices(k, &want, &got)
			diff = func(c *Case, k clients.Case, want, got carrier.Run) error {
				return diffRunNoted(c, k, want, got, " (compared up to the choices "+strings.Join(touched, ", ")+
					": where the kernel's run differs from the reference's only by one of them, it is shown in the reference's form)")
			}
		}
	case outcomeOnly:
		diff = diffOutcome
	}
	for i, w := range append([]carrier.Run{want}, want.Driven...) {
		g := append([]carrier.Run{got}, got.Driven...)[i]
		if err := diff(c, k, w, g); err != nil {
			return got, err
		}
	}
	return got, nil
}

// diffRun compares one execution of a wire run with the in-process one, as values: the first
// divergent envelope (or the state), with the flow-script statement or driver action that wrote it.
func diffRun(c *Case, k clients.Case, want, got carrier.Run) error {
	return diffRunNoted(c, k, want, got, "")
}

// diffRunNoted is diffRun with a note on how the runs were compared.
func diffRunNoted(c *Case, k clients.Case, want, got carrier.Run, note string) error {
	ws, err := normState(want.State)
	if err != nil {
		return c.Unknown("the in-process reference run of %s: %v", k.Name, err)
	}
	gs, err := normState(got.State)
	if err != nil {
		return c.Failf(carrier.MethodGetState, got.ExecutionID, err, "a folded state")
	}
	d := goldens.DiffRuns(normLog(want.Log), normLog(got.Log), ws, gs, goldens.DiffOptions{})
	if d == nil {
		return nil
	}
	by := ""
	if d.Where == "log" {
		env := pick(want.Log, got.Log, d.Index)
		by = fmt.Sprintf(" (written for %s)", producedBy(k, env))
	}
	return c.Failf("drive", k.Name+" "+got.ExecutionID, "first divergence from the in-process run"+by+note+": "+d.String(), "the in-process run's log and folded state")
}

// diffOutcome compares one execution of a wire run with the in-process one by its outcome: the
// status and the flow's _input, _output and _error, as values.
func diffOutcome(c *Case, k clients.Case, want, got carrier.Run) error {
	w, err := outcome(want.State)
	if err != nil {
		return c.Unknown("the in-process reference run of %s: %v", k.Name, err)
	}
	g, err := outcome(got.State)
	if err != nil {
		return c.Failf(carrier.MethodGetState, got.ExecutionID, err, "a folded state")
	}
	return c.Diff(carrier.MethodGetState, k.Name+" "+got.ExecutionID+" (status, _input, _output, _error)", w, g)
}

// outcome is a folded state's status and the flow's _input, _output and _error, numbers in one form.
func outcome(s string) (map[string]any, error) {
	var st struct {
		Status    string                     `json:"status"`
		Variables map[string]json.RawMessage `json:"variables"`
	}
	if err := json.Unmarshal([]byte(s), &st); err != nil {
		return nil, fmt.Errorf("state is not a JSON object: %v", err)
	}
	out := map[string]any{"status": st.Status}
	for _, v := range []string{fold.VarInput, fold.VarOutput, fold.VarError} {
		if raw, ok := st.Variables[v]; ok {
			out[v] = json.RawMessage(normValue(raw)) // shown as the value it is, not as text
		}
	}
	return out, nil
}

// pick is envelope i of want, or of got when want is shorter.
func pick(want, got []spi.Envelope, i int) spi.Envelope {
	if i < len(want) {
		return want[i]
	}
	if i < len(got) {
		return got[i]
	}
	return spi.Envelope{}
}

// normLog writes each envelope's payload and metadata with every number in one form
// (spi.NormalizeNumber), so a kernel is held to the values its JSON text holds, never to the
// text: spacing, key order and a number's spelling (1.0 for 1) are its own.
func normLog(log []spi.Envelope) []spi.Envelope {
	out := make([]spi.Envelope, len(log))
	for i, e := range log {
		e.Payload = normValue(e.Payload)
		if len(e.Metadata) > 0 {
			e.Metadata = normValue(e.Metadata)
		}
		out[i] = e
	}
	return out
}

// normState is a folded state's value with its clock fields (startedAt, updatedAt) cleared and
// its numbers in one form.
func normState(s string) ([]byte, error) {
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("state is not a JSON object: %v", err)
	}
	m["startedAt"], m["updatedAt"] = nil, nil
	return json.Marshal(normNumbers(m))
}

func normValue(raw json.RawMessage) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return raw
	}
	b, err := json.Marshal(normNumbers(v))
	if err != nil {
		return raw
	}
	return b
}

func normNumbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normNumbers(e)
		}
	case json.Number:
		return json.Number(spi.NormalizeNumber(string(x)))
	}
	return v
}

// producedBy names what wrote an envelope of a run of case k: the flow-script statement (its path
// and text) whose step id, decision id, gate or event type the envelope carries, or the driver
// action.
func producedBy(k clients.Case, e spi.Envelope) string {
	var p struct {
		StepID string `json:"stepId"`
		ID     string `json:"id"`
		On     string `json:"on"`
	}
	_ = json.Unmarshal(e.Payload, &p)
	action := func(do string) string {
		for i, a := range k.Driver.Actions {
			if a.Do == do {
				return fmt.Sprintf("the driver's actions[%d] %s", i, do)
			}
		}
		return "the driver's " + do
	}
	match := func(st flowscript.Stmt) bool {
		switch e.EventType {
		case manifest.StepStarted, manifest.StepCompleted, manifest.StepFailed, manifest.StepRetrying, manifest.StepCancelled,
			manifest.EffectDenied, manifest.EgressDenied, manifest.ResourceMetered, manifest.QuotaExceeded, manifest.EffectInDoubt:
			return (st.Op == "execute" || st.Op == "run") && st.ID == p.StepID
		case manifest.DecisionRecorded:
			return st.Op == "decide" && st.ID == p.ID || st.Op == "emit" && st.EventType == e.EventType
		case manifest.ExecutionSuspended:
			switch p.On {
			case manifest.TimerFired:
				return st.Op == "sleep" || st.Op == "sleepUntil" || st.Op == "suspend" && st.TimeoutMs > 0
			case manifest.MessageConsumed:
				return st.Op == "receive" || st.Op == "select"
			}
			return st.Op == "suspend" && st.On == p.On || st.Op == "execute" && st.Kind == "human" && st.ID == p.On
		case manifest.ExecutionContinued:
			return st.Op == "continueAsNew"
		}
		return (st.Op == "emit" || st.Op == "stream" || st.Op == "ui") && st.EventType == e.EventType
	}
	switch e.EventType {
	case manifest.ExecutionStarted:
		return action("start")
	case manifest.ExecutionCompleted, manifest.ExecutionFailed:
		return "the script's end (execution.complete)"
	case manifest.ExecutionCancelled:
		return action("cancel")
	case manifest.ExecutionMigrated:
		return action("resumeAs")
	case manifest.ExecutionRecovered:
		return action("recover")
	case manifest.MessageConsumed:
		return action("deliver")
	}
	scripts := []*flowscript.Script{k.Script}
	for _, a := range k.Driver.Actions {
		if a.Script != nil {
			scripts = append(scripts, a.Script)
		}
	}
	for si, s := range scripts {
		root := "body"
		if si > 0 {
			root = "resumeAs flow " + s.ID + " body"
		}
		if path, st, ok := findStmt(root, s.Body, match); ok {
			text, _ := json.Marshal(st)
			if len(text) > 200 {
				text = append(text[:200], "…"...)
			}
			return path + " " + string(text)
		}
	}
	for i, a := range k.Driver.Actions {
		if a.EventType == e.EventType || a.Do == "fireTimers" && e.EventType == manifest.TimerFired {
			return fmt.Sprintf("the driver's actions[%d] %s", i, a.Do)
		}
	}
	if e.EventType == manifest.ExecutionResumed {
		return "the driver's resume"
	}
	return "no statement of the script (a kernel's own envelope)"
}

// findStmt walks a body (branches included) for the first statement match accepts.
func findStmt(path string, body []flowscript.Stmt, match func(flowscript.Stmt) bool) (string, flowscript.Stmt, bool) {
	for i, st := range body {
		at := fmt.Sprintf("%s[%d]", path, i)
		if match(st) {
			return at, st, true
		}
		for j, b := range st.Branches {
			if p, s, ok := findStmt(fmt.Sprintf("%s.branches[%d]", at, j), b, match); ok {
				return p, s, true
			}
		}
	}
	return "", flowscript.Stmt{}, false
}
