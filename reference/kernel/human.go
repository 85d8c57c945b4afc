package kernel

import (
	"encoding/json"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
)

// KindHuman is the task kind of a human step: a step answered by a resume, not by an effect.
const KindHuman = "human"

// human runs a human step (spec §5): a suspend point that consumes its _resumePayloads entry in
// order with the suspends, live and on replay past the completed step. It parks on the gate named
// by the step id, recording condition.stepId; the answer becomes the step's output (I-KERNEL-22).
// r.mu is held by the caller.
func (c *Context) human(task Task, input any) (json.RawMessage, error) {
	r := c.r
	if c.inParallel {
		return nil, &SyscallError{Syscall: "execute", Reason: "a human step inside a parallel branch is not supported (I-KERNEL-6)"}
	}
	f, started := r.frame(task.ID)
	if started && f.status == fold.FrameCompleted {
		r.gateIdx++ // it consumed its entry when it completed
		if r.rt.cfg.Hooks.HumanKeepsEntry {
			r.gateIdx--
		}
		r.segment++
		r.segLive = false
		return f.output, nil
	}
	if r.gateIdx < len(r.resumes) {
		answer := r.resumes[r.gateIdx]
		r.gateIdx++
		r.segment++
		r.segLive = false
		if r.readOnly {
			panic(abortSignal{r.divergence(manifest.StepCompleted)})
		}
		attempt := 1
		if started {
			attempt = f.attempt
		} else {
			raw, err := rawJSON(input)
			if err != nil {
				return nil, &SyscallError{Syscall: "execute", Reason: "human step input has no JSON form: " + err.Error()}
			}
			r.mustAppend(newEvent{eventType: manifest.StepStarted, payload: stepStarted(Task{ID: task.ID, Kind: KindHuman}, 1, raw)})
		}
		r.mustAppend(newEvent{eventType: manifest.StepCompleted, payload: obj("stepId", task.ID, "output", answer)})
		r.frames[task.ID] = frameRec{status: fold.FrameCompleted, attempt: attempt, output: answer}
		return answer, nil
	}
	gate := r.rt.cfg.Choices.HumanGatePrefix + task.ID
	if r.readOnly && (r.startStatus != fold.StatusSuspended || r.parkedOn != gate) {
		panic(abortSignal{r.divergence(manifest.ExecutionSuspended + " on " + gate)})
	}
	if r.readOnly || (r.startStatus == fold.StatusSuspended && r.parkedOn == gate) {
		r.parked, r.parkedGate = true, gate
		panic(parkSignal{})
	}
	var evs []newEvent
	if !started {
		raw, err := rawJSON(input)
		if err != nil {
			return nil, &SyscallError{Syscall: "execute", Reason: "human step input has no JSON form: " + err.Error()}
		}
		evs = append(evs, newEvent{eventType: manifest.StepStarted, payload: stepStarted(Task{ID: task.ID, Kind: KindHuman}, 1, raw)})
		r.frames[task.ID] = frameRec{status: fold.FrameRunning, attempt: 1}
	}
	evs = append(evs, newEvent{eventType: manifest.ExecutionSuspended, payload: obj("on", gate, "condition", obj("stepId", task.ID))})
	if r.rt.cfg.Hooks.HumanNoCondition {
		evs[len(evs)-1].payload = obj("on", gate)
	}
	r.mustAppend(evs...)
	r.parked, r.parkedGate = true, gate
	panic(parkSignal{})
}
