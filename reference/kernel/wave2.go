package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spi"
)

// WaitGate is the gate receive and select park on. It is a kernel event type, so no caller's
// resume can answer it: only Deliver does, with kernel-stamped facts (I-KERNEL-8).
const WaitGate = manifest.MessageConsumed

func (c *Context) feature(name string) error {
	s, _ := manifest.LookupSyscall(name)
	if !c.r.rt.cfg.Features.enabled(s.Feature) && !c.r.rt.cfg.Hooks.Wave2Unflagged {
		return &SyscallDisabledError{Name: name, Feature: s.Feature}
	}
	return nil
}

// ContinuedID is the id continueAsNew gives the next execution of executionID (deterministic, so
// a re-run after a crash finds the one it already started).
func ContinuedID(executionID string) string { return executionID + ".next" }

// ContinueAsNew ends this execution with EXECUTION_CONTINUED and starts a fresh one of the same
// flow with input (Wave 2, behind Features.ContinueAsNew). The new execution is started, not run:
// drive it with Runtime.Drive. The calling flow unwinds.
func (c *Context) ContinueAsNew(input any) error {
	if err := c.feature("continueAsNew"); err != nil {
		return err
	}
	raw, err := rawJSON(input)
	if err != nil {
		return &SyscallError{Syscall: "continueAsNew", Reason: "input has no JSON form: " + err.Error()}
	}
	r := c.r
	r.mu.Lock()
	defer r.mu.Unlock()
	c.enter()
	if c.inParallel {
		return &SyscallError{Syscall: "continueAsNew", Reason: "not allowed inside a parallel branch (I-KERNEL-6)"}
	}
	if r.readOnly {
		// a replay of the continued execution serves its continueAsNew when the log's next
		// execution was started with this input (I-WIRE-43); anything else diverges
		if r.recordedTo != "" && r.startedWith(r.recordedTo, raw) {
			r.continuedTo = r.recordedTo
			panic(continueSignal{})
		}
		panic(abortSignal{r.divergence(manifest.ExecutionContinued)})
	}
	next := ContinuedID(r.execID)
	if sfx := r.rt.cfg.Choices.ContinuedSuffix; sfx != "" {
		next = r.execID + sfx
	}
	existing, err := r.rt.cfg.Store.Read(r.ctx, next)
	if err != nil {
		panic(abortSignal{&StoreError{ExecutionID: next, Op: "read", Err: err}})
	}
	if len(existing) == 0 {
		start := spiEnvelope(r, next, manifest.ExecutionStarted, obj("input", raw, "flowId", r.flow.ID, "parent", r.execID), kernelMeta)
		if err := r.rt.cfg.Store.Append(r.ctx, next, start, spi.AppendOptions{}); err != nil {
			panic(abortSignal{&StoreError{ExecutionID: next, Op: "append", Err: err}})
		}
	}
	r.mustAppend(newEvent{eventType: manifest.ExecutionContinued, payload: obj("continuedTo", next), metadata: kernelMeta})
	r.continuedTo = next
	panic(continueSignal{})
}

// startedWith reports whether execution id's log begins with an EXECUTION_STARTED whose input is
// input. r.mu is held.
func (r *run) startedWith(id string, input json.RawMessage) bool {
	evs, err := r.rt.cfg.Store.Read(r.ctx, id)
	if err != nil || len(evs) == 0 || evs[0].EventType != manifest.ExecutionStarted {
		return false
	}
	var p struct {
		Input json.RawMessage `json:"input"`
	}
	return json.Unmarshal(evs[0].Payload, &p) == nil && spi.SameJSON(payloadOrNull(p.Input), payloadOrNull(input))
}

func payloadOrNull(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("null")
	}
	return b
}

// Receive waits for one message on topic (Wave 2, behind Features.Receive). A delivered message is
// recorded (MESSAGE_CONSUMED and a wait-addressed EXECUTION_RESUMED, both kernel-stamped) and
// served on replay; until then the execution parks on WaitGate.
func (c *Context) Receive(topic string) (json.RawMessage, error) {
	if err := c.feature("receive"); err != nil {
		return nil, err
	}
	_, msg, err := c.wait("receive", []string{topic})
	return msg, err
}

