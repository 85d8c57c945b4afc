package carrier

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf16"

	"golang.org/x/text/unicode/norm"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// The defects Hooks.Slip names: each one a kernel written from docs/wire.md alone was once
// certified with, and the rule it breaks.
const (
	// SlipCanonicalEscaped writes getState's canonical with every non-ASCII character escaped
	// \uXXXX (breaks I-WIRE-60: canonical is the bytes docs/vectors.md defines).
	SlipCanonicalEscaped = "canonical-escaped"
	// SlipCanonicalCodePoints sorts canonical's keys by code point, not UTF-16 unit (I-WIRE-60).
	SlipCanonicalCodePoints = "canonical-code-points"
	// SlipSequenceOffByOne answers getState's top-level sequence one past the log's last
	// (breaks I-WIRE-60).
	SlipSequenceOffByOne = "sequence-off-by-one"
	// SlipBudgetFirstDimension keeps, of a budget execution.start gives, only its first capped
	// dimension in name order (breaks I-WIRE-17, S8.budget.may-cap).
	SlipBudgetFirstDimension = "budget-first-dimension"
	// SlipWakeAtTruncated records sleepUntil's wakeAt truncated to the whole second (breaks
	// S5.timer.durable-wakeat).
	SlipWakeAtTruncated = "wakeat-truncated"
	// SlipStepIDsNFC normalises a step id to Unicode NFC before the kernel sees it (breaks
	// I-WIRE-61: a step is named by the id its caller gave, byte for byte).
	SlipStepIDsNFC = "step-ids-nfc"
	// SlipResumeAsTerminalRefused refuses execution.resumeAs onto a completed, failed or cancelled
	// execution -32025 (breaks I-WIRE-29: resumeAs is the way out of a terminal execution).
	SlipResumeAsTerminalRefused = "resumeas-terminal-refused"
	// SlipCallAfterJoin runs a call made in a branch its parallel already joined at the flow's
	// top instead of refusing it -32025 (breaks I-WIRE-11, I-WIRE-52).
	SlipCallAfterJoin = "call-after-join"
	// SlipJoinEarly answers a join made before every branch ended with null instead of refusing
	// it -32025 (breaks I-WIRE-52).
	SlipJoinEarly = "join-early"
	// SlipHumanAnyGate answers a human step's park with a resume whatever (non-kernel) event type
	// it names (breaks S5.ingress.gate-match).
	SlipHumanAnyGate = "human-any-gate"
	// SlipKernelGateResume takes a resume whose event type is a kernel event type when it is the
	// gate the execution is parked on, appending it as the caller sent it (breaks
	// S5.ingress.kernel-namespace: a caller forges a kernel fact).
	SlipKernelGateResume = "kernel-gate-resume"
	// SlipAwaitingWhenIdle answers getState's awaitingDriver as "no driver and not finished", so a
	// parked execution shows awaitingDriver true (breaks I-WIRE-63).
	SlipAwaitingWhenIdle = "awaiting-when-idle"
)

// slipResume answers a resume the way the Slip defect does: ok reports that it answered;
// eventType may be changed to what the kernel is then asked to resume with.
func (c *Carrier) slipResume(ctx context.Context, execID string, eventType *string, payload json.RawMessage, live bool) (any, bool) {
	h := c.opts.Hooks.Slip
	if live || h != SlipHumanAnyGate && h != SlipKernelGateResume {
		return nil, false
	}
	st, err := c.rt.State(ctx, execID)
	if err != nil || st.Status != fold.StatusSuspended {
		return nil, false
	}
	var on struct {
		On        string `json:"on"`
		Condition struct {
			StepID string `json:"stepId"`
		} `json:"condition"`
	}
	_ = json.Unmarshal(st.Variables.Values[fold.VarSuspendedOn], &on)
	kernelType := manifest.IsKernelEventType(*eventType)
	switch {
	case h == SlipKernelGateResume && kernelType && *eventType == on.On && *eventType != manifest.TimerFired:
		if c.forge(execID, forged{*eventType, payload}, forged{manifest.ExecutionResumed, payload}) {
			return startResult{ExecutionID: execID, Status: fold.StatusRunning, AwaitingDriver: true}, true
		}
	case h == SlipHumanAnyGate && on.Condition.StepID != "" && !kernelType && !strings.HasPrefix(*eventType, "__loom_"):
		*eventType = on.On
	}
	return nil, false
}

