package foldprops

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spi"
	"pgregory.net/rapid"
)

// GenOptions configures the log generator. Zero fields take the defaults.
type GenOptions struct {
	// Profile is the newest schema the log may use: features of later versions are not generated
	// (I-FOLD-14). Zero: the current schema.
	Profile fold.Profile
	// MaxActions bounds the number of generator actions (each writes one to three envelopes).
	// Default 40.
	MaxActions int
	// CoreOnly restricts the log to the core subset the model fold implements: execution-level
	// events, STEP_STARTED/_COMPLETED/_FAILED, DECISION_RECORDED {id, choice} and unknown types,
	// stamped or not.
	CoreOnly bool
	// Unusual allows shapes a kernel never writes but a log may hold: an EXECUTION_FAILED without
	// error (spec §4, ADR 0105 D4) and known types with unreadable payloads.
	Unusual bool
	// Hostile puts, into about one envelope in four, extreme numbers (1e400, -0, 1e-400,
	// 2^53+1), odd Unicode (lone surrogates, U+2028, escaped spellings of member names) and
	// reserved keys (__proto__, __loom_…, _input) in any member of its payload or metadata, as a
	// name or a value, or repeats a member (hostile.go; I-FOLD-29, I-FOLD-30, I-FOLD-31).
	// Envelopes stay well-formed.
	Hostile bool
	// ExecutionID of the generated envelopes. Default "exec-1".
	ExecutionID string
}

func (o GenOptions) withDefaults() GenOptions {
	if o.MaxActions <= 0 {
		o.MaxActions = 40
	}
	if o.ExecutionID == "" {
		o.ExecutionID = "exec-1"
	}
	if o.Profile == (fold.Profile{}) {
		o.Profile = fold.Current()
	}
	return o
}

// Log generates one execution's realistic envelope log: a start, then steps with retries and
// typed or untyped failures, decisions (repeated ids too), stamped and unstamped emits, parks on
// ordinary and reserved gates with null and non-null resumes, parallel siblings failing while
// parked or after the execution ended, resumeAs re-opens, migrations, metering, kernel-stamped and unstamped Wave 2 facts,
// quarantine (now and then up to the 1 024 bound, and releases with neither or both of
// operator/auto), unknown types and __proto__ container keys. Sequences are dense from 0. The
// shapes properties exist for are biased to occur at the minimum frequencies
// TestGeneratorFrequencies asserts over a fixed seed set.
func Log(o GenOptions) *rapid.Generator[[]spi.Envelope] {
	o = o.withDefaults()
	return rapid.Custom(func(t *rapid.T) []spi.Envelope { return genLog(t, o) })
}

// JSONValue generates JSON-able Go values rich in the cases canonical JSON must get right:
// hard numbers, escapes, U+2028, astral characters, __proto__ and array-index-like keys.
func JSONValue() *rapid.Generator[any] {
	return rapid.Custom(func(t *rapid.T) any { return jsonValue(t, 2) })
}