// Select waits for the first message on any of topics (Wave 2, behind Features.Select) and
// returns its index and the message.
func (c *Context) Select(topics ...string) (int, json.RawMessage, error) {
	if err := c.feature("select"); err != nil {
		return 0, nil, err
	}
	return c.wait("select", topics)
}

func (r *run) waitID(k, i int) string {
	if p := r.rt.cfg.Choices.WaitIDPrefix; p != "" {
		return fmt.Sprintf("%s%d-%d", p, k, i)
	}
	return fmt.Sprintf("w%d.%d", k, i)
}

func (c *Context) wait(syscall string, topics []string) (int, json.RawMessage, error) {
	if len(topics) == 0 || slices.Contains(topics, "") {
		return 0, nil, &SyscallError{Syscall: syscall, Reason: "needs non-empty topics"}
	}
	r := c.r
	r.mu.Lock()
	defer r.mu.Unlock()
	c.enter()
	if c.inParallel {
		return 0, nil, &SyscallError{Syscall: syscall, Reason: "a park inside a parallel branch is not supported (I-KERNEL-6)"}
	}
	k := r.waitIdx
	r.waitIdx++
	for i := range topics {
		if ans, ok := r.waitAnswers[r.waitID(k, i)]; ok {
			return i, ans, nil
		}
	}
	if r.readOnly && (r.startStatus != fold.StatusSuspended || r.parkedOn != WaitGate) {
		panic(abortSignal{r.divergence(manifest.ExecutionSuspended + " on " + WaitGate)})
	}
	if r.readOnly || (r.startStatus == fold.StatusSuspended && r.parkedOn == WaitGate) {
		r.parked, r.parkedGate = true, WaitGate
		panic(parkSignal{})
	}
	waits := make([]any, len(topics))
	for i, t := range topics {
		waits[i] = map[string]any{"waitId": r.waitID(k, i), "kind": syscall, "topic": t}
	}
	r.mustAppend(newEvent{eventType: manifest.ExecutionSuspended, payload: obj("on", WaitGate, "waits", waits)})
	r.parked, r.parkedGate = true, WaitGate
	panic(parkSignal{})
}

// DeliveryRefusedError: Deliver found no open wait for the topic; nothing was appended.
type DeliveryRefusedError struct{ ExecutionID, Topic, Reason string }

func (e *DeliveryRefusedError) Error() string {
	return fmt.Sprintf("deliver to %q on topic %q refused: %s", e.ExecutionID, e.Topic, e.Reason)
}

// Deliver hands a message to an execution parked in receive/select on topic, records it
// (MESSAGE_CONSUMED, then a wait-addressed EXECUTION_RESUMED, kernel-stamped) and re-runs the
// flow. With no open wait for the topic it is refused and nothing is appended.
func (rt *Runtime) Deliver(ctx context.Context, executionID, topic, messageID string, message json.RawMessage) (Result, error) {
	if message == nil {
		message = json.RawMessage("null")
	}
	if !json.Valid(message) {
		return Result{}, &DeliveryRefusedError{ExecutionID: executionID, Topic: topic, Reason: "message is not JSON"}
	}
	l, err := rt.load(ctx, executionID)
	if err != nil {
		return Result{}, err
	}
	st := l.st
	if st.Status != fold.StatusSuspended || gateOf(st) != WaitGate {
		return Result{}, &DeliveryRefusedError{ExecutionID: executionID, Topic: topic, Reason: "the execution is not waiting for a message"}
	}
	var waits map[string]struct {
		Topic string `json:"topic"`
	}
	_ = json.Unmarshal(st.Variables.Values[fold.VarWaits], &waits)
	ids := make([]string, 0, len(waits))
	for id, w := range waits {
		if w.Topic == topic {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return Result{}, &DeliveryRefusedError{ExecutionID: executionID, Topic: topic, Reason: "no open wait on this topic"}
	}
	slices.Sort(ids)
	def, err := rt.flowOf(l)
	if err != nil {
		return Result{}, err
	}
	pre := []newEvent{
		{eventType: manifest.MessageConsumed, payload: obj("topic", topic, "messageId", messageID, "waitId", ids[0], "message", message), metadata: kernelMeta},
		{eventType: manifest.ExecutionResumed, payload: obj("waitId", ids[0], "answer", message), metadata: kernelMeta},
	}
	return rt.runWith(ctx, executionID, def, st, pre)
}
