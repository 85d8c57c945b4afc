package ingress

import (
	"encoding/json"

	"github.com/loom-kernel/loom-conform/reference/fold"
)

// parkView is the folded _suspendedOn of a parked execution.
type parkView struct {
	Gate       string
	HasGate    bool
	WakeAt     json.RawMessage // the recorded wakeAt, when it is a finite number
	StepID     string          // condition.stepId
	Attempt    int64           // condition.attempt
	HasStep    bool
	HasAttempt bool
}

// readPark reads _suspendedOn. A park whose gate is missing or not a string matches no resume
// (fail closed); a wakeAt that is not a finite number counts as not recorded.
func readPark(st fold.State) parkView {
	var pv parkView
	m, ok := object(st.Variables.Values[fold.VarSuspendedOn])
	if !ok {
		return pv
	}
	pv.Gate, pv.HasGate = str(m["on"])
	if _, ok := finite(m["wakeAt"]); ok {
		pv.WakeAt = m["wakeAt"]
	}
	if c, ok := object(m["condition"]); ok {
		pv.StepID, pv.HasStep = str(c["stepId"])
		pv.Attempt, pv.HasAttempt = integer(c["attempt"])
	}
	return pv
}

func failedWhileParked(st fold.State) bool {
	_, ok := st.Variables.Values[fold.VarFailedWhileParked]
	return ok
}

func terminal(status string) bool {
	switch status {
	case fold.StatusCompleted, fold.StatusFailed, fold.StatusCancelled, fold.StatusContinued:
		return true
	}
	return false
}
