package kernelkit

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/carrier"
	"github.com/loom-kernel/loom-conform/wire/clients"
)

// A freedom is a choice interpretation (docs/interpretations.md) that shapes what a wire run
// writes, with how a required check compares a kernel's run with the reference's regardless of
// it: align rewrites got to the reference's form wherever the two differ only by that choice, so
// the rest of the log is still compared value for value. The same check's recommended assertion
// compares the reference's form itself and cites the freedom's clauses (kitCheck). Each freedom is
// proven: by a broken kernel that makes another legal choice and is certified (BrokenKernels,
// section 10), or, where no kernel of ours makes it, by a run of the reference rewritten to the
// other choice that the alignment takes back (TestFreedomsProven).
type freedom struct {
	clauses []string // the choices; the first names the freedom
	what    string   // what may differ (docs/wire.md)
	how     string   // how it is aligned (docs/wire.md)
	// enforces are the spec clauses the comparison of an aligned run still holds a kernel to
	// where the choice leaves it free elsewhere: the required assertion cites them.
	enforces []string
	touches  func(clients.Case) bool                      // whether a run of the case can exercise the choice
	align    func(k clients.Case, want, got *carrier.Run) // the whole runs: the driven executions in Driven
}

// freedoms are the choices a required check compares a kernel's run up to, in the order they are
// aligned (the emits of a parallel last: they compare what the others left).
func freedoms() []freedom {
	return []freedom{
		{[]string{"I-KERNEL-3"}, "a step's attempt numbers (1, 2, … in the reference), wherever they appear: STEP_STARTED, STEP_RETRYING, EFFECT_INDOUBT, a park's condition, the ids of in-doubt verdicts and effect decisions, the step's frame",
			"renaming the kernel's attempts of each step to the reference's, in the order the step's STEP_STARTED give them, where each run of the step has its own", nil, usesStep, perExecution(alignAttempts)},
		{[]string{"I-KERNEL-7"}, "the gate `sleep`/`sleepUntil` park on (`TIMER_FIRED` wakes any timed park, spec §5)",
			"the park's `on`, when its `wakeAt` is the reference's", nil, uses("sleep", "sleepUntil"), perExecution(alignTimerGate)},
		{[]string{"I-KERNEL-8"}, "a wait's id (`w<k>.<i>` in the reference)",
			"renaming the kernel's ids, in the order its parks name them", nil, uses("receive", "select"), perExecution(alignWaitIDs)},
		{[]string{"I-KERNEL-9"}, "QUOTA_EXCEEDED before or after the refused step's STEP_STARTED",
			"swapping the two back", nil, usesTool(carrier.ToolMeter), perExecution(alignQuotaOrder)},
		{[]string{"I-KERNEL-13"}, "what a degraded typed failure's untyped STEP_FAILED says beside its message (the reference adds `degraded` and `channel`), in the log and in the step's frame",
			"taking the reference's error where every other member agrees", nil, usesTool("fail-typed", "fail-undeclared"), perExecution(alignDegraded)},
		{[]string{"I-KERNEL-15"}, "the `workflowId` of the envelopes written after an `execution.resumeAs` (the running flow's id in the reference, the execution's first flow's in another kernel)",
			"taking the reference's where the kernel's names a flow of the case", nil, acts("resumeAs"), perExecutionOf(alignWorkflowIDs)},
		{[]string{"I-KERNEL-16"}, "the id of the execution `continueAsNew` starts (`<id>.next` in the reference); the driver finds it in `_continuedTo`",
			"renaming the kernel's ids to the reference's, in every log and state", nil, acts("drive"), alignContinuedIDs},
		{[]string{"I-KERNEL-22"}, "the gate a human step parks on (its step id in the reference; the spec fixes `condition.stepId`); the driver's resume addressed to the step id goes to the kernel's gate",
			"renaming the kernel's gate to the step id, as a park's gate and as the answering event's type", nil, humanStep, perExecution(alignHumanGates)},
		{[]string{"I-KERNEL-50"}, "the order of the envelopes an accepted resume appends (APPROVAL_GRANTED, EXECUTION_MIGRATED, a kernel DECISION_RECORDED, the delivered event, EXECUTION_RESUMED), and `metadata: {kernel: true}` on APPROVAL_GRANTED, EXECUTION_MIGRATED, EXECUTION_RECOVERED and the kernel's own DECISION_RECORDED (the spec asks for the stamp only where the fold gates on it)",
			"putting the same envelopes back in the reference's order; taking the reference's metadata where it differs from the kernel's by `kernel` alone", nil,
			acts("resume", "resumeAs", "verdict", "fireTimers", "recover"), perExecution(func(want, got *carrier.Run) {
				alignKernelStamps(want, got)
				alignResumeBatches(want, got)
			})},
		{[]string{"I-KERNEL-5", "I-KERNEL-18"}, "which emits made inside a parallel of two or more branches are stamped (never in the reference; §3's literal rule stamps one when nothing is in flight, and the wire drives branches one after another), and so which of them, and of the same content after the join, a later run serves (I-KERNEL-18: a branch counts a digest from the count when the parallel began)",
			"dropping the kernel's stamps (each its emit's digest) on such emits of the first run, which is compared whole up to them; taking the reference's later runs where the kernel's record the same envelopes but for the script's emits (each stamped with its digest or not); the state's `_flowEmits` and `sequence` then where the kernel's agree with its own log",
			// the first run, compared whole: every emit appended (none served in place of a new
			// one, as a sibling's stamped copy of the same content would be), each stamp a digest
			[]string{"S3.emit.serve-append", "S3.emit.residual", "S3.emit.stamp"},
			emitsInParallel, perExecutionOf(alignParallelEmits)},
	}
}