// slipCall answers a call the way the Slip defect does before it reaches the run: ok reports that
// it answered.
func (s *session) slipCall(name string, args json.RawMessage, branch []int) (any, bool) {
	if s.slip != SlipJoinEarly || name != "parallel" {
		return nil, false
	}
	var a struct {
		Join bool `json:"join"`
	}
	if json.Unmarshal(args, &a) != nil || !a.Join {
		return nil, false
	}
	s.rmu.Lock()
	open := s.openUnder(pathKey(branch))
	s.rmu.Unlock()
	if len(open) == 0 {
		return nil, false
	}
	return syscallResult{Value: json.RawMessage("null")}, true
}

// slipState is getState's answer as the Slip defect writes it.
func (c *Carrier) slipState(out StateResult) StateResult {
	switch c.opts.Hooks.Slip {
	case SlipCanonicalEscaped:
		var b strings.Builder
		for _, r := range out.Canonical {
			if r < 0x80 {
				b.WriteRune(r)
				continue
			}
			units := []uint16{uint16(r)}
			if r > 0xffff {
				a, z := utf16.EncodeRune(r)
				units = []uint16{uint16(a), uint16(z)}
			}
			for _, u := range units {
				fmt.Fprintf(&b, `\u%04x`, u)
			}
		}
		out.Canonical = b.String()
	case SlipCanonicalCodePoints:
		// a language's default encoder: keys in byte (= code point) order, nothing else changed
		d := json.NewDecoder(strings.NewReader(out.Canonical))
		d.UseNumber()
		var v any
		if d.Decode(&v) == nil {
			var b bytes.Buffer
			e := json.NewEncoder(&b)
			e.SetEscapeHTML(false)
			if e.Encode(v) == nil {
				out.Canonical = strings.TrimSuffix(b.String(), "\n")
			}
		}
	case SlipSequenceOffByOne:
		out.Sequence++
	case SlipAwaitingWhenIdle:
		out.AwaitingDriver = out.Driver == "none" && (out.Status == fold.StatusRunning || out.Status == fold.StatusSuspended)
	}
	return out
}

// slipBudget is a start's budget as the Slip defect keeps it.
func (c *Carrier) slipBudget(b kernel.Budget) kernel.Budget {
	if c.opts.Hooks.Slip != SlipBudgetFirstDimension || len(b) < 2 {
		return b
	}
	names := make([]string, 0, len(b))
	for n := range b {
		names = append(names, n)
	}
	slices.Sort(names)
	return kernel.Budget{names[0]: b[names[0]]}
}

// slipArgs is a syscall's arguments as the Slip defect hands them to the kernel.
func (c *Carrier) slipArgs(name string, args json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	switch {
	case c.opts.Hooks.Slip == SlipWakeAtTruncated && name == "sleepUntil":
		var w int64
		if json.Unmarshal(args, &m) != nil || json.Unmarshal(m["wakeAt"], &w) != nil {
			return args
		}
		m["wakeAt"] = mustJSON(w - w%1000)
	case c.opts.Hooks.Slip == SlipStepIDsNFC && (name == "execute" || name == "run"):
		if json.Unmarshal(args, &m) != nil {
			return args
		}
		nfc := func(raw json.RawMessage) json.RawMessage {
			var s string
			if json.Unmarshal(raw, &s) != nil {
				return raw
			}
			return mustJSON(norm.NFC.String(s))
		}
		if _, ok := m["stepId"]; ok {
			m["stepId"] = nfc(m["stepId"])
		}
		var task map[string]json.RawMessage
		if json.Unmarshal(m["task"], &task) == nil && task["id"] != nil {
			task["id"] = nfc(task["id"])
			m["task"] = mustJSON(task)
		}
	default:
		return args
	}
	return mustJSON(m)
}

// slipResumeAs is the Slip defect's refusal of a resumeAs onto a terminal execution.
func (c *Carrier) slipResumeAs(ctx context.Context, execID string) *bridge.RPCError {
	if c.opts.Hooks.Slip != SlipResumeAsTerminalRefused {
		return nil
	}
	st, err := c.rt.State(ctx, execID)
	if err != nil {
		return nil
	}
	switch st.Status {
	case fold.StatusCompleted, fold.StatusFailed, fold.StatusCancelled:
		return rpcErr(CodeNotRunnable, "terminal", fmt.Sprintf("execution %q is %s", execID, st.Status), "executionId", execID)
	}
	return nil
}