var (
	hardStrings = []string{"", "a", "é", "\u2028", "😀", "__proto__", "<&>", `"q"\`, "line\n\t", "\u0000x", "\uFB33"}
	hardKeys    = []string{"a", "b", "z", "__proto__", "10", "2", "é", "😀", "", "\uFB33"}
	hardNumbers = []float64{0, 1, -1, 0.1, 1e21, 1e-7, 0.000001, -0.5, 123456789012345680000, 9007199254740993, 2.5, 1e300}
)

func jsonValue(t *rapid.T, depth int) any {
	max := 6
	if depth <= 0 {
		max = 3
	}
	switch rapid.IntRange(0, max).Draw(t, "kind") {
	case 0:
		return nil
	case 1:
		return rapid.Bool().Draw(t, "bool")
	case 2:
		if rapid.Bool().Draw(t, "intOrHard") {
			return float64(rapid.IntRange(-1000, 1000).Draw(t, "int"))
		}
		return rapid.SampledFrom(hardNumbers).Draw(t, "number")
	case 3, 4:
		return rapid.SampledFrom(hardStrings).Draw(t, "string")
	case 5:
		n := rapid.IntRange(0, 3).Draw(t, "len")
		a := make([]any, n)
		for i := range a {
			a[i] = jsonValue(t, depth-1)
		}
		return a
	default:
		n := rapid.IntRange(0, 3).Draw(t, "len")
		m := map[string]any{}
		for range n {
			m[rapid.SampledFrom(hardKeys).Draw(t, "key")] = jsonValue(t, depth-1)
		}
		return m
	}
}

// encode writes v as JSON in one of several equivalent spellings (canonical, Go's encoder with
// HTML escapes, indented), so the fold is fed raw texts that differ from its own output.
func encode(t *rapid.T, v any) json.RawMessage {
	var b []byte
	var err error
	switch rapid.IntRange(0, 2).Draw(t, "spelling") {
	case 0:
		b, err = fold.Canonical(v)
	case 1:
		b, err = json.Marshal(v)
	default:
		b, err = json.MarshalIndent(v, " ", "  ")
	}
	if err != nil {
		panic(fmt.Sprintf("foldprops: encoding %#v: %v", v, err))
	}
	return b
}

// builder writes one log while tracking what a kernel would know, so actions stay realistic.
type builder struct {
	t        *rapid.T
	o        GenOptions
	evs      []spi.Envelope
	status   string // running, suspended, terminal
	open     []string
	late     []string // steps still open when the execution ended: siblings that may settle late
	parkFail bool     // a STEP_FAILED landed during the current park (_failedWhileParked, 1.21.0)
	attempts map[string]int
	steps    int
	decided  []string
	emitted  [][3]string // type, payload, digest
	segment  int
	waits    []string
	topics   map[string][]string // held message ids per topic (kernel view)
	released map[string]string
	msgs     int
}

func (b *builder) wave2() bool      { return b.o.Profile.AtLeast(23) }
func (b *builder) quarantine() bool { return b.o.Profile.AtLeast(25) }

// hostileOneIn reports, for a Hostile log, a one-in-n draw: a targeted hostile shape a rule exists
// for (a reserved key where the fold uses a name, a counter at its bound, a member left out).
func (b *builder) hostileOneIn(n int, label string) bool {
	return b.o.Hostile && rapid.IntRange(0, n-1).Draw(b.t, label) == 0
}

func (b *builder) add(typ string, payload json.RawMessage, meta map[string]any) {
	seq := int64(len(b.evs))
	e := spi.Envelope{
		ID: "ev-" + strconv.FormatInt(seq, 10), WorkflowID: "wf-1", ExecutionID: b.o.ExecutionID,
		EventType: typ, Sequence: seq, Timestamp: 1_700_000_000_000 + seq*7, Payload: payload,
	}
	if len(meta) > 0 {
		e.Metadata, _ = json.Marshal(meta)
	}
	if b.o.Hostile && rapid.IntRange(0, 3).Draw(b.t, "hostile") == 0 {
		e.Payload, e.Metadata = b.hostile(e.Payload, e.Metadata)
	}
	b.evs = append(b.evs, e)
}

func (b *builder) obj(kv ...any) json.RawMessage {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return encode(b.t, m)
}

func (b *builder) kernelMeta(label string) map[string]any {
	if rapid.IntRange(0, 3).Draw(b.t, label) > 0 {
		return map[string]any{"kernel": true}
	}
	return nil
}

func genLog(t *rapid.T, o GenOptions) []spi.Envelope {
	b := &builder{t: t, o: o, attempts: map[string]int{}, topics: map[string][]string{}, released: map[string]string{}}
	nearBound := b.start()
	n := rapid.IntRange(o.MaxActions/3, o.MaxActions).Draw(t, "actions")
	if nearBound {
		// A state holding a thousand queued entries costs every property a thousand entries per
		// prefix: the log stays short, long enough to act on the full queue.
		n = min(n, nearBoundActions)
	}
	for range n {
		switch b.status {
		case "running":
			b.running()
		case "suspended":
			b.suspended()
		default:
			b.terminal()
		}
	}
	return b.evs
}

// nearBoundActions bounds the actions of a log whose start carries a queue near MaxQuarantined.
const nearBoundActions = 8

// start writes the EXECUTION_STARTED (and, for a carried queue near the bound, the quarantine
// facts that reach it); nearBound reports the latter.
func (b *builder) start() (nearBound bool) {
	t := b.t
	kv := []any{"input", jsonValue(t, 1)}
	var meta map[string]any
	// Now and then a continued execution carries a quarantine queue two short of the bound, so
	// the facts after the start reach MaxQuarantined and one more is ignored (1.25.0).
	nearBound = !b.o.CoreOnly && b.quarantine() && rapid.IntRange(0, 15).Draw(t, "nearBound") == 0
	var carry map[string]any
	if !b.o.CoreOnly && b.wave2() && rapid.Bool().Draw(t, "wave2Start") {
		kv = append(kv, "codeHash", "sha256:ab", "principal", map[string]any{"sub": "u1"})
		if rapid.Bool().Draw(t, "carry") {
			carry = map[string]any{
				"resources": map[string]any{"tokens": 5.0, "custom": map[string]any{"gpu": 1.5}},
				"inbox":     map[string]any{"orders": map[string]any{"count": 2.0, "last": "m0"}},
			}
			if b.quarantine() {
				carry["quarantined"] = map[string]any{"orders": []any{map[string]any{"messageId": "q0", "state": "held"}}}
				b.topics["orders"] = []string{"q0"}
			}
		}
		if rapid.Bool().Draw(t, "fork") {
			meta = map[string]any{"kernel": true, "forkChain": []any{"exec-0"}, "forkedBy": "exec-0"}
		}
	}
	if nearBound {
		if carry == nil {
			carry = map[string]any{}
		}
		q := make([]any, fold.MaxQuarantined-2)
		ids := make([]string, len(q))
		for i := range q {
			ids[i] = "c" + strconv.Itoa(i)
			q[i] = map[string]any{"messageId": ids[i], "state": "held"}
		}
		carry["quarantined"] = map[string]any{"orders": q}
		b.topics["orders"] = ids
	}
	if carry != nil && b.hostileOneIn(4, "carryCounter") {
		if in, ok := carry["inbox"].(map[string]any); ok { // the next MESSAGE_CONSUMED saturates the count (I-FOLD-21)
			in["orders"] = map[string]any{"count": 9007199254740991.0, "last": "m0"}
		}
	}
	if carry != nil && b.hostileOneIn(5, "carryShape") {
		if rapid.Bool().Draw(t, "carryNotObject") {
			kv = append(kv, "carry", rapid.SampledFrom([]any{5.0, "carry", []any{}, nil}).Draw(t, "carryValue"))
			carry = nil
		} else {
			carry["quarantined"] = []any{} // a member of the wrong shape: the carry is ignored whole
		}
	}
	if carry != nil && b.hostileOneIn(3, "carryProto") {
		// a __proto__ key in one of the carry's objects, now and then beside an invalid member:
		// the start is rejected either way (I-FOLD-30)
		res, _ := carry["resources"].(map[string]any)
		if res == nil {
			res = map[string]any{}
			carry["resources"] = res
		}
		objs := []map[string]any{res}
		for _, o := range []any{res["custom"], carry["inbox"], carry["quarantined"]} {
			if m, ok := o.(map[string]any); ok {
				objs = append(objs, m)
			}
		}
		rapid.SampledFrom(objs).Draw(t, "carryProtoIn")["__proto__"] = map[string]any{"count": 1.0, "last": "m"}
		if rapid.Bool().Draw(t, "carryInvalidToo") {
			res["tokens"] = -1.0
		}
	}
	if carry != nil {
		kv = append(kv, "carry", carry)
	}
	b.add("EXECUTION_STARTED", b.obj(kv...), meta)
	b.status = "running"
	if nearBound {
		for i := range 3 { // the third finds the queue full and is ignored
			b.msgs++
			id := "q" + strconv.Itoa(b.msgs)
			b.add("INBOX_QUARANTINED", b.obj("topic", "orders", "messageId", id), map[string]any{"kernel": true})
			if i < 2 {
				b.topics["orders"] = append(b.topics["orders"], id)
			}
		}
	}
	return nearBound
}

func (b *builder) newStep() {
	b.steps++
	id := "s" + strconv.Itoa(b.steps)
	if b.steps > 1 && rapid.IntRange(0, 9).Draw(b.t, "reuseStepId") == 0 {
		// Re-running a settled step id (a re-run after an untyped failure); never an open one.
		reused := "s" + strconv.Itoa(rapid.IntRange(1, b.steps-1).Draw(b.t, "reused"))
		if !slices.Contains(b.open, reused) {
			id = reused
		}
	}
	b.attempts[id] = 1
	kv := []any{"stepId", id, "attempt", 1.0, "input", jsonValue(b.t, 1)}
	if !b.o.CoreOnly && rapid.Bool().Draw(b.t, "kind") {
		kv = append(kv, "kind", "tool", "toolId", "t1")
	}
	b.add("STEP_STARTED", b.obj(kv...), nil)
	b.open = append(b.open, id)
}

// settle ends or retries an open step; sibling is true for a parallel sibling while parked.
func (b *builder) settle(sibling bool) {
	t := b.t
	i := rapid.IntRange(0, len(b.open)-1).Draw(t, "openStep")
	id := b.open[i]
	max := 3
	if b.o.CoreOnly {
		max = 1
	}
	kind := rapid.IntRange(0, max).Draw(t, "settle")
	if sibling && rapid.Bool().Draw(t, "siblingFails") {
		kind = 1 // a parallel sibling failing while the flow is parked (1.21.0 _failedWhileParked)
	}
	switch kind {
	case 0:
		b.add("STEP_COMPLETED", b.obj("stepId", id, "output", jsonValue(t, 1)), nil)
	case 1:
		if !b.o.CoreOnly && rapid.Bool().Draw(t, "typed") {
			b.add("STEP_FAILED", b.obj("stepId", id, "error", "E", "channel", "notFound", "payload", jsonValue(t, 1)), nil)
		} else {
			b.add("STEP_FAILED", b.obj("stepId", id, "error", jsonValue(t, 0)), nil)
		}
		b.parkFail = b.parkFail || b.status == "suspended"
	case 2:
		b.add("STEP_CANCELLED", b.obj("stepId", id, "reason", "timeout"), nil)
	default:
		b.attempts[id]++
		b.add("STEP_RETRYING", b.obj("stepId", id, "attempt", float64(b.attempts[id]), "error", "transient"), nil)
		return
	}
	b.open = append(b.open[:i:i], b.open[i+1:]...)
}

func (b *builder) decide() {
	t := b.t
	id := "d" + strconv.Itoa(len(b.decided)+1)
	if len(b.decided) > 0 && rapid.IntRange(0, 2).Draw(t, "repeatDecision") == 0 {
		id = rapid.SampledFrom(b.decided).Draw(t, "repeated")
	} else {
		b.decided = append(b.decided, id)
	}
	kv := []any{"id", id, "choice", jsonValue(t, 1)}
	var meta map[string]any
	if !b.o.CoreOnly {
		if rapid.Bool().Draw(t, "policy") {
			kv = append(kv, "context", map[string]any{"obs": 1.0}, "policy", map[string]any{"name": "eps", "propensity": 0.25})
		}
		if b.wave2() && rapid.Bool().Draw(t, "innerSteps") {
			kv = append(kv, "innerSteps", []any{"s1"})
			meta = b.kernelMeta("innerStepsKernel")
		}
	}
	b.add("DECISION_RECORDED", b.obj(kv...), meta)
}

func (b *builder) emit() {
	t := b.t
	if len(b.emitted) > 0 && rapid.IntRange(0, 2).Draw(t, "repeatEmit") == 0 {
		e := rapid.SampledFrom(b.emitted).Draw(t, "repeatedEmit")
		b.add(e[0], json.RawMessage(e[1]), map[string]any{"flowEmit": e[2]})
		return
	}
	typ := rapid.SampledFrom([]string{"progress", "ui", "stream.chunk"}).Draw(t, "emitType")
	v := jsonValue(t, 1)
	payload := encode(t, v)
	if !rapid.Bool().Draw(t, "stamped") {
		b.add(typ, payload, nil)
		return
	}
	d, err := fold.EmitDigest(b.segment, typ, payload)
	if err != nil {
		panic(err)
	}
	b.emitted = append(b.emitted, [3]string{typ, string(payload), d})
	b.add(typ, payload, map[string]any{"flowEmit": d})
}

func (b *builder) suspend() {
	t := b.t
	gates := []string{"approve", "review", fold.GateInDoubt}
	if b.wave2() {
		gates = append(gates, fold.GateDiverged)
	}
	if b.o.CoreOnly {
		gates = []string{"approve", "review", fold.GateInDoubt}
	}
	gate := rapid.SampledFrom(gates).Draw(t, "gate")
	if len(b.open) == 0 && b.status == "running" && rapid.Bool().Draw(t, "parallelSibling") {
		b.newStep() // a parallel branch still running when the flow parks
	}
	kv := []any{"on", gate}
	if !b.o.CoreOnly && rapid.Bool().Draw(t, "timed") {
		kv = append(kv, "timeout", 60000.0, "wakeAt", 1_700_000_060_000.0)
	}
	b.waits = nil
	if !b.o.CoreOnly && b.wave2() && rapid.IntRange(0, 3).Draw(t, "waits") == 0 {
		b.waits = []string{"w1", "w2"}
		waits := []any{map[string]any{"waitId": "w1", "topic": "orders"}, map[string]any{"waitId": "w2", "timeoutMs": 5.0}}
		switch {
		case b.hostileOneIn(6, "waitProto"): // the whole park is rejected (I-FOLD-30)
			waits = append(waits, map[string]any{"waitId": "__proto__"})
		case b.hostileOneIn(5, "waitRepeated"): // a repeated waitId: the later entry wins
			waits = append(waits, map[string]any{"waitId": "w1", "topic": "alerts"})
		case b.hostileOneIn(4, "waitInvalid"): // entries without a string waitId are skipped (I-FOLD-7)
			waits = append(waits, 7.0, map[string]any{"waitId": 2.0})
		}
		kv = append(kv, "waits", waits)
	}
	b.add("EXECUTION_SUSPENDED", b.obj(kv...), nil)
	b.status = "suspended"
	b.parkFail = false
}

func (b *builder) running() {
	t := b.t
	if len(b.released) > 0 && rapid.IntRange(0, 2).Draw(t, "deliverReleased") == 0 {
		b.quarantineFact() // the released head is delivered soon (MESSAGE_CONSUMED drops it, 1.25.0)
		return
	}
	if b.o.CoreOnly {
		switch rapid.IntRange(0, 7).Draw(t, "coreAction") {
		case 0, 1:
			b.newStep()
		case 2:
			if len(b.open) > 0 {
				b.settle(false)
			}
		case 3:
			b.decide()
		case 4:
			b.emit()
		case 5:
			b.suspend()
		case 6:
			b.add(rapid.SampledFrom([]string{"CUSTOM_THING", "x.y"}).Draw(t, "unknown"), encode(t, jsonValue(t, 1)), nil)
		default:
			b.end()
		}
		return
	}
	switch rapid.IntRange(0, 14).Draw(t, "action") {
	case 0, 1:
		b.newStep()
	case 2, 3:
		if len(b.open) > 0 {
			b.settle(false)
		}
	case 4:
		b.decide()
	case 5:
		b.emit()
	case 6:
		b.suspend()
	case 7:
		b.fact()
	case 8:
		b.weird()
	case 9:
		if b.wave2() {
			b.wave2Fact()
		}
	case 10, 13:
		if b.quarantine() {
			b.quarantineFact()
		}
	case 11:
		if b.o.Profile.AtLeast(22) {
			b.add("EVENTS_REHOMED", b.obj("segment", float64(rapid.IntRange(0, 3).Draw(t, "rehomed")), "by", "operator"), nil)
		}
	case 12:
		b.add("EXECUTION_MIGRATED", b.obj("fromFlowHash", "fnv1a:1", "toFlowHash", "sha256:2", "migratedInput", jsonValue(t, 1)), nil)
		if b.wave2() && rapid.Bool().Draw(t, "toCodeHash") {
			b.add("EXECUTION_MIGRATED", b.obj("toCodeHash", "sha256:c2"), nil)
		}
	default:
		b.end()
	}
}

func (b *builder) end() {
	t := b.t
	switch rapid.IntRange(0, 3).Draw(t, "end") {
	case 0, 1:
		b.add("EXECUTION_COMPLETED", b.obj("output", jsonValue(t, 1)), nil)
	case 2:
		if b.o.Unusual && rapid.IntRange(0, 3).Draw(t, "failedWithoutError") == 0 {
			b.add("EXECUTION_FAILED", b.obj(), nil)
		} else {
			b.add("EXECUTION_FAILED", b.obj("error", jsonValue(t, 0)), nil)
		}
	default:
		b.add("EXECUTION_CANCELLED", b.obj("reason", "operator"), nil)
	}
	b.finish()
}

// finish makes the execution terminal; its open steps become late siblings (a parallel branch
// whose effect settles after the flow ended, which a 1.20 fold turned into a failed execution).
func (b *builder) finish() {
	b.status, b.parkFail = "terminal", false
	b.late = append(b.late, b.open...)
	b.open = nil
}

func (b *builder) suspended() {
	t := b.t
	switch {
	case len(b.open) > 0 && rapid.IntRange(0, 2).Draw(t, "parkedSibling") == 0:
		b.settle(true) // a parallel sibling settles, often failing, while the flow is parked
		return
	case b.parkFail && rapid.IntRange(0, 3).Draw(t, "repark") == 0:
		b.suspend() // a new park ends the parked failure (spec §4)
		return
	}
	max := 6
	if b.o.CoreOnly {
		max = 3
	}
	switch rapid.IntRange(0, max).Draw(t, "parkedAction") {
	case 0:
		if len(b.open) > 0 { // a parallel sibling settles (or fails) while the flow is parked
			b.settle(true)
		} else {
			b.newStep()
		}
	case 1, 2:
		b.resume()
	case 3:
		if b.o.CoreOnly {
			b.end()
		} else {
			b.fact()
		}
	case 4:
		b.add("EXECUTION_CANCELLED", b.obj(), nil)
		b.finish()
	case 5:
		b.weird()
	default:
		if b.quarantine() && rapid.Bool().Draw(t, "parkedQuarantine") {
			b.quarantineFact() // inbox facts land while parked too (1.25.0: ignorable for the park fence)
		} else if b.wave2() {
			b.wave2Fact()
		}
	}
}

func (b *builder) resume() {
	t := b.t
	if !b.o.CoreOnly && rapid.IntRange(0, 3).Draw(t, "timer") == 0 {
		b.add("TIMER_FIRED", b.obj("wakeAt", 1_700_000_060_000.0), nil)
	}
	switch {
	case len(b.waits) > 0 && rapid.Bool().Draw(t, "waitResume"):
		w := rapid.SampledFrom(b.waits).Draw(t, "wait")
		if b.hostileOneIn(6, "resumeProto") {
			w = "__proto__"
		}
		b.add("EXECUTION_RESUMED", b.obj("waitId", w, "answer", jsonValue(t, 1)), b.kernelMeta("waitKernel"))
	case b.parkFail && rapid.IntRange(0, 2).Draw(t, "nullAfterParkedFailure") > 0:
		// status-only: a null resume after a parked failure answers no gate (spec §4, 1.21.0)
		b.add("EXECUTION_RESUMED", json.RawMessage("null"), nil)
	case rapid.Bool().Draw(t, "nullResume"):
		b.add("EXECUTION_RESUMED", json.RawMessage("null"), nil)
		b.segment++
	default:
		b.add("EXECUTION_RESUMED", encode(t, jsonValue(t, 1)), nil)
		b.segment++
	}
	b.status, b.parkFail = "running", false
}

func (b *builder) terminal() {
	t := b.t
	if len(b.late) > 0 && rapid.IntRange(0, 2).Draw(t, "lateSibling") > 0 {
		b.settleLate()
		return
	}
	switch rapid.IntRange(0, 4).Draw(t, "terminalAction") {
	case 0, 4: // resumeAs onto a terminal execution: a null resume re-opens it (1.20.0)
		b.add("EXECUTION_RESUMED", json.RawMessage("null"), nil)
		b.status = "running"
		b.open, b.late = append(b.open, b.late...), nil
	case 1:
		if b.o.CoreOnly {
			b.emit()
		} else {
			b.fact()
		}
	default:
		if !b.o.CoreOnly {
			b.weird()
		}
	}
}

// settleLate settles a sibling that was still open when the execution ended, after the terminal
// event: mostly a failure (spec §4: it never moves the status; I-FOLD-20 for pre-1.21 snapshots).
func (b *builder) settleLate() {
	t := b.t
	i := rapid.IntRange(0, len(b.late)-1).Draw(t, "lateStep")
	id := b.late[i]
	switch rapid.IntRange(0, 4).Draw(t, "lateSettle") {
	case 0:
		b.add("STEP_COMPLETED", b.obj("stepId", id, "output", jsonValue(t, 0)), nil)
	case 1:
		if b.o.CoreOnly {
			b.add("STEP_FAILED", b.obj("stepId", id, "error", "late"), nil)
		} else {
			b.add("STEP_CANCELLED", b.obj("stepId", id, "reason", "execution ended"), nil)
		}
	case 2:
		if !b.o.CoreOnly {
			b.add("STEP_FAILED", b.obj("stepId", id, "error", "E", "channel", "notFound", "payload", jsonValue(t, 0)), nil)
			break
		}
		fallthrough
	default:
		b.add("STEP_FAILED", b.obj("stepId", id, "error", jsonValue(t, 0)), nil)
	}
	b.late = append(b.late[:i:i], b.late[i+1:]...)
}

func (b *builder) fact() {
	t := b.t
	switch rapid.IntRange(0, 6).Draw(t, "fact") {
	case 0:
		tokens := float64(rapid.IntRange(0, 500).Draw(t, "tokens"))
		if b.o.Hostile && rapid.IntRange(0, 2).Draw(t, "huge") == 0 {
			// measurements whose sum leaves the double range: the sum saturates (I-FOLD-21)
			tokens = rapid.SampledFrom([]float64{1e308, math.MaxFloat64, 9e307}).Draw(t, "hugeTokens")
		}
		kv := []any{"stepId", "s1", "tokens", tokens, "costUsd", 0.25}
		if rapid.Bool().Draw(t, "badDim") {
			kv = append(kv, "ms", -3.0, "wallMs", "slow")
		}
		if b.wave2() && rapid.Bool().Draw(t, "custom") {
			custom := map[string]any{"gpu": 0.5, "neg": -1.0}
			if b.hostileOneIn(4, "customProto") { // rejects the whole measurement (I-FOLD-30)
				custom["__proto__"] = 1.0
			}
			kv = append(kv, "custom", custom)
		}
		payload := b.obj(kv...)
		if b.o.Hostile && rapid.Bool().Draw(t, "extremeMeasure") {
			// a measurement spelled as JSON.parse alone reads it: -0, 1e-400, 2^53+1, 1e400 (I-FOLD-29)
			payload = withMember(payload, rapid.SampledFrom(fold.ResourceDimensions()).Draw(t, "extremeDim"),
				rapid.SampledFrom([]string{`-0`, `1e-400`, `9007199254740993`, `1e400`, `-1e400`, `5e-324`}).Draw(t, "extreme"))
		}
		b.add("RESOURCE_METERED", payload, nil)
	case 1:
		b.add("QUOTA_EXCEEDED", b.obj("dimension", "tokens", "reason", "budget"), nil)
	case 2:
		b.add("APPROVAL_GRANTED", b.obj("eventType", "approve", "by", "alice"), nil)
	case 3:
		b.add("EFFECT_INDOUBT", b.obj("stepId", "s1", "attempt", 1.0), nil)
	case 4:
		b.add("OUTCOME_RECORDED", b.obj("score", 1.0, "recordedBy", "grader", "late", true), nil)
	case 5:
		b.add("EXECUTION_RECOVERED", b.obj("by", "dispatcher"), nil)
	default:
		b.add(rapid.SampledFrom([]string{"SAFETY_BLOCKED", "EGRESS_DENIED", "EFFECT_DENIED"}).Draw(t, "denied"), b.obj("reason", "policy"), nil)
	}
}

// weird writes what a fold must shrug off: unknown types (kernel-stamped too), __proto__
// container keys, a stamped kernel fact, and unreadable payloads of known types.
func (b *builder) weird() {
	t := b.t
	switch rapid.IntRange(0, 4).Draw(t, "weird") {
	case 0:
		b.add(rapid.SampledFrom([]string{"CUSTOM_THING", "STEP_EXPLODED", "execution_started"}).Draw(t, "unknown"),
			encode(t, jsonValue(t, 1)), b.kernelMeta("unknownKernel"))
	case 1:
		switch rapid.IntRange(0, 3).Draw(t, "proto") {
		case 0:
			b.add("STEP_COMPLETED", b.obj("stepId", "__proto__", "output", 1.0), nil)
		case 1:
			b.add("DECISION_RECORDED", b.obj("id", "__proto__", "choice", 1.0), nil)
		case 2:
			b.add("progress", b.obj("p", 1.0), map[string]any{"flowEmit": "__proto__"})
		default:
			b.add("MESSAGE_CONSUMED", b.obj("topic", "__proto__", "messageId", "m"), map[string]any{"kernel": true})
		}
	case 2:
		b.add("EXECUTION_MIGRATED", b.obj("note", "no migratedInput"), map[string]any{"seal": map[string]any{"v": 1.0, "cipher": "x", "covers": []any{"payload"}}})
	case 3:
		if b.o.Unusual {
			b.add(rapid.SampledFrom([]string{"STEP_STARTED", "DECISION_RECORDED", "RESOURCE_METERED"}).Draw(t, "unreadable"),
				encode(t, rapid.SampledFrom([]any{"oops", 1.0, nil, []any{}}).Draw(t, "unreadablePayload")), nil)
		}
	default: // an application event that carries a Wave 2 name, unstamped: a no-op
		if b.wave2() {
			b.add(rapid.SampledFrom([]string{"MESSAGE_CONSUMED", "PARALLEL_COMPLETED", "EXECUTION_CONTINUED"}).Draw(t, "w2name"),
				b.obj("topic", "t", "messageId", "m", "scopeId", "p", "continuedTo", "elsewhere"), nil)
		}
	}
}

func (b *builder) wave2Fact() {
	t := b.t
	switch rapid.IntRange(0, 3).Draw(t, "wave2") {
	case 0, 1:
		b.msgs++
		kv := []any{"topic", "orders", "messageId", "m" + strconv.Itoa(b.msgs)}
		if b.hostileOneIn(8, "consumedProto") { // rejected, even without its messageId (I-FOLD-30)
			kv = []any{rapid.SampledFrom([]string{"topic", "waitId"}).Draw(t, "protoAt"), "__proto__"}
			if rapid.Bool().Draw(t, "protoWithMessage") {
				kv = append(kv, "messageId", "m0")
			}
		}
		if !b.hostileOneIn(2, "noMessage") { // message is optional: a wait it answers then gets null
			kv = append(kv, "message", jsonValue(t, 0))
		}
		if len(b.waits) > 0 && rapid.Bool().Draw(t, "consumedWait") {
			kv = append(kv, "waitId", b.waits[0])
		}
		b.add("MESSAGE_CONSUMED", b.obj(kv...), b.kernelMeta("consumedKernel"))
	case 2:
		scope := "p" + strconv.Itoa(rapid.IntRange(1, 3).Draw(t, "scope"))
		if b.hostileOneIn(6, "scopeProto") {
			scope = "__proto__"
		}
		b.add("PARALLEL_COMPLETED", b.obj("scopeId", scope, "branches", 2.0), b.kernelMeta("scopeKernel"))
	default:
		if b.status == "running" {
			meta := b.kernelMeta("continuedKernel")
			b.add("EXECUTION_CONTINUED", b.obj("continuedTo", "exec-2", "carried", map[string]any{"inbox": map[string]any{}}), meta)
			if meta != nil {
				b.finish()
			}
		}
	}
}

func (b *builder) quarantineFact() {
	t := b.t
	topic := rapid.SampledFrom([]string{"orders", "alerts"}).Draw(t, "topic")
	if b.hostileOneIn(8, "topicProto") { // rejected, whether or not its messageId is there (I-FOLD-30)
		kv := []any{"topic", "__proto__", "operator", "alice", "deliver", true}
		if rapid.Bool().Draw(t, "protoWithID") {
			kv = append(kv, "messageId", "q0")
		}
		b.add(rapid.SampledFrom([]string{"INBOX_QUARANTINED", "INBOX_RELEASED"}).Draw(t, "protoKind"), b.obj(kv...), map[string]any{"kernel": true})
		return
	}
	held := b.topics[topic]
	action := rapid.IntRange(0, 3).Draw(t, "quarantine")
	if len(held) == 0 && action < 3 {
		action = 0
	}
	if rel := b.released[topic]; rel != "" && action > 0 {
		// the released head is delivered before anything behind it can be released
		b.add("MESSAGE_CONSUMED", b.obj("topic", topic, "messageId", rel), map[string]any{"kernel": true})
		delete(b.released, topic)
		return
	}
	switch action {
	case 0:
		if len(held) > 0 && b.hostileOneIn(4, "requeue") { // a message already queued: ignored
			b.add("INBOX_QUARANTINED", b.obj("topic", topic, "messageId", held[len(held)-1]), map[string]any{"kernel": true})
			return
		}
		b.msgs++
		id := "q" + strconv.Itoa(b.msgs)
		b.add("INBOX_QUARANTINED", b.obj("topic", topic, "messageId", id, "message", jsonValue(t, 0)), map[string]any{"kernel": true})
		if len(held) < fold.MaxQuarantined {
			b.topics[topic] = append(held, id)
		}
	case 1, 2:
		// a release of the oldest held entry, well-formed or not (1.25.0: exactly one of
		// operator/auto, auto only with deliver)
		kv := []any{"topic", topic, "messageId", held[0]}
		kind := rapid.IntRange(0, 5).Draw(t, "releaseKind")
		switch kind {
		case 0:
			kv = append(kv, "deliver", true) // ignored: neither operator nor auto
		case 1:
			kv = append(kv, "operator", "alice", "auto", true, "deliver", true) // ignored: both
		case 2:
			kv = append(kv, "auto", true) // ignored: auto only with deliver
		case 3:
			kv = append(kv, "operator", "alice", "deliver", true)
		case 4:
			kv = append(kv, "operator", "alice")
		default:
			kv = append(kv, "auto", true, "deliver", true)
		}
		meta := b.kernelMeta("releaseKernel")
		b.add("INBOX_RELEASED", b.obj(kv...), meta)
		if meta != nil && kind >= 3 {
			b.topics[topic] = held[1:]
			if kind != 4 {
				b.released[topic] = held[0]
			}
		}
	default:
		if len(held) > 0 {
			b.add("MESSAGE_CONSUMED", b.obj("topic", topic, "messageId", held[0]), map[string]any{"kernel": true})
		}
	}
}

// withMember returns the payload object with member name set to the raw JSON value (spelled as
// given: 1e400 stays 1e400); the last of a repeated name wins, as the fold reads it.
func withMember(payload json.RawMessage, name, raw string) json.RawMessage {
	n, err := parseNode(payload)
	if err != nil || n.kind != '{' {
		return payload
	}
	k, _ := json.Marshal(name)
	n.keys, n.kids = append(n.keys, string(k)), append(n.kids, &jnode{raw: raw})
	var w strings.Builder
	n.write(&w, ",", ":")
	return json.RawMessage(w.String())
}
