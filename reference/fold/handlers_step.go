package fold

import (
	"github.com/loom-kernel/loom-conform/spi"
)

// stepID reads payload.stepId without allocating. ok is false when it is missing or not a
// string; proto when it is the rejected container key.
func stepID(f *fieldSet) (id []byte, ok, proto bool) {
	id, ok = stringBytes(f[0])
	return id, ok, ok && string(id) == protoKey
}

// attemptOf returns a payload's attempt member when it is a finite number (I-FOLD-9, I-FOLD-29),
// else nil: 1e400 is no attempt a state could print.
func attemptOf(raw []byte) []byte {
	if _, ok := finiteNumber(raw); !ok {
		return nil
	}
	return trimRaw(raw)
}

// frame returns the frame of id, or a new one at attempt (1 when attempt is not a finite number).
func (ps *pass) frame(id []byte, attempt []byte) Frame {
	if ps.curSet && ps.cur.StepID == string(id) {
		return ps.cur
	}
	if fr, ok := ps.s.Frames[string(id)]; ok {
		return fr
	}
	a := attemptOf(attempt)
	if a == nil {
		a = rawOne
	}
	return Frame{StepID: string(id), Attempt: a}
}

// putFrame stores a frame. The last frame written stays in a one-entry write-back cache, so a
// step's start, retries and settle cost one map write, not one each.
func (ps *pass) putFrame(fr Frame) {
	if ps.curSet && ps.cur.StepID != fr.StepID {
		ps.flushFrame()
	}
	ps.cur, ps.curSet = fr, true
}

// flushFrame writes the cached frame into the state.
func (ps *pass) flushFrame() {
	if !ps.curSet {
		return
	}
	if ps.s.Frames == nil {
		ps.s.Frames = map[string]Frame{}
	}
	ps.s.Frames[ps.cur.StepID] = ps.cur
	ps.cur, ps.curSet = Frame{}, false
}

// stepStarted opens a frame: status running, attempt, input (kept until it settles, 1.26.0).
func (ps *pass) stepStarted(e *spi.Envelope) bool {
	f, _ := ps.fields(e.Payload, "stepId", "attempt", "input")
	id, ok, proto := stepID(&f)
	if proto || !ok {
		return proto
	}
	attempt := attemptOf(f[1])
	if attempt == nil {
		attempt = rawOne
	}
	ps.putFrame(Frame{StepID: string(id), Status: FrameRunning, Attempt: attempt, Input: f[2]})
	return false
}

// stepRetrying: status retrying, the new attempt and its error; the input is kept (1.26.0).
func (ps *pass) stepRetrying(e *spi.Envelope) bool {
	f, _ := ps.fields(e.Payload, "stepId", "attempt", "error")
	id, ok, proto := stepID(&f)
	if proto || !ok {
		return proto
	}
	fr := ps.frame(id, f[1])
	fr.Status = FrameRetrying
	if a := attemptOf(f[1]); a != nil {
		fr.Attempt = a
	}
	if f[2] != nil {
		fr.Error = f[2]
	}
	ps.putFrame(fr)
	return false
}

// settle applies what every settling event shares: the status, and the input dropped (1.26.0).
func (ps *pass) settle(fr *Frame, status string) {
	fr.Status = status
	if ps.p.dropSettledInput() {
		fr.Input = nil
	}
}

// stepCompleted: status completed and its output; earlier error fields are cleared.
func (ps *pass) stepCompleted(e *spi.Envelope) bool {
	f, _ := ps.fields(e.Payload, "stepId", "output", "attempt")
	id, ok, proto := stepID(&f)
	if proto || !ok {
		return proto
	}
	fr := ps.frame(id, f[2])
	ps.settle(&fr, FrameCompleted)
	fr.Output = f[1]
	fr.Error, fr.ErrorChannel, fr.ErrorPayload = nil, nil, nil
	ps.putFrame(fr)
	return false
}

// stepFailed: status failed, error, and a typed failure's errorChannel/errorPayload (1.17.0). It
// never fails the execution (1.21.0); while suspended it sets _failedWhileParked. As 1.20.0 it
// fails the execution, as that version did.
func (ps *pass) stepFailed(e *spi.Envelope) bool {
	f, _ := ps.fields(e.Payload, "stepId", "error", "channel", "payload", "attempt")
	id, ok, proto := stepID(&f)
	if proto || !ok {
		return proto
	}
	fr := ps.frame(id, f[4])
	ps.settle(&fr, FrameFailed)
	fr.Output = nil
	fr.Error = f[1]
	fr.ErrorChannel, fr.ErrorPayload = nil, nil
	if _, typed := stringValue(f[2]); typed {
		fr.ErrorChannel = f[2]
		fr.ErrorPayload = f[3]
	}
	ps.putFrame(fr)
	switch {
	case ps.p.stepFailedFailsExecution():
		ps.s.Status = StatusFailed
	case ps.s.Status == StatusSuspended:
		ps.setVar(VarFailedWhileParked, rawTrue)
	}
	return false
}

// stepCancelled: status cancelled.
func (ps *pass) stepCancelled(e *spi.Envelope) bool {
	f, _ := ps.fields(e.Payload, "stepId", "attempt")
	id, ok, proto := stepID(&f)
	if proto || !ok {
		return proto
	}
	fr := ps.frame(id, f[1])
	ps.settle(&fr, FrameCancelled)
	ps.putFrame(fr)
	return false
}