// enforcedBy are the spec clauses the freedoms case k touches still enforce (freedom.enforces).
func enforcedBy(k clients.Case) []string {
	var out []string
	for _, f := range freedoms() {
		if f.touches(k) {
			for _, c := range f.enforces {
				if !slices.Contains(out, c) {
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// touchedFreedoms are the clauses of the freedoms a run of case k can exercise.
func touchedFreedoms(k clients.Case) []string {
	var out []string
	for _, f := range freedoms() {
		if f.touches(k) {
			out = append(out, f.clauses...)
		}
	}
	return out
}

// alignChoices rewrites got (the whole run, its driven executions included) to the reference's
// form of every freedom case k touches.
func alignChoices(k clients.Case, want, got *carrier.Run) {
	for _, f := range freedoms() {
		if f.touches(k) {
			f.align(k, want, got)
		}
	}
}

// perExecution applies align to the run and to each execution its drive actions drove.
func perExecution(align func(want, got *carrier.Run)) func(k clients.Case, want, got *carrier.Run) {
	return perExecutionOf(func(_ clients.Case, want, got *carrier.Run) { align(want, got) })
}

// perExecutionOf is perExecution of an alignment that reads the case.
func perExecutionOf(align func(k clients.Case, want, got *carrier.Run)) func(k clients.Case, want, got *carrier.Run) {
	return func(k clients.Case, want, got *carrier.Run) {
		align(k, want, got)
		for i := range min(len(want.Driven), len(got.Driven)) {
			align(k, &want.Driven[i], &got.Driven[i])
		}
	}
}

func uses(ops ...string) func(clients.Case) bool {
	return func(k clients.Case) bool {
		return stmtIn(k.Script.Body, func(st flowscript.Stmt) bool { return slices.Contains(ops, st.Op) })
	}
}

func acts(dos ...string) func(clients.Case) bool {
	return func(k clients.Case) bool {
		return slices.ContainsFunc(k.Driver.Actions, func(a flowscript.DriverAction) bool { return slices.Contains(dos, a.Do) })
	}
}

func humanStep(k clients.Case) bool {
	return stmtIn(k.Script.Body, func(st flowscript.Stmt) bool { return st.Op == "execute" && st.Kind == "human" })
}

func usesTool(tools ...string) func(clients.Case) bool {
	return func(k clients.Case) bool {
		return stmtIn(k.Script.Body, func(st flowscript.Stmt) bool { return slices.Contains(tools, st.Tool) })
	}
}

// alignTimerGate: a timed park the reference records on TIMER_FIRED may be recorded on another
// gate with the same wakeAt (I-KERNEL-7); TIMER_FIRED wakes either (spec §5).
func alignTimerGate(want, got *carrier.Run) {
	gate := func(raw json.RawMessage) (string, json.RawMessage, bool) {
		var on struct {
			On     string          `json:"on"`
			WakeAt json.RawMessage `json:"wakeAt"`
		}
		if json.Unmarshal(raw, &on) != nil || len(on.WakeAt) == 0 {
			return "", nil, false
		}
		return on.On, on.WakeAt, true
	}
	retarget := func(w, g json.RawMessage) json.RawMessage {
		wOn, wAt, ok := gate(w)
		gOn, gAt, ok2 := gate(g)
		if !ok || !ok2 || wOn != manifest.TimerFired || gOn == wOn || !bytes.Equal(normValue(wAt), normValue(gAt)) {
			return g
		}
		return setMember(g, "on", manifest.TimerFired)
	}
	for i := range min(len(want.Log), len(got.Log)) {
		if want.Log[i].EventType == manifest.ExecutionSuspended && got.Log[i].EventType == manifest.ExecutionSuspended {
			got.Log[i].Payload = retarget(want.Log[i].Payload, got.Log[i].Payload)
		}
	}
	w, g := variableOf(want.State, "_suspendedOn"), variableOf(got.State, "_suspendedOn")
	if w != nil && g != nil {
		if r := retarget(w, g); !bytes.Equal(r, g) {
			got.State = string(setVariable(got.State, "_suspendedOn", r))
		}
	}
}

// alignDegraded: what a degraded typed failure's untyped STEP_FAILED says beside its message is
// the kernel's (I-KERNEL-13: the reference adds degraded and channel). Where the kernel's error
// (in the log, and in the step's frame) and the reference's agree on every other member, the
// reference's is taken.
func alignDegraded(want, got *carrier.Run) {
	for i := range min(len(want.Log), len(got.Log)) {
		if want.Log[i].EventType != manifest.StepFailed || got.Log[i].EventType != manifest.StepFailed || stepOf(want.Log[i]) != stepOf(got.Log[i]) {
			continue
		}
		w, g := memberOf(want.Log[i].Payload, "error"), memberOf(got.Log[i].Payload, "error")
		if sameBesideDegraded(w, g) {
			got.Log[i].Payload = setMember(got.Log[i].Payload, "error", w)
		}
	}
	wf, gf := memberOf(json.RawMessage(want.State), "frames"), memberOf(json.RawMessage(got.State), "frames")
	var frames map[string]json.RawMessage
	if json.Unmarshal(wf, &frames) != nil {
		return
	}
	changed := false
	for step, f := range frames {
		w, g := memberOf(f, "error"), memberOf(memberOf(gf, step), "error")
		if sameBesideDegraded(w, g) {
			gf, changed = setMember(gf, step, setMember(memberOf(gf, step), "error", w)), true
		}
	}
	if changed {
		got.State = string(setMember(json.RawMessage(got.State), "frames", gf))
	}
}

// sameBesideDegraded reports whether w is a degraded failure's error and g agrees with it on every
// member but degraded and channel.
func sameBesideDegraded(w, g json.RawMessage) bool {
	rest := func(raw json.RawMessage) (string, bool) {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil || m == nil {
			return "", false
		}
		_, degraded := m["degraded"]
		delete(m, "degraded")
		delete(m, "channel")
		b, _ := json.Marshal(m)
		return string(normValue(b)), degraded
	}
	wr, degraded := rest(w)
	gr, _ := rest(g)
	return degraded && wr != "" && wr == gr && !bytes.Equal(normValue(w), normValue(g))
}

// memberOf is member k of object raw, nil when raw is no object or has none.
func memberOf(raw json.RawMessage, k string) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m[k]
}

// alignHumanGates: a human step may park on a gate of the kernel's own (I-KERNEL-22; the spec
// fixes only condition.stepId): where the reference parked the step on its id, the kernel's gate
// is renamed to it, as a park's gate and as the type of the event that answered it.
func alignHumanGates(want, got *carrier.Run) {
	park := func(e spi.Envelope) (on, step string) {
		var p struct {
			On        string `json:"on"`
			Condition struct {
				StepID string `json:"stepId"`
			} `json:"condition"`
		}
		if e.EventType == manifest.ExecutionSuspended && json.Unmarshal(e.Payload, &p) == nil {
			return p.On, p.Condition.StepID
		}
		return "", ""
	}
	rename := map[string]string{}
	for i := range min(len(want.Log), len(got.Log)) {
		wOn, wStep := park(want.Log[i])
		gOn, gStep := park(got.Log[i])
		if wStep != "" && wOn == wStep && gStep == wStep && gOn != wOn {
			rename[gOn] = wOn
		}
	}
	if len(rename) == 0 {
		return
	}
	for i, e := range got.Log {
		if r, ok := rename[e.EventType]; ok {
			got.Log[i].EventType = r
		}
		got.Log[i].Payload = renameStrings(e.Payload, rename)
	}
	got.State = string(renameStrings(json.RawMessage(got.State), rename))
}

// alignWaitIDs: a wait's id is the kernel's (I-KERNEL-8): the kernel's ids, in the order its
// parks first name them, are renamed to the reference's, wherever they appear as a value or a key.
func alignWaitIDs(want, got *carrier.Run) {
	w, g := waitIDs(want.Log), waitIDs(got.Log)
	if len(w) != len(g) {
		return
	}
	rename := map[string]string{}
	for i := range g {
		rename[g[i]] = w[i]
	}
	for i := range got.Log {
		got.Log[i].Payload = renameStrings(got.Log[i].Payload, rename)
	}
	got.State = string(renameStrings(json.RawMessage(got.State), rename))
}

func waitIDs(log []spi.Envelope) []string {
	var out []string
	for _, e := range log {
		if e.EventType != manifest.ExecutionSuspended {
			continue
		}
		var p struct {
			Waits []struct {
				WaitID string `json:"waitId"`
			} `json:"waits"`
		}
		_ = json.Unmarshal(e.Payload, &p)
		for _, w := range p.Waits {
			if !slices.Contains(out, w.WaitID) {
				out = append(out, w.WaitID)
			}
		}
	}
	return out
}

// alignQuotaOrder: admission's refusal may record QUOTA_EXCEEDED after the refused step's
// STEP_STARTED (I-KERNEL-9); the two envelopes are swapped back, their sequences kept in place.
func alignQuotaOrder(want, got *carrier.Run) {
	for i := 0; i+1 < min(len(want.Log), len(got.Log)); i++ {
		w0, w1, g0, g1 := want.Log[i], want.Log[i+1], got.Log[i], got.Log[i+1]
		if w0.EventType == manifest.QuotaExceeded && w1.EventType == manifest.StepStarted &&
			g0.EventType == manifest.StepStarted && g1.EventType == manifest.QuotaExceeded && stepOf(g0) == stepOf(g1) {
			g0.Sequence, g1.Sequence = g1.Sequence, g0.Sequence
			got.Log[i], got.Log[i+1] = g1, g0
		}
	}
}

// alignContinuedIDs: the id of the execution continueAsNew starts is the kernel's (I-KERNEL-16):
// the ids the kernel's runs name in EXECUTION_CONTINUED.continuedTo, and those of the executions
// driven, are renamed to the reference's, in every run.
func alignContinuedIDs(_ clients.Case, want, got *carrier.Run) {
	rename := map[string]string{}
	ws, gs := append([]*carrier.Run{want}, pointers(want.Driven)...), append([]*carrier.Run{got}, pointers(got.Driven)...)
	for i := range min(len(ws), len(gs)) {
		if g, w := gs[i].ExecutionID, ws[i].ExecutionID; g != w {
			rename[g] = w
		}
		if g, w := continuedTo(gs[i].Log), continuedTo(ws[i].Log); g != "" && w != "" && g != w {
			rename[g] = w
		}
	}
	if len(rename) == 0 {
		return
	}
	for _, r := range append([]*carrier.Run{got}, pointers(got.Driven)...) {
		if id, ok := rename[r.ExecutionID]; ok {
			r.ExecutionID = id
		}
		for i := range r.Log {
			if id, ok := rename[r.Log[i].ExecutionID]; ok {
				r.Log[i].ExecutionID = id
			}
			r.Log[i].Payload = renameStrings(r.Log[i].Payload, rename)
		}
		r.State = string(renameStrings(json.RawMessage(r.State), rename))
	}
}

// continuedTo is the id a log's EXECUTION_CONTINUED names, "" when it has none.
func continuedTo(log []spi.Envelope) string {
	for _, e := range log {
		if e.EventType == manifest.ExecutionContinued {
			var p struct {
				ContinuedTo string `json:"continuedTo"`
			}
			_ = json.Unmarshal(e.Payload, &p)
			return p.ContinuedTo
		}
	}
	return ""
}

func pointers(runs []carrier.Run) []*carrier.Run {
	out := make([]*carrier.Run, len(runs))
	for i := range runs {
		out[i] = &runs[i]
	}
	return out
}

// alignResumeBatches: an accepted resume's envelopes may be appended in another order
// (I-KERNEL-50). A batch is an EXECUTION_RESUMED of the reference's log with the envelopes of its
// plan before it (APPROVAL_GRANTED, EXECUTION_MIGRATED, a kernel DECISION_RECORDED, the delivered
// event, which carries the resume's answer); where the kernel's envelopes at those positions are
// the same envelopes in another order, they are put back in the reference's, sequences in place.
func alignResumeBatches(want, got *carrier.Run) {
	for j := range min(len(want.Log), len(got.Log)) {
		if want.Log[j].EventType != manifest.ExecutionResumed {
			continue
		}
		i := j
		for i > 0 && inResumeBatch(want.Log[i-1], want.Log[j]) {
			i--
		}
		w, g := want.Log[i:j+1], got.Log[i:j+1]
		order := make([]spi.Envelope, 0, len(w))
		for _, we := range w {
			k := slices.IndexFunc(g, func(ge spi.Envelope) bool { return sameEnvelope(we, ge) })
			if k < 0 {
				break
			}
			order = append(order, g[k])
			g = slices.Delete(slices.Clone(g), k, k+1)
		}
		if len(order) != len(w) {
			continue
		}
		for n := range order {
			order[n].Sequence = got.Log[i+n].Sequence
		}
		copy(got.Log[i:j+1], order)
	}
}

// inResumeBatch reports whether e can be one of the envelopes a resume appends before resumed.
func inResumeBatch(e, resumed spi.Envelope) bool {
	switch e.EventType {
	case manifest.ApprovalGranted, manifest.ExecutionMigrated:
		return true
	case manifest.DecisionRecorded:
		return string(memberOf(e.Metadata, "kernel")) == "true"
	}
	return (!manifest.IsKernelEventType(e.EventType) || e.EventType == manifest.TimerFired) &&
		bytes.Equal(normValue(e.Payload), normValue(resumed.Payload))
}

// sameEnvelope compares two envelopes' type, payload and metadata as values.
func sameEnvelope(a, b spi.Envelope) bool {
	return a.EventType == b.EventType && bytes.Equal(normValue(a.Payload), normValue(b.Payload)) &&
		bytes.Equal(normValue(a.Metadata), normValue(b.Metadata))
}

func stepOf(e spi.Envelope) string {
	var p struct {
		StepID string `json:"stepId"`
	}
	_ = json.Unmarshal(e.Payload, &p)
	return p.StepID
}

// sameEnvelopes compares two logs envelope by envelope: type, payload and metadata as values, and
// sequence and workflowId.
func sameEnvelopes(want, got []spi.Envelope) bool {
	return slices.EqualFunc(want, got, func(w, g spi.Envelope) bool {
		return sameEnvelope(w, g) && w.Sequence == g.Sequence && w.WorkflowID == g.WorkflowID
	})
}

// sameBeside reports whether two metadata objects agree on every member but k.
func sameBeside(a, b json.RawMessage, k string) bool {
	strip := func(raw json.RawMessage) string {
		var m map[string]json.RawMessage
		if len(raw) == 0 || json.Unmarshal(raw, &m) != nil {
			return string(normValue(raw))
		}
		delete(m, k)
		if len(m) == 0 {
			return ""
		}
		b, _ := json.Marshal(m)
		return string(normValue(b))
	}
	return strip(a) == strip(b)
}

// setMember is object raw with member k set to v (raw unchanged when it is not an object).
func setMember(raw json.RawMessage, k string, v any) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return raw
	}
	b, _ := json.Marshal(v)
	m[k] = b
	out, err := json.Marshal(m)
	if err != nil {
		return raw
	}
	return out
}

// variableOf is variables[name] of a folded state, nil when absent.
func variableOf(state, name string) json.RawMessage {
	return memberOf(memberOf(json.RawMessage(state), "variables"), name)
}

// setVariable is state with variables[name] set to v.
func setVariable(state, name string, v json.RawMessage) json.RawMessage {
	st := json.RawMessage(state)
	return setMember(st, "variables", setMember(memberOf(st, "variables"), name, v))
}

// deleteVariable is state without variables[name].
func deleteVariable(state, name string) json.RawMessage {
	st := json.RawMessage(state)
	var vars map[string]json.RawMessage
	if json.Unmarshal(memberOf(st, "variables"), &vars) != nil {
		return st
	}
	delete(vars, name)
	return setMember(st, "variables", vars)
}

// renameStrings rewrites every string value and object key of raw found in rename.
func renameStrings(raw json.RawMessage, rename map[string]string) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return raw
	}
	var walk func(any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case string:
			if r, ok := rename[x]; ok {
				return r
			}
		case []any:
			for i := range x {
				x[i] = walk(x[i])
			}
		case map[string]any:
			out := make(map[string]any, len(x))
			for k, e := range x {
				if r, ok := rename[k]; ok {
					k = r
				}
				out[k] = walk(e)
			}
			return out
		}
		return v
	}
	b, err := json.Marshal(walk(v))
	if err != nil {
		return raw
	}
	return b
}
